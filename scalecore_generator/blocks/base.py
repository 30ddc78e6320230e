"""What every block shares: the errors, the page it is expanded on, the panel being rendered.

A block is ``/// <kind>`` with typed options; the kind (a folder, see scalecore_generator/kinds/kind.py) says
what the options are, checks them against what was baked and renders its template. Nothing here
knows a kind: ``PageContext.kinds`` comes from the registry.
"""

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import markdown
import markupsafe

from scalecore_generator.kinds.options import OptionError, PanelOptions  # noqa: F401 (the blocks' API, as before)
from scalecore_generator.foundation.manifest import PAGE_MANIFEST, PAGE_MANIFEST_SCRIPT
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.foundation.text import slug  # noqa: F401 (the blocks' API, as before)

FIGURES = "assets/scalecore/figures"  # the fallbacks' figures (Panel.figure), named by content

SHARED_TEMPLATES = Path(__file__).resolve().parent  # panel.html: the root every panel extends
# A relative link to a .md file in rendered author text (not a URL with a scheme, not absolute).
PAGE_LINK = re.compile(r'href="(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)([^"#?]*\.md)([#?][^"]*)?"')


class NamedUndefined(jinja2.StrictUndefined):
    """StrictUndefined whose error keeps what was asked of what (``point.entropyy``: the point and
    'entropyy'), so the message can list what the value does have."""

    __slots__ = ()

    def _fail_with_undefined_error(self, *args, **kwargs):
        try:
            return super()._fail_with_undefined_error(*args, **kwargs)
        except jinja2.UndefinedError as error:
            error.scalecore_owner, error.scalecore_name = self._undefined_obj, self._undefined_name
            raise

    # jinja2 binds these to Undefined's own method, not to the subclass's: bound again here
    __iter__ = __str__ = __len__ = __eq__ = __ne__ = __bool__ = __hash__ = __contains__ = _fail_with_undefined_error
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail_with_undefined_error
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pos__ = __neg__ = __call__ = _fail_with_undefined_error
    __getitem__ = __lt__ = __le__ = __gt__ = __ge__ = __int__ = __float__ = __complex__ = _fail_with_undefined_error
    __pow__ = __rpow__ = _fail_with_undefined_error


def _defined(value):
    """``value``, or the template's error for a value that is not there (a filter's argument)."""
    if isinstance(value, jinja2.Undefined):
        value._fail_with_undefined_error()
    return value


def _path_to(owner, given: dict) -> str | None:
    """How the template reaches ``owner`` from its values: 'point', 'point.measures', 'point.weights'."""
    todo = [(name, value, 0) for name, value in sorted(given.items())]
    while todo:
        path, value, depth = todo.pop(0)
        if value is owner:
            return path
        if depth < 3 and isinstance(value, dict):
            todo += [(f"{path}.{key}", item, depth + 1) for key, item in value.items() if isinstance(key, str)]
        elif depth < 3 and isinstance(value, list):
            todo += [(f"{path}[{index}]", item, depth + 1) for index, item in enumerate(value[:50])]
    return None


def _what_it_has(owner, name, given: dict) -> tuple[str, str] | None:
    """What went wrong and the fix for ``owner.name`` (or ``owner[name]``) that is not there: the
    keys ``owner`` has (its items' count, for a list)."""
    if not isinstance(owner, (dict, list, tuple)):
        return None
    path = _path_to(owner, given) or f"the {type(owner).__name__}"
    if isinstance(owner, dict):
        keys = ", ".join(sorted(str(key) for key in owner)) or "(none)"
        return (f"{path} has no key {name!r}",
                f"use one of the keys {path} has: {keys}; or give it {name!r} where it is made (a baked point is "
                "what the kind's compute function returns)")
    return (f"{path} has {len(owner)} items, so no item {name!r}",
            f"use an index from 0 to {len(owner) - 1}, or loop over it: {{% for item in {path} %}}")


NUMBER_FORMATS = re.compile(r",?(?:\.\d{1,2}f)?")  # as views.js's number() reads them


class BlockError(ScalecoreError):
    """A mistake in an author block, located on its page: ``str()`` is ``page:line: message``."""

    def __init__(self, page: str, line: int, message: str):
        super().__init__(f"{page}:{line}: {message}")
        self.page, self.line, self.message = page, line, message


@dataclass
class PageContext:
    """The page being expanded, as the plugin knows it."""

    page: str  # e.g. "docs/lessons/softmax.md", as shown in errors
    site_root: str  # relative URL from this page to the site root, e.g. "../../" or "./"
    sites: dict  # kind name -> scalecore_generator.kinds.kind.Site (corpora, seeds, settings, the kind's own settings)
    kinds: dict  # name -> Kind class, every kind authors may use
    read_baked: Callable[[str], dict]  # site path -> parsed JSON (for the no-JS fallbacks)
    scripts: dict = field(default_factory=dict)  # kind name -> site path of its panel.js (and style.css)
    line_offset: int = 0  # lines MkDocs stripped before on_page_markdown (front matter)
    markdown_extensions: list = field(default_factory=list)
    markdown_config: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)  # site path -> SVG text the fallbacks drew (Panel.figure)
    # A link to a .md file, relative to this page ('../corpora.md'), -> that page's URL relative
    # to this one (as MkDocs writes it), or None when it is no page of the site.
    resolve_link: Callable[[str], str | None] | None = None
    pages: tuple = ()  # the site's pages (src paths), to name the closest to a broken link
    # What author texts became as HTML in earlier builds (a cache.Memo: get(key, make)), or None
    memo: object = None
    # The build's templates and views (outside a build: a set of their own, without caches)
    templates: "PanelTemplates" = field(default_factory=lambda: PanelTemplates())
    # The pages' panels as earlier builds rendered them (blocks/remembered.py), or None
    remembered: object = None


def named(value) -> str:
    """An option that is a function (a fence's format), by its name, not its address."""
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"


def reads_files(context: PageContext, text: str) -> bool:
    """Converting ``text`` with the page's extensions may read files, so its HTML can change
    while the text does not: pymdownx.snippets, for a text that includes one (``--8<--``, any
    number of dashes) or for every text when it appends files of its own."""
    if "pymdownx.snippets" not in context.markdown_extensions:
        return False
    options = context.markdown_config.get("pymdownx.snippets") or {}
    return any(options.get(option) for option in ("auto_append", "base_path_auto_append")) or "8<-" in text


def _conversion_key(context: PageContext) -> Callable[[str], str | None]:
    """The key an author text's HTML is kept under in the build's memo: the text, the page's
    extensions with their options, and the versions of Python-Markdown and its extensions, or
    None for a text to convert every time. Python-Markdown turns the same text into the same
    HTML under the same extensions, except where one reads files (reads_files)."""
    extensions = context.markdown_extensions
    if not all(isinstance(name, str) for name in extensions):
        return lambda text: None  # an extension given as an object: no name to key it by
    try:
        import pymdownx
    except ImportError:
        pymdownx = None
    versions = [markdown.__version__, getattr(pymdownx, "__version__", None)]
    setting = json.dumps([extensions, context.markdown_config, versions], sort_keys=True, default=named)

    def key(text: str) -> str | None:
        if reads_files(context, text):
            return None
        return hashlib.sha256(json.dumps([setting, text]).encode("utf-8")).hexdigest()

    return key


class PanelTemplates:
    """The panels' templates for one build: one jinja2 environment per kind folder (its
    template.html, extending the shared panel.html), with the build's views as the templates'
    ``num`` filter and ``view`` function, and its cache of compiled templates (``bytecode_cache``,
    kept across builds: jinja2 checks each template's source, so an edited one is compiled again)."""

    def __init__(self, views=None, bytecode_cache=None):
        from scalecore_generator.blocks import views as shared

        self.views = views if views is not None else shared.unbuilt()
        self.bytecode_cache = bytecode_cache
        self.environments: dict[Path, jinja2.Environment] = {}

    def number(self, value, spec="") -> str:
        """A number as the shared views write it (views.js): the same in the fallback, the baked
        figure and the live view. A format views.js does not write is refused (it fell back to
        the site's format without a word: num(',.2f') wrote 4468)."""
        if spec and not NUMBER_FORMATS.fullmatch(spec):
            raise ValueError(f"num({spec!r}): the num filter writes '' (the site's format), '.Nf' (N decimals), "
                             "',' (thousands separators) or ',.Nf' (both), as the panel's script does")
        return self.views.view("number", [_defined(value), spec])

    def view(self, name: str, spec) -> markupsafe.Markup:
        """A shared view's markup (its texts escaped by the view itself)."""
        return markupsafe.Markup(self.views.view(name, _defined(spec)))

    def environment(self, folder: Path) -> jinja2.Environment:
        if folder not in self.environments:
            environment = jinja2.Environment(
                loader=jinja2.FileSystemLoader([str(folder), str(SHARED_TEMPLATES)]),
                autoescape=True,  # every value is text unless a template marks it |safe on purpose
                undefined=NamedUndefined,  # a misspelt variable is a build error, not an empty string
                trim_blocks=True,
                lstrip_blocks=True,
                bytecode_cache=self.bytecode_cache,
            )
            environment.filters["num"] = self.number
            environment.globals["view"] = self.view
            self.environments[folder] = environment
        return self.environments[folder]


@dataclass
class Panel:
    """One block being rendered: its kind, its place on the page and the page around it."""

    kind: object  # the Kind instance
    context: PageContext
    number: int  # 1-based position among all blocks of the page
    kind_number: int  # 1-based position among the blocks of this kind on the page
    options_json: str  # the canonical options, as handed to the browser
    shared: dict = field(default_factory=dict)  # per-page caches (one Markdown instance)
    line: int = 0  # the block's opening line in the .md file
    lines: dict = field(default_factory=dict)  # option -> its line in the .md file

    def line_of(self, key: str) -> int:
        """The line of an option (the block's opening line for one left out), for messages."""
        return self.lines.get(key, self.line)

    @property
    def id(self) -> str:
        return f"scalecore-{slug(self.context.page)}-{self.number}"

    def url(self, site_path: str) -> str:
        """A site path as a URL relative to this page (works from file:// too)."""
        return f"{self.context.site_root}{site_path}"

    @property
    def site(self):
        """The site as this panel's kind sees it (scalecore_generator.kinds.kind.Site)."""
        return self.context.sites[self.kind.name]

    def file(self, name: str) -> str:
        """The URL of one of this kind's baked files (``api/<kind>/<name>``), relative to the page."""
        return self.url(f"api/{self.kind.name}/{name}")

    def figure(self, view: str, spec) -> str:
        """The URL of a figure of the fallback, drawn now by a shared view (views.js).

        A kind whose grid is large draws its fallback's figures this way instead of with
        ``figures()``: only what a page shows is drawn, not one file per point. The file is named
        by its content (``assets/scalecore/figures/<sha256>.svg``), so two panels showing the same
        figure share it and the same sources give the same site."""
        text = self.context.templates.views.figure(view, spec)
        site_path = f"{FIGURES}/{hashlib.sha256(text.encode('utf-8')).hexdigest()[:20]}.svg"
        self.context.figures[site_path] = text
        return self.url(site_path)

    def num(self, value, spec: str = "") -> str:
        """A number as the panel's script and the baked figures write it (the shared views; the
        templates' ``num`` filter)."""
        return self.context.templates.number(value, spec)

    def view(self, name: str, spec) -> str:
        """A shared view's markup (views.js), as the panel's script draws it."""
        return self.context.templates.views.view(name, spec)

    def script(self, group: str) -> str:
        """The URL of the data.js of one group of points ('' for a kind's only group)."""
        return self.file(f"{group}/data.js" if group else "data.js")

    def baked(self, path: str) -> dict:
        """One baked point of this kind, by its path (``demo/0/none``, ``index``)."""
        site_path = f"api/{self.kind.name}/{path}.json"
        try:
            return self.context.read_baked(site_path)
        except (OSError, KeyError, ValueError) as error:
            raise OptionError(None, f"cannot read the baked file {site_path} ({error}); "
                                  "is the bake up to date?") from error

    def markdown(self, text: str, key: str | None = None) -> str:
        """Author text as HTML, with the page's markdown extensions, raw HTML shown as text.

        The escaping is Python-Markdown's documented recipe: without the ``html_block``
        preprocessor and the ``html`` inline pattern, '<script>' is text like any other.
        A link to a .md file becomes the URL of that page, as MkDocs writes links in the page's
        own markdown (it never sees the HTML a block hands it); one to a .md file that is no page
        of the site is an OptionError on ``key``.
        """
        key_of = self.shared.get("markdown key")
        if key_of is None:
            key_of = self.shared["markdown key"] = _conversion_key(self.context)
        memo_key = key_of(text)
        if memo_key is None or self.context.memo is None:
            html = self._convert(text)
        else:
            html = self.context.memo.get(memo_key, lambda: self._convert(text))
        return PAGE_LINK.sub(lambda match: self._link(match, key), html)

    def _convert(self, text: str) -> str:
        renderer = self.shared.get("markdown")
        if renderer is None:
            renderer = markdown.Markdown(extensions=self.context.markdown_extensions,
                                         extension_configs=self.context.markdown_config)
            renderer.preprocessors.deregister("html_block", strict=False)
            renderer.inlinePatterns.deregister("html", strict=False)
            self.shared["markdown"] = renderer
        return renderer.reset().convert(text)

    def _link(self, match: re.Match, key: str | None) -> str:
        target, rest = match[1], match[2] or ""
        resolve = self.context.resolve_link
        url = resolve(target) if resolve else None
        if url is None:
            import difflib
            import posixpath

            here = posixpath.dirname(self.context.page.split("/", 1)[-1]) or "."
            wanted = posixpath.normpath(posixpath.join(here, target))
            close = difflib.get_close_matches(wanted, self.context.pages, n=1, cutoff=0.6)
            hint = f" (did you mean {posixpath.relpath(close[0], here)!r}?)" if close else ""
            raise OptionError(key, f"the link to {target!r} names no page of this site{hint}. Fix: link to a "
                                   "page by its .md file, relative to this page, e.g. [Corpora](../corpora.md)")
        return f'href="{url}{rest}"'

    def render_template(self, options: PanelOptions, **values) -> str:
        """The kind's template.html with the values every panel has."""
        template = self.context.templates.environment(self.kind.folder).get_template("template.html")
        own = self.context.scripts.get(self.kind.name, {})
        shared = dict(
            kind=self.kind.name,
            label=self.kind.label,
            title=options["title"],
            panel_id=self.id,
            options_json=self.options_json,
            site_root=self.context.site_root,
            manifest=self.url(PAGE_MANIFEST),
            manifest_script=self.url(PAGE_MANIFEST_SCRIPT),  # the same data, for file://
            panel_script=self.url(own["script"]) if "script" in own else "",
            isolated=self.kind.isolated,
            scripts=[],
        )
        given = {**shared, **values}
        try:
            # Python-Markdown keeps a raw HTML block whole up to its closing tag, blank lines included
            # (so code in a <pre> stays as written); it only has to start at the line's beginning.
            return template.render(given).strip()
        except (ScalecoreError, OptionError):
            raise
        except Exception as error:
            raise self._template_error(error, given) from None

    def _template_error(self, error: Exception, given: dict) -> Exception:
        """A template that fails while it renders (a name it is not given, an attribute a value
        lacks, a filter's error), as the line of the kind's template where it failed: jinja2 puts
        the templates' own lines in the traceback. Not found there (the error is in code the
        template called): the error itself, with its traceback."""
        import traceback

        folder = Path(self.kind.folder).resolve()
        frames = [frame for frame in traceback.extract_tb(error.__traceback__)
                  if frame.filename.endswith(".html") and Path(frame.filename).resolve().is_relative_to(folder)]
        if not frames:
            return error
        where = f"{frames[-1].filename}:{frames[-1].lineno}"
        what = str(error) if isinstance(error, jinja2.TemplateError) else f"{type(error).__name__}: {error}"
        block = f"(rendering /// {self.kind.name} at {self.context.page}:{self.line})"
        if isinstance(error, jinja2.UndefinedError):
            has = _what_it_has(getattr(error, "scalecore_owner", None), getattr(error, "scalecore_name", None), given)
            if has is not None:
                return ScalecoreError(f"{where}: {has[0]} {block}. Fix: {has[1]}")
            return ScalecoreError(f"{where}: {what} {block}. Fix: use a value the template is given (its values: "
                                  f"{', '.join(sorted(given))}), or pass it from the kind's render() in kind.py: "
                                  "panel.render_template(options, name=value)")
        return ScalecoreError(f"{where}: {what} {block}. Fix: correct the template at that line, or the value "
                              "the kind's render() in kind.py passes it")

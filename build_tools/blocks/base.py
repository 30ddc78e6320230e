"""What every block kind shares: the error, the grid and page it is checked against, the registry.

A kind is one small class in ``build_tools/blocks/kinds/``:

    @register
    class Console(Kind):
        name = "console"                 # what authors write after '///'
        label = "Python console"         # the panel's accessible name when it has no title
        class Options(PanelOptions):     # typed options, validated by MkDocs' Config.validate()
            height = Integer(low=1, high=60, default=8)
        def render(self, options, panel):     # templates/blocks/console.html, autoescaped
            return panel.render_template(options, height=options["height"])

``check(options, grid)`` checks the values against the baked grid (and fills the defaults that
come from it); ``render(options, panel)`` returns the panel's HTML from its jinja2 template.
"""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import jinja2
import markdown
from mkdocs.config import base
from mkdocs.config import config_options as c

from build_tools.bake import SCALE_GUARDS
from build_tools.blocks.options import Text

TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "blocks"


class BlockError(Exception):
    """A mistake in an author block, located on its page: ``str()`` is ``page:line: message``."""

    def __init__(self, page: str, line: int, message: str):
        super().__init__(f"{page}:{line}: {message}")
        self.page, self.line, self.message = page, line, message


class OptionError(Exception):
    """A bad value of one option, raised by ``check``; the expansion adds the page and line.

    ``key`` None means the block as a whole (reported on its opening line).
    """

    def __init__(self, key: str | None, message: str):
        super().__init__(message)
        self.key, self.message = key, message


@dataclass(frozen=True)
class Grid:
    """What was baked, so blocks can only ask for data that exists."""

    corpora: tuple[str, ...]  # baked corpus names in display order
    titles: dict[str, str]  # corpus name -> title
    seeds: tuple[int, ...]
    guard_sets: tuple[str, ...]  # the 8 names, 'none' ... 'norm+init+scale'
    tokens: tuple[str, ...]  # the shared sentence's tokens
    d_model: int
    d_k: int
    variance_dims: tuple[int, ...]


@dataclass
class PageContext:
    """The page being expanded, as the plugin knows it."""

    page: str  # e.g. "docs/lessons/softmax.md", as shown in errors
    site_root: str  # relative URL from this page to the site root, e.g. "../../" or "./"
    grid: Grid
    read_baked: Callable[[str], dict]  # site path -> parsed JSON (for the no-JS fallbacks)
    line_offset: int = 0  # lines MkDocs stripped before on_page_markdown (front matter)
    markdown_extensions: list = field(default_factory=list)
    markdown_config: dict = field(default_factory=dict)


class PanelOptions(base.Config):
    """Options every kind has. ``/// kind | Title`` sets ``title`` too."""

    title = c.Optional(Text())


_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,  # every value is text unless a template marks it |safe on purpose
    undefined=jinja2.StrictUndefined,  # a misspelt variable is a build error, not an empty string
    trim_blocks=True,
    lstrip_blocks=True,
)
_environment.filters["num"] = lambda value, spec=".3g": format(value, spec)


def use_template_cache(folder) -> None:
    """Keep the panels' compiled templates in ``folder`` across builds (jinja2 checks each
    template's source, so an edited template is compiled again)."""
    from build_tools.cache import template_cache

    _environment.bytecode_cache = template_cache(Path(folder))


def slug(text: str) -> str:
    """'docs/lessons/softmax.md' -> 'docs-lessons-softmax' (stable ids for panels)."""
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"\.md$", "", text.lower())).strip("-") or "page"


@dataclass
class Panel:
    """One block being rendered: its kind, its place on the page and the page around it."""

    kind: "Kind"
    context: PageContext
    number: int  # 1-based position among all blocks of the page
    kind_number: int  # 1-based position among the blocks of this kind on the page
    options_json: str  # the canonical options, as handed to the browser
    shared: dict = field(default_factory=dict)  # per-page caches (one Markdown instance)

    @property
    def id(self) -> str:
        return f"scalecore-{slug(self.context.page)}-{self.number}"

    def url(self, site_path: str) -> str:
        """A site path as a URL relative to this page (works from file:// too)."""
        return f"{self.context.site_root}{site_path}"

    def baked(self, site_path: str) -> dict:
        try:
            return self.context.read_baked(site_path)
        except (OSError, KeyError, ValueError) as error:
            raise OptionError(None, f"cannot read the baked file {site_path} ({error}); "
                                  "is the bake up to date?") from error

    def markdown(self, text: str) -> str:
        """Author text as HTML, with the page's markdown extensions, raw HTML shown as text.

        The escaping is Python-Markdown's documented recipe: without the ``html_block``
        preprocessor and the ``html`` inline pattern, '<script>' is text like any other.
        """
        renderer = self.shared.get("markdown")
        if renderer is None:
            renderer = markdown.Markdown(extensions=self.context.markdown_extensions,
                                         extension_configs=self.context.markdown_config)
            renderer.preprocessors.deregister("html_block", strict=False)
            renderer.inlinePatterns.deregister("html", strict=False)
            self.shared["markdown"] = renderer
        return renderer.reset().convert(text)

    def render_template(self, options: PanelOptions, **values) -> str:
        """The kind's template (templates/blocks/<kind>.html) with the values every panel has."""
        template = _environment.get_template(f"{self.kind.name}.html")
        shared = dict(
            kind=self.kind.name,
            label=self.kind.label,
            title=options["title"],
            panel_id=self.id,
            options_json=self.options_json,
            site_root=self.context.site_root,
            manifest=self.url(f"{SCALE_GUARDS}/index.json"),
            manifest_script=self.url(f"{SCALE_GUARDS}/index.js"),  # the same data, for file://
            scripts=[],
        )
        # Python-Markdown keeps a raw HTML block whole up to its closing tag, blank lines included
        # (so code in a <pre> stays as written); it only has to start at the line's beginning.
        return template.render({**shared, **values}).strip()


class Kind:
    """A block kind. Subclasses set ``name``, ``label``, ``Options`` and implement ``render``."""

    name: ClassVar[str]
    label: ClassVar[str]  # accessible name of a panel without a title
    Options: ClassVar[type[PanelOptions]] = PanelOptions

    def check(self, options: PanelOptions, grid: Grid) -> None:
        """Check values against the baked grid and fill defaults that come from it.

        Raise ``OptionError(key, message)``; message says the value and what is accepted.
        """

    def render(self, options: PanelOptions, panel: Panel) -> str:
        raise NotImplementedError

    def canonical(self, options: PanelOptions) -> dict:
        """The options after validation, every key present, in the schema's order."""
        return {key: options[key] for key, _ in self.Options._schema}

    def canonical_json(self, options: PanelOptions) -> str:
        return json.dumps(self.canonical(options), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


KINDS: dict[str, type[Kind]] = {}


def register(kind: type[Kind]) -> type[Kind]:
    """Class decorator: make a kind available to authors under ``kind.name``."""
    if kind.name in KINDS:
        raise ValueError(f"two block kinds are named {kind.name!r}")
    if not issubclass(kind.Options, PanelOptions):
        raise TypeError(f"{kind.__name__}.Options must subclass PanelOptions")
    if not (TEMPLATES / f"{kind.name}.html").is_file():
        raise ValueError(f"block kind {kind.name!r} has no template {TEMPLATES / (kind.name + '.html')}")
    KINDS[kind.name] = kind
    return kind

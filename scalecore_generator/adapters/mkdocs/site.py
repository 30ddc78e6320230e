"""MkDocs' side of a build, as the plugin's hooks hand it over and take it back: its configuration
as an ``EngineSite`` and its pages as ``PageInfo``s (builder/site_build.py), its files with the
build's own found on demand, its nav checked, a link between pages as MkDocs writes it, the
assets every page loads, and the dev server's reload script allowed by the pages' policy.
"""

import difflib
import logging
import os
import posixpath
import re
from pathlib import Path, PurePath
from urllib.parse import unquote

from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.structure.files import File, Files, InclusionLevel

from scalecore_generator.adapters.mkdocs.config import missing_nav_pages, nav_line
from scalecore_generator.builder.engine_site import EngineSite, PageInfo
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.kinds.options import ENGINE_TYPE_ERROR, TYPE_NAMES, in_words
from scalecore_generator.pages import assets, frontend


class SiteFiles(Files):
    """MkDocs' files, and the build's own (SiteBuild.write_files) found on demand: a page's link
    to one (``[the API](../api/index.json)``) is checked as a link to a file of the site, as MkDocs
    checks any link, while a build no longer makes a thousand MkDocs Files for the few a page
    links to. MkDocs copies none of them: the build writes them."""

    def __init__(self, files: Files, config, ours: set[str]):
        super().__init__(list(files))
        self._config, self._ours, self._made = config, ours, {}

    def build_uris(self) -> set[str]:
        """The site paths of the build's own files (not MkDocs Files)."""
        return set(self._ours)

    def get_file_from_path(self, path: str) -> File | None:
        found = super().get_file_from_path(path)
        if found is None:
            uri = PurePath(path).as_posix()
            if uri in self._ours:
                if uri not in self._made:
                    self._made[uri] = _BuildFile.generated(self._config, uri, content=b"",
                                                           inclusion=InclusionLevel.NOT_IN_NAV)
                found = self._made[uri]
        return found


class _BuildFile(File):
    """A file the build writes itself (SiteBuild.write_files), known to MkDocs so that a page's
    link to it (``[the API](../api/index.json)``) is a link to a file of the site."""

    def copy_file(self, dirty: bool = False) -> None:
        pass

    def is_modified(self) -> bool:
        return False


def author_files(files: Files, config, command: str | None) -> dict[str, Path]:
    """The files under docs/ MkDocs publishes as they are (not pages), by their path there: those
    of this command (a draft is served, not built)."""
    docs = Path(config.docs_dir).resolve()
    found = {}
    for file in files:
        if file.is_documentation_page() or not file.abs_src_path:
            continue
        published = file.inclusion.is_in_serve() if command == "serve" else file.inclusion.is_included()
        if published and file.src_dir and Path(file.src_dir).resolve() == docs:  # not the theme's
            found[file.src_uri] = Path(file.abs_src_path)
    return found


def engine_site(config) -> EngineSite:
    return EngineSite(config_file=Path(config.config_file_path or "mkdocs.yml"), docs_dir=Path(config.docs_dir),
                      site_dir=Path(config.site_dir), markdown_extensions=config.markdown_extensions,
                      markdown_config=config.mdx_configs, theme_dirs=list(config.theme.dirs),
                      site_name=config.site_name, site_description=config.site_description or "",
                      strict=bool(config.strict))


def page_info(page) -> PageInfo:
    """A page as the build sees it. Its ``meta`` is the page's own dict: the build's changes to it
    (a title made text) are the page's."""
    return PageInfo(src_uri=page.file.src_uri, dest_uri=page.file.dest_uri, url=page.url,
                    abs_src_path=page.file.abs_src_path, title=page.title, meta=page.meta)


def add_page_assets(config, scripts: list[str]) -> None:
    """The one stylesheet and our deferred scripts on every page (once, even if on_config runs
    again on serve)."""
    if frontend.STYLESHEET not in config.extra_css:
        config.extra_css.append(frontend.STYLESHEET)
    present = [str(script) for script in config.extra_javascript]
    for script in scripts:
        if script not in present:
            deferred = ExtraScriptValue(script)
            deferred.defer = True
            config.extra_javascript.append(deferred)


def check_nav(files, config):
    """A nav entry naming a page that is not in docs/ stops the build with its line in mkdocs.yml
    (MkDocs itself only warns, and publishes a link that leads nowhere)."""
    pages = sorted(f.src_uri for f in files.documentation_pages())
    missing = missing_nav_pages(config.nav, pages)
    if not missing:
        return
    target = missing[0]
    source = config.config_file_path or "mkdocs.yml"
    line = nav_line(source, target)
    close = difflib.get_close_matches(target, pages, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    docs = Path(config.docs_dir).name
    listed = f" (the pages are: {', '.join(pages)})" if not close and len(pages) <= 20 else ""
    raise ScalecoreError(f"{source}:{line or 1}: the nav entry {target!r} is not a page in {docs}/. Fix: {hint}"
                         f"{'W' if hint else 'w'}rite the path of a page relative to {docs}/{listed}, or add that page.")


def page_link(files, here, target: str) -> str | None:
    """A link from the page ``here`` to a .md file, as MkDocs writes it in a page's own markdown:
    the URL of that page relative to ``here`` (so it follows use_directory_urls); None when the
    file is no page of the site."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(here.src_uri), unquote(target)))
    found = files.get_file_from_path(path)
    if found is None or not found.is_documentation_page():
        return None
    return found.url_relative_to(here)


def _config_lines(source: str) -> list[str]:
    try:
        return Path(source).read_text(encoding="utf-8-sig").splitlines()
    except OSError:
        return []


def _key_index(lines: list[str], key: str) -> int | None:
    """The index of a top-level key's line."""
    return next((i for i, line in enumerate(lines) if re.match(rf"{re.escape(key)}\s*:", line)), None)


def key_line(config_file: str | None, key: str) -> str:
    """``mkdocs.yml:line`` of a top-level key (the file alone when the site does not set it)."""
    source = config_file or "mkdocs.yml"
    found = _key_index(_config_lines(source), key)
    return f"{source}:{found + 1}" if found is not None else source


def yaml_problem(config_file: str | None, error: BaseException | None = None) -> str | None:
    """A mkdocs.yml that is no valid YAML, said as our messages are: ``mkdocs.yml:line:column``, what is wrong and the
    fix. MkDocs says "MkDocs encountered an error parsing the configuration file: while parsing a block mapping in
    ..." with no fix, and under ``mkdocs serve`` prints it as a traceback. ``error``: MkDocs' (its YAML error is its
    context); without it, the file is read here (None when it is valid YAML)."""
    import yaml
    from mkdocs.utils.yaml import get_yaml_loader

    source = config_file or "mkdocs.yml"
    found = error if isinstance(error, yaml.MarkedYAMLError) else getattr(error, "__context__", None)
    if error is None:
        try:
            with open(source, encoding="utf-8-sig") as text:
                yaml.load(text, Loader=get_yaml_loader())
            return None
        except yaml.MarkedYAMLError as problem:
            found = problem
        except (OSError, yaml.YAMLError):
            return None
    if not isinstance(found, yaml.MarkedYAMLError) or found.problem_mark is None:
        return None
    inside = os.path.relpath(source)  # as the author wrote it, or as they would (mkdocs serve gives it absolute)
    source = source if inside.startswith("..") else inside
    line, column = found.problem_mark.line + 1, found.problem_mark.column + 1
    opened = ""
    if found.context and found.context_mark is not None and found.context_mark.line + 1 != line:
        block = found.context.removeprefix("while parsing ").removeprefix("while scanning ")
        opened = f" (in {block} that starts at line {found.context_mark.line + 1})"
    return (f"{source}:{line}:{column}: not valid YAML: {found.problem}{opened}. Fix: compare line {line} with the "
            "lines above it: YAML nests by indentation (spaces, never tabs), a list item starts with '- ', a value "
            "follows 'key: ' on its line or is indented under it, and every [ or { is closed.")


def directory_urls_note(config) -> str | None:
    """What a site built with ``use_directory_urls: true`` (MkDocs' default) cannot do, said at
    its line: served, its pages read as any other site's; opened from disk or from the bundle's
    zip, a link to ``page/`` shows a folder, not the page. Said, not refused: a site that is only
    ever served may want the shorter addresses."""
    if not config.use_directory_urls:
        return None
    where = key_line(config.config_file_path, "use_directory_urls")
    told = "" if ":" in where.rpartition("/")[2] else " (MkDocs' default when it is not written)"
    return (f"{where}: use_directory_urls is true{told}: pages are built as folders (page/index.html), which "
            "read served, but not opened from disk or from scalecore bundle's zip. To read the site from disk too: "
            "use_directory_urls: false")


class ConfigMessageLines(logging.Filter):
    """MkDocs says "Config value 'theme': Unrecognised theme name" with no line: the line of the
    setting in mkdocs.yml goes in front, as our own messages have it. (MkDocs has no hook for its
    own settings' messages; a filter on its config logger is the one place they pass through.)"""

    def __init__(self, config_file: str | None):
        super().__init__()
        self.config_file = config_file

    def filter(self, record):
        message = record.msg if isinstance(record.msg, str) and not record.args else None
        named = message and re.match(r"Config value '([^'.]+)[^']*': ", message)
        if named and PurePath(self.config_file or "mkdocs.yml").name not in message:  # ours name the file already
            said = message[named.end():]
            typed = ENGINE_TYPE_ERROR.fullmatch(said.strip())  # "Expected type: <class 'bool'> but received: <class 'str'>"
            if typed:
                said = f"{in_words(said)}. Fix: give {named.group(1)}: {TYPE_NAMES.get(typed[1], typed[1])}"
            where = _quoted_value_line(self.config_file, named.group(1), said) or key_line(self.config_file, named.group(1))
            record.msg = f"{where}: Config value '{named.group(1)}': {said}"
        return True


def _quoted_value_line(config_file: str | None, key: str, message: str) -> str | None:
    """``mkdocs.yml:line`` of the value a message quotes ("Unrecognised theme name: 'materal'"),
    within the setting's own lines (``theme:`` and what is indented under it): the line to edit."""
    quoted = re.findall(r"'([^'\n]{2,})'", message)
    source = config_file or "mkdocs.yml"
    lines = _config_lines(source) if quoted else []
    start = _key_index(lines, key)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] not in ("", " ", "\t", "#")), len(lines))
    for number in range(start, end):
        if any(re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", lines[number]) for value in quoted):
            return f"{source}:{number + 1}"
    return None


class PageLinkLines(logging.Filter):
    """MkDocs says "Doc file 'x.md' contains a link 'y.md', but the target 'y.md' is not found among
    documentation files" with no line, and a fix only when it can guess one: the page's file and
    the link's line go in front, as our own messages have them, and a fix after, with the page of
    the site whose path is closest. (As ConfigMessageLines: a filter on MkDocs' logger is the one
    place its pages' messages pass through.)"""

    LINK = re.compile(r"Doc file '(?P<page>[^']+)' contains (?:a link|an unrecognized relative link) '(?P<link>[^']+)'")

    ANCHOR = re.compile(r"but (?:the doc '(?P<target>[^']+)' does not contain an anchor|there is no such anchor on "
                        r"this page)")

    def __init__(self, docs_dir: str, anchors=None, built=None):
        super().__init__()
        self.docs = Path(docs_dir)
        self.anchors = anchors  # a page's path under docs/ -> the anchors it has (once pages are converted)
        self.built = built  # () -> the site paths of the files the build writes itself (api/...)

    def filter(self, record):
        message = record.getMessage() if isinstance(record.msg, str) else ""
        found = self.LINK.match(message)
        if found and "Fix:" not in message:
            page, link = found["page"], found["link"]
            line = _link_line(self.docs / page, link)
            missing = "not found among documentation files" in message or "unrecognized relative link" in message
            anchor = self.ANCHOR.search(message)
            fix = f" Fix: {self._fix(page, link)}" if missing and "Did you mean" not in message else \
                f" Fix: {self._anchor_fix(anchor['target'] or page, link)}" if anchor else ""
            record.msg, record.args = f"{self.docs.name}/{page}{f':{line}' if line else ''}: {message}{fix}", ()
        return True

    def _fix(self, page: str, link: str) -> str:
        """The closest other page (the page itself is never the fix), or the page to create; for a
        file that is not a page (an image), the closest file, or the file to add."""
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), link.split("#")[0]))
        extension = posixpath.splitext(target)[1].lower()
        if extension not in ("", ".md", ".html"):
            built = sorted(uri for uri in (self.built() if self.built else ()) if uri.endswith(extension))
            files = sorted(path.relative_to(self.docs).as_posix() for path in self.docs.rglob(f"*{extension}"))
            close = difflib.get_close_matches(target, files + built, n=1, cutoff=0.3)
            example = f", e.g. '{posixpath.relpath(close[0], posixpath.dirname(page) or '.')}'" if close else ""
            folder = posixpath.dirname(target)
            if any(posixpath.dirname(uri) == folder or uri.startswith(folder + "/") for uri in built) and folder:
                # a folder the build writes (baked data): the file is the build's to write, not the author's
                return f"link to a file the build writes, by its path relative to this page{example}."
            return (f"link to a file under {self.docs.name}/ by its path relative to this page{example}, "
                    f"or add the file as {self.docs.name}/{target}.")
        pages = sorted(path.relative_to(self.docs).as_posix() for path in self.docs.rglob("*.md"))
        close = difflib.get_close_matches(target, [other for other in pages if other != page], n=1, cutoff=0.3)
        example = f", e.g. '{posixpath.relpath(close[0], posixpath.dirname(page) or '.')}'" if close else ""
        create = f", or create {self.docs.name}/{target}" if target.endswith(".md") else ""
        return f"link to a page of the site by its .md file, relative to this page{example}{create}."

    def _anchor_fix(self, target: str, link: str) -> str:
        """The closest anchor the linked page has (a heading renamed: its anchor follows its words)."""
        path, _, anchor = link.partition("#")
        ids = [found for found in (self.anchors(target) if self.anchors else []) if not found.startswith("__")]
        close = difflib.get_close_matches(anchor, ids, n=1, cutoff=0.3)
        if not close:
            return "link to a heading the page has (its anchor is the heading's words, lowercase, joined by '-')."
        return f"the closest anchor there is '#{close[0]}': write '{path}#{close[0]}'."


def conversion_error(src_uri: str, error: Exception, docs_dir, config_file: str | None) -> str:
    """'docs/page.md:12: Snippet at path 'x.md' could not be found (pymdownx.snippets, converting the
    page). Fix: ...': the line is the first of the page that holds a quoted name the error gives."""
    docs = Path(docs_dir)
    said = str(error) or type(error).__name__
    line = None
    try:
        lines = (docs / src_uri).read_text(encoding="utf-8-sig").splitlines()
    except OSError:
        lines = []
    for name in re.findall(r"'([^']+)'|\"([^\"]+)\"", said):
        name = name[0] or name[1]
        line = next((number for number, text in enumerate(lines, 1) if name in text), None)
        if line:
            break
    raised_by = type(error).__module__
    by = f" ({raised_by}, converting the page)" if raised_by != "builtins" else " (converting the page)"
    where = key_line(config_file, "markdown_extensions")
    return (f"{docs.name}/{src_uri}{f':{line}' if line else ''}: {said}{by}. Fix: correct "
            f"{'that line' if line else 'the page'}, or the extension's settings under markdown_extensions ({where}).")


def _link_line(source: Path, link: str) -> int | None:
    """The line of ``source`` whose Markdown or HTML link is ``link`` (the first), if any."""
    try:
        lines = source.read_text(encoding="utf-8-sig").splitlines()
    except OSError:
        return None
    written = (f"]({link}", f"({link})", f'"{link}"', f"<{link}>", f"]: {link}")
    return next((number for number, text in enumerate(lines, 1) if any(form in text for form in written)), None)


class PageErrorEcho(logging.Filter):
    """MkDocs logs "Error reading page 'x.md':" before the error it aborts with, which it prints
    after; ours already names the page's file and line, so that first line would dangle above it."""

    def __init__(self):
        super().__init__()
        self.pages: set[str] = set()

    def filter(self, record):
        message = record.msg if isinstance(record.msg, str) else ""
        page = re.fullmatch(r"Error (?:reading|building) page '(.+)':", message)
        return not (page and page.group(1) in self.pages)


def forget_said_messages() -> None:
    """MkDocs logs a message once per process (utils.DuplicateFilter on its build logger): under
    mkdocs serve, a rebuild that failed as an earlier one did printed "Aborted with a BuildError!"
    and no reason. Each build starts with nothing said yet; within a build, repeats stay dropped."""
    for said in logging.getLogger("mkdocs.commands.build").filters:
        if isinstance(getattr(said, "msgs", None), set):
            said.msgs.clear()


def put_on(logger_name: str, new: logging.Filter) -> logging.Filter:
    """One filter of its kind on a logger (a plugin is loaded again on every serve rebuild)."""
    logger = logging.getLogger(logger_name)
    for old in [old for old in logger.filters if type(old) is type(new)]:
        logger.removeFilter(old)
    logger.addFilter(new)
    return new


def mark_reload_script(server, nonce: str | None, failure=lambda: None) -> None:
    """The development server's live-reload script, added to each page it serves, carries the
    serve build's nonce, which the pages' policy allows: an author sees every edit without the
    policy being loosened for anything else. (MkDocs has no hook for it: its method is wrapped.)
    While the last rebuild failed (``failure()``: its message), each page it serves shows the
    message at its top (failure_banner)."""
    inject = getattr(server, "_inject_js_into_html", None)
    if nonce is None or inject is None or getattr(inject, "scalecore_nonce", None) == nonce:
        return

    def with_script(content, epoch):
        injected = inject(content, epoch)
        at = content.rfind(b"</body>")  # where MkDocs puts its script: before </body>, else at the end
        at = len(content) if at < 0 else at
        opening = b"<script>"
        if injected[at:at + len(opening)] == opening:
            injected = injected[:at] + f'<script nonce="{nonce}">'.encode() + injected[at + len(opening):]
        return injected, at

    def marked(content, epoch):
        injected, at = with_script(content, epoch)
        message = failure()
        if message:
            injected = injected[:at] + failure_banner(message).encode() + injected[at:]
        return injected

    marked.scalecore_nonce = nonce
    server._inject_js_into_html = marked
    # A failed rebuild has emptied the site folder first (MkDocs cleans it before it reads the
    # pages): a page it no longer has is the error's page, not '404 Not Found', with the reload
    # script, so it reloads when a build works.
    not_found = getattr(server, "error_handler", None)
    if not_found is None:
        return

    def failed_page(code):
        message = failure()
        if message and code == 404:
            page = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The last build failed'
                    f'</title><link rel="icon" href="data:,"></head><body>{failure_banner(message, page_kept=False)}</body></html>')
            return with_script(page.encode(), server._visible_epoch)[0]
        return not_found(code)

    server.error_handler = failed_page


def failure_banner(message: str, page_kept: bool = True) -> str:
    """What a page under ``mkdocs serve`` shows while the last rebuild failed: MkDocs keeps serving
    the last pages that built, and says so only in the terminal. Plain HTML (the pages' policy
    allows inline styles, not scripts). Over a page kept from the last build, at the foot of the
    window, not its top: on a phone it covered the header and its menu; the message folds to one
    line (a details element). On a page of its own, at the top."""
    import html

    # sticky, the page's last element: it stays at the window's foot while the reader scrolls, and
    # takes its own room at the page's end (fixed, it covered the footer and the last buttons)
    place = ("position:sticky;bottom:0;z-index:10000;max-height:45vh;overflow:auto;"
             "box-shadow:0 -2px 8px rgba(0,0,0,.4);" if page_kept else "")
    return (f'<details open id="scalecore-build-failed" role="alert" style="{place}padding:.6rem 1rem;'
            'background:#8b0000;color:#fff;font:14px/1.45 system-ui,sans-serif;white-space:pre-wrap">'
            '<summary style="cursor:pointer"><strong>The last build failed</strong>: '
            + ("this page is from the last build that worked, and reloads" if page_kept else "this page reloads")
            + " when a build succeeds.</summary>" + html.escape(message) + "</details>")


def tell_pages(server) -> None:
    """Make the pages open on the dev server reload now, as a build that worked does (MkDocs tells
    them only then): after a failed rebuild, so they show its message. (Its attributes, as
    LiveReloadServer has them; a server without them is left alone.)"""
    condition, wanted = getattr(server, "_epoch_cond", None), getattr(server, "_wanted_epoch", None)
    if condition is None or wanted is None:
        return
    with condition:
        server._visible_epoch = wanted
        condition.notify_all()



SCRIPTS_BLOCK = re.compile(r"\{%-?\s*block\s+scripts\s*-?%\}")


def check_page_scripts(html: str, page, config) -> None:
    """A page with panels that does not load the panels' scripts stops the build with the theme
    override that dropped them: the site's ``custom_dir`` template whose ``{% block scripts %}``
    replaces Material's without ``{{ super() }}`` (its line), else the override of the page's
    template. Material's own templates always load them (the site's extra_javascript)."""
    missing = assets.missing_scripts(html)
    if not missing:
        return
    custom = Path(config.theme.custom_dir).resolve() if config.theme.custom_dir else None
    template = (page.meta or {}).get("template") or "main.html"
    where = f"the theme's templates ({template})"
    if custom is not None:
        for name in (template, "main.html", "base.html"):
            path = custom / name
            text = path.read_text(encoding="utf-8") if path.is_file() else ""
            block = SCRIPTS_BLOCK.search(text)
            if block:
                where = f"{path}:{text.count(chr(10), 0, block.start()) + 1}"
                break
            if path.is_file() and name == template:
                where = str(path)
    raise ScalecoreError(
        f"{where}: the pages built with it do not load {', '.join(missing)}, so every panel stays as its no-JS "
        f"fallback, without switches or live mode (docs/{page.file.src_uri} has panels). The site's scripts "
        "(extra_javascript, where the plugin adds them) are in Material's {% block scripts %}. Fix: keep them in "
        "an override of that block: {% block scripts %}{{ super() }} ... {% endblock %}.")


MODULE_SWITCHES = ("mentor", "notes")  # plugin options a module page's front matter may set for itself


def module_switches(page, options) -> None:
    """A module page's "Ask the mentor" and "My notes" (pages/templates/module-end.html): its
    front matter's ``mentor:`` and ``notes:``, else the plugin's options of those names."""
    if page.meta and page.meta.get("code"):
        for key in MODULE_SWITCHES:
            page.meta.setdefault(key, options[key])

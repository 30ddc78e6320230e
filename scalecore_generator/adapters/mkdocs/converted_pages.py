"""A page's Markdown converted once: MkDocs converts every page again on every build, and a warm
rebuild under ``mkdocs serve`` after an edit to one page spent a third of its time converting the
pages that did not change (180 ms of 550 for this repository's site; plain MkDocs has no cache of
its own, and its ``--dirty`` reload skips pages whose navigation then goes stale).

A page's conversion is kept in the cache under the hash of everything it is made from, and a later
build takes it instead of converting again:

- the Markdown as MkDocs converts it (after every plugin's ``on_page_markdown``);
- the page's own paths, and every file of the site with its URL (links are resolved against them);
- the Markdown extensions and their settings, the site's URL style and link validation, and the
  identity of the installed packages that convert (an upgrade moves their folder's time);
- the level of MkDocs' log (what a conversion says depends on it);
- every file the conversion opened (a snippet, a glossary): each is checked against the digest it
  had, through the build's digest ledger, before the entry is taken; and the files of a small
  folder an extension's settings name (Material's custom icons, read once per process).

What a conversion leaves on the page (its HTML, table of contents, title, anchors, the anchors it
links to) is put back as MkDocs' ``Page.render`` sets it, and what it logged (a link to a missing
page) is said again, so a strict build fails as it did. A conversion that sets anything else on the
page (another MkDocs, a plugin that wraps ``render``) is not kept: its page is converted each time.

A conversion that fails (a snippet not found) is handed to the adapter, which says it with the
page's line (``failed``). Only this adapter knows MkDocs' page; the entries are the cache's records (their own sha256 in each),
written when the build succeeds, and those no page of the last build used are removed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

FORM = "scalecore/converted-page/1"
# Extensions whose conversion only changes the page it converts (what it reads from files is
# watched, below). Another extension may note what it saw elsewhere (mkdocstrings registers each
# object's anchor with autorefs while it converts): a site that uses one converts every page.
PAGE_LOCAL = ("markdown.extensions.", "pymdownx.", "material.extensions.", "scalecore_generator.")
RESTORED = {"content", "toc", "_title_from_render", "present_anchor_ids", "links_to_anchors"}

log = logging.getLogger("mkdocs.plugins.scalecore")


class ConvertedPages:
    """This build's conversions: ``take(page)`` makes the page's ``render`` come from the cache when
    it can; ``save()`` (the build succeeded) writes the new ones and drops those no page used."""

    def __init__(self, folder: Path, digest, failed=None):
        self.folder = Path(folder)
        self.failed = failed  # (page, error) -> the error to raise instead, for a conversion that failed
        self.digest = digest  # a file's sha256 (the build's ledger: unchanged files are not read)
        self.made: dict[str, dict] = {}  # key -> entry, converted by this build
        self.used: set[str] = set()
        self.taken = self.converted = 0  # this build's pages, from the cache and converted (said with -v)
        self.opened: set[str] = set()  # every file this build's conversions read (a snippet), taken or made
        self._common: tuple | None = None  # (files, their count, the key's part shared by every page)

    def take(self, page, config, files) -> None:
        """From here, ``page.render(config, files)`` takes the kept conversion when there is one,
        and keeps a new one otherwise."""
        convert = page.render  # the class's (or a plugin's wrapper of it)

        def render(config, files):
            key = self._key(page, config, files)
            entry = self._entry(key) if key is not None else None
            if entry is not None:
                self.opened.update(entry.get("opened", {}))
                _restore(page, entry, files)
                self.used.add(key)
                self.taken += 1
                return
            self.converted += 1
            try:
                made = _converted(page, convert, config, files, self.digest)
            except Exception as error:  # an extension's (a snippet not found): said by the adapter, page and line
                if self.failed is None:
                    raise
                raise self.failed(page, error) from None
            if made is not None:
                self.opened.update(made["opened"])
            if key is not None and made is not None:
                self.made[key] = made
                self.used.add(key)

        page.render = render

    def _key(self, page, config, files) -> str | None:
        if page.markdown is None:
            return None
        common = self._shared(config, files)
        if common is None:
            return None
        text = json.dumps([common, page.file.src_uri, page.file.dest_uri, page.file.url,
                           logging.getLogger("mkdocs").getEffectiveLevel(),
                           hashlib.sha256(page.markdown.encode("utf-8")).hexdigest()])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _shared(self, config, files) -> str | None:
        """The part of every page's key that is the site's: found once per build (None: no page
        of this site is kept, said with -v)."""
        if self._common is None or self._common[0] is not files or self._common[1] != len(files):
            reason, key = _site_key(config, files)
            if reason:
                log.debug(f"every page is converted again: {reason}")
            self._common = (files, len(files), key)
        return self._common[2]

    def _entry(self, key: str) -> dict | None:
        from scalecore_generator.foundation.cache import read_record

        entry = self.made.get(key) or read_record(self.folder / f"{key}.json", log)
        if not isinstance(entry, dict) or not _still(entry.get("opened", {}), self.digest):
            return None
        return entry

    def save(self) -> None:
        """The new conversions into the cache, and those no page of this build used out of it
        (best effort: the cache only saves time)."""
        from scalecore_generator.foundation.cache import write_record

        log.debug(f"pages: {self.taken} taken from the cache, {self.converted} converted")
        try:
            for key, entry in self.made.items():
                write_record(self.folder / f"{key}.json", entry)
            for kept in self.folder.glob("*.json") if self.folder.is_dir() else ():
                if kept.stem not in self.used:
                    kept.unlink(missing_ok=True)
        except OSError:
            pass
        self.made = {}

    def forget(self) -> None:
        """A build that failed keeps nothing new."""
        self.made = {}


def _site_key(config, files) -> tuple[str | None, str | None]:
    """(why no page can be kept, None), or (None, the hash of what every page's conversion shares)."""
    try:
        settings = _stable([config["markdown_extensions"], config["mdx_configs"] or {},
                            config["use_directory_urls"], config["validation"]])
    except _Unstable as error:
        return f"a Markdown extension's settings hold an object ({error}) that differs from build to build", None
    outside = [name for name in _modules(config["markdown_extensions"]) if not name.startswith(PAGE_LOCAL)]
    if outside:
        return f"the Markdown extension {outside[0]} may keep what it converts outside the page", None
    listing = sorted((f.src_uri, f.dest_uri, f.url, str(getattr(f, "inclusion", ""))) for f in files)
    text = json.dumps([FORM, settings, _converters(config["markdown_extensions"]), listing,
                       _named_folders(settings, os.path.dirname(os.path.abspath(config.config_file_path or "")))])
    return None, hashlib.sha256(text.encode("utf-8")).hexdigest()


FOLDER_FILES = 2000  # a folder a setting names, with more files than this, is left to the files opened


def _named_folders(settings, base: str) -> list:
    """Each small folder an extension's settings name (Material's custom icons), as its files' paths,
    sizes and times. An extension may read such a file once per process and remember it (Material
    keeps each icon it loaded), so the conversions after the first do not open it again: a
    changed or added icon would not convert them again by the files they opened alone. The
    project's own folder (a snippets base path), or any holding it, is left to the files opened,
    as is a folder of more than FOLDER_FILES entries."""
    found = []

    def named(value):
        if isinstance(value, list):
            for item in value:
                named(item)
        elif isinstance(value, dict):
            for item in value.values():
                named(item)
        elif isinstance(value, str) and value and os.path.isdir(os.path.join(base, value)):
            folder = os.path.abspath(os.path.join(base, value))
            if not (base + os.sep).startswith(folder.rstrip(os.sep) + os.sep):
                found.append(folder)

    named(settings)
    return [[folder, _small_folder(folder)] for folder in dict.fromkeys(found)]


def _small_folder(folder: str) -> list | str:
    """Every file under ``folder`` (path, size, time), or "large" once more than FOLDER_FILES
    entries were seen (a folder counts as one)."""
    files, seen = [], 0
    for root, folders, names in os.walk(folder):
        seen += len(folders) + len(names)
        if seen > FOLDER_FILES:
            return "large"
        folders.sort()
        for name in sorted(names):
            try:
                stat = os.stat(os.path.join(root, name))
            except OSError:
                continue
            files.append([os.path.relpath(os.path.join(root, name), folder), stat.st_size, stat.st_mtime_ns])
    return files


def _converted(page, convert, config, files, digest) -> dict | None:
    """Convert the page as MkDocs does, and what the conversion left on it, logged and opened, as
    an entry (None: it set something on the page that ``_restore`` would not put back)."""
    before = dict(vars(page))
    with _Watching(digest) as watched:
        convert(config, files)
    changed = {name for name, value in vars(page).items() if name not in before or before[name] is not value}
    if not changed <= RESTORED | {"render"}:
        log.debug(f"{page.file.src_uri} is converted each build: its conversion set {sorted(changed - RESTORED)}")
        return None
    return {"content": page.content, "toc": [_token(item) for item in page.toc],
            "title": page._title_from_render, "anchors": sorted(page.present_anchor_ids or ()),
            "links": {to.src_uri: dict(links) for to, links in (getattr(page, "links_to_anchors", None) or {}).items()},
            "said": watched.records, "opened": watched.opened}


def _restore(page, entry: dict, files) -> None:
    """What ``Page.render`` sets (MkDocs 1.6), from the entry; and what it logged, said again."""
    from mkdocs.structure.toc import get_toc

    page.content = entry["content"]
    page.toc = get_toc(entry["toc"])
    page._title_from_render = entry["title"]
    page.present_anchor_ids = set(entry["anchors"])
    if logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG:
        links = {files.get_file_from_path(uri): anchors for uri, anchors in entry["links"].items()}
        page.links_to_anchors = {to: anchors for to, anchors in links.items() if to is not None}
    for name, level, message in entry["said"]:
        said = logging.getLogger(name)
        record = said.makeRecord(name, level, "(converted page)", 0, message, (), None)
        said.callHandlers(record)  # as it reached the handlers first: its loggers' filters had run


def _token(item) -> dict:
    """A table of contents' entry as the token mkdocs.structure.toc.get_toc reads."""
    return {"name": item.title, "id": item.id, "level": item.level, "children": [_token(child) for child in item.children]}


def _still(opened: dict, digest) -> bool:
    for path, sha256 in opened.items():
        try:
            if digest(Path(path)) != sha256:
                return False
        except OSError:
            return False
    return True


class _Unstable(Exception):
    pass


def _stable(value):
    """``value`` as JSON that is the same in every process (a function by its name, not its address)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_stable(item) for item in value]
    if isinstance(value, Mapping):  # a dict, or MkDocs' config (validation's)
        return {str(key): _stable(item) for key, item in sorted(value.items(), key=lambda pair: str(pair[0]))}
    if isinstance(value, os.PathLike):  # MkDocs' !relative paths
        return os.fspath(value)
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '')}.{value.__qualname__}"
    if hasattr(value, "getConfigs"):  # a Markdown extension given as an object
        return [f"{type(value).__module__}.{type(value).__qualname__}", _stable(value.getConfigs())]
    raise _Unstable(type(value).__name__)


def _modules(extensions) -> list[str]:
    """The module of each Markdown extension: a short name is one of Python-Markdown's own when it
    has a module of that name ('toc'); any other ('noting', registered by a package) counts as a
    module of its own, outside PAGE_LOCAL. (Python-Markdown's list of registered names is not
    read: it costs 20 ms, and a build that converts no page would pay it only for this.)"""
    import importlib.util

    modules = []
    for extension in extensions:
        if not isinstance(extension, str):
            modules.append(type(extension).__module__)
            continue
        name = extension.split(":")[0]
        if "." not in name and importlib.util.find_spec(f"markdown.extensions.{name}") is not None:
            name = f"markdown.extensions.{name}"
        modules.append(name)
    return modules


def _converters(extensions) -> list:
    """The identity of the code that converts: each extension module's file, Python-Markdown's and
    MkDocs' page module, and each folder they are installed in (installing or upgrading a package
    there changes the folder's time)."""
    import importlib.util

    paths = []
    for name in dict.fromkeys(["markdown", "mkdocs.structure.pages", *_modules(extensions)]):
        try:
            module, top = importlib.util.find_spec(name), importlib.util.find_spec(name.split(".")[0])
        except (ImportError, AttributeError, ValueError):
            module = top = None
        if module is not None and module.origin:
            paths.append(module.origin)
        if top is not None and top.submodule_search_locations:
            paths.append(os.path.dirname(os.path.abspath(list(top.submodule_search_locations)[0])))
        elif top is not None and top.origin:
            paths.append(os.path.dirname(top.origin))
    seen = []
    for path in dict.fromkeys(paths):
        try:
            stat = os.stat(path)
            seen.append([path, stat.st_size, stat.st_mtime_ns])
        except OSError:
            seen.append([path, None])
    return seen


class _Watching:
    """What one conversion logs (every record any logger hands its handlers, with its message as
    it was said) and which files it opens for reading, in this thread only (the build copies files
    in others meanwhile).

    The files come from Python's audit events (``sys.addaudithook``): the one way to learn what a
    Markdown extension read (pymdownx.snippets' included files, an abbreviations glossary) without
    knowing every extension. A hook cannot be removed once added, so one is added per process and
    does nothing unless a conversion is being watched."""

    _active: dict[int, "_Watching"] = {}
    _hooked = False

    def __init__(self, digest):
        self.digest = digest
        self.records: list[list] = []
        self.opened: dict[str, str] = {}
        self._paths: list[str] = []
        # MkDocs' logger may not hand its records on to the root's: one handler on each, the root's
        # leaving MkDocs' records to the other
        thread = threading.get_ident()
        self._handlers = {"mkdocs": _Recorder(self.records, lambda record: record.thread == thread),
                          "": _Recorder(self.records, lambda record: record.thread == thread and record.name != "mkdocs"
                                        and not record.name.startswith("mkdocs."))}

    def __enter__(self):
        if not _Watching._hooked:
            sys.addaudithook(_audit)
            _Watching._hooked = True
        _Watching._active[threading.get_ident()] = self
        for name, handler in self._handlers.items():
            logging.getLogger(name).addHandler(handler)
        return self

    def __exit__(self, *exc):
        _Watching._active.pop(threading.get_ident(), None)
        for name, handler in self._handlers.items():
            logging.getLogger(name).removeHandler(handler)
        for path in dict.fromkeys(self._paths):
            try:
                if os.path.isfile(path):
                    self.opened[path] = self.digest(Path(path))
            except OSError:
                pass
        return False


def _audit(event: str, arguments: tuple) -> None:
    if event != "open" or not _Watching._active:
        return
    watching = _Watching._active.get(threading.get_ident())
    if watching is None:
        return
    path, mode, flags = (tuple(arguments) + (None, None))[:3]
    if isinstance(path, int) or path is None:
        return
    reading = ("w" not in mode and "a" not in mode and "x" not in mode and "+" not in mode) if isinstance(mode, str) \
        else isinstance(flags, int) and flags & os.O_ACCMODE == os.O_RDONLY
    path = os.fsdecode(path)
    if reading and not path.endswith(".pyc"):  # a module imported meanwhile: code, not the page's input
        watching._paths.append(os.path.abspath(path))


class _Recorder(logging.Handler):
    def __init__(self, records: list, mine):
        super().__init__(level=logging.NOTSET)
        self.records, self.mine = records, mine

    def emit(self, record):
        if self.mine(record):
            self.records.append([record.name, record.levelno, record.getMessage()])

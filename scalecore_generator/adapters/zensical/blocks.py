"""The authors' blocks, as the Markdown extension Zensical loads by name from the derived
configuration (``scalecore_generator.adapters.zensical.blocks``).

Zensical renders each page with a new Markdown instance, on threads of its own, in the process
that called ``zensical.build``, and it builds the extension from the YAML file it reads: the
extension cannot be handed the running build. build.py opens a ``Rendering`` for the length of one
build (``rendering()``) and names it in the extension's configuration (``run: <key>``); the
extension finds it by that key, and everything the build learns while Zensical renders (the
pages, the first author mistake) is kept on that object, not in this module.
"""

from __future__ import annotations

import itertools
import posixpath
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote

from scalecore_generator.adapters.zensical import ZENSICAL_VERSION
from scalecore_generator.blocks.extension import BlocksExtension
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.builder.engine_site import PageInfo
from scalecore_generator.pages.module_page import relative_url


class Rendering:
    """One Zensical build as its pages' extension sees it: the SiteBuild running, each page rendered
    (site path -> PageInfo), and the build's first mistake found in a page (shown alone, without
    Zensical's traceback)."""

    def __init__(self, build, directory_urls: bool):
        self.build = build
        self.directory_urls = directory_urls
        self.pages: dict[str, PageInfo] = {}
        self.error: BaseException | None = None
        self._sources: tuple[str, ...] | None = None
        self._lock = threading.Lock()  # Zensical may render pages on several threads

    def fail(self, error: BaseException) -> None:
        with self._lock:
            if self.error is None:
                self.error = error

    def page_of(self, md) -> PageInfo | None:
        """The page ``md`` converts, from Zensical's rendering context; one PageInfo per conversion,
        so the blocks' changes to its metadata are seen by every later step."""
        known = getattr(md, "scalecore_page", None)
        if known is not None:
            return known
        context = rendering_context(md)
        if context is None:
            return None
        page = context.page
        url = page.url.lstrip("/")
        dest = url + "index.html" if url.endswith("/") or not url else url
        info = PageInfo(src_uri=page.path, dest_uri=dest, url=url,
                        abs_src_path=str(Path(self.build.engine.docs_dir) / page.path), title=page.title, meta=page.meta)
        md.scalecore_page = info
        with self._lock:
            self.pages[dest] = info
        return info

    def sources(self) -> tuple[str, ...]:
        """The docs' Markdown files, site paths, read once per build."""
        with self._lock:
            if self._sources is None:
                docs = Path(self.build.engine.docs_dir)
                self._sources = tuple(sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")))
            return self._sources

    def links(self, page: PageInfo):
        """How a link to a .md file from ``page`` becomes the URL Zensical gives that page (it
        rewrites the page's own links after the Markdown is converted, so the blocks and the
        mentor, which read it before, resolve them the same way), and the site's pages."""
        pages = self.sources()

        def resolve(target: str) -> str | None:
            path = posixpath.normpath(posixpath.join(posixpath.dirname(page.src_uri), unquote(target)))
            if path not in pages:
                return None
            stem = path[:-len(".md")]
            if self.directory_urls:
                url = stem[:-len("index")] if stem.endswith("index") else stem + "/"
            else:
                url = stem + ".html"
            return relative_url(url, page.url) if url else relative_url("", page.url) + "/"

        return resolve, pages


# The renderings open in this process, by the key the derived configuration names (two builds in
# one process, as tests run them, each find their own).
_OPEN: dict[str, Rendering] = {}
_KEYS = itertools.count(1)


@contextmanager
def rendering(build, directory_urls: bool):
    """A Rendering of ``build`` open for the length of the block: (its key, the Rendering)."""
    key = str(next(_KEYS))
    _OPEN[key] = opened = Rendering(build, directory_urls)
    try:
        yield key, opened
    finally:
        del _OPEN[key]


def rendering_context(md):
    """The page Zensical is converting with ``md``: the one place the adapter reads Zensical's
    internals (its ``ContextPreprocessor``, not a public API), so a Zensical that moved them
    stops here with the version tested named, not somewhere inside a page."""
    try:
        from zensical.extensions.context import ContextPreprocessor

        return ContextPreprocessor.from_markdown(md)
    except (ImportError, AttributeError) as error:
        import zensical

        raise ScalecoreError(f"Zensical {getattr(zensical, 'version', lambda: '?')()} no longer gives its extensions "
                             f"the page they convert ({error}); Scalecore was tested with {ZENSICAL_VERSION}. Fix: "
                             f"pip install 'zensical=={ZENSICAL_VERSION}', or build with MkDocs: mkdocs build") from None


def makeExtension(run: str = "", **kwargs):  # noqa: N802 (Python-Markdown's name)
    opened = _OPEN.get(str(run))
    if opened is None:
        raise ScalecoreError("the Markdown extension scalecore_generator.adapters.zensical.blocks runs only inside "
                             "a Scalecore build. Fix: build with scalecore build --engine zensical, not zensical build")
    return BlocksExtension(opened.build, opened.page_of, on_error=opened.fail, links=opened.links)

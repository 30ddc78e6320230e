"""The authors' blocks, as the Markdown extension Zensical loads by name from the derived
configuration (``scalecore_generator.adapters.zensical.blocks``).

Zensical renders each page with a new Markdown instance in the process that called
``zensical.build``: the extension reaches the running build through ``ACTIVE``, set by build.py
for the length of one build, and learns the page from Zensical's rendering context.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import unquote

from scalecore_generator.adapters.zensical import ZENSICAL_VERSION
from scalecore_generator.blocks.extension import BlocksExtension
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.builder.engine_site import PageInfo
from scalecore_generator.pages.module_page import relative_url

# "build": the SiteBuild running; "pages": site path -> PageInfo of each page rendered; "error": the
# build's first mistake found while Zensical rendered a page (shown alone, without Zensical's traceback).
ACTIVE: dict = {}


def page_of(md) -> PageInfo | None:
    """The page ``md`` converts, from Zensical's rendering context; one PageInfo per conversion,
    so the blocks' changes to its metadata are seen by every later step."""
    known = getattr(md, "scalecore_page", None)
    if known is not None:
        return known
    context = rendering_context(md)
    build = ACTIVE.get("build")
    if context is None or build is None:
        return None
    page = context.page
    url = page.url.lstrip("/")
    dest = url + "index.html" if url.endswith("/") or not url else url
    info = PageInfo(src_uri=page.path, dest_uri=dest, url=url,
                    abs_src_path=str(Path(build.engine.docs_dir) / page.path), title=page.title, meta=page.meta)
    md.scalecore_page = info
    ACTIVE.setdefault("pages", {})[dest] = info
    return info


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


def links(page: PageInfo):
    """How a link to a .md file from ``page`` becomes the URL Zensical gives that page (it
    rewrites the page's own links after the Markdown is converted, so the blocks and the
    mentor, which read it before, resolve them the same way), and the site's pages."""
    build = ACTIVE["build"]
    docs = Path(build.engine.docs_dir)
    pages = ACTIVE.get("sources")
    if pages is None:
        pages = ACTIVE["sources"] = tuple(sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")))
    directory_urls = ACTIVE.get("directory_urls", False)

    def resolve(target: str) -> str | None:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page.src_uri), unquote(target)))
        if path not in pages:
            return None
        stem = path[:-len(".md")]
        if directory_urls:
            stem = stem[:-len("index")] if stem.endswith("index") else stem + "/"
            url = stem
        else:
            url = stem + ".html"
        return relative_url(url, page.url) if url else relative_url("", page.url) + "/"

    return resolve, pages


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's name)
    return BlocksExtension(ACTIVE["build"], page_of, on_error=lambda error: ACTIVE.setdefault("error", error),
                           links=links)

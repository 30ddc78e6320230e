"""The authors' blocks, as the Markdown extension Zensical loads by name from the derived
configuration (``scalecore_generator.adapters.zensical.blocks``).

Zensical renders each page with a new Markdown instance in the process that called
``zensical.build``: the extension reaches the running build through ``ACTIVE``, set by build.py
for the length of one build, and learns the page from Zensical's rendering context.
"""

from __future__ import annotations

from pathlib import Path

from scalecore_generator.blocks.extension import BlocksExtension
from scalecore_generator.build.site_build import PageInfo

# "build": the SiteBuild running; "pages": site path -> PageInfo of each page rendered; "error": the
# build's first mistake found while Zensical rendered a page (shown alone, without Zensical's traceback).
ACTIVE: dict = {}


def page_of(md) -> PageInfo | None:
    """The page ``md`` converts, from Zensical's rendering context; one PageInfo per conversion,
    so the blocks' changes to its metadata are seen by every later step."""
    known = getattr(md, "scalecore_page", None)
    if known is not None:
        return known
    from zensical.extensions.context import ContextPreprocessor

    context = ContextPreprocessor.from_markdown(md)
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


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's name)
    return BlocksExtension(ACTIVE["build"], page_of, on_error=lambda error: ACTIVE.setdefault("error", error))

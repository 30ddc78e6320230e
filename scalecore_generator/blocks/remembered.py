"""A page's panels, remembered across builds.

Rendering a page's panels (each kind's template, the shared views, the baked points they read)
was most of what a warm build spent on the pages, after reading the memo of rendered views. A page's panels are a function of what
its blocks say and where they stand, of each kind's own files, its view of the site, its baked
points (cache entries named by the hash of what made them) and its scripts, and of the Markdown
extensions that convert the authors' texts. Kept under the hash of all of that, they are taken
back whole, with what rendering them did besides: the figures drawn, the views and texts asked of
the build's memos (kept for later builds), the links to other pages resolved (resolved again, and
the page rendered again if one now lands elsewhere).

A page, not a block, is the unit: the blocks of one page share state (a self-check refuses a
question already asked on its page), so a block is rendered again with the blocks around it.

What a kind's render may depend on is therefore its contract (docs/guide/kinds.md): its options,
its panel (the site, its baked points, the shared views, the page's Markdown), the files of its
own folder and of the site's packages.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable

from scalecore_generator.blocks.base import named, reads_files


class RememberedPanels:
    """The panels of every page one build expands: ``memo`` (foundation/cache/memo.Memo) keeps them
    across builds; ``kind_key(name)`` names everything of the kind ``name`` a render reads
    besides the block itself (its files, site, baked entries and scripts)."""

    def __init__(self, memo, kind_key: Callable[[str], str]):
        self.memo = memo
        self.kind_key = kind_key

    def panels(self, context, blocks: list, render: Callable) -> list[str]:
        """The HTML of each of ``blocks`` (the page's RawBlocks, in order): remembered, or
        ``render(context)`` now (a list of the same length), whose effects are recorded."""
        key = self._key(context, blocks)
        if key is None:
            return render(context)
        remembered = self._recall(key, context)
        if remembered is not None:
            return remembered
        figures, asked, texts, links = {}, set(), set(), {}
        resolve = context.resolve_link

        def resolving(target: str) -> str | None:
            links[target] = url = resolve(target)
            return url

        recording = dataclasses.replace(
            context, figures=figures, memo=_Noting(context.memo, texts) if context.memo is not None else None,
            resolve_link=resolving if resolve is not None else None)
        with context.templates.views.recording(asked):
            html = render(recording)
        context.figures.update(figures)
        self.memo.put(key, {"panels": html, "figures": figures, "views": sorted(asked), "texts": sorted(texts),
                            "links": links})
        return html

    def _key(self, context, blocks: list) -> str | None:
        """None for a page rendered every time: an extension given as an object (nothing names
        what it does), or pymdownx.snippets including a file's text (in a block, or appended to
        every text), which may change without the page (blocks/base.reads_files)."""
        if not all(isinstance(name, str) for name in context.markdown_extensions):
            return None
        if reads_files(context, "\n".join(line for block in blocks for line in [block.title or "", *block.body])):
            return None
        seen = [context.page, context.site_root, context.line_offset, context.markdown_extensions, context.markdown_config,
                [[block.kind, block.title, block.body, block.line, block.body_line] for block in blocks],
                {name: self.kind_key(name) for name in sorted({block.kind for block in blocks}) if name in context.kinds}]
        return hashlib.sha256(json.dumps(seen, sort_keys=True, default=named).encode("utf-8")).hexdigest()

    def _recall(self, key: str, context) -> list[str] | None:
        entry = self.memo.values.get(key)
        if not isinstance(entry, dict):
            return None
        resolve = context.resolve_link
        if any((resolve(target) if resolve is not None else None) != url for target, url in entry["links"].items()):
            return None  # a linked page moved, or is gone: rendered again (and the link checked)
        self.memo.keep(key)
        context.figures.update(entry["figures"])
        context.templates.views.keep(entry["views"])
        if context.memo is not None:
            for text in entry["texts"]:
                context.memo.keep(text)
        return list(entry["panels"])


def libraries() -> str:
    """The versions of what renders a panel besides the generator's own code (the template engine,
    Python-Markdown and its extensions): part of the memo's version, so an upgrade renders again."""
    import jinja2
    import markdown

    try:
        import pymdownx
    except ImportError:
        pymdownx = None
    return f"jinja2 {jinja2.__version__} markdown {markdown.__version__} pymdownx {getattr(pymdownx, '__version__', None)}"


class _Noting:
    """A memo of converted texts that notes the keys asked of it (to keep them when the page's
    panels are later taken from their own memo)."""

    def __init__(self, memo, noted: set[str]):
        self._memo, self._noted = memo, noted

    def get(self, key: str, make):
        self._noted.add(key)
        return self._memo.get(key, make)

    def keep(self, key: str) -> None:
        self._noted.add(key)
        self._memo.keep(key)

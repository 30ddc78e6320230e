"""Panels' HTML kept out of Python-Markdown's way while a page is converted.

A panel is complete HTML when its block is expanded (``on_page_markdown``): nothing in it is
markdown. Left in the page's markdown, it is still read by Python-Markdown: its raw-HTML
preprocessor (md_in_html's, here) parses every tag of every panel with ``html.parser`` to find
where each HTML block ends, which was the largest part of a warm build's extra time over a
plain Material build (a module page's panels are most of its bytes). So each panel stands in
the markdown as one empty element, a raw HTML block Python-Markdown passes through verbatim,
and the panel's HTML takes its place again in the converted page (``on_page_content``), before
any reader of the content (the mentor, the offscreen boxes, the search index) sees it.

Python-Markdown's own ``htmlStash`` does the same inside one conversion, but a plugin's
``on_page_markdown`` has no Markdown instance to store into: hence this one, per page.
"""

from __future__ import annotations

import hashlib
import re

SLOT = re.compile(r'<div data-scalecore-slot="([0-9a-f]{32})"></div>')


class Stash:
    """One page's panels, by the slot that stands for each in its markdown."""

    def __init__(self):
        self.kept: dict[str, str] = {}

    def keep(self, html: str) -> str:
        """The slot for ``html``: named by its digest and its place, so that no text an author
        writes by chance matches one, and the same page gives the same slots."""
        token = hashlib.sha256(f"{len(self.kept)}\0{html}".encode()).hexdigest()[:32]
        self.kept[token] = html
        return f'<div data-scalecore-slot="{token}"></div>'

    def restore(self, html: str) -> str:
        """The converted page with each slot replaced by its panel (a slot this stash did not
        issue is left as it is)."""
        if not self.kept:
            return html
        return SLOT.sub(lambda match: self.kept.get(match[1], match[0]), html)


# A panel's fallback (blocks/panel.html): its one element, never nested in another.
FALLBACK = re.compile(r"(<scalecore-fallback\b[^>]*>)(.*?)(</scalecore-fallback>)", re.S)


def hold_back_fallbacks(html: str, stash: Stash) -> str:
    """The page's content with each panel's fallback emptied into ``stash``, for the search
    plugins that index it (which would index nothing of a fallback: it is data-search-exclude).
    Material's search parsed every tag of every baked table with ``html.parser`` only to skip
    it. ``stash.restore`` puts them back once
    the page is indexed (MkDocs' adapter: its last on_page_context), and on the finished page."""
    return FALLBACK.sub(lambda match: match[1] + stash.keep(match[2]) + match[3], html)

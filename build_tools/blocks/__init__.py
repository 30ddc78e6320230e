"""Author blocks: panels written in markdown, checked and expanded at build time.

    /// scale-guards | The guards at work
    corpus: [demo, kjv]
    seed: 0
    guards: init+scale
    ///

``expand_blocks(markdown, context)`` (called from the plugin's ``on_page_markdown``) replaces
each block with its panel's HTML: a complete no-JS fallback (figures and tables from the baked
data) inside a root element that the browser's scripts hydrate. Every mistake is a ``BlockError``
whose text is ``page:line: message``.

Adding a kind is one module in ``build_tools/blocks/kinds/`` that defines a ``Kind`` subclass
decorated with ``@register``, and its template ``build_tools/templates/blocks/<kind>.html``; the
modules of that folder are imported here, so nothing else changes.
"""

import importlib
import pkgutil

from build_tools.blocks import kinds as _kinds
from build_tools.blocks.base import KINDS, BlockError, Grid, Kind, OptionError, PageContext, Panel, register
from build_tools.blocks.expand import expand_blocks

for _module in pkgutil.iter_modules(_kinds.__path__):
    importlib.import_module(f"{_kinds.__name__}.{_module.name}")


def line_offset(source: str, markdown: str) -> int:
    """Lines MkDocs removed from the top of ``source`` (front matter and the blank lines after it)
    before handing ``markdown`` to on_page_markdown: the ``line_offset`` of a PageContext."""
    if not source.endswith(markdown):
        return 0
    return source[: len(source) - len(markdown)].count("\n")


__all__ = ["KINDS", "BlockError", "Grid", "Kind", "OptionError", "PageContext", "Panel", "expand_blocks",
           "line_offset", "register"]

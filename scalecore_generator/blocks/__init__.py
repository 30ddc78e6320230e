"""Author blocks: panels written in markdown, checked and expanded at build time.

    /// <kind> | A title
    option: value
    other: [a, b]
    ///

``expand_blocks(markdown, context)`` (called from the plugin's ``on_page_markdown``) replaces
each block with its panel's HTML: a complete no-JS fallback (figures and tables from the baked
data) inside a root element that the browser's scripts hydrate. Every mistake is a ``BlockError``
whose text is ``page:line: message``. The kinds come from the registry (scalecore_generator/kinds/registry.py):
nothing here names one. The plugin has each panel wait in a slot (``Stash``) while Python-Markdown
converts the page, and puts it back in ``on_page_content``.
"""

from scalecore_generator.blocks.base import BlockError, OptionError, PageContext, Panel, PanelOptions
from scalecore_generator.blocks.expand import expand_blocks
from scalecore_generator.blocks.stash import Stash


def line_offset(source: str, markdown: str) -> int:
    """Lines MkDocs removed from the top of ``source`` (front matter and the blank lines after it)
    before handing ``markdown`` to on_page_markdown: the ``line_offset`` of a PageContext."""
    if not source.endswith(markdown):
        return 0
    return source[: len(source) - len(markdown)].count("\n")


__all__ = ["BlockError", "OptionError", "PageContext", "Panel", "PanelOptions", "Stash", "expand_blocks", "line_offset"]

"""The authors' blocks as a Python-Markdown extension: any engine that runs Python-Markdown runs them.

The extension is the page-level half of a build (builder/site_build.py): before Python-Markdown
reads a page, its blocks become panels, its quotes values and its generated markers tables
(``SiteBuild.expand``); once the page is converted, each panel takes the place of its slot and
the page's passages are read for the mentor (``SiteBuild.restore`` and ``read``).

It needs to know which page it converts, which only the engine knows: ``page_of(md)`` gives the
page a Markdown instance is converting, as a ``PageInfo`` (adapters/zensical reads it from
Zensical's rendering context). The MkDocs adapter calls the same steps from its
``on_page_markdown`` and ``on_page_content`` hooks instead, so that other plugins' hooks see the
panels, never the blocks, as before.
"""

from __future__ import annotations

from markdown import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from scalecore_generator.errors import ScalecoreError

# Before every other preprocessor (Python-Markdown's own run at 30 and below; snippets at 32):
# the blocks are read as the author wrote them.
EXPAND_PRIORITY = 200
# After Python-Markdown puts raw HTML back (30): the panels' slots are in the page by then.
RESTORE_PRIORITY = 5
# Postprocessors also run on fragments (toc runs them on each heading's text, during the tree
# processors): a tree processor that runs after every other one marks the whole document's turn.
SERIALIZED_PRIORITY = -1000


class BlocksExtension(Extension):
    scalecore_blocks = True  # a block's nested Markdown (its option texts) never runs blocks again

    def __init__(self, build, page_of, on_error=None, links=None):
        super().__init__()
        self.build = build
        self.page_of = page_of
        # links(page) -> (resolve_link, pages): how a link to a .md file from this page becomes
        # the URL of that page, and the site's pages (for the hint of a broken link).
        self.links = links or (lambda page: (None, ()))
        # An engine that reports an extension's exception with its traceback (Zensical) is told
        # of the build's own mistake first, to show its message alone.
        self.on_error = on_error or (lambda error: None)

    def extendMarkdown(self, md):
        md.registerExtension(self)
        md.preprocessors.register(_Expand(md, self), "scalecore_blocks", EXPAND_PRIORITY)
        md.treeprocessors.register(_Serialized(md), "scalecore_serialized", SERIALIZED_PRIORITY)
        md.postprocessors.register(_Restore(md, self), "scalecore_panels", RESTORE_PRIORITY)


class _Expand(Preprocessor):
    def __init__(self, md, extension: BlocksExtension):
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        self.md.scalecore_serialized = False
        page = self.extension.page_of(self.md)
        if page is None:  # Markdown converted outside a page (a snippet, a nested render)
            return lines
        try:
            resolve_link, pages = self.extension.links(page)
            return self.extension.build.pages.expand(page, "\n".join(lines), resolve_link, pages).split("\n")
        except ScalecoreError as error:
            self.extension.on_error(error)
            raise


class _Serialized(Treeprocessor):
    def run(self, root):
        self.md.scalecore_serialized = True


class _Restore(Postprocessor):
    def __init__(self, md, extension: BlocksExtension):
        super().__init__(md)
        self.extension = extension

    def run(self, text: str) -> str:
        page = self.extension.page_of(self.md)
        if page is None or not getattr(self.md, "scalecore_serialized", False):
            return text  # a fragment (a heading's text), not the page
        build = self.extension.build
        try:
            return build.pages.read(page, build.pages.restore(page, text), self.extension.links(page)[0])
        except ScalecoreError as error:
            self.extension.on_error(error)
            raise

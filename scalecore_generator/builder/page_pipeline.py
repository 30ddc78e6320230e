"""The page pipeline: what a build does to each page, in the order the engine renders it.

    expand(page, md)     the page's blocks as panels, its quotes and generated tables
    restore(page, html)  each panel back in the place of its slot, the author's scripts checked
    read(page, html)     its passages for the mentor; its runs boxed; its fallbacks held back
    put_back(html)       the fallbacks back, once the engine's search has indexed the page
    check_neighbours()   every module page's prerequisites and next pages name pages
    finish_page(page)    the module header, math, the web manifest, the Content-Security-Policy

One ``PagePipeline`` per build, made once the build is prepared (SiteBuild.prepare): it reads
what the build knows (the kinds, the baked data, the quotes) and keeps what the pages leave for
the build's end (the figures they drew, the mentor's passages).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from scalecore_generator import mentor
from scalecore_generator.blocks.remembered import RememberedPanels
from scalecore_generator.blocks.stash import Stash, hold_back_fallbacks
from scalecore_generator.builder import offline
from scalecore_generator.builder.engine_site import PageInfo
from scalecore_generator.errors import BuildError
from scalecore_generator.pages import author_scripts, back_first, csp, formulas, held_keys, math_font, module_page, offscreen
from scalecore_generator.pages.generated import corpora_table, expand_generated
from scalecore_generator.pages.module_meta import check_callouts, check_module_meta, check_neighbours, mark_callouts, \
    check_section_meta, listed_audience
from scalecore_generator.pages.quotes import LazyNamespace, expand_quotes


class PagePipeline:
    """Each page's steps (see the module's docstring), for one prepared build."""

    def __init__(self, build, quotes: LazyNamespace, remembered: RememberedPanels):
        self.build = build
        self.quotes = quotes  # what {{ baked: }} quotes read (SiteBuild.quote_tree)
        self.remembered = remembered  # the pages' panels of earlier builds (blocks/remembered.py)
        self.stashes = {}  # page -> its panels while Python-Markdown converts it (blocks/stash.py)
        self.held_back = Stash()  # the pages' fallbacks, from read() to finish_page()
        self.figures = {}  # drawn while the pages render (Panel.figure), written with the site
        # every page's passages, for the module pages' mentor
        self.mentor = mentor.Collector(build.memos["mentor"], build.memos["readings"])
        self.mentor_pages = set()  # the mentor scripts of the pages that show the mentor (finish_page)

    def expand(self, page: PageInfo, markdown: str, resolve_link=None, pages: tuple = ()) -> str:
        """A page's markdown with its blocks as panels (each waiting in a slot of the page's
        stash until restore()), its quotes and its generated tables. Every mistake names the
        page's file and line."""
        self.build.steps.take("expand")
        from scalecore_generator.blocks import PageContext, Stash, expand_blocks, line_offset

        if "title" in page.meta:  # text, wherever the theme writes it (pages/author_scripts.py)
            page.meta["title"] = author_scripts.text_title(page.meta["title"])
        source = page.source()
        offset = line_offset(source, markdown)
        where = self.where(page)
        try:
            check_module_meta(page.meta, where, source, self.build.settings.readers())
            check_section_meta(page.meta, where, source)
            check_callouts(markdown, where, offset, self.build.settings.readers(), listed_audience(page.meta))
        except ValueError as error:
            raise BuildError(str(error)) from None
        markdown = mark_callouts(markdown, self.build.settings.readers())
        if self.build.typesetter is not None:  # math on: a formula left open would show as text
            formulas.check_closed(markdown, where, offset)
        context = PageContext(
            page=where, site_root="../" * page.url.count("/") or "./", kinds=self.build.kinds,
            sites={name: self.build.site(name) for name in self.build.kinds},
            read_baked=self.build.read_baked, line_offset=offset,
            markdown_extensions=[e for e in self.build.engine.markdown_extensions if not _is_ours(e)],
            markdown_config=self.build.engine.markdown_config,
            scripts={name: self.build.served.get(name, {}) for name in self.build.kinds},
            figures=self.figures, resolve_link=resolve_link, pages=pages, memo=self.build.memos["markdown"],
            templates=self.build.panel_templates, remembered=self.remembered,
        )
        tables = {name: functools.partial(write, self.build.kinds) for name, write in self.build.references.items()}
        tables["corpora"] = lambda: corpora_table(self.build.manifest["corpora"])
        expand_generated(markdown, tables, where, offset)  # its mistakes, with their lines
        markdown = expand_quotes(markdown, self.quotes, where, offset)
        stash = self.stashes[page.src_uri] = Stash()
        markdown = expand_blocks(markdown, context, keep=stash.keep)
        return expand_generated(markdown, tables, where, check=False)  # tables add lines: last

    def where(self, page: PageInfo) -> str:
        """A page as messages name it: ``docs/modules/softmax-range.md``."""
        return f"{self.build.engine.docs_dir.name}/{page.src_uri}"

    def restore(self, page: PageInfo, html: str) -> str:
        """Each panel's HTML back in the place of its slot (blocks/stash.py), once the author's
        own HTML and its panels' are checked for inline scripts (pages/author_scripts.py)."""
        self.build.steps.take("restore")
        stash = self.stashes.pop(page.src_uri, None)
        panels = author_scripts.panel_scripts(stash.kept.values() if stash is not None else (), self._template_of)
        if panels or "<script" in html.lower():
            author_scripts.check_content(html, self.where(page), page.source(),
                                         page.src_uri in self.build.settings.allow_inline_scripts, self.build.log,
                                         panels, self._shown)
        return stash.restore(html) if stash is not None else html

    def _template_of(self, kind: str) -> Path | None:
        return self.build.kinds[kind].folder / "template.html" if kind in self.build.kinds else None

    def _shown(self, path: Path) -> str:
        """A file as messages name it: relative to mkdocs.yml's folder when inside it."""
        return os.path.relpath(path, self.build.root) if Path(path).is_relative_to(self.build.root) else str(path)

    def read(self, page: PageInfo, html: str, resolve_link=None) -> str:
        """The mentor's passages come from the rendered content, panels expanded, before the
        theme wraps it (and before the math is typeset: a passage keeps its formula as readable
        text). Then the runs between headings become boxes the browser skips off screen
        (pages/offscreen.py). ``resolve_link``: for an engine that turns links to .md files into
        pages' URLs only after this step (Zensical), the mentor reads them as they will be.
        The content returned holds its panels' fallbacks back until put_back or finish_page
        (blocks/stash.py: a search index leaves them out anyway, and a search plugin parsed every
        tag to do so)."""
        self.build.steps.take("read")
        from scalecore_generator.blocks.base import PAGE_LINK

        read = html
        if resolve_link is not None:
            read = PAGE_LINK.sub(lambda m: f'href="{resolve_link(m[1]) or m[1]}{m[2] or ""}"', html)
        self.mentor.read(read, page.dest_uri, page.title, page.meta)
        boxed = self.build.memos["offscreen"].get(hashlib.sha256(html.encode("utf-8")).hexdigest(),
                                            lambda: offscreen.wrap(html))
        return hold_back_fallbacks(boxed, self.held_back)

    def put_back(self, html: str) -> str:
        """A page's HTML with the fallbacks read() held back in it again (an adapter calls it once
        its engine's search has indexed the page; finish_page does it in any case)."""
        return self.held_back.restore(html)

    def check_neighbours(self, pages: list[PageInfo]) -> None:
        """Every prerequisite and next title of a module page names a page (or is external)."""
        self.build.steps.take("check_neighbours")
        modules, titles = {}, {}
        for other in pages:
            where = self.where(other)
            titles[where] = [str(t) for t in (other.meta.get("title"), other.title) if t]
            if other.meta and "code" in other.meta:
                modules[where] = (other.meta, other.source())
        try:
            check_neighbours(modules, titles)
        except ValueError as error:
            raise BuildError(str(error)) from None

    def finish_page(self, page: PageInfo | None, html: str, pages: list[PageInfo] = ()) -> str:
        """The page's fallbacks back in (held back since read()), the module header and end of a
        module page (pages/module_page.py; ``pages`` are every page of the site, for its cards),
        then the page's math typeset, so that no math script runs in the reader's browser, then
        its Content-Security-Policy (pages/csp.py). Math is done on the finished page: the search
        plugins index it before, and the build turns the TeX they keep into the formula as read
        (builder/disk_search.py), never the typeset markup. ``page`` None: a page of the theme's own (404.html), which only gets the policy."""
        self.build.steps.take("finish_page" if page is None else "finish_a_page")
        html = self.put_back(html)
        if page is not None:
            script = None
            if page.meta.get("code") and page.meta.get("mentor", self.build.settings.mentor) is not False:
                script = mentor.script_path(page.dest_uri)
                self.mentor_pages.add(script)
            html = module_page.decorate(html, page, list(pages), script, self.build.mentor_model, self.build.module_templates,
                                        self.build.settings.readers())
        if page is not None and self.build.typesetter is not None and "arithmatex" in html:
            html = self.build.typesetter.page(html, self.where(page), page.source)
        if page is not None and self.build.math_font is not None and "<math" in html:
            html = math_font.preloaded(html, module_page.relative_url(math_font.FONT_SITE, page.url), offscreen.first_screen(html))
        if page is not None:  # a browser offers to install the site (builder/offline.py)
            manifest = module_page.relative_url(offline.WEB_MANIFEST, page.url)
            html = html.replace("</head>", f'<link rel="manifest" href="{manifest}">\n</head>', 1)
        if page is not None:  # the keys typed through an isolation reload (pages/held_keys.py)
            html = held_keys.hold_keys(html)
        if page is not None:  # Back heard by the panels and the mentor before Material (pages/back_first.py)
            html = back_first.hear_back_first(html)
        if self.build.command == "serve":  # a dev server's pages: no service worker takes them (offline.STEP_ASIDE_SOURCE)
            html = html.replace("</head>", f'<meta name="{offline.SERVE_MARKER}" content="serve">\n</head>', 1)
        return csp.add(html, csp.origin_of(self.build.settings.package_mirror), self.build.serve_nonce)


def _is_ours(extension) -> bool:
    """The blocks' own extension, which the blocks' nested Markdown must not run again."""
    return getattr(extension, "scalecore_blocks", False) or extension == "scalecore_generator.blocks.extension"

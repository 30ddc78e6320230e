"""The parts of a module page the build adds around its content: the module header after the
title (code, audience, the modules before and after, the audience switch), and after the content
where to go next, the mentor and the reader's notes; on a section page, its modules in order.

They are written by the build into the finished page (``SiteBuild.finish_page``), not by the
theme's templates: so they are the same under every engine (MkDocs' Jinja2 templates and
Zensical's differ in what a template may call), and need every page's title, which an engine
knows only once all pages are read. Templates in pages/templates/, rendered with Jinja2.
"""

from __future__ import annotations

import functools
import posixpath
import re
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"
# The page's article as Material and Zensical write it: its first heading is the page's title.
ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">')
ARTICLE_END = "</article>"


def relative_url(target: str, from_url: str) -> str:
    """The URL of the site path ``target`` from the page at ``from_url`` (a page's URL from the
    site's root: "modules/softmax-range.html", or "modules/softmax-range/" with directory URLs),
    as the engines write relative links ("" is the site's root)."""
    folder, _, name = from_url.rpartition("/")
    base = folder if "." in name else from_url  # a file's URL: its folder; a directory URL: itself
    found = posixpath.relpath("/" + target, "/" + base)
    return found + "/" if target.endswith("/") and not found.endswith("/") else found


def environment(bytecode_cache=None) -> jinja2.Environment:
    """The module pages' templates, with a build's cache of compiled templates (foundation/cache
    TemplateCaches): compiling the four templates and their macros is most of what writing the
    module pages costs a warm build."""
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
                                     undefined=jinja2.Undefined, keep_trailing_newline=True,
                                     bytecode_cache=bytecode_cache)

    @jinja2.pass_context
    def url(context, path):
        return relative_url(str(path), context["page"].url)

    environment.filters["url"] = url
    return environment


def decorate(html: str, page, pages: list, mentor: str | None = None, mentor_model: dict | None = None,
             templates: jinja2.Environment | None = None, audiences: dict | None = None) -> str:
    """``html`` (a finished page) with the module header after its title and the module's end
    before its article closes, or a section page's modules; other pages unchanged. ``pages``
    are every page of the site (PageInfo), for the cards' titles and links; ``templates``: the
    build's (environment()), or templates compiled for this call."""
    meta = page.meta or {}
    if not (meta.get("code") or meta.get("section")):
        return html
    article = ARTICLE.search(html)
    end = html.rfind(ARTICLE_END)
    if article is None or end < article.end():
        return html  # a theme without Material's article: nothing to place the parts in
    from scalecore_generator.pages.module_meta import DEFAULT_AUDIENCES

    context = dict(page=page, pages=pages, mentor=mentor, mentor_model=mentor_model,
                   audiences=audiences or DEFAULT_AUDIENCES)
    render = functools.partial(_render, templates or environment(), context)
    if meta.get("code"):
        title = html.find("</h1>", article.end(), end)
        header = render("module-header.html")
        closing = render("module-end.html")
        if title < 0:
            return html[:article.end()] + header + html[article.end():end] + closing + html[end:]
        at = title + len("</h1>")
        return html[:at] + "\n" + header + html[at:end] + closing + html[end:]
    return html[:end] + render("section.html") + html[end:]


def _render(templates: jinja2.Environment, context: dict, name: str) -> str:
    return templates.get_template(name).render(**context)

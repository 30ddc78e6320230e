"""What an author's text may not smuggle into a page: scripts.

The pages' Content-Security-Policy (pages/csp.py) allows the inline scripts of the finished page
by their sha256, which is right for what the build and the theme wrote and wrong for anything an
author's text carries in: a ``<script>`` in a page's Markdown would be hashed and run like the
theme's own. So a page's content is checked before the theme wraps it: an inline script there is
a build error with the page and its line, unless the site allows it for that page (the plugin
option ``allow_inline_scripts``), and then the build says which scripts it allowed. The panels on
the page follow the same rule: a script a kind's template.html writes into its panel is refused,
naming the block and the template's line, unless the page is allowed, and then it is listed too.
A page title
is text: Material writes it into ``<title>``, the header and the search index without escaping,
so one with markup in it is escaped here (it reads the same, and runs nothing).
"""

import hashlib
import html
import re
from pathlib import Path

from scalecore_generator.foundation.text import fenced_lines
from scalecore_generator.pages.csp import runnable_scripts
from scalecore_generator.errors import ScalecoreError

SCRIPT_TAG = re.compile(r"<script\b", re.I)
PANEL_KIND = re.compile(r'data-scalecore-kind="([^"]+)"')
DATA_SCRIPT = '<script type="application/x-scalecore-data"'  # a panel's data (blocks/panel.html): never runs


class AuthorScriptError(ScalecoreError):
    """An inline script in a page's Markdown: the message names the page, the line and the fix."""


def script_line(source: str, body: str, offset: int = 0) -> int:
    """The line of the page's source where a script starts: the line of its first words, or
    else of the first ``<script`` outside fenced code."""
    lines = source.split("\n")
    words = next((line.strip() for line in body.split("\n") if line.strip()), "")
    fenced = fenced_lines(source)
    for number, (line, inside) in enumerate(zip(lines, fenced), 1):
        if not inside and words and words in line:
            return number
    for number, (line, inside) in enumerate(zip(lines, fenced), 1):
        if not inside and SCRIPT_TAG.search(line):
            return number
    return 1 + offset


def _first_words(body: str) -> str:
    return next((line.strip() for line in body.split("\n") if line.strip()), "")


def template_line(template: Path, body: str) -> int | None:
    """The line of a kind's template where a script's first words are (None: not written there)."""
    words = _first_words(body)
    try:
        lines = template.read_text(encoding="utf-8").split("\n")
    except OSError:
        return None
    return next((number for number, line in enumerate(lines, 1) if words and words in line), None)


def block_line(source: str, kind: str) -> int:
    """The line of the page's first block of ``kind`` (``/// kind``), outside fenced code."""
    opening = re.compile(rf"^\s*///\s*{re.escape(kind)}\b")
    for number, (line, inside) in enumerate(zip(source.split("\n"), fenced_lines(source)), 1):
        if not inside and opening.match(line):
            return number
    return 1


def panel_scripts(panels, template_of) -> list[tuple[str, str, Path | None]]:
    """The inline scripts the panels would run, each once: (kind, body, its template.html).
    ``panels``: each panel's HTML; ``template_of(kind)``: the kind's template.html, or None."""
    found = {}
    for html in panels:
        if html.lower().count("<script") == html.count(DATA_SCRIPT):
            continue  # only its data: the common case, without a parse
        kind = PANEL_KIND.search(html)
        name = kind[1] if kind else "?"
        for body in runnable_scripts(html):
            found.setdefault((name, body), template_of(name))
    return [(name, body, template) for (name, body), template in found.items()]


def check_content(content: str, where: str, source: str, allowed: bool, log, panels=(), shown=str) -> None:
    """Refuse (or, where the site allows it, list) the inline scripts of a page's content and of
    its panels (``panels``: panel_scripts; ``shown(path)``: a template's path as messages name it)."""
    scripts = runnable_scripts(content)
    if not scripts and not panels:
        return
    page = where.split('/', 1)[-1]
    if not allowed and scripts:
        line = script_line(source, scripts[0])
        raise AuthorScriptError(
            f"{where}:{line}: an inline <script> in the page's Markdown; the site's Content-Security-Policy "
            "would run it like the theme's own scripts. Fix: move the code into a .js file under docs/ and add "
            f"it with extra_javascript, or allow this page's inline scripts with the plugin option "
            f"allow_inline_scripts: [{page}].")
    if not allowed:
        kind, body, template = panels[0]
        line = template_line(template, body) if template is not None else None
        origin = f"{shown(template)}:{line}" if line else shown(template) if template is not None else "its template"
        raise AuthorScriptError(
            f"{where}:{block_line(source, kind)}: an inline <script> in the panel of kind '{kind}', written by its "
            f"template ({origin}); the site's Content-Security-Policy would run it like the theme's own scripts. "
            "Fix: move the code into the kind's panel.js, or allow this page's inline scripts with the plugin option "
            f"allow_inline_scripts: [{page}].")
    listed = [f"line {script_line(source, body)} (sha256 {_digest(body)})" for body in scripts]
    for kind, body, template in panels:
        line = template_line(template, body) if template is not None else None
        origin = f"{shown(template)}:{line}" if line else shown(template) if template is not None else f"kind {kind}"
        listed.append(f"{origin} (sha256 {_digest(body)})")
    count = len(listed)
    log.info(f"{where}: allowed {count} inline script{'s' * (count != 1)} (allow_inline_scripts): {'; '.join(listed)}")


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def text_title(title):
    """A page title as text, safe wherever the theme writes it unescaped."""
    if isinstance(title, str) and any(mark in title for mark in "<>&"):
        return html.escape(title, quote=False)
    return title

"""What an author's text may not smuggle into a page: scripts.

The pages' Content-Security-Policy (pages/csp.py) allows the inline scripts of the finished page
by their sha256, which is right for what the build and the theme wrote and wrong for anything an
author's text carries in: a ``<script>`` in a page's Markdown would be hashed and run like the
theme's own. So a page's content is checked before the theme wraps it: an inline script there is
a build error with the page and its line, unless the site allows it for that page (the plugin
option ``allow_inline_scripts``), and then the build says which scripts it allowed. A page title
is text: Material writes it into ``<title>``, the header and the search index without escaping,
so one with markup in it is escaped here (it reads the same, and runs nothing).
"""

import hashlib
import html
import re

from scalecore_generator.blocks.scanner import fenced_lines
from scalecore_generator.pages.csp import runnable_scripts
from scalecore_generator.errors import ScalecoreError

SCRIPT_TAG = re.compile(r"<script\b", re.I)


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


def check_content(content: str, where: str, source: str, allowed: bool, log) -> None:
    """Refuse (or, where the site allows it, list) the inline scripts of a page's content."""
    scripts = runnable_scripts(content)
    if not scripts:
        return
    if not allowed:
        line = script_line(source, scripts[0])
        raise AuthorScriptError(
            f"{where}:{line}: an inline <script> in the page's Markdown; the site's Content-Security-Policy "
            "would run it like the theme's own scripts. Fix: move the code into a .js file under docs/ and add "
            f"it with extra_javascript, or allow this page's inline scripts with the plugin option "
            f"allow_inline_scripts: [{where.split('/', 1)[-1]}].")
    listed = "; ".join(f"line {script_line(source, body)} (sha256 {hashlib.sha256(body.encode()).hexdigest()[:12]})"
                       for body in scripts)
    log.info(f"{where}: allowed {len(scripts)} inline script{'s' * (len(scripts) != 1)} (allow_inline_scripts): {listed}")


def text_title(title):
    """A page title as text, safe wherever the theme writes it unescaped."""
    if isinstance(title, str) and any(mark in title for mark in "<>&"):
        return html.escape(title, quote=False)
    return title

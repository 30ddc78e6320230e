"""Back and Forward heard by the page's own handlers before Material's instant navigation.

At the window, event listeners run in the order they were added, whatever their phase, and
Material adds its popstate listener when its script runs, before any deferred script: a Back
that only a panel's state or the mentor's source link should answer reached Material too, which
took it for a visit and drew the page again. pages/back-first.js, inlined just before Material's
script, adds one listener first that calls the handlers addresses.js and mentor.js register
(globalThis.scalecoreBackFirst). Inline, not a file: a request before Material's script would
delay every page; the policy allows it by its sha256 like the theme's own inline scripts
(pages/csp.py).
"""

import re
from functools import lru_cache
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "back-first.js"
MATERIAL_SCRIPT = re.compile(r'<script src="[^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js"></script>')


@lru_cache(maxsize=4)
def _inline(source: Path) -> str:
    return "<script>" + source.read_text(encoding="utf-8").strip() + "</script>\n"


def before_material(html: str, source: Path) -> str:
    """``html`` with the script ``source`` inlined just before Material's (another theme: unchanged). Shared with
    held_keys.py: both must run before Material's script adds its listeners."""
    found = MATERIAL_SCRIPT.search(html)
    if found is None:
        return html
    return html[:found.start()] + _inline(source) + html[found.start():]


def hear_back_first(html: str) -> str:
    """``html`` with the first popstate listener before Material's script."""
    return before_material(html, SOURCE)

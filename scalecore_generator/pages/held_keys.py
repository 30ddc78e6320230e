"""The keys typed through an isolation reload, held before Material's own script sees them.

A page with a panel that needs cross-origin isolation (the console) is reloaded once when the
reader reaches for it (assets/isolate.js). isolate.js runs after Material's script, so on the
reloaded page the keys the reader typed on with reached Material's shortcuts first ('n' and 'p'
turn the page) until isolate.js gave the focus back. assets/held-keys.js, inlined just before
Material's script on such pages, holds them from the page's first moment; isolate.js types them
where the focus comes back. Inline, not a file: one more request before Material's script would
delay every reader's page for a moment only a reader who reached for the console can need; the
policy allows it by its sha256 like the theme's own inline scripts (pages/csp.py).
"""

from pathlib import Path

from scalecore_generator.pages.back_first import before_material

SOURCE = Path(__file__).resolve().parent / "held-keys.js"
ISOLATED = 'data-scalecore-isolated'  # a panel that needs isolation (blocks: Kind.isolated)


def hold_keys(html: str) -> str:
    """``html`` with the key holder before Material's script, when a panel of it needs isolation."""
    if ISOLATED not in html:
        return html
    return before_material(html, SOURCE)  # another theme: no shortcuts of Material's to keep the keys from

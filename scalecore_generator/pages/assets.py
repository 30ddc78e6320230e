"""Front-end files the site serves itself: our panel scripts and styles, and the stylesheet and
fonts of the math (typeset at build time by scalecore_generator/pages/formulas.py: no math script ships):
KaTeX's for ``math: html``; for ``math: mathml``, a cut of STIX Two Math with Temml's stylesheet,
made for the characters the build typeset (scalecore_generator/pages/math_font.py, written at the end).

Everything comes from this repository or from npm packages pinned in build_tools/package-lock.json
and is copied into the site, so a page makes no request to another host (and works offline).
"""

import re
from pathlib import Path

from scalecore_generator.errors import ScalecoreError

from scalecore_generator.pages import frontend

from scalecore_generator import vendor
from scalecore_generator.vendor import NODE_MODULES  # npm files, inside the package

OWN = Path(__file__).resolve().parents[1] / "assets"  # panels: plain JS modules and CSS
OWN_SITE = "assets/scalecore"
KATEX_SITE = "assets/katex"
KATEX_CSS = f"{KATEX_SITE}/katex.min.css"
CSS = (f"{OWN_SITE}/scalecore.css",)
# the shared views; the panel base; panel addresses; hydration, which starts the panels (in this order)
SCRIPTS = (f"{OWN_SITE}/views.js", f"{OWN_SITE}/panels.js", f"{OWN_SITE}/addresses.js", f"{OWN_SITE}/hydration.js")
ISOLATE = f"{OWN_SITE}/isolate.js"  # reloads a console's page once to make it cross-origin isolated
OFFLINE = f"{OWN_SITE}/offline.js"  # registers the site's service worker; "Make this site available offline"
DISK_SEARCH = f"{OWN_SITE}/disk-search.js"  # search in a site opened from disk (file://)
# The theme's (scalecore_generator/theme, theme.custom_dir): the scripts and styles of the module
# header, the notes and the mentor (which pages/module_page.py writes into module pages).
# The plugin adds them, not the theme's templates, so a page built without the plugin does not
# load them.
THEME = Path(__file__).resolve().parents[1] / "theme"
THEME_CSS = ("assets/scalecore-module/module.css", "overrides-a11y.css")
# module.js loads mentor.js when the mentor is near; notes.js, "My notes", uses its storage helpers
THEME_SCRIPTS = ("assets/scalecore-module/module.js", "assets/scalecore-module/notes.js")


def katex_folder(root: Path | None = None) -> Path:
    """KaTeX, from the plugin's own npm packages (whichever site is being built)."""
    return NODE_MODULES / "katex" / "dist"


def collect(root: Path, katex_styles: bool = True) -> dict[str, Path]:
    """Site path -> source file. KaTeX's HTML output needs its stylesheet and fonts (MathML output
    needs neither). KaTeX ships its fonts in three formats; woff2 is enough for every browser we
    support, and it is the first the stylesheet lists, so the others are never asked."""
    files = {f"{OWN_SITE}/{path.relative_to(OWN).as_posix()}": path
             for path in sorted(OWN.rglob("*")) if path.is_file() and not path.name.startswith(".")}
    katex = katex_folder(root)
    if katex_styles and katex.is_dir():
        files[KATEX_CSS] = katex / "katex.min.css"
        files.update({f"{KATEX_SITE}/fonts/{font.name}": font for font in sorted((katex / "fonts").glob("*.woff2"))})
    return files


def check_math(uses_math: bool, math: str) -> None:
    """Math is typeset at build time from an npm package (KaTeX for ``math: html``, Temml for
    ``mathml``): a site that uses math (pymdownx.arithmatex) without it cannot be built, so that
    is an error."""
    from scalecore_generator.pages.formulas import ENGINES
    from scalecore_generator.pages.math_font import FONT_IN_PACKAGES

    needed = [NODE_MODULES / ENGINES[math], NODE_MODULES / FONT_IN_PACKAGES if math == "mathml" else katex_folder()]
    missing = [path for path in needed if not path.exists()] if uses_math else []
    if missing:
        raise ScalecoreError(
            f"scalecore: the pages use math (pymdownx.arithmatex), but {missing[0]} is missing, "
            "so every formula would show as raw TeX. Fix: " + vendor.REINSTALL + "."
        )


def page_scripts(isolation: bool, theme: bool) -> list[str]:
    """The scripts every page loads, in order, each deferred by the adapter: fetched while the
    page parses, run once it is parsed (after the theme's bundle), so none holds up the first
    paint. offline.js registers the site's service worker (builder/offline.py writes it at the site
    root: offline reading, and cross-origin isolation, which with ``isolation`` (live mode)
    isolate.js uses to reload a console's page once); disk-search.js searches from file://."""
    return [*SCRIPTS, OFFLINE, DISK_SEARCH, *((ISOLATE,) if isolation else ()), *(THEME_SCRIPTS if theme else ())]


def missing_scripts(html: str) -> list[str]:
    """The panel scripts (SCRIPTS) a finished page with panels does not load: a theme whose
    templates leave out the site's scripts (an override's empty ``{% block scripts %}``) leaves
    every panel as its no-JS fallback. Empty for a page without panels, or with every script."""
    if 'data-scalecore-kind="' not in html:
        return []
    loaded = set(re.findall(r'<script\b[^>]*\bsrc="(?:[^"]*/)?(assets/scalecore/[^"/]+\.js)"', html))
    return [script for script in SCRIPTS if script not in loaded]


def stylesheet(uses_math: bool, uses_theme: bool, math: str, kind_styles: list[str]) -> list[str]:
    """The site paths that make the one stylesheet (pages/frontend.py bundles it, math's
    included: each render-blocking stylesheet is a round trip before a phone paints anything),
    in cascade order: the theme's, the math's, the panels' shared styles, then each used kind's
    (which may refine the shared ones)."""
    from scalecore_generator.pages.math_font import CSS_SITE as MATHML_CSS

    math_css = [KATEX_CSS if math == "html" else MATHML_CSS] if uses_math else []
    return [*(THEME_CSS if uses_theme else ()), *math_css, *CSS, *sorted(kind_styles)]

"""Front-end files the site serves itself: our panel scripts and styles, and KaTeX for math.

Everything comes from this repository or from npm packages pinned in build_tools/package-lock.json
and is copied into the site, so a page makes no request to another host (and works offline).
"""

from pathlib import Path

OWN = Path(__file__).parent / "assets"  # panels: plain JS modules and CSS
OWN_SITE = "assets/scalecore"
KATEX_SITE = "assets/katex"
KATEX_FILES = ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js")
CSS = (f"{KATEX_SITE}/katex.min.css", f"{OWN_SITE}/scalecore.css")
SCRIPTS = (f"{KATEX_SITE}/katex.min.js", f"{KATEX_SITE}/contrib/auto-render.min.js", f"{OWN_SITE}/math.js",
           f"{OWN_SITE}/panels.js")


def katex_folder(root: Path) -> Path:
    return root / "build_tools" / "node_modules" / "katex" / "dist"


def collect(root: Path) -> dict[str, Path]:
    """Site path -> source file. KaTeX ships its fonts in three formats; woff2 is enough for every
    browser we support, and it is the first the stylesheet lists, so the others are never asked."""
    files = {f"{OWN_SITE}/{path.relative_to(OWN).as_posix()}": path
             for path in sorted(OWN.rglob("*")) if path.is_file() and not path.name.startswith(".")}
    katex = katex_folder(root)
    if katex.is_dir():
        files.update({f"{KATEX_SITE}/{name}": katex / name for name in KATEX_FILES})
        files.update({f"{KATEX_SITE}/fonts/{font.name}": font for font in sorted((katex / "fonts").glob("*.woff2"))})
    return files


def register(config, root: Path) -> None:
    """Add our styles and scripts to every page (once, even if on_config runs again on serve).
    KaTeX only when its npm package is there to be copied: never a link to a missing file."""
    katex = katex_folder(root).is_dir()
    for css in CSS if katex else CSS[1:]:
        if css not in config.extra_css:
            config.extra_css.append(css)
    present = [str(script) for script in config.extra_javascript]
    for script in SCRIPTS if katex else SCRIPTS[2:]:
        if script not in present:
            config.extra_javascript.append(script)

"""Front-end files the site serves itself: our panel scripts and styles, and KaTeX for math.

Everything comes from this repository or from npm packages pinned in build_tools/package-lock.json
and is copied into the site, so a page makes no request to another host (and works offline).
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

NODE_MODULES = Path(__file__).parent / "node_modules"  # npm ci --prefix build_tools
OWN = Path(__file__).parent / "assets"  # panels: plain JS modules and CSS
OWN_SITE = "assets/scalecore"
KATEX_SITE = "assets/katex"
KATEX_FILES = ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js")
CSS = (f"{KATEX_SITE}/katex.min.css", f"{OWN_SITE}/scalecore.css")
SCRIPTS = (f"{KATEX_SITE}/katex.min.js", f"{KATEX_SITE}/contrib/auto-render.min.js", f"{OWN_SITE}/math.js",
           f"{OWN_SITE}/views.js", f"{OWN_SITE}/panels.js")


def katex_folder(root: Path | None = None) -> Path:
    """KaTeX, from the plugin's own npm packages (whichever site is being built)."""
    return NODE_MODULES / "katex" / "dist"


def collect(root: Path, math: bool = True) -> dict[str, Path]:
    """Site path -> source file. KaTeX ships its fonts in three formats; woff2 is enough for every
    browser we support, and it is the first the stylesheet lists, so the others are never asked."""
    files = {f"{OWN_SITE}/{path.relative_to(OWN).as_posix()}": path
             for path in sorted(OWN.rglob("*")) if path.is_file() and not path.name.startswith(".")}
    katex = katex_folder(root)
    if math and katex.is_dir():
        files.update({f"{KATEX_SITE}/{name}": katex / name for name in KATEX_FILES})
        files.update({f"{KATEX_SITE}/fonts/{font.name}": font for font in sorted((katex / "fonts").glob("*.woff2"))})
    return files


def register(config, root: Path) -> None:
    """Add our styles and scripts to every page (once, even if on_config runs again on serve).

    Math is typeset by KaTeX, copied from its npm package: a site that uses math
    (pymdownx.arithmatex) without the package would show raw TeX, so that is an error.
    """
    math = "pymdownx.arithmatex" in config.markdown_extensions
    katex = math and katex_folder(root).is_dir()
    if math and not katex:
        raise PluginError(
            f"scalecore: the pages use math (pymdownx.arithmatex), but KaTeX is missing from {katex_folder(root)}, "
            "so every formula would show as raw TeX. Fix: run 'npm ci --prefix build_tools' "
            "(bash build_tools/dev.sh build does it)."
        )
    for css in CSS if katex else CSS[1:]:
        if css not in config.extra_css:
            config.extra_css.append(css)
    present = [str(script) for script in config.extra_javascript]
    for script in SCRIPTS if katex else SCRIPTS[2:]:
        if script not in present:
            config.extra_javascript.append(script)

"""The math font of MathML output: STIX Two Math, cut at build to the characters the site uses.

Browsers draw MathML with a font that has an OpenType MATH table (the metrics of fractions and
radicals, and the larger variants of brackets that stretch). What a reader's system has varies
(often none on Linux, so Chromium falls back to the text font and subscripts drift), so the site
serves its own: STIX Two Math (SIL Open Font License), from the pinned npm package
``@fontsource/stix-two-math``, with Temml's stylesheet for it.

The whole font is 370 kB. fontTools (pinned in build_tools/requirements.lock) cuts it to the
glyphs of the characters the formulas use, keeping the MATH table's variants of those glyphs, so
the browser can still stretch a bracket: a few kB. The cut is WOFF (zlib), which needs no extra
Python package; the font's own date is kept rather than stamped with the time of the build, so
two builds give the same bytes.

The characters are those of the MathML as typeset, plus the ones the browser draws without them
being in the text: the radical sign of a square root, and the mathematical italic letters
Chromium substitutes for a single-letter identifier (MathML Core's ``math-auto`` transform).
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import os
import re
from pathlib import Path

from scalecore_generator.foundation.cache import content_name, content_named

from scalecore_generator.vendor import NODE_MODULES
FONT_IN_PACKAGES = Path("@fontsource/stix-two-math/files/stix-two-math-latin-400-normal.woff")
FONT = NODE_MODULES / FONT_IN_PACKAGES
TEMML_CSS = NODE_MODULES / "temml" / "dist" / "Temml-STIX2.css"
SITE = "assets/scalecore/math"
CSS_SITE = f"{SITE}/math.css"  # where the stylesheet's url()s are relative to: it ships in the site's one stylesheet
FONT_SITE = f"{SITE}/stix-two-math.woff"

ANNOTATION = re.compile(r"<annotation\b[^>]*>.*?</annotation>", re.S)
TEXT = re.compile(r">([^<]+)<")
SINGLE_IDENTIFIER = re.compile(r"<mi(?![^>]*mathvariant=\"normal\")[^>]*>([^<])</mi>")
FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}", re.S)


def italic(char: str) -> str | None:
    """The mathematical italic form of a Latin or Greek letter (Unicode's Mathematical
    Alphanumeric Symbols), which Chromium draws for ``<mi>x</mi>``; None for anything else."""
    code = ord(char)
    if char == "h":
        return "\u210e"  # the one hole of the italic Latin block: PLANCK CONSTANT
    if "A" <= char <= "Z":
        return chr(0x1D434 + code - ord("A"))
    if "a" <= char <= "z":
        return chr(0x1D44E + code - ord("a"))
    if "\u0391" <= char <= "\u03a9":
        return chr(0x1D6E2 + code - 0x391)
    if "\u03b1" <= char <= "\u03c9":
        return chr(0x1D6FC + code - 0x3B1)
    return {"\u0131": "\U0001d6a4", "\u0237": "\U0001d6a5", "\u2202": "\U0001d715", "\u03f5": "\U0001d716",
            "\u03d1": "\U0001d717", "\u03f0": "\U0001d718", "\u03d5": "\U0001d719", "\u03f1": "\U0001d71a",
            "\u03d6": "\U0001d71b", "\u2207": "\U0001d6fb"}.get(char)


def characters(markup: list[str]) -> str:
    """Every character the browser will draw for these formulas (MathML markup), sorted."""
    found = set()
    for formula in markup:
        shown = ANNOTATION.sub("", formula)  # the TeX source is kept for copying, never drawn
        for text in TEXT.findall(shown):
            found.update(html.unescape(text))
        found.update(filter(None, (italic(letter) for letter in SINGLE_IDENTIFIER.findall(shown))))
        if "<msqrt" in shown or "<mroot" in shown:
            found.add("\u221a")
    found = {char for char in found if not char.isspace()} | {" ", "\u00a0"}  # the font's own spaces
    return "".join(sorted(found))


def cut(chars: str, font: Path = FONT) -> bytes:
    """The font, cut to ``chars`` (and what its layout and MATH tables need to draw them)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.layout_features = ["*"]  # ssty (script-size forms) and the rest: what MathML asks for
    options.flavor = "woff"
    options.name_IDs = ["*"]  # the licence and copyright names travel with the font
    options.notdef_outline = True
    face = TTFont(str(font), recalcTimestamp=False)  # saving would stamp the time: builds must match
    cutter = subset.Subsetter(options)
    cutter.populate(text=chars)
    cutter.subset(face)
    out = io.BytesIO()
    face.save(out)
    return out.getvalue()


def stylesheet(css: Path = TEMML_CSS) -> str:
    """Temml's stylesheet for STIX Two, its font pointing at the cut font beside it. The reader's
    own copy (``local()``) is not asked for: a different version would draw different metrics."""
    face = ("@font-face {\n  font-family: STIX2;\n  src: url('stix-two-math.woff') format('woff');\n"
            "  font-display: swap;\n}")
    text = css.read_text(encoding="utf-8")
    if not FONT_FACE.search(text):
        raise ValueError(f"{css}: no @font-face rule to point at the cut font (has Temml changed its stylesheet?)")
    # STIX Two's letters are drawn smaller than Computer Modern's at the same size; KaTeX sets its
    # formulas at 1.21em of the text for the same reason. 1.12em matches their x-height.
    size = "\n/* Scalecore: formulas as tall as KaTeX's beside the text */\n.arithmatex > math { font-size: 1.12em; }\n"
    return FONT_FACE.sub(lambda _: face, text, count=1) + size


# The font asked for while the page's <head> is read, not once the stylesheet has been read and the
# first formula laid out. Why: with font-display: swap the browser lays out and styles every formula
# of the first screen twice, in the fallback font and again when STIX Two arrives; asked for at
# once, it is there before the first layout. The softmax page from 127.0.0.1, medians of 6 loads
# in a fresh Chromium each: the font loaded 71 ms after the start instead of 298 ms, the first
# contentful paint at 238 ms instead of 318 ms. Why from a script rather than a
# <link rel="preload"> in the page: a font is fetched in CORS mode, so its preload must say
# crossorigin, and from file:// (the offline bundle) Chromium refuses that preload with a console
# error while it loads the @font-face itself; from disk the font is local and the script asks for
# nothing. It comes before the stylesheets, which would otherwise hold it back until they load.
PRELOAD = ('<script>if (location.protocol !== "file:") {{ const link = document.createElement("link"); '
           'link.rel = "preload"; link.as = "font"; link.type = "font/woff"; link.crossOrigin = "anonymous"; '
           'link.href = {href}; document.head.append(link); }}</script>')
STYLESHEET_LINK = re.compile(r'<link\b[^>]*\brel="stylesheet"', re.I)


def preloaded(page: str, href: str, first_screen: str) -> str:
    """The finished page asking for the math font early (see PRELOAD) when ``first_screen``, the
    part the browser lays out first, holds a formula: a page whose formulas all lie further down
    loads the font only when the reader nears them. ``href``: the font's URL from this page."""
    if "<math" not in first_screen:
        return page
    found = STYLESHEET_LINK.search(page)
    if found is None or found.start() > page.find("</head>"):
        return page
    return page[:found.start()] + PRELOAD.format(href=json.dumps(href)) + "\n" + page[found.start():]


class MathFont:
    """The cut font and its stylesheet for one build, remembered in the cache by what was cut."""

    def __init__(self, cache_dir: Path):
        self.cache_dir = cache_dir

    def files(self, markup: list[str]) -> dict[str, bytes]:
        """Site path -> bytes: the font cut to ``markup``'s characters (its stylesheet is part of
        the site's one stylesheet, scalecore_generator/pages/frontend.py)."""
        return {FONT_SITE: self.font(characters(markup))}

    def font(self, chars: str) -> bytes:
        """The cut, from the cache when this build's characters were cut before. The cached file
        is named by what was cut and by its own sha256, checked on reading, so a damaged copy is
        cut again rather than served; only the newest cut is kept."""
        key = hashlib.sha256((hashlib.sha256(FONT.read_bytes()).hexdigest() + chars).encode()).hexdigest()[:32]
        cached = content_named(self.cache_dir, key, ".woff")
        if cached is not None:
            return cached[1]
        font = cut(chars)
        try:  # best effort: the cache only saves time
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            target = self.cache_dir / content_name(key, font, ".woff")
            partial = target.with_suffix(f".{os.getpid()}.partial")
            partial.write_bytes(font)
            partial.replace(target)
            for old in self.cache_dir.glob("*.woff"):
                if old != target:
                    old.unlink(missing_ok=True)
        except OSError:
            pass
        return font

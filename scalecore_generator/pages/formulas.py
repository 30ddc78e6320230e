"""Math typeset when the site is built: every formula of every page, in Node, once per build.

pymdownx.arithmatex (generic mode) leaves each formula as TeX, in ``<span class="arithmatex">``
with ``\\( ... \\)`` or ``<div class="arithmatex">`` with ``\\[ ... \\]``. Typeset in the reader's
browser, that costs a script and a long task at every page load, and from file:// it never
happened (the script waited for a Material signal that does not fire there). So the build
typesets each formula once, in one Node process for the whole build, and the page ships no math
JavaScript. Two outputs (the plugin option ``math``), measured on the softmax module page
(benchmarks/RESULTS.md):

- ``mathml`` (the default): MathML Core, which Chromium, Firefox and Safari draw natively, from
  Temml (a KaTeX descendant written for MathML Core: KaTeX's own MathML relies on
  ``mathvariant``, which Chromium ignores, so its blackboard-bold E came out italic). It is drawn
  with STIX Two Math, cut at build to the characters the site uses (scalecore_generator/pages/math_font.py):
  a few kB instead of KaTeX's 100 kB of fonts, and about 6,300 fewer DOM elements on that page.
  Screen readers read the MathML itself.
- ``html``: KaTeX's HTML for the eye, with its stylesheet and fonts (Computer Modern, as the site
  looked when the browser typeset it), plus a MathML copy for screen readers
  (KaTeX's ``htmlAndMathml``).

A formula the typesetter cannot parse stops the build with the page, the line and its message.
Rendered formulas are kept in the cache (keyed by the TeX, the engine and its version), so a
warm build starts no Node at all.
"""

import hashlib
import html
import re
from pathlib import Path

ENGINES = {"html": "katex", "mathml": "temml"}  # the option's value -> the npm package that typesets it
from scalecore_generator.vendor import NODE_MODULES
from scalecore_generator.errors import ScalecoreError
FORMULA = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<open>\\\(|\\\[)(?P<tex>.*?)(?:\\\)|\\\])</(?P=tag)>',
                     re.S)
SERVER = r"""
// argv: the package.json beside node_modules, and the engine's package name (resolved as Node
// resolves it, so the package's own "exports" choose its CommonJS build)
const engine = process.argv[2], typeset = require("module").createRequire(process.argv[1])(engine);
const readline = require("readline");
const options = (display) => engine === "katex"
  ? { displayMode: display, output: "htmlAndMathml", throwOnError: true, strict: "ignore" }
  : { displayMode: display, throwOnError: true, wrap: display ? "none" : "=" };
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [tex, display] = JSON.parse(line);
  let answer;
  try {
    answer = { markup: typeset.renderToString(tex, options(display)) };
  } catch (error) {
    answer = { error: String(error && error.message || error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""


class MathError(ScalecoreError):
    """A formula KaTeX cannot typeset: the message names the page, the line and the fix."""


INLINE_CODE = re.compile(r"(`+).*?\1")


def check_closed(markdown: str, page: str, line_offset: int = 0) -> None:
    """An inline formula opened with ``\\(`` and never closed in its paragraph is no formula to
    arithmatex: Markdown shows a plain "(" and the TeX as text, and the build said nothing. A
    MathError with the page, the line and the fix (code, fenced or in backticks, is left alone)."""
    if "\\(" not in markdown:
        return  # every page without an inline formula
    from scalecore_generator.foundation.text import fenced_lines

    opened = None  # the line of a \( not yet closed in this paragraph
    for number, (line, fenced) in enumerate(zip(markdown.split("\n"), fenced_lines(markdown)), start=1 + line_offset):
        if fenced or not line.strip():
            if opened is not None:
                break
            continue
        for mark in re.findall(r"\\[()]", INLINE_CODE.sub("", line)):
            if mark == "\\(" and opened is None:
                opened = number
            elif mark == "\\)":
                opened = None
    if opened is not None:
        raise MathError(f"{page}:{opened}: a formula opened with \\( is not closed in its paragraph, so it is not "
                        "typeset: the page shows '(' and the TeX as text. Fix: close it with \\), or write the "
                        "parenthesis without the backslash if no formula was meant.")


class Typesetter:
    """Typesets the formulas of a page's HTML; one per build, remembering across builds."""

    def __init__(self, output: str, cache_file: Path, log):
        from scalecore_generator.foundation.cache import read_record

        self.engine = ENGINES[output]
        self.cache_file = cache_file
        # what made the markup: the engine, its version, and the options it was called with
        self.version = f"{self.engine} {engine_version(self.engine)} {hashlib.sha256(SERVER.encode()).hexdigest()[:12]}"
        data = read_record(cache_file, log)
        fresh = isinstance(data, dict) and data.get("engine") == self.version and isinstance(data.get("markup"), dict)
        self.memo: dict[str, str] = dict(data["markup"]) if fresh else {}
        self.loaded, self.used = set(self.memo), set()
        self.server = None

    def page(self, content: str, page: str, source) -> str:
        """``content`` with every formula typeset; ``page`` and ``source()`` (its markdown, read
        only when needed) name the line of a formula the typesetter refuses."""

        def typeset(match: re.Match) -> str:
            tex = html.unescape(match["tex"])
            display = match["open"] == "\\["
            markup = self.formula(tex, display, page, source)
            return f'<{match["tag"]} class="arithmatex">{markup}</{match["tag"]}>'

        return FORMULA.sub(typeset, content)

    def formula(self, tex: str, display: bool, page: str, source) -> str:
        key = f"{'D' if display else 'I'}\u0000{tex}"
        self.used.add(key)
        if key not in self.memo:
            answer = self._server().ask([tex, display])
            if "error" in answer:
                line = _line_of(source(), tex)
                where = f"{page}:{line}" if line else page
                raise MathError(f"{where}: the formula {_shown(tex)} is not valid TeX for {self.engine.capitalize()}: "
                                f"{answer['error'].strip()}. Fix: correct the TeX (what {self.engine.capitalize()} reads: "
                                "scalecore guide authoring, section Math), or write it as code with backticks.")
            self.memo[key] = answer["markup"] if display or self.engine != "temml" else breakable(answer["markup"])
        return self.memo[key]

    def _server(self):
        from scalecore_generator.foundation.node import LineServer

        if self.server is None:
            self.server = LineServer(SERVER, [str(NODE_MODULES.parent / "package.json"), self.engine],
                                     f"typesetting the math ({self.engine.capitalize()})")
        return self.server

    def save(self) -> None:
        """Keep what this build typeset, and only that (best effort: the cache only saves time)."""
        from scalecore_generator.foundation.cache import write_record

        if self.server is not None:
            self.server.close()
            self.server = None
        if self.used == self.loaded:
            return
        try:
            write_record(self.cache_file, {"engine": self.version, "markup": {k: self.memo[k] for k in sorted(self.used)}})
            self.loaded = set(self.used)
        except OSError:
            pass


    def markup(self) -> list[str]:
        """Every formula this build typeset, as it went into the pages (for the math font's cut)."""
        return [self.memo[key] for key in sorted(self.used)]


TAG = re.compile(r"<(/?)([a-z]+)\b[^>]*?(/?)>")


def breakable(markup: str) -> str:
    """An inline formula as one ``<math>`` per part between its ``=`` signs, so a long one can
    wrap at a narrow width. Chromium and Safari do not break MathML inside a line (Temml's
    ``wrap`` marks the parts, as top-level ``<mrow>``s, for Firefox alone), but a line may break
    between two ``<math>`` elements, as between two images. Read aloud, the parts follow each
    other as the whole did."""
    if not (markup.startswith("<math>") and markup.endswith("</math>")):
        return markup
    inner = markup[len("<math>"):-len("</math>")]
    parts, depth, start = [], 0, 0
    for tag in TAG.finditer(inner):
        closing, name, empty = tag.groups()
        if depth == 0 and (closing or name != "mrow"):
            return markup  # something other than a run of mrows at the top: leave it whole
        if not empty:
            depth += -1 if closing else 1
        if depth == 0:
            parts.append(inner[start:tag.end()])
            start = tag.end()
    if len(parts) < 2 or start != len(inner):
        return markup
    return "".join(f"<math>{part}</math>" for part in parts)


def engine_version(engine: str) -> str:
    import json

    return json.loads((NODE_MODULES / engine / "package.json").read_text(encoding="utf-8"))["version"]


def _shown(tex: str) -> str:
    one_line = " ".join(tex.split())
    return "\u201c" + (one_line if len(one_line) <= 60 else one_line[:57] + "...") + "\u201d"


def _line_of(source: str, tex: str) -> int | None:
    """The 1-based line of the page's markdown where the formula starts (its first line of TeX)."""
    first = next((part.strip() for part in tex.splitlines() if part.strip()), "")
    index = source.find(first) if first else -1
    return source.count("\n", 0, index) + 1 if index >= 0 else None

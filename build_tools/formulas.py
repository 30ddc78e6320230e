"""Math typeset when the site is built: every formula of every page, by KaTeX in Node.

pymdownx.arithmatex (generic mode) leaves each formula as TeX, in ``<span class="arithmatex">``
with ``\\( ... \\)`` or ``<div class="arithmatex">`` with ``\\[ ... \\]``. Typeset in the reader's
browser, that costs a script and a long task at every page load, and from file:// it never
happened (the script waited for a Material signal that does not fire there). So the build
typesets each formula once, with the pinned KaTeX package in one Node process for the whole
build, and the page ships no math JavaScript:

- ``output: html``: KaTeX's HTML for the eye, with its stylesheet and fonts, as the site looked
  when the browser typeset it, plus MathML for screen readers (KaTeX's ``htmlAndMathml``);
- ``output: mathml``: MathML alone, which Chromium, Firefox and Safari render natively: a
  fraction of the DOM, drawn with the browser's math font.

A formula KaTeX cannot parse stops the build with the page, the line and KaTeX's message.
Rendered formulas are kept in the cache (keyed by the TeX and KaTeX's version), so a warm build
starts no Node at all.
"""

import html
import re
from pathlib import Path

OUTPUTS = {"html": "htmlAndMathml", "mathml": "mathml"}
NODE_MODULES = Path(__file__).resolve().parent / "node_modules"
FORMULA = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<open>\\\(|\\\[)(?P<tex>.*?)(?:\\\)|\\\])</(?P=tag)>',
                     re.S)
SERVER = r"""
const katex = require(process.argv[1]), readline = require("readline");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [tex, display, output] = JSON.parse(line);
  let answer;
  try {
    answer = { markup: katex.renderToString(tex, { displayMode: display, output, throwOnError: true, strict: "ignore" }) };
  } catch (error) {
    answer = { error: String(error && error.message || error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""


class MathError(Exception):
    """A formula KaTeX cannot typeset: the message names the page, the line and the fix."""


class Typesetter:
    """Typesets the formulas of a page's HTML; one per build, remembering across builds."""

    def __init__(self, output: str, cache_file: Path, log):
        from build_tools.cache import read_record

        self.output = OUTPUTS[output]
        self.cache_file = cache_file
        self.version = katex_version()
        data = read_record(cache_file, log)
        fresh = isinstance(data, dict) and data.get("katex") == self.version and isinstance(data.get("markup"), dict)
        self.memo: dict[str, str] = dict(data["markup"]) if fresh else {}
        self.loaded, self.used = set(self.memo), set()
        self.server = None

    def page(self, content: str, page: str, source) -> str:
        """``content`` with every formula typeset; ``page`` and ``source()`` (its markdown, read
        only when needed) name the line of a formula KaTeX refuses."""

        def typeset(match: re.Match) -> str:
            tex = html.unescape(match["tex"])
            display = match["open"] == "\\["
            markup = self.formula(tex, display, page, source)
            return f'<{match["tag"]} class="arithmatex">{markup}</{match["tag"]}>'

        return FORMULA.sub(typeset, content)

    def formula(self, tex: str, display: bool, page: str, source) -> str:
        key = f"{'D' if display else 'I'}{self.output}\u0000{tex}"
        self.used.add(key)
        if key not in self.memo:
            answer = self._server().ask([tex, display, self.output])
            if "error" in answer:
                line = _line_of(source(), tex)
                where = f"{page}:{line}" if line else page
                raise MathError(f"{where}: the formula {_shown(tex)} is not valid TeX for KaTeX: {answer['error']}. "
                                "Fix: correct the TeX (KaTeX's supported functions: build_tools/node_modules/katex/"
                                "README.md), or write it as code with backticks.")
            self.memo[key] = answer["markup"]
        return self.memo[key]

    def _server(self):
        from build_tools.node import LineServer

        if self.server is None:
            self.server = LineServer(SERVER, [str(NODE_MODULES / "katex")], "typesetting the math (KaTeX)")
        return self.server

    def save(self) -> None:
        """Keep what this build typeset, and only that (best effort: the cache only saves time)."""
        from build_tools.cache import write_record

        if self.server is not None:
            self.server.close()
            self.server = None
        if self.used == self.loaded:
            return
        try:
            write_record(self.cache_file, {"katex": self.version, "markup": {k: self.memo[k] for k in sorted(self.used)}})
            self.loaded = set(self.used)
        except OSError:
            pass


def katex_version() -> str:
    import json

    return json.loads((NODE_MODULES / "katex" / "package.json").read_text(encoding="utf-8"))["version"]


def _shown(tex: str) -> str:
    one_line = " ".join(tex.split())
    return "\u201c" + (one_line if len(one_line) <= 60 else one_line[:57] + "...") + "\u201d"


def _line_of(source: str, tex: str) -> int | None:
    """The 1-based line of the page's markdown where the formula starts (its first line of TeX)."""
    first = next((part.strip() for part in tex.splitlines() if part.strip()), "")
    index = source.find(first) if first else -1
    return source.count("\n", 0, index) + 1 if index >= 0 else None

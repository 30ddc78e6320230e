"""``/// console``: a Python console running the core in the reader's browser (Pyodide).

Nothing runs at build time; without JavaScript the panel shows the starting code and says what the
console needs. The examples in examples/ (each file's first line, a comment, is its title) ship with
every console: a picker puts one in the editor.
"""

import html
from pathlib import Path

from markupsafe import Markup

from scalecore_generator.kinds.options import PanelOptions
from scalecore_generator.kinds.kind import Kind
from scalecore_generator.kinds.options import Integer, Optional, Text


class Console(Kind):
    label = "Python console"
    isolated = True  # Stop interrupts a loop in place, input() reads the reader's answer

    class Options(PanelOptions):
        # The code in the editor when the page opens; default: starter.py beside this file.
        code = Optional(Text())
        # The editor's height, in lines.
        height = Integer(low=1, high=60, default=8)

    def check(self, options, site):
        if options["code"] is None:
            # The starting code reads a corpus's embedding table where the site has corpora (a
            # site whose kinds need none loads none: load_table would find nothing there)
            starter = "starter.py" if site.corpora else "starter-without-corpora.py"
            options["code"] = (Path(__file__).parent / starter).read_text(encoding="utf-8").rstrip("\n")

    def render(self, options, panel):
        return panel.render_template(options, code=options["code"], height=options["height"],
                                     examples=examples(corpora=bool(panel.site.corpora)))


def examples(corpora: bool = True) -> list[tuple[str, str]]:
    """(title, code) of each example, in file-name order; the title is the first line's comment.
    Without ``corpora``, those that read a corpus's table (load_table) are left out."""
    found = []
    for path in sorted((Path(__file__).parent / "examples").glob("*.py")):
        code = path.read_text(encoding="utf-8").rstrip("\n")
        if not corpora and "load_table(" in code:
            continue
        first, _, rest = code.partition("\n")
        # Newlines as character references: a blank line would end the page's raw HTML block.
        found.append((first.lstrip("# ").strip(), Markup(html.escape(rest.lstrip("\n")).replace("\n", "&#10;"))))
    return found

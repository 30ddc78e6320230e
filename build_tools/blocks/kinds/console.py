"""``/// console``: a Python console running the core in the reader's browser (Pyodide).

Nothing runs at build time; without JavaScript the panel shows the starting code and says what the
console needs.
"""

from mkdocs.config import config_options as c

from build_tools.blocks.base import Kind, PanelOptions, register
from build_tools.blocks.options import Integer, Text


@register
class Console(Kind):
    name = "console"
    label = "Python console"

    class Options(PanelOptions):
        # The code in the editor when the page opens.
        code = c.Optional(Text())
        # The editor's height, in lines.
        height = Integer(low=1, high=60, default=8)

    def render(self, options, panel):
        return panel.render_template(options, code=options["code"], height=options["height"])

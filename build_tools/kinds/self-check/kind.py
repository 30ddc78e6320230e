"""``/// self-check``: a question, its answer behind a "Show answer" disclosure, and why.

Plain HTML (<details>), so it works without JavaScript. Each has a stable id, the page's slug and
its number among the page's self-checks, so the reader's progress can be stored later.

The texts are markdown, rendered with the page's extensions. Raw HTML in them is shown as text,
and links to .md files are refused: MkDocs rewrites such links only in the page's own markdown,
not in HTML a block hands it, so they would break.
"""

import re

from build_tools.blocks.base import OptionError, PanelOptions, slug
from build_tools.kind import Kind
from build_tools.blocks.options import Text

PAGE_LINK = re.compile(r'href="(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)([^"#?]*\.md)([#?][^"]*)?"')
TEXTS = ("question", "answer", "explanation")


class SelfCheck(Kind):
    label = "Check yourself"

    class Options(PanelOptions):
        question = Text()
        answer = Text()
        explanation = Text()

    def render(self, options, panel):
        html = {}
        for key in TEXTS:
            html[key] = panel.markdown(options[key])
            link = PAGE_LINK.search(html[key])
            if link:
                raise OptionError(key, f"the link to {link[1]!r} would break: MkDocs does not rewrite "
                                       "links to .md files inside a self-check; link to the page's URL "
                                       "(for example '../softmax/') instead")
        check_id = f"scalecore-selfcheck-{slug(panel.context.page)}-{panel.kind_number}"
        return panel.render_template(options, panel_id=check_id, check_id=check_id, **html)

"""Tables the build writes into a page, so they cannot drift from what they describe.

An author writes the marker alone on its line, and the build replaces it with a markdown table:

    {{ scalecore: options }}    every option of the plugin (scalecore_generator/adapters/mkdocs/config.py), with its type,
                                default, accepted values and what it changes
    {{ scalecore: kind-settings }}  each kind's own settings (under the plugin's ``kinds`` option)
    {{ scalecore: corpora }}    the corpora this site bakes, in the order of the plugin's corpora
                                option, with their sizes (the site manifest's corpora)

Markers inside fenced or inline code are left as written (so a guide can show them). A marker
that names no table, or shares its line with other text, is an error with the page and line.
"""

import difflib
import re
from collections.abc import Callable
from scalecore_generator.errors import ScalecoreError

MARKER = re.compile(r"\{\{\s*scalecore:\s*(?P<name>[^}]*?)\s*\}\}")


class GeneratedError(ScalecoreError):
    """A marker that cannot be expanded: ``str()`` is ``page:line: message``."""


def corpora_table(corpora: list[dict]) -> str:
    """The site manifest's corpora (each with name, title and sizes), in their order, as a table."""
    rows = ["| Corpus | Name in panels | Sentences | Tokens | Vocabulary |", "|---|---|---:|---:|---:|"]
    for corpus in corpora:
        title = str(corpus["title"]).replace("|", "\\|")
        rows.append(f"| {title} | `{corpus['name']}` | {corpus['sentences']:,} | {corpus['tokens']:,} | "
                    f"{corpus['vocabulary']:,} |")
    return "\n".join(rows)


def expand_generated(markdown: str, tables: dict[str, Callable[[], str]], page: str, line_offset: int = 0,
                     check: bool = True) -> str:
    """Replace each marker line by its table (a blank line around it, so it is one table).

    The tables add lines, so the plugin checks the page's markers first (``check``: a mistake
    raises with its line) and replaces them last, after the blocks have been expanded with the
    lines of the .md file; that second pass (``check=False``) only replaces lines that are a
    marker of a known table and leaves anything else as it is."""
    if MARKER.search(markdown) is None:  # most pages: no line holds a marker, nothing to replace
        return markdown
    from scalecore_generator.foundation.text import fenced_lines
    from scalecore_generator.pages.quotes import CODE_SPAN

    lines = markdown.split("\n")
    out = []
    for number, (text, fenced) in enumerate(zip(lines, fenced_lines(markdown)), start=1 + line_offset):
        spans = [match.span() for match in CODE_SPAN.finditer(text)]
        markers = [m for m in MARKER.finditer(text) if not fenced and not any(a <= m.start() < b for a, b in spans)]
        if not markers:
            out.append(text)
            continue
        marker = markers[0]
        name = marker["name"]
        if not check and (name not in tables or text.strip() != marker[0]):
            out.append(text)
            continue
        if name not in tables:
            close = difflib.get_close_matches(name, tables, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise GeneratedError(f"{page}:{number}: {marker[0]}: no table named {name!r}{hint}. Fix: write one of "
                                 f"{', '.join('{{ scalecore: ' + t + ' }}' for t in tables)}")
        if text.strip() != marker[0]:
            raise GeneratedError(f"{page}:{number}: {marker[0]} shares its line with other text. Fix: put it alone "
                                 "on its line (it becomes a table)")
        out += ["", tables[name](), ""]
    return "\n".join(out)

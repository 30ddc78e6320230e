"""Find author blocks in a page's markdown: ``/// kind | title``, YAML options, ``///``.

The look is pymdown-extensions' Blocks, but the parsing is ours on purpose: pymdownx turns a block
it rejects back into plain text and can swallow bad YAML, so a typo would publish a page with a
missing panel and no warning. Here every line that looks like block syntax is either a block or an
error with its line, and nothing falls through silently.

Code fences are followed the CommonMark way, so the authoring guide can show blocks as examples:
a fence opens with 3 or more backticks or tildes (a backtick fence's info string has no
backtick) and closes with a line of the same character, at least as long, and nothing else. The
opening fence may be indented (fences sit inside lists, admonitions and tabs); the closing one
may be indented up to 3 spaces more than the opening one.
"""

import re
from dataclasses import dataclass, field

from scalecore_generator.foundation.text import FENCE_OPEN, Fence

SYNTAX = re.compile(r"^(?P<indent> *)(?P<slashes>/{3,})(?P<rest>.*)$")


class Located(Exception):
    """A mistake at a line of the page (already counted in the .md file's lines)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line, self.message = line, message


@dataclass
class RawBlock:
    kind: str
    title: str | None  # from '/// kind | title'
    line: int  # the opening line
    body: list[str] = field(default_factory=list)  # the lines between opening and closing

    @property
    def body_line(self) -> int:
        """The line of the body's first line."""
        return self.line + 1


def scan(markdown: str, kinds: list[str], line_offset: int = 0) -> list["str | RawBlock"]:
    """The page as its lines, with each block gathered into a RawBlock. Raises Located.

    Lines are numbered from ``line_offset + 1``, so they are the lines of the .md file.
    """
    known = ", ".join(kinds)
    segments: list[str | RawBlock] = []
    block: RawBlock | None = None
    fence: Fence | None = None
    for number, line in enumerate(markdown.split("\n"), start=line_offset + 1):
        if block is not None:
            syntax = SYNTAX.match(line)
            if syntax and len(syntax["indent"]) <= 3:  # deeper lines belong to the YAML
                if _is_closing(syntax):
                    segments.append(block)
                    block = None
                    continue
                opened = _opening(syntax, line, number, known)
                raise Located(block.line, f"'/// {block.kind}' opened here is not closed before "
                                          f"'/// {opened[0]}' on line {number}; add a line '///' after "
                                          "its options (blocks do not nest)")
            block.body.append(line)
            continue
        if fence is not None:
            if fence.closed_by(line):
                fence = None
            elif fence.hidden is None and line.lstrip().startswith("///"):
                fence.hidden = number
            segments.append(line)
            continue
        opener = FENCE_OPEN.match(line)
        if opener and (opener["fence"][0] == "~" or "`" not in opener["info"]):
            fence = Fence(opener["fence"][0], len(opener["fence"]), len(opener["indent"]), number)
            segments.append(line)
            continue
        syntax = SYNTAX.match(line)
        if syntax is None:
            segments.append(line)
            continue
        shown = line.strip()
        if len(syntax["indent"]) > 3:
            raise Located(number, f"'{shown}' is indented by {len(syntax['indent'])} spaces: block syntax "
                                  "starts at the beginning of the line (at most 3 spaces), as panels "
                                  "cannot sit inside lists, admonitions or tabs; to show it as an "
                                  "example, put it in a code fence")
        if syntax["slashes"] == "///" and syntax["rest"] == "":
            raise Located(number, "stray '///': no block is open, so there is nothing to close; "
                                  f"a block opens with '/// <kind>' (the kinds are: {known})")
        kind, title = _opening(syntax, line, number, known)
        block = RawBlock(kind, title, number)
    if block is not None:
        raise Located(block.line, f"'/// {block.kind}' opened here is never closed; add a line '///' "
                                  "after its options")
    if fence is not None and fence.hidden is not None:
        raise Located(fence.line, f"the code fence '{fence.text}' opened here is never closed, so the "
                                  f"block syntax on line {fence.hidden} is not expanded; close the "
                                  f"fence with a line '{fence.text}'")
    return segments


def _is_closing(syntax: re.Match) -> bool:
    """'///', also with trailing spaces (invisible in an editor) when a block is open."""
    return syntax["slashes"] == "///" and syntax["rest"].strip() == ""


def _opening(syntax: re.Match, line: str, number: int, known: str) -> tuple[str, str | None]:
    """(kind, title) of '/// kind | title', or Located for a line that only looks like one."""
    shown = line.strip()
    slashes, rest = syntax["slashes"], syntax["rest"]
    if len(slashes) > 3:
        raise Located(number, f"'{shown}' starts with {len(slashes)} slashes, so it is not block syntax "
                              "and would show as text; a block opens with '/// <kind>' and closes "
                              "with '///' (exactly three slashes)")
    if rest.strip() == "":
        raise Located(number, "'///' followed only by spaces opens no block, and no block is open to "
                              f"close; write '/// <kind>' (the kinds are: {known}) or remove the line")
    if rest[0] not in " \t":
        raise Located(number, f"'{shown}' needs a space after '///': write '/// {rest.strip()}'")
    head, bar, title = rest.partition("|")
    words = head.split()
    title = title.strip() if bar else None
    if not words:
        raise Located(number, f"'{shown}' has no kind before '|': write '/// <kind> | {title}' "
                              f"(the kinds are: {known})")
    if len(words) > 1:
        raise Located(number, f"'{shown}' has text after the kind {words[0]!r}: a title goes after "
                              f"'|', as in '/// {words[0]} | {' '.join(words[1:])}'")
    if bar and not title:
        raise Located(number, f"'{shown}' has an empty title after '|': write '/// {words[0]} | <title>' "
                              "or drop the '|'")
    return words[0], title

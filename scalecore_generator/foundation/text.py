"""Markdown text as every wing reads it: where its code fences are, and stable ids.

The fence rules are CommonMark's (blocks/scanner.py says why they matter): a fence opens with 3 or
more backticks or tildes (a backtick fence's info string has no backtick) and closes with a line
of the same character, at least as long, and nothing else; the opening fence may be indented, the
closing one up to 3 spaces more. The blocks, the number quotes, the module's metadata and the
authors' scripts all skip what is inside a fence, by the same rules: here, once.
"""

import re
from dataclasses import dataclass

FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
FENCE_CLOSE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})[ \t]*$")


@dataclass
class Fence:
    """An open code fence: what closes it, and where it opened."""

    char: str
    length: int
    indent: int
    line: int
    hidden: int | None = None  # first block-looking line inside, reported if never closed

    @property
    def text(self) -> str:
        return self.char * self.length

    def closed_by(self, line: str) -> bool:
        match = FENCE_CLOSE.match(line)
        return bool(match) and match["fence"][0] == self.char and len(match["fence"]) >= self.length \
            and len(match["indent"]) <= self.indent + 3


def fenced_lines(markdown: str) -> list[bool]:
    """For each line, whether it is part of a fenced code block (fence lines included), with the
    block scanner's fence rules (blocks/scanner.py): other page passes leave code alone too."""
    inside, fence = [], None
    for line in markdown.split("\n"):
        if fence is not None:
            inside.append(True)
            if fence.closed_by(line):
                fence = None
            continue
        opener = FENCE_OPEN.match(line)
        if opener and (opener["fence"][0] == "~" or "`" not in opener["info"]):
            fence = Fence(opener["fence"][0], len(opener["fence"]), len(opener["indent"]), 0)
        inside.append(fence is not None)
    return inside


def slug(text: str) -> str:
    """'docs/lessons/softmax.md' -> 'docs-lessons-softmax' (stable ids for panels)."""
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"\.md$", "", text.lower())).strip("-") or "page"

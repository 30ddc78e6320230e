"""The formulas of a module's passages, typeset once: a table of each formula's plain text and its
MathML as trees of elements the browser builds (never a markup string it parses)."""

from __future__ import annotations

import hashlib
import json
from html.parser import HTMLParser

from scalecore_generator.mentor.passages import VOID
from scalecore_generator.mentor.text import tex_to_text

MATHML = {"math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac", "msqrt",
          "mroot", "mstyle", "mpadded", "mphantom", "munder", "mover", "munderover", "mtable", "mtr", "mtd",
          "menclose", "merror", "mmultiscripts", "mprescripts", "none", "semantics", "annotation"}


class _MathTree(HTMLParser):
    """Typeset markup as the trees of its <math> elements: [name, {attributes}, child, ...], a
    child being a tree or a text. Anything outside <math> (KaTeX's HTML copy) is left out, and
    so is any attribute that could run or fetch something: the browser builds only MathML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.roots: list = []
        self.stack: list = []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return  # never closed: nothing to push
        if tag not in MATHML or (not self.stack and tag != "math"):
            if self.stack:
                self.stack.append(None)  # an element the browser will not build: skipped with its content
            return
        if self.stack and self.stack[-1] is None:
            self.stack.append(None)
            return
        kept = {name: value or "" for name, value in attrs
                if not name.startswith("on") and name not in ("href", "src", "xlink:href")}
        node = [tag, kept]
        if self.stack:
            self.stack[-1].append(node)
        else:
            self.roots.append(node)
        self.stack.append(node)

    def handle_endtag(self, tag):
        if self.stack and tag not in VOID:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] is not None:
            self.stack[-1].append(data)


def math_trees(markup: str) -> list:
    parser = _MathTree()
    parser.feed(markup)
    parser.close()
    return parser.roots


def _typeset(passages: list[dict], typeset, memo=None) -> tuple[list[dict], list[dict]]:
    """Passages whose formulas point into a table of typeset formulas ({"m": index}), and that
    table: each formula once, with its plain text and its MathML trees (none without a typesetter).
    ``memo`` (a cache.Memo) keeps a formula's text and trees across builds, under the hash of its
    TeX and of the markup the typesetter gave: parsing 300 formulas' MathML again was 90 ms of
    every warm build of this site."""
    table: list[dict] = []
    index: dict[tuple, int] = {}

    def read(tex: str, markup: str) -> dict:
        return {"text": tex_to_text(tex), "trees": math_trees(markup) if markup else []}

    def formula(part: dict) -> dict:
        key = (part["tex"], part["display"])
        if key not in index:
            markup = typeset(*key) if typeset else ""
            if memo is None:
                found = read(part["tex"], markup)
            else:
                name = hashlib.sha256(json.dumps([part["tex"], markup]).encode("utf-8")).hexdigest()
                found = memo.get("formula:" + name, lambda: read(part["tex"], markup))
            index[key] = len(table)
            table.append({"text": found["text"], "display": part["display"], "trees": found["trees"]})
        return {"m": index[key]}

    out = []
    for passage in passages:
        copy = dict(passage)
        copy["sentences"] = [[part if isinstance(part, str) else formula(part) for part in sentence]
                             for sentence in passage["sentences"]]
        out.append(copy)
    return out, table

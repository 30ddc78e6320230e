"""A rendered page read for the mentor: its passages (each with its section, label and role), its
outline and where its panels are, from the page's own markup (see the package's docstring for
what counts as a passage and which role it gets).

Written on the standard library's HTML parser, as MkDocs' own search plugin is: the pages are our
own, well-formed output, and a full HTML library would be a dependency for a few dozen lines.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from scalecore_generator.mentor.text import flat, readable, segments, sentences

BLOCKS = {"p", "li", "dd", "dt", "figcaption"}
HEADINGS = {"h2", "h3", "h4"}
SKIPPED = {"script", "style", "svg", "button", "select", "textarea", "noscript", "form"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
LEAD_IN = re.compile(r"^([A-Z][A-Za-z' ]{2,30}):\s")  # "Why it matters: ..." (authoring.md's conventions)
LEAD_ROLES = {"why it matters": "why", "you will be able to": "goals", "where next": "navigation",
              "on this site": "navigation", "see also": "navigation", "next": "navigation"}
READING_FORM = "mentor-reading/5"  # the memo's name for a page's reading: a new form when what is read changes (3: panels'
# options; 4: run_in, a paragraph that opens with a bold title; 5: a panel's readouts, role "measure")
CONCEPT_CALLOUT = "abstract"  # authoring.md: a step's one idea, stated exactly, is an '!!! abstract' box


@dataclass
class _Open:
    tag: str
    kind: str = ""  # "panel", "callout", "part", "skip", "heading", "block", "run-in"; a readout: "readout", "name", "hint"
    label: str = ""
    start: int = 0  # a run-in title's first piece of its block's text
    anchor: str = ""
    role: str = ""


@dataclass
class Page:
    """What the mentor needs of one rendered page."""

    url: str  # site path of the page, e.g. "modules/softmax-range.html"
    title: str
    passages: list[dict] = field(default_factory=list)
    outline: list[dict] = field(default_factory=list)  # the page's sections: title, anchor
    panels: list[dict] = field(default_factory=list)  # kind, anchor: where each panel is
    tables: list[dict] = field(default_factory=list)  # a baked panel's tables: kind, columns, rows (the cells' text)


class _Passages(HTMLParser):
    """Walks a page's content once, collecting passages, the outline and where the panels are."""

    def __init__(self, page: Page):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.stack: list[_Open] = []
        self.section = {"title": page.title, "anchor": ""}
        self.text: list[str] | None = None  # the block being read
        self.run_in = False  # whether the block opens with a run-in title ("**Words used before ...** Its three ...")
        self.heading: list[str] | None = None
        self.callout: list[str] | None = None  # the callout's title, while it is read
        self.parts: dict[str, list[str]] | None = None  # the marked parts of the panel being read
        self.part: str | None = None
        self.links: list[list] = []  # the links of the block being read: [href, its text]
        self.table: dict | None = None  # a panel's table being read: {"kind", "columns", "rows"}
        self.cell: list[str] | None = None  # the text of its cell being read
        self.readout: dict[str, list[str]] | None = None  # a panel's readout being read: its "name" and "hint"
        self.readout_part: str | None = None
        self.measures: set[str] = set()  # the readouts read already (a page's panels repeat theirs)

    # -- where we are -------------------------------------------------------------------------
    def _inside(self, kind: str) -> _Open | None:
        return next((o for o in reversed(self.stack) if o.kind == kind), None)

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        opened = _Open(tag)
        if self._inside("skip") or tag in SKIPPED or "headerlink" in classes:
            opened.kind = "skip"
        elif "data-scalecore-kind" in a and self._inside("panel") is None:
            opened.kind, opened.anchor = "panel", a.get("id", "")
            opened.label = a.get("aria-label") or ""
            self.page.panels.append({"kind": a["data-scalecore-kind"], "anchor": opened.anchor,
                                     "options": _options(a.get("data-scalecore-options"))})
            self.parts = {}
        elif self._inside("panel") is not None:
            if tag == "table" and self.table is None:  # a baked view's table: its column names name its numbers
                opened.kind, self.table = "table", {"kind": self.page.panels[-1]["kind"], "columns": [], "rows": []}
            elif tag == "thead" and self.table is not None:
                opened.kind = "thead"
            elif tag == "tr" and self.table is not None and self._inside("thead") is None:
                opened.kind = "row"
                self.table["rows"].append([])
            elif tag in ("th", "td") and self.table is not None and self.cell is None:
                opened.kind, self.cell = "cell", []
            elif tag == "div" and "scalecore-readout" in classes and self.readout is None:
                opened.kind, self.readout = "readout", {"name": [], "hint": []}
            elif self.readout is not None and (tag == "dt" or "scalecore-readout__hint" in classes):
                opened.kind = self.readout_part = "name" if tag == "dt" else "hint"
            elif "data-scalecore-passage" in a and self.part is None:
                opened.kind, self.part = "part", a["data-scalecore-passage"]
                self.parts.setdefault(self.part, [])
        elif tag in HEADINGS and a.get("id"):
            opened.kind, opened.anchor = "heading", a["id"]
            self.heading = []
        elif tag == "div" and "admonition" in classes:
            opened.kind = "callout"
            opened.role = "concept" if CONCEPT_CALLOUT in classes else "aside"
        elif tag == "p" and "admonition-title" in classes and self._inside("callout"):
            opened.kind = "title"
            self.callout = []
        elif self.text is None and (tag in BLOCKS or (tag == "div" and "arithmatex" in classes)):
            opened.kind = "block"  # a paragraph, a list item, or a displayed formula
            self.text = []
            self.links = []
        elif tag in ("strong", "b") and self._opens_run_in():
            opened.kind, opened.start = "run-in", len(self.text)
        elif tag == "a" and self.text is not None and a.get("href"):
            opened.kind = "link"
            self.links.append([a["href"], len("".join(self.text))])
        self.stack.append(opened)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:
            opened = self.stack.pop()
            self._close(opened)
            if opened.tag == tag:
                break

    def _close(self, opened: _Open):
        if opened.kind == "heading" and self.heading is not None:
            title = readable("".join(self.heading)).rstrip("¶").strip()
            self.section = {"title": title, "anchor": opened.anchor}
            if opened.tag == "h2":
                self.page.outline.append(dict(self.section))
            self.heading = None
        elif opened.kind == "title" and self.callout is not None:
            callout = self._inside("callout")
            if callout is not None:
                callout.label = readable("".join(self.callout))
            self.callout = None
        elif opened.kind == "run-in" and self.text is not None:
            title = readable("".join(self.text[opened.start:]))
            # a sentence of its own (a title that ends in a colon runs into the sentence it opens: "Why it matters:")
            self.run_in = title.endswith(".") and len(title.split()) <= 12
        elif opened.kind == "block" and self.text is not None:
            raw = "".join(self.text)
            text = readable(raw)
            self.text = None
            callout = self._inside("callout")
            label = callout.label if callout else ""
            run_in, self.run_in = self.run_in, False
            last = self.page.passages[-1] if self.page.passages else None
            if opened.tag == "div" and last and (last["anchor"], last["label"]) == (self.section["anchor"], label) \
                    and "parts" not in last:
                last["raw"] += " " + raw  # a displayed formula belongs to the sentence that leads to it
            elif len(text) >= 20:
                role = self._role(text, opened.tag, callout)
                self._add(raw, label, self.section["anchor"], role=role,
                          links=self._pointers() if role == "navigation" else None)
                if run_in:
                    self.page.passages[-1]["run_in"] = True
        elif opened.kind == "link" and self.text is not None and self.links:
            href, start = self.links[-1]
            if isinstance(start, int):
                self.links[-1] = [href, readable("".join(self.text)[start:])]
        elif opened.kind == "part":
            self.part = None
        elif opened.kind in ("name", "hint") and self.readout is not None:
            self.readout_part = None
        elif opened.kind == "readout" and self.readout is not None:
            self._add_measure(readable("".join(self.readout["name"])), readable("".join(self.readout["hint"])))
            self.readout = None
        elif opened.kind == "cell" and self.cell is not None and self.table is not None:
            text = readable("".join(self.cell))
            if self._inside("thead") is not None:
                self.table["columns"].append(text)
            elif self._inside("row") is not None:
                self.table["rows"][-1].append(text)
            self.cell = None
        elif opened.kind == "table" and self.table is not None:
            if self.table["columns"] and self.table["rows"]:
                self.page.tables.append(self.table)
            self.table = None
        elif opened.kind == "panel" and self.parts is not None:
            parts = {name: "".join(texts) for name, texts in self.parts.items() if readable("".join(texts))}
            if parts:
                self._add(" ".join(parts.values()), opened.label or "Panel", opened.anchor,
                          role="check" if "question" in parts else "panel", parts=parts)
            self.parts = None

    def _add_measure(self, name: str, hint: str) -> None:
        """A panel's readout as a passage, "Name: what it measures", once a page (its panels repeat their
        readouts, with other values): readers ask what a panel's number means ("what is the 'gradient size'
        readout measuring?"), and the hint under it is where the page says so. Its value is left to the
        facts, its anchor is the first panel that shows it."""
        text = f"{name}: {hint}" if name and hint else ""
        if not text or text in self.measures:
            return
        self.measures.add(text)
        panel = self._inside("panel")
        self._add(text, name, panel.anchor if panel else self.section["anchor"], role="measure")

    def _opens_run_in(self) -> bool:
        """Whether bold text starts here as a paragraph's run-in title: first in a paragraph outside a callout (whose
        title is its label). Such a title, a sentence of its own, led answers alone as if it said something ("Words
        used before the next module explains them." led a LayerNorm question): the mentor gives it with the sentence
        after it (run_in, mentor-core.js)."""
        block = self._inside("block")
        return (block is not None and block.tag == "p" and self._inside("callout") is None and self.text is not None
                and readable("".join(self.text)) == "" and self._inside("run-in") is None)

    def _role(self, text: str, tag: str, callout: _Open | None) -> str:
        """What a block is for, by the authoring conventions (the module's docstring)."""
        lead = LEAD_IN.match(text)
        if lead and lead.group(1).lower() in LEAD_ROLES:
            return LEAD_ROLES[lead.group(1).lower()]
        if callout is not None:
            return callout.role
        if tag == "li" and any(re.match(r"https?://", href) for href, _ in self.links):
            return "reference"  # a list item citing an outside source
        return "text"

    def _pointers(self) -> list[dict]:
        """The site pages a navigation passage points to ({"page": site path, "title": the link's
        text}); its links to other hosts are not kept."""
        base = posixpath.dirname(self.page.url)
        out: dict[str, dict] = {}
        for href, text in self.links:
            if re.match(r"[a-z][a-z0-9+.-]*:|#|/", href):
                continue
            path, _, fragment = href.partition("#")
            target = posixpath.normpath(posixpath.join(base, path)) + (f"#{fragment}" if fragment else "")
            out.setdefault(target, {"page": target, "title": text if isinstance(text, str) and text else target})
        return list(out.values())

    def _add(self, raw: str, label: str, anchor: str, role: str = "text", parts: dict | None = None,
             links: list[str] | None = None):
        passage = {"id": f"{self.page.url}#{len(self.page.passages)}", "page": self.page.url,
                   "section": self.section["title"], "anchor": anchor, "label": label, "raw": raw, "role": role}
        if parts:
            passage["parts"] = parts
        if links:
            passage["links"] = links
        self.page.passages.append(passage)

    def handle_data(self, data):
        if self._inside("skip"):
            return
        if self.cell is not None:
            self.cell.append(data)
        if self.heading is not None:
            self.heading.append(data)
        elif self.callout is not None:
            self.callout.append(data)
        elif self.parts is not None:
            if self.readout is not None and self.readout_part is not None:
                self.readout[self.readout_part].append(data)
            elif self.part is not None:
                self.parts[self.part].append(data)
        elif self.text is not None:
            self.text.append(data)


def _options(text: str | None) -> dict:
    """A panel's options as its page carries them (canonical JSON); {} where there are none."""
    try:
        options = json.loads(text or "{}")
    except ValueError:
        return {}
    return options if isinstance(options, dict) else {}


def read_page(html: str, url: str, title: str) -> Page:
    """The passages, outline and panels of a page's content HTML (MkDocs' page.content)."""
    page = Page(url=url, title=title)
    parser = _Passages(page)
    parser.feed(html)
    parser.close()
    for passage in page.passages:
        _finish(passage)
    return page


def _finish(passage: dict) -> None:
    """A passage's raw text (formulas as TeX) becomes its sentences and its plain text; a panel's
    parts keep their plain text and the span of sentences each covers."""
    raw = passage.pop("raw")
    if "parts" not in passage:
        passage["sentences"] = sentences(segments(raw))
    else:
        passage["sentences"], spans = [], {}
        for name, part in passage["parts"].items():
            cut = sentences(segments(part))
            spans[name] = [len(passage["sentences"]), len(passage["sentences"]) + len(cut)]
            passage["sentences"] += cut
            passage["parts"][name] = flat(segments(part))
        passage["spans"] = spans
    passage["text"] = " ".join(flat(sentence) for sentence in passage["sentences"])

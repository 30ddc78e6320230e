"""Every page of the built site, read as a reader's browser would get it (no JavaScript run):

- no broken internal link: every href/src that stays on the site names a file that exists, and
  every #anchor exists on its target page (links are relative, so the site works from file://);
- every self-check has a question, a non-empty answer and a non-empty explanation;
- every page has a <title> and a meta description;
- every <img> has a non-empty alt text.

Uses the session fixture ``built_site`` (tests/conftest.py): the real site, built once.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Attributes that hold a URL the browser loads or follows. data-scalecore-manifest is the URL our
# panels fetch the manifest from (data-scalecore-manifest-script its script twin, for file://), and
# data-scalecore-script the kind's panel script: a wrong one breaks every panel on the page.
URL_ATTRIBUTES = {"href", "src", "poster", "data-scalecore-manifest", "data-scalecore-manifest-script",
                  "data-scalecore-script"}
EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")  # http:, https:, mailto:, data:, blob:...


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text() for child in self.children)

    def walk(self):
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [node for node in self.walk() if node is not self and (tag is None or node.tag == tag)
                and (cls is None or cls in node.classes())]


class TreeBuilder(HTMLParser):
    """A small, forgiving DOM: enough to find elements, their attributes, text and nesting."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, 0)
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {name: value or "" for name, value in attrs}, self.getpos()[0])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, {name: value or "" for name, value in attrs}, self.getpos()[0]))

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


@lru_cache(maxsize=None)
def parse(path: Path) -> Node:
    builder = TreeBuilder()
    builder.feed(path.read_text(encoding="utf-8"))
    builder.close()
    return builder.root


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def anchors(path: Path) -> set[str]:
    return {node.attrs[key] for node in parse(path).walk() for key in ("id", "name")
            if key in node.attrs and (key == "id" or node.tag == "a")}


def links(path: Path):
    """(line, tag, attribute, value) of every URL-valued attribute on the page."""
    for node in parse(path).walk():
        for attribute in URL_ATTRIBUTES & node.attrs.keys():
            if node.tag == "link" and node.attrs.get("rel") in ("canonical", "alternate"):
                continue  # about the page, not loaded (and empty-site_url canonical links are absent)
            yield node.line, node.tag, attribute, node.attrs[attribute]


@pytest.fixture(scope="module")
def site(built_site) -> Path:
    return Path(built_site)


@pytest.fixture(scope="module")
def html_pages(site) -> list[Path]:
    found = pages(site)
    assert any(path.name == "index.html" for path in found)
    return found


def test_the_site_has_its_pages(site, html_pages):
    names = {path.relative_to(site).as_posix() for path in html_pages}
    assert {"index.html", "modules/softmax-range.html", "corpora.html", "guide/authoring.html",
            "guide/api.html", "guide/offline.html"} <= names


def broken_links(site: Path, html_pages: list[Path]) -> list[str]:
    """One message per link that would fail in a browser, naming page, line and why."""
    site = site.resolve()
    broken = []
    for page in html_pages:
        where = page.relative_to(site).as_posix()
        for line, tag, attribute, value in links(page):
            url = value.strip()
            if not url or EXTERNAL.match(url):
                continue
            parts = urlsplit(url)
            if parts.path.startswith("/") and where == "404.html":
                # The error page is served for any missing path, at any depth, so MkDocs writes its
                # links from the site's root on purpose; resolve them there.
                parts = parts._replace(path=posixpath.relpath(parts.path, "/"))
            elif parts.path.startswith("/"):
                broken.append(f"{where}:{line}: <{tag} {attribute}={value!r}>: a root-relative URL breaks "
                              "from file:// and under a sub-path; use a relative one")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            if target.is_dir():
                target = target / "index.html"
            if site not in target.parents:
                broken.append(f"{where}:{line}: <{tag} {attribute}={value!r}>: points outside the site")
                continue
            if not target.is_file():
                broken.append(f"{where}:{line}: <{tag} {attribute}={value!r}>: no file "
                              f"{target.relative_to(site).as_posix()}")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html" and fragment not in anchors(target):
                broken.append(f"{where}:{line}: <{tag} {attribute}={value!r}>: no id {fragment!r} on "
                              f"{target.relative_to(site).as_posix()}")
    return broken


def test_no_broken_internal_link(site, html_pages):
    broken = broken_links(site, html_pages)
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_every_panel_is_back_in_its_page_in_place_of_its_slot(site, html_pages):
    # The panels wait in slots while Python-Markdown converts a page (scalecore_generator/blocks/stash.py)
    left = [page.relative_to(site).as_posix() for page in html_pages
            if "data-scalecore-slot" in page.read_text(encoding="utf-8")]
    assert not left, left


def test_every_self_check_has_a_question_an_answer_and_an_explanation(site, html_pages):
    found = 0
    problems = []
    for page in html_pages:
        where = page.relative_to(site).as_posix()
        for check in parse(page).find_all(cls="scalecore-panel--self-check"):
            found += 1
            name = check.attrs.get("id", "?")
            details = check.find_all("details", "scalecore-selfcheck")
            parts = {part: [node.text().strip() for node in check.find_all(cls=f"scalecore-selfcheck-{part}")]
                     for part in ("question", "answer", "explanation")}
            if len(details) != 1:
                problems.append(f"{where}: {name}: {len(details)} details.scalecore-selfcheck, expected 1")
            for part, texts in parts.items():
                if len(texts) != 1 or not texts[0]:
                    problems.append(f"{where}: {name}: {part} missing or empty ({texts!r})")
            if details:  # the answer and its explanation stay behind the disclosure
                hidden = {node.attrs.get("class") for node in details[0].find_all("div")}
                if not {"scalecore-selfcheck-answer", "scalecore-selfcheck-explanation"} <= hidden:
                    problems.append(f"{where}: {name}: answer and explanation must be inside the <details>")
            if not name.startswith("scalecore-selfcheck-"):
                problems.append(f"{where}: {name}: id must start with scalecore-selfcheck-")
    assert found >= 10, f"expected the module's self-checks, found {found}"
    assert not problems, "\n".join(problems)


def test_every_page_has_a_title_and_a_meta_description(site, html_pages):
    problems = []
    for page in html_pages:
        where = page.relative_to(site).as_posix()
        root = parse(page)
        head = root.find_all("head")
        titles = [node.text().strip() for node in head[0].find_all("title")] if head else []  # not an SVG's
        if len(titles) != 1 or not titles[0]:
            problems.append(f"{where}: <title> missing or empty ({titles!r})")
        descriptions = [node.attrs.get("content", "").strip() for node in root.find_all("meta")
                        if node.attrs.get("name") == "description"]
        if len(descriptions) != 1 or not descriptions[0]:
            problems.append(f"{where}: meta description missing or empty ({descriptions!r})")
    assert not problems, "\n".join(problems)


def test_pages_with_their_own_description_use_it(site):
    """Front matter descriptions reach the page (not only the site's default)."""
    root = parse(site / "modules" / "softmax-range.html")
    (description,) = [node.attrs["content"] for node in root.find_all("meta")
                      if node.attrs.get("name") == "description"]
    assert description.startswith("Why attention's softmax saturates")
    assert root.find_all("title")[0].text().startswith("Keeping Softmax in Its Range")


def test_every_image_has_an_alt_text(site, html_pages):
    problems = []
    for page in html_pages:
        where = page.relative_to(site).as_posix()
        for image in parse(page).find_all("img"):
            if not image.attrs.get("alt", "").strip():
                problems.append(f"{where}:{image.line}: <img src={image.attrs.get('src')!r}> has no alt text")
    assert not problems, "\n".join(problems)


def test_the_link_checker_catches_what_it_should(tmp_path):
    """The checks above pass because the site is right, not because they look at nothing."""
    (tmp_path / "a.html").write_text(
        '<html><head><title>A</title></head><body><a href="b.html#there">b</a><a href="b.html#nowhere">x</a>'
        '<a href="missing.html">m</a><img src="p.png" alt=""><a href="https://example.org/">e</a>'
        '<a href="/root.html">r</a><a href="#top">t</a><a href="../out.html">o</a>'
        '<script src="s.js"></script></body></html>', encoding="utf-8")
    (tmp_path / "b.html").write_text('<html><body><h2 id="there">There</h2></body></html>', encoding="utf-8")
    (tmp_path / "p.png").write_bytes(b"")
    broken = broken_links(tmp_path, [tmp_path / "a.html", tmp_path / "b.html"])
    assert [message.split(": ", 2)[1] for message in broken] == [
        "<a href='b.html#nowhere'>", "<a href='missing.html'>", "<a href='/root.html'>", "<a href='#top'>",
        "<a href='../out.html'>", "<script src='s.js'>"]
    images = parse(tmp_path / "a.html").find_all("img")
    assert images and not images[0].attrs["alt"].strip()


def test_every_panel_names_its_kinds_script_from_the_manifest(site, html_pages):
    """Each panel root carries data-scalecore-script: the panel script of its kind, the very file
    the manifest lists for that kind (assets/scalecore/kinds/<kind>/panel.js)."""
    import json

    manifest = json.loads((site / "api" / "index.json").read_text(encoding="utf-8"))
    scripts = {name: (site / "api" / kind["script"]["url"]).resolve() for name, kind in manifest["kinds"].items()}
    assert all(path == (site / "assets/scalecore/kinds" / name / "panel.js").resolve() and path.is_file()
               for name, path in scripts.items()), scripts
    seen, problems = set(), []
    for page in html_pages:
        where = page.relative_to(site).as_posix()
        for node in parse(page).walk():
            kind = node.attrs.get("data-scalecore-kind")
            if kind is None:
                continue
            seen.add(kind)
            script = node.attrs.get("data-scalecore-script")
            if kind not in scripts:
                problems.append(f"{where}:{node.line}: kind {kind!r} is not in the manifest")
            elif not script or (page.parent / unquote(script)).resolve() != scripts[kind]:
                problems.append(f"{where}:{node.line}: {kind} panel names the script {script!r}")
    assert seen == set(scripts), f"kinds on the pages {sorted(seen)} != kinds in the manifest {sorted(scripts)}"
    assert not problems, "\n".join(problems)


# Four baked weights in a row, as a weights table's cells read once their tags are gone
# ("0.1260.1370.2020.166"): what the search index held while the fallbacks were indexed.
BAKED_WEIGHTS = re.compile(r"(?:\d\.\d{3}){4}")


def test_search_skips_the_panels_baked_views_but_keeps_the_prose_around_them(site):
    """A search for "0.13" lands in prose, not in a heatmap's table: every panel's fallback is
    left out of Material's search index (data-search-exclude), tables and readouts included,
    while the page's text, and each panel's title, stay findable."""
    import json

    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    softmax = " ".join(doc["text"] + " " + doc["title"] for doc in docs
                       if doc["location"].startswith("modules/softmax-range.html"))
    leaked = [(doc["location"], match.group()) for doc in docs for match in BAKED_WEIGHTS.finditer(doc["text"])]
    assert not leaked, f"{len(leaked)} runs of baked weights in the search index, first {leaked[:3]}"
    assert "query ↓ key →" not in softmax and "Attention weights in Demo sentences" not in softmax
    assert "Three numbers climb together" in softmax  # the prose between two panels
    assert "The textbook recipe on three corpora" in softmax  # a panel's title

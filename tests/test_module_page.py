"""The module page: its numbers, its front matter, and what its reader does with it.

(a) Every ``{{ baked: ... }}`` quote in the docs equals the baked value: recomputed here from the
    built site's static API (the manifest, and the files it points to, relative to it), formatted
    with the quote's format, and found in the page's text in the order the source quotes it.
(b) A changed corpus changes the text: a small fixture site (a copy of tests/sites/base with a
    module page and our theme) is built, a corpus grows, it is rebuilt, and the quoted numbers
    move with it. The same build checks the module header: cards link only to pages that exist.
(c) In Chromium (Debian's /usr/bin/chromium; never `playwright install`): the audience switch,
    the reader's notes (export, import) and the self-check progress, their persistence across
    reloads, instant navigation and file://.
Also: scalecore_generator.pages.module_meta.check_module_meta, the front-matter check the plugin calls.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from scalecore_generator.foundation.text import fenced_lines
from scalecore_generator.pages.module_meta import check_module_meta
from scalecore_generator.pages.quotes import CODE_SPAN, DEFAULT_FORMAT, QUOTE
from browser import OTHER_HOSTS
from sites import build, copy_site, edit

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
MODULE_SOURCE = DOCS / "modules" / "softmax-range.md"
MODULE_PAGE = "modules/softmax-range.html"
THEME = REPO / "scalecore_generator" / "theme"
API = "api"  # the site manifest, api/index.json; its URLs are relative to it


# --------------------------------------------------------------------------------------------
# Reading pages and quotes
# --------------------------------------------------------------------------------------------


class _Text(HTMLParser):
    """The text a reader sees in a page's <article> (no scripts, styles or attributes)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0  # inside <article>
        self.skip = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.depth += 1
        elif tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag == "article":
            self.depth -= 1
        elif tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if self.depth and not self.skip:
            self.parts.append(data)


def article_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return re.sub(r"\s+", " ", "".join(parser.parts))


def quotes(markdown: str) -> list[tuple[int, str, str]]:
    """(line, path, format) of every quote outside code, in source order."""
    found = []
    for number, (line, fenced) in enumerate(zip(markdown.split("\n"), fenced_lines(markdown)), start=1):
        if fenced:
            continue
        spans = [match.span() for match in CODE_SPAN.finditer(line)]
        for match in QUOTE.finditer(line):
            if not any(start <= match.start() < end for start, end in spans):
                found.append((number, match["path"].strip(), (match["format"] or DEFAULT_FORMAT).strip()))
    return found


def page_of(source: Path, docs: Path = DOCS) -> str:
    """The built page of a docs source (use_directory_urls is off in the real site)."""
    return source.relative_to(docs).with_suffix(".html").as_posix()


def find_in_order(text: str, values: list[str]) -> list[str]:
    """The values not found in ``text`` in this order, each as a whole number (no digit around)."""
    missing, cursor = [], 0
    for value in values:
        match = re.compile(rf"(?<![\w.,]){re.escape(value)}(?!\w|[.,]\d)").search(text, cursor)
        if match:
            cursor = match.end()
        else:
            missing.append(value)
    return missing


class Baked:
    """Values of quote paths, read from a built site's static API the way any client would:
    through the manifest (api/index.json), with every URL relative to it, and every file's sha256
    checked. A quote starts with a kind's name (or corpus/, settings/); a kind without a layout of
    its own here is walked the default way: its points by their path, then the point's JSON."""

    def __init__(self, site: Path):
        self.folder = Path(site) / API
        self.manifest = json.loads((self.folder / "index.json").read_text(encoding="utf-8"))

    def read(self, entry: dict):
        path = (self.folder / entry["url"]).resolve()
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], f"{path}: sha256 differs from the manifest"
        return json.loads(data)

    @functools.lru_cache(maxsize=None)
    def point(self, kind: str, path: str) -> dict:
        entry = self.manifest["kinds"][kind]
        return self.read(entry["files"][entry["points"][path]["json"]])

    def measures(self, corpus: str, seed: int, guards: str) -> dict:
        combination = self.point("scale-guards", f"{corpus}/{seed}/{guards}")
        assert (combination["corpus"], combination["seed"], combination["guards"]) == (corpus, seed, guards)
        return combination["measures"]

    def value(self, path: str):
        parts = path.split("/")
        manifest = self.manifest
        if parts[0] == "corpus":
            _, name, key = parts
            (entry,) = [corpus for corpus in manifest["corpora"] if corpus["name"] == name]
            return entry[key]
        if parts[0] == "settings":
            settings = manifest["settings"]
            return {"d_model": settings["d_model"], "d_k": settings["d_k"], "sqrt_d_k": settings["d_k"] ** 0.5,
                    "vocabulary_size": settings["vocabulary_size"], "tokens": len(manifest["tokens"]),
                    "seeds": len(manifest["seeds"])}[parts[1]]
        kind, *rest = parts
        assert kind in manifest["kinds"], f"{path}: {kind!r} is not a kind of this site"
        if kind == "softmax":
            node = self.point("softmax", "index")["examples"][int(rest[0])][rest[1]]
            return node[int(rest[2])] if len(rest) > 2 else node
        if kind == "variance":
            (row,) = [row for row in self.point("variance", "index")["dims"] if row["d"] == int(rest[0])]
            return row[rest[1]][rest[2]]
        if kind == "scale-guards":
            if len(rest) == 5 and rest[3] == "favourite":  # the token a token attends to most, from 1
                row = self.point(kind, "/".join(rest[:3]))["weights"][int(rest[4])]
                return row.index(max(row)) + 1
            corpus, seed, guards, measure = rest
            over = {"mean": lambda values: sum(values) / len(values), "lowest": min, "highest": max}
            if seed in over:
                return over[seed]([self.measures(corpus, s, guards)[measure] for s in manifest["seeds"]])
            return self.measures(corpus, int(seed), guards)[measure]
        if len(rest) > 1 and rest[1] == "all":  # over every seed: recomputed here from the points
            return self.over_seeds(kind, rest)
        points = manifest["kinds"][kind]["points"]
        for cut in range(len(rest), 0, -1):  # the default: the longest point path, then its JSON
            if "/".join(rest[:cut]) in points:
                node = self.point(kind, "/".join(rest[:cut]))
                for part in rest[cut:]:
                    node = node[int(part)] if isinstance(node, list) else node[part]
                return node
        raise AssertionError(f"{path}: no point of {kind} is quoted")


    def over_seeds(self, kind: str, rest: list[str]):
        """The quotes a kind derives over every seed (its quotes() 'all' branch), recomputed from
        the baked points by their documented definitions."""
        seeds = self.manifest["seeds"]
        pick = {"lowest": min, "highest": max, "mean": lambda values: sum(values) / len(values)}
        if kind == "multihead":
            corpus, _, heads, guards, *key = rest
            points = [self.point(kind, f"{corpus}/{seed}/{heads}/{guards}") for seed in seeds]
            every_head = [head for point in points for head in point["per_head"]]
            if key == ["agreement"]:
                return pick["mean"]([point["summary"]["agreement"] for point in points])
            if key[0] == "spread":
                return pick[key[2]]([head["spread"][key[1]] for head in every_head])
            which = key[0].removesuffix("_row_max")
            return pick[which]([head["measures"]["mean_row_max"] for head in every_head])
        if kind == "encoder":
            corpus, _, norm, layer, key, which = rest
            return pick[which]([self.point(kind, f"{corpus}/{seed}/{norm}")["layers"][int(layer) - 1][key]
                                for seed in seeds])
        raise AssertionError(f"{kind}/{'/'.join(rest)}: no recomputation of this kind's quotes over the seeds")


# --------------------------------------------------------------------------------------------
# (a) the numbers in prose are the baked ones
# --------------------------------------------------------------------------------------------


def test_the_module_page_quotes_its_numbers():
    found = quotes(MODULE_SOURCE.read_text(encoding="utf-8"))
    assert len(found) >= 60, f"the module page quotes {len(found)} numbers; expected its tables and prose"
    kinds = {path.split("/")[0] for _, path, _ in found}
    assert {"corpus", "scale-guards", "softmax", "variance"} <= kinds
    corpora = {path.split("/")[1] for _, path, _ in found if path.startswith("scale-guards/")}
    assert {"demo", "kjv"} <= corpora


@pytest.mark.parametrize("source", sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")
                                          if quotes(path.read_text(encoding="utf-8"))))
def test_quoted_numbers_equal_the_baked_ones(built_site, source):
    markdown = (DOCS / source).read_text(encoding="utf-8")
    baked = Baked(built_site)
    expected = [(line, path, format(baked.value(path), spec)) for line, path, spec in quotes(markdown)]
    html = (Path(built_site) / page_of(DOCS / source)).read_text(encoding="utf-8")
    text = article_text(html)
    shown_as_code = len(QUOTE.findall(markdown)) - len(expected)  # a guide may show the syntax
    assert len(QUOTE.findall(text)) == shown_as_code, "a quote was left unexpanded"
    missing = find_in_order(text, [value for _, _, value in expected])
    assert not missing, "\n".join(f"{source}:{line}: {path} = {value} not in the page (in order)"
                                  for line, path, value in expected if value in missing)


def test_the_order_check_catches_a_wrong_number():
    text = "demo 0.19 wordnet 4,412 kjv 0.9999."
    assert find_in_order(text, ["0.19", "4,412", "0.9999"]) == []
    assert find_in_order(text, ["0.1", "4,41"]) == ["0.1", "4,41"]  # part of a number is no match
    assert find_in_order(text, ["4,412", "0.19"]) == ["0.19"]  # out of order


# --------------------------------------------------------------------------------------------
# (b) a changed corpus changes the text; the header's cards on a small site
# --------------------------------------------------------------------------------------------

FIXTURE_MODULE = """---
code: T01.fixture.01
title: "Fixture Module"
description: "A module page of the fixture site, quoting numbers from its bake."
audience: [guest, it-ml]
prerequisites: [lesson, Missing Module]
next: Encoder Block
external: [Missing Module, Encoder Block]
---

# Fixture Module

The tiny corpus has {{ baked: corpus/tiny/tokens | , }} tokens. Without guards its input spread is
{{ baked: scale-guards/tiny/0/none/input_spread | .6f }} and its score spread
{{ baked: scale-guards/tiny/0/none/score_spread | .6f }}.

!!! guest "In plain words"
    A side note for guests.

!!! practitioner "For practitioners"
    A side note for practitioners.
"""
FIXTURE_NUMBERS = re.compile(r"The tiny corpus has ([\d,]+) tokens\. Without guards its input spread is "
                             r"([\d.]+) and its score spread ([\d.]+)\.")


def _numbers(site: Path) -> tuple[int, str, str]:
    text = article_text((site / "module" / "index.html").read_text(encoding="utf-8"))
    match = FIXTURE_NUMBERS.search(text)
    assert match, text[:2000]
    return int(match[1].replace(",", "")), match[2], match[3]


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("fixture") / "site-source")
    edit(folder / "mkdocs.yml", "  name: material\n", f"  name: material\n  custom_dir: {THEME.as_posix()}\n")
    edit(folder / "mkdocs.yml", "  - Lesson: lesson.md\n", "  - Lesson: lesson.md\n  - Module: module.md\n")
    (folder / "docs" / "module.md").write_text(FIXTURE_MODULE, encoding="utf-8")
    done = build(folder)
    assert done.returncode == 0, done.describe()
    return folder


def test_a_changed_corpus_changes_the_quoted_numbers(fixture_site, tmp_path):
    folder = copy_site(tmp_path / "site-source", source=fixture_site)  # its bake cache comes along
    site = folder / "site"
    tokens, input_spread, score_spread = _numbers(site)
    baked = Baked(site)
    assert tokens == baked.value("corpus/tiny/tokens")
    assert input_spread == format(baked.value("scale-guards/tiny/0/none/input_spread"), ".6f")

    corpus = folder / "corpora" / "tiny"
    toml = (corpus / "corpus.toml").read_text(encoding="utf-8")
    (corpus / "corpus.toml").write_text(toml[: toml.index("[counts]")], encoding="utf-8")  # counts change
    with (corpus / "text.txt").open("a", encoding="utf-8") as text:
        text.write("The old man looked at the light of the sun.\n" * 3)
    done = build(folder)
    assert done.returncode == 0, done.describe()

    new_tokens, new_input_spread, new_score_spread = _numbers(site)
    assert new_tokens == tokens + 30
    assert new_input_spread != input_spread and new_score_spread != score_spread
    baked = Baked(site)
    assert (new_tokens, new_input_spread) == (baked.value("corpus/tiny/tokens"),
                                              format(baked.value("scale-guards/tiny/0/none/input_spread"), ".6f"))


def test_module_header_cards_link_only_to_pages_that_exist(fixture_site):
    from test_site_pages import broken_links

    site = fixture_site / "site"
    html = (site / "module" / "index.html").read_text(encoding="utf-8")
    header = html[html.index('<section class="scalecore-module"'):]
    header = header[: header.index("</section>")]
    assert 'data-scalecore-module="T01.fixture.01"' in header
    assert "<code>T01.fixture.01</code>" in header
    cards = re.findall(r'<li class="scalecore-card[^"]*">(.*?)</li>', header, re.S)
    assert len(cards) == 3
    lesson, missing, after = cards
    assert re.search(r'<a class="scalecore-card__link" href="\.\./lesson/"', lesson)
    # the page's own title, not the name as the front matter typed it ('lesson')
    assert '<span class="scalecore-card__title">Lesson</span>' in lesson, lesson
    for card, name in ((missing, "Missing Module"), (after, "Encoder Block")):
        assert "<a" not in card and name in card and "not on this site" in card
    assert "Guests" in header and "IT and ML practitioners" in header and "Language professionals" not in header
    # KaTeX comes from build_tools/node_modules next to mkdocs.yml, which a fixture copy lacks.
    assert [link for link in broken_links(site, [site / "module" / "index.html"]) if "assets/katex/" not in link] == []
    # A page without front matter keeps Material's own content block.
    assert "scalecore-module" not in (site / "lesson" / "index.html").read_text(encoding="utf-8").split(
        "<article")[1].split("</article>")[0]


# --------------------------------------------------------------------------------------------
# The front-matter check the plugin calls
# --------------------------------------------------------------------------------------------


def _front_matter(path: Path) -> tuple[dict, str]:
    source = path.read_text(encoding="utf-8")
    return yaml.safe_load(source.split("---\n")[1]), source


def test_the_module_page_front_matter_is_valid():
    meta, source = _front_matter(MODULE_SOURCE)
    check_module_meta(meta, "docs/modules/softmax-range.md", source)
    assert meta["code"] == "P10.attention.04" and meta["audience"] == ["guest", "it-ml", "language-pro"]


def test_pages_without_module_keys_are_left_alone():
    check_module_meta({"title": "Scalecore", "description": "Home"}, "docs/index.md")
    check_module_meta({}, "docs/x.md")


GOOD = {"code": "P10.attention.04", "title": "T", "description": "D", "audience": ["guest", "it-ml"],
        "prerequisites": ["Multi-Head Attention"], "next": "Encoder Block"}


@pytest.mark.parametrize("change, message", [
    ({"audience": ["gueest"]},
     "docs/m.md: key 'audience': 'gueest' is not one of guest, it-ml, language-pro (did you mean 'guest'?)"),
    ({"audience": []}, "docs/m.md: key 'audience' must be a list of one or more of guest, it-ml, language-pro"),
    ({"audience": ["guest", "guest"]}, "docs/m.md: key 'audience': 'guest' listed more than once"),
    ({"code": "P10 attention"}, "docs/m.md: key 'code': 'P10 attention' is not a module code"),
    ({"code": None, "title": "T"}, "docs/m.md: key 'code': None is not a module code"),
    ({"description": None}, "docs/m.md: key 'description' is missing"),
    ({"prerequisites": "x", "next": 3}, "docs/m.md: key 'next' must be a page title or a list of page titles"),
    ({"next": ["A", ""]}, "docs/m.md: key 'next': '' is not a page title"),
    ({"prerequisites": {"a": 1}}, "docs/m.md: key 'prerequisites' must be a page title or a list of page titles"),
    ({"prerequisites": ["A", "A "]}, "docs/m.md: key 'prerequisites': a title is listed more than once"),
    ({"prerequisite": ["A"]}, "docs/m.md: unknown key 'prerequisite': did you mean 'prerequisites'?"),
])
def test_bad_front_matter_is_named_with_page_and_key(change, message):
    meta = {**GOOD, **change}
    meta = {key: value for key, value in meta.items() if not (key == "description" and value is None)}
    with pytest.raises(ValueError) as error:
        check_module_meta(meta, "docs/m.md")
    assert str(error.value).startswith(message), str(error.value)


def test_module_keys_need_a_code_and_messages_carry_the_line():
    source = "---\ntitle: T\naudience: [guest]\n---\n# T\n"
    with pytest.raises(ValueError, match=r"^docs/m\.md:3: key 'audience' belongs to a module page"):
        check_module_meta({"title": "T", "audience": ["guest"]}, "docs/m.md", source)
    source = "---\ncode: X1\ntitle: T\ndescription: D\naudience: [guest, linguist]\n---\n"
    with pytest.raises(ValueError, match=r"^docs/m\.md:5: key 'audience': 'linguist' is not one of"):
        check_module_meta(yaml.safe_load(source.split("---\n")[1]), "docs/m.md", source)


# --------------------------------------------------------------------------------------------
# (c) in Chromium
# --------------------------------------------------------------------------------------------

CALLOUTS = {"guest": ".admonition.guest", "it-ml": ".admonition.practitioner",
            "language-pro": ".admonition.linguist"}


class _Handler(SimpleHTTPRequestHandler):
    """The built site, plus a sitemap listing its pages at this server's address: Material's
    instant navigation only intercepts links the sitemap lists (the real site_url is empty)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        if urlsplit(self.path).path != "/sitemap.xml":
            return super().do_GET()
        base = f"http://127.0.0.1:{self.server.server_address[1]}/"
        pages = sorted(p.relative_to(self.directory).as_posix() for p in Path(self.directory).rglob("*.html")
                       if not p.name == "404.html")
        body = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                + "".join(f"<url><loc>{base}{'' if p == 'index.html' else p}</loc></url>" for p in pages)
                + "</urlset>\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def base_url(built_site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(built_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def context(chromium):
    """A fresh browser profile (empty localStorage) that never reaches another host; fails the
    test on an uncaught error from the module script."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True,
                                   bypass_csp=True,  # wait_for_function polls with eval (tests/browser.py)
                                   service_workers="block")  # the isolation worker's one reload (test_console)
    outside, errors = [], []

    def guard(route):
        url = urlsplit(route.request.url)
        if url.scheme in ("http", "https") and url.hostname != "127.0.0.1":
            outside.append(route.request.url)
            return route.abort()
        return route.continue_()

    context.route(OTHER_HOSTS, guard)  # matched by the driver: see browser.Rule
    context.on("page", lambda page: page.on("pageerror", lambda error: errors.append(f"{error}\n{error.stack}")))
    yield context
    context.close()
    assert not outside, f"requests to other hosts: {outside}"
    ours = [error for error in errors if "scalecore-module" in error]
    assert not ours, "\n".join(ours)


def _open_module(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    return page


def _visible_callouts(page) -> dict[str, tuple[int, int]]:
    """audience -> (visible, total) callouts."""
    return {audience: tuple(page.evaluate(
        "s => { const all = [...document.querySelectorAll(s)]; return [all.filter(e => e.offsetParent !== null)"
        ".length, all.length]; }", selector)) for audience, selector in CALLOUTS.items()}


def test_audience_switch_shows_the_readers_callouts_and_persists(context, base_url):
    page = _open_module(context, base_url + MODULE_PAGE)
    group = page.get_by_role("group", name="Show the side notes for")
    assert group.is_visible()
    everyone = group.get_by_role("radio", name="Everyone")
    assert everyone.is_checked()
    totals = _visible_callouts(page)
    assert all(visible == total > 0 for visible, total in totals.values()), totals
    concepts = page.locator(".admonition.abstract").count()

    # Keyboard: focus the group's checked radio, then the arrow keys move the choice.
    everyone.focus()
    page.keyboard.press("ArrowRight")
    assert group.get_by_role("radio", name="Guests").is_checked()
    shown = _visible_callouts(page)
    assert shown["guest"] == totals["guest"]
    assert shown["it-ml"][0] == 0 and shown["language-pro"][0] == 0
    assert page.locator(".admonition.abstract:visible").count() == concepts  # other admonitions stay
    status = page.locator("[data-scalecore-audience-status]").inner_text()
    assert "In plain words" in status and str(totals["guest"][0]) in status
    counted = re.search(r"Showing the (\d+) .* (notes?); (\d+) (notes?) for other readers (is|are) hidden", status)
    assert counted, status
    shown_count, shown_word, hidden_count, hidden_word, verb = counted.groups()
    assert shown_word == ("note" if shown_count == "1" else "notes")  # never "1 notes"
    assert (hidden_word, verb) == (("note", "is") if hidden_count == "1" else ("notes", "are"))

    group.get_by_text("Language pros").click()
    assert _visible_callouts(page)["language-pro"][0] == totals["language-pro"][1]
    assert _visible_callouts(page)["guest"][0] == 0

    page.reload()
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    group = page.get_by_role("group", name="Show the side notes for")
    assert group.get_by_role("radio", name="Language pros").is_checked()
    after = _visible_callouts(page)
    assert after["guest"][0] == 0 and after["it-ml"][0] == 0 and after["language-pro"][0] > 0

    group.get_by_text("Everyone").click()
    assert all(visible == total for visible, total in _visible_callouts(page).values())


def test_notes_persist_export_and_import(context, base_url, tmp_path):
    page = _open_module(context, base_url + MODULE_PAGE)
    notes = page.get_by_role("textbox", name="My notes on this module")
    notes.fill("Scores grow with the square of the input.\n\n- <b>kjv</b>: one-hot")
    page.reload()
    notes = page.get_by_role("textbox", name="My notes on this module")
    assert notes.input_value() == "Scores grow with the square of the input.\n\n- <b>kjv</b>: one-hot"

    with page.expect_download() as download:
        page.get_by_role("button", name="Export as .md").click()
    assert download.value.suggested_filename == "scalecore-notes-P10.attention.04.md"
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert exported == ("# My notes on Keeping Softmax in Its Range (P10.attention.04)\n\n"
                        "Scores grow with the square of the input.\n\n- <b>kjv</b>: one-hot")

    # Importing our own export gives back exactly the notes (its heading is not added to them).
    notes.fill("")
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import a .md file").click()
    chooser.value.set_files(download.value.path())
    page.wait_for_function("() => document.querySelector('[data-scalecore-notes-text]').value !== ''")
    assert notes.input_value() == "Scores grow with the square of the input.\n\n- <b>kjv</b>: one-hot"

    # Another file replaces non-empty notes only once the reader agrees; markup stays text.
    other = tmp_path / "mine.md"
    other.write_text('# Elsewhere\n\n<img src="x" onerror="window.__owned = 1"> LayerNorm ignores scale.\n',
                     encoding="utf-8")
    page.once("dialog", lambda dialog: dialog.dismiss())
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import a .md file").click()
    chooser.value.set_files(str(other))
    page.wait_for_function("() => /unchanged/.test(document.querySelector('[data-scalecore-notes-status]')"
                           ".textContent)")
    assert notes.input_value().startswith("Scores grow")
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import a .md file").click()
    chooser.value.set_files(str(other))
    page.wait_for_function("() => /Imported mine\\.md/.test(document.querySelector("
                           "'[data-scalecore-notes-status]').textContent)")
    assert notes.input_value() == other.read_text(encoding="utf-8")
    assert page.evaluate("window.__owned") is None
    assert page.locator('.scalecore-notes img').count() == 0
    page.reload()
    assert page.get_by_role("textbox", name="My notes on this module").input_value() == other.read_text(
        encoding="utf-8")


def test_self_check_progress_counts_persists_and_resets(context, base_url):
    page = _open_module(context, base_url + MODULE_PAGE)
    total = page.locator("details.scalecore-selfcheck").count()
    assert total >= 10
    progress = page.locator("[data-scalecore-progress-text]")
    reset = page.get_by_role("button", name="Reset")
    assert progress.inner_text() == f"0 of {total} self-checks done"
    assert reset.is_disabled()

    summaries = page.locator("details.scalecore-selfcheck > summary")
    summaries.nth(0).click()
    page.wait_for_function("t => document.querySelector('[data-scalecore-progress-text]').textContent === t",
                           arg=f"1 of {total} self-checks done")
    summaries.nth(0).click()  # closing and opening again counts once
    summaries.nth(0).click()
    summaries.nth(3).focus()
    page.keyboard.press("Enter")  # a keyboard reader opens one too
    page.wait_for_function("t => document.querySelector('[data-scalecore-progress-text]').textContent === t",
                           arg=f"2 of {total} self-checks done")
    assert page.locator("[data-scalecore-done='true']").count() == 2

    page.reload()
    assert page.locator("[data-scalecore-progress-text]").inner_text() == f"2 of {total} self-checks done"
    assert page.locator("[data-scalecore-done='true']").count() == 2
    page.once("dialog", lambda dialog: dialog.dismiss())  # Reset asks first: "Cancel" keeps everything
    page.get_by_role("button", name="Reset").click()
    assert page.locator("[data-scalecore-progress-text]").inner_text() == f"2 of {total} self-checks done"
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.get_by_role("button", name="Reset").click()
    assert asked == ["Forget which self-check answers you have revealed on this page?"]
    assert page.locator("[data-scalecore-progress-text]").inner_text() == f"0 of {total} self-checks done"
    assert page.get_by_role("button", name="Reset").is_disabled()
    page.reload()
    assert page.locator("[data-scalecore-progress-text]").inner_text() == f"0 of {total} self-checks done"


def test_progress_counts_answers_the_self_check_panels_remember(context, base_url):
    """panels.js keeps "scalecore:revealed:<id>" per revealed answer: the count includes those,
    and Reset forgets them too, so no answer still says "seen before" after a reset."""
    page = _open_module(context, base_url + MODULE_PAGE)
    total = page.locator("details.scalecore-selfcheck").count()
    first = page.locator("[data-scalecore-id^='scalecore-selfcheck-']").first.get_attribute("data-scalecore-id")
    page.evaluate("id => localStorage.setItem('scalecore:revealed:' + id, '1')", first)
    page.reload()
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    assert page.locator("[data-scalecore-progress-text]").inner_text() == f"1 of {total} self-checks done"
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Reset").click()
    assert page.locator("[data-scalecore-progress-text]").inner_text() == f"0 of {total} self-checks done"
    assert page.evaluate("id => localStorage.getItem('scalecore:revealed:' + id)", first) is None
    assert page.locator(".scalecore-seen").count() == 0


def test_module_tools_come_back_after_an_instant_navigation(context, base_url):
    page = context.new_page()
    page.goto(base_url)
    page.evaluate("window.__sameDocument = true")
    page.locator(f"a.md-nav__link[href$='{MODULE_PAGE}']").first.click()
    page.wait_for_url("**/" + MODULE_PAGE)
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    assert page.evaluate("window.__sameDocument") is True, "Material reloaded the page: no instant navigation"
    assert page.get_by_role("group", name="Show the side notes for").is_visible()
    assert page.get_by_role("textbox", name="My notes on this module").is_visible()
    page.locator("details.scalecore-selfcheck > summary").first.click()
    page.wait_for_function("() => /^1 of /.test(document.querySelector('[data-scalecore-progress-text]')"
                           ".textContent)")


def test_module_tools_work_from_disk(context, built_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    page = _open_module(context, (site / MODULE_PAGE).as_uri())
    group = page.get_by_role("group", name="Show the side notes for")
    group.get_by_text("IT & ML").click()
    assert _visible_callouts(page)["guest"][0] == 0 and _visible_callouts(page)["it-ml"][0] > 0
    page.get_by_role("textbox", name="My notes on this module").fill("offline note")
    page.reload()
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    assert page.get_by_role("radio", name="IT & ML").is_checked()
    assert page.get_by_role("textbox", name="My notes on this module").input_value() == "offline note"


def test_without_javascript_the_header_and_cards_remain(chromium, base_url):
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(base_url + MODULE_PAGE)
        header = page.locator("[data-scalecore-module]")
        assert "P10.attention.04" in header.inner_text()
        assert "not on this site" not in header.inner_text()  # both neighbours are pages of this site
        for title in ("Multi-Head Attention", "Encoder Block", "Transformer Architecture"):
            assert header.get_by_role("link", name=title).count() >= 1, title
        assert not page.locator("[data-scalecore-tools]").is_visible()  # switches need the script
        assert not page.locator("[data-scalecore-notes]").is_visible()
        assert page.locator(".admonition.guest").first.is_visible()
    finally:
        context.close()


def test_the_encoder_s_layer_table_writes_each_column_one_way(built_site):
    """Every cell of a decimal column to the same places: the row-max to two ("1.00", never "1" beside "0.99"), the
    FFN's share to three, in the fallback as in the page's view (the same spec; a fresh reader saw "1" and "1.00" in
    one column)."""
    import re

    html = (built_site / "modules" / "encoder-block.html").read_text(encoding="utf-8")
    tables = re.findall(r'<table class="scalecore-encoder-layers">(.*?)</table>', html, re.S)
    assert tables
    for table in tables:
        rows = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
        header, layers = rows[0], [r for r in rows[1:] if r and r[0].isdigit()]
        assert layers
        for row in layers:
            assert re.fullmatch(r"\d\.\d\d", row[header.index("Row-max")]), row
            assert re.fullmatch(r"\d\.\d\d\d", row[header.index("FFN share")]), row

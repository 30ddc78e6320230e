"""Hostile text is shown as text and runs nothing, wherever a reader or an author can put it.

(a) An author's panel and self-check titles and texts with <script> and <img onerror>, in a
    fixture site built with `mkdocs build`: escaped in the HTML, shown literally in the browser,
    and nothing runs (window.pwned stays undefined), searched for included.
(b) A corpus whose text, title and the shared sentence carry markup: tokens, vocabulary, manifest
    and combinations hold plain lower-case words only; the title stays data (a JSON string) and
    the page shows it as text.
(c) In the real site: console output with HTML appears as text; notes with HTML come back as
    text after a reload. Nothing runs.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from scalecore.corpus import tokenise

pytest.register_assert_rewrite("browser")
from browser import PYODIDE_TIMEOUT_MS, StaticServer, module_page, page_url, wait_hydrated  # noqa: E402
from sites import build, copy_site, edit  # noqa: E402


SCRIPT = "<script>window.pwned=1</script>"
IMG = '<img src=x onerror="window.pwned=2">'
HOSTILE = SCRIPT + IMG
SENTENCE = "the old man <script>alert(1)</script> looked at the <b>sun</b>"
WORD = re.compile(r"[a-z]+(?:['-][a-z]+)*")
API = "api"  # the manifest, api/index.json; its URLs are relative to it
CONSOLE_HTML = "<img src=x onerror=window.pwned=1>"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    """The tiny fixture site (tests/sites/base) with one corpus full of markup, a shared sentence
    with markup, and a lesson whose panel and self-check are written by a hostile author."""
    site = copy_site(tmp_path_factory.mktemp("hostile") / "site")
    corpus = site / "corpora" / "hostile"
    corpus.mkdir()
    (corpus / "corpus.toml").write_text(
        f"title = '{HOSTILE} corpus'\nsource = \"<a href=javascript:alert(1)>here</a>\"\n"
        'licence = "CC0"\nextraction = "written by hand for the tests"\n', encoding="utf-8")
    lines = [f"The old man looked at the light of the sun. {SCRIPT} {IMG}",
             "<script>alert(1)</script> the b sun script alert looked at the old man.",
             "The <b>sun</b> and the light of the old man, <i>script</i> alert b."]
    (corpus / "text.txt").write_text("\n".join(lines * 4) + "\n", encoding="utf-8")
    edit(site / "mkdocs.yml", "corpora: [tiny, small]", f"corpora: [hostile]\n      sentence: {json.dumps(SENTENCE)}")
    (site / "docs" / "lesson.md").write_text(f"""# Lesson

/// scale-guards | {HOSTILE} guards
corpus: hostile
seed: 0
guards: init+scale
///

/// self-check | {HOSTILE} check
question: '{HOSTILE} question'
answer: '{HOSTILE} answer'
explanation: '{HOSTILE} explanation'
///
""", encoding="utf-8")
    done = build(site)
    assert done.returncode == 0, done.describe()
    return site / "site"


@pytest.fixture(scope="module")
def hostile_server(hostile_site):
    server = StaticServer(hostile_site)
    yield server
    server.close()


class _Elements(HTMLParser):
    """Every start tag and its attributes, the text (entities decoded), and inline scripts' text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.inline: list[str] = []
        self.text: list[str] = []
        self._in_script = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.inline if self._in_script else self.text).append(data)


# --------------------------------------------------------------------------------------------
# (a) titles and texts written by the author
# --------------------------------------------------------------------------------------------


def test_author_text_is_escaped_in_the_html(hostile_site):
    html = (hostile_site / "lesson" / "index.html").read_text(encoding="utf-8")
    parsed = _Elements(html)
    assert not [attrs for tag, attrs in parsed.tags if tag == "img" and ("onerror" in attrs or attrs.get("src") == "x")]
    assert not [text for text in parsed.inline if "pwned" in text], "an inline script carries the author's text"
    handlers = [(tag, attrs) for tag, attrs in parsed.tags if any(key.startswith("on") for key in attrs)]
    assert not handlers, f"event handler attributes: {handlers}"
    assert not [attrs for tag, attrs in parsed.tags if "javascript:" in attrs.get("href", "")]
    text = "".join(parsed.text)
    for where in ("guards", "check", "question", "answer", "explanation"):
        assert f"{HOSTILE} {where}" in text, f"the {where} is not shown as the author wrote it"
    assert f"{HOSTILE} corpus" in text  # the corpus title, in the no-JS figure's caption


def test_author_text_shows_as_text_and_runs_nothing(visit, hostile_server):
    page, watch = visit(hostile_server.url + "lesson/")
    wait_hydrated(page)
    guards = page.locator(".scalecore-panel--scale-guards")
    assert guards.locator(".scalecore-panel-title").text_content() == f"{HOSTILE} guards"
    assert page.get_by_role("group", name=f"{HOSTILE} guards").count() == 1  # its accessible name, as text
    assert f"{HOSTILE} corpus" in guards.locator(".scalecore-caption").text_content()  # the corpus title
    check = page.locator(".scalecore-panel--self-check")
    check.locator("summary").click()
    for part in ("check", "question", "answer", "explanation"):
        assert f"{HOSTILE} {part}" in check.text_content(), part
    # Searching shows the hostile words as text in the results too (Material renders result
    # snippets as HTML). Type once the search index is ready, as a reader would. The word is the
    # self-check's: a panel's baked view (the figure's caption naming the corpus) is not indexed.
    page.wait_for_function("document.querySelector('.md-search-result__meta').textContent.trim() === "
                           "'Type to start searching'", timeout=10_000)
    page.locator(".md-search__input").click()
    page.keyboard.type("explanation")  # keys, not fill(): Material reads the query on keyup
    page.wait_for_function("document.querySelectorAll('.md-search-result__item').length > 0", timeout=10_000)
    assert SCRIPT in page.locator(".md-search-result__list").text_content()
    assert page.evaluate("window.pwned") is None
    assert page.locator("img[onerror], img[src='x']").count() == 0
    assert not [url for url in watch.requests if url.endswith("/x")], "a hostile <img> was loaded"


# --------------------------------------------------------------------------------------------
# (b) a corpus full of markup
# --------------------------------------------------------------------------------------------


def test_markup_in_text_gives_plain_word_tokens():
    assert tokenise("<script>alert(1)</script> <img src=x onerror=alert(2)> <b>sun</b>") == [
        ["script", "alert", "script", "img", "src", "x", "onerror", "alert", "b", "sun", "b"]]


def test_the_manifest_and_combinations_hold_plain_tokens(hostile_site):
    manifest = json.loads((hostile_site / API / "index.json").read_text(encoding="utf-8"))
    assert manifest["tokens"] == ["the", "old", "man", "script", "alert", "script", "looked", "at", "the", "b", "sun",
                                  "b"]
    (corpus,) = manifest["corpora"]
    assert corpus["title"] == f"{HOSTILE} corpus"  # data, as the author wrote it: pages show it as text
    kind = manifest["kinds"]["scale-guards"]
    assert kind["points"]
    for point in kind["points"].values():
        entry = kind["files"][point["json"]]
        combination = json.loads((hostile_site / API / entry["url"]).read_text(encoding="utf-8"))
        assert combination["tokens"] == manifest["tokens"]
        assert all(WORD.fullmatch(token) for token in combination["tokens"])
    table = json.loads((hostile_site / API / corpus["embeddings"]["url"]).read_text(encoding="utf-8"))
    bad = [word for word in table["vocabulary"] if not WORD.fullmatch(word)]
    assert not bad, f"vocabulary entries that are not plain words: {bad}"
    assert {"script", "onerror", "img"} <= set(table["vocabulary"])  # the markup's letters, as words


@pytest.mark.parametrize("how", ["http", "file"])
def test_the_hostile_corpus_on_the_page_is_text(visit, hostile_site, hostile_server, how):
    """Over http the panel fetches the manifest; from disk the manifest and the data arrive as
    scripts (index.js, data.js): the markup inside them must stay inside their strings."""
    url = hostile_server.url + "lesson/" if how == "http" else (hostile_site / "lesson" / "index.html").as_uri()
    page, _ = visit(url)
    wait_hydrated(page)
    labels = page.locator(".scalecore-heatmap__svg .scalecore-axis-label").all_text_contents()
    assert labels and all(WORD.fullmatch(label) for label in labels), labels
    caption = page.locator(".scalecore-panel--scale-guards .scalecore-caption").text_content()
    assert f"{HOSTILE} corpus" in caption, caption
    if how == "file":
        assert page.evaluate("scalecoreData.manifest.corpora[0].title") == f"{HOSTILE} corpus"
        assert page.evaluate("scalecoreData['scale-guards/hostile/0'].none.sentence") == SENTENCE
    assert page.locator("img[onerror], img[src='x']").count() == 0
    assert page.evaluate("window.pwned") is None


# --------------------------------------------------------------------------------------------
# (c) the reader's own text: console output and notes
# --------------------------------------------------------------------------------------------


def test_console_output_with_html_is_text(visit, site_server, built_site):
    page, _ = visit(site_server.url + page_url(module_page(built_site)))
    wait_hydrated(page)
    console = page.locator(".scalecore-panel--console")
    output = console.get_by_role("region", name="Console output")
    editor = console.get_by_role("textbox", name="Python code")
    editor.fill(f"print({CONSOLE_HTML!r})\nprint('<script>window.pwned = 3</script>')\nraise ValueError('<b>no</b>')")
    editor.press("Control+Enter")
    page.wait_for_function("() => /ValueError/.test(document.querySelector('.scalecore-console__output').textContent)",
                           timeout=PYODIDE_TIMEOUT_MS)
    text = output.text_content()
    assert CONSOLE_HTML in text and "<script>window.pwned = 3</script>" in text and "<b>no</b>" in text, text
    assert output.locator("img, script, b").count() == 0
    page.wait_for_timeout(200)  # an image's onerror would have fired by now
    assert page.evaluate("window.pwned") is None


def test_notes_with_html_come_back_as_text(visit, site_server, built_site):
    page, _ = visit(site_server.url + page_url(module_page(built_site)))
    notes = page.locator("[data-scalecore-notes]")
    if not notes.count():
        pytest.skip("the theme has no notes on module pages")
    wait_hydrated(page)
    area = notes.locator("textarea")
    written = f"{HOSTILE}\n{CONSOLE_HTML}\n<a href=\"javascript:window.pwned=4\">link</a>"
    area.fill(written)
    page.reload()
    wait_hydrated(page)
    assert notes.locator("textarea").input_value() == written
    assert notes.locator("img, script, a").count() == 0
    page.wait_for_timeout(200)
    assert page.evaluate("window.pwned") is None

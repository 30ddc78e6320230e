"""The author's experience (issue 14): what the guides promise is what the build does.

(a) Every fenced example of the authoring guide (docs/guide/authoring.md) builds: each becomes a
    page of a small site whose corpora, seeds and dimensions carry the names the guide uses.
(b) The options reference (docs/guide/options.md) is generated from the plugin's config class:
    every option appears with its default; the corpora table comes from the site manifest.
(c) ``corpus: all`` means every configured corpus, in the order of the plugin's option.
(d) Self-check ids come from the question (or ``id:``), so inserting one shifts no other; in
    Chromium, progress saved under the old positional ids moves to the new ids once.
(e) ``mkdocs serve`` rebuilds when a corpus or a site kind changes, and watches the plugin's own
    templates; ``mkdocs build`` run directly prints no end-of-life banner.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scalecore_generator.foundation.text import FENCE_CLOSE, FENCE_OPEN
from scalecore_generator.adapters.mkdocs.config import ScalecoreConfig, option_facts
from sites import build, copy_site, edit, environment

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "guide" / "authoring.md"
OPTIONS_GUIDE = REPO / "docs" / "guide" / "options.md"
THEME = REPO / "scalecore_generator" / "theme"


# --------------------------------------------------------------------------------------------
# Reading built pages
# --------------------------------------------------------------------------------------------


class Elements(HTMLParser):
    """Every element's tag and attributes, and each table's rows of cell texts."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self.tables and self.tables[-1]:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def with_attribute(self, name: str) -> list[dict]:
        return [attrs for _, attrs in self.elements if name in attrs]


def page_html(site: Path, source: str) -> str:
    """The built page of ``source`` (a .md path under docs/) in a fixture site (directory URLs)."""
    stem = source.removesuffix(".md")
    built = site / ("index.html" if stem == "index" else f"{stem}/index.html")
    return built.read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------
# (a) the guide's examples, built
# --------------------------------------------------------------------------------------------


def fenced_examples(path: Path) -> list[tuple[int, str, str]]:
    """(line of the opening fence, info string, text) of each fenced block at the start of a line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found, number = [], 0
    while number < len(lines):
        opener = FENCE_OPEN.match(lines[number])
        if opener and not opener["indent"]:
            start, body = number, []
            number += 1
            while number < len(lines) and not (FENCE_CLOSE.match(lines[number])
                                                and FENCE_CLOSE.match(lines[number])["fence"] == opener["fence"]):
                body.append(lines[number])
                number += 1
            found.append((start + 1, opener["info"].strip(), "\n".join(body) + "\n"))
        number += 1
    return found


def guide_site(folder: Path) -> Path:
    """A copy of the fixture site with the names the guide uses: corpora demo, wordnet and kjv
    (small texts), seed 0, the variance dimensions 3 to 1000, math, and pages titled as the
    front-matter example's prerequisites and next module."""
    site = copy_site(folder)
    corpora = site / "corpora"
    for name, source in (("demo", "tiny"), ("wordnet", "small"), ("kjv", "tiny")):
        shutil.copytree(corpora / source, corpora / name)
    shutil.rmtree(corpora / "tiny")
    shutil.rmtree(corpora / "small")
    config = site / "mkdocs.yml"
    edit(config, "corpora: [tiny, small]", "corpora: [demo, wordnet, kjv]")
    edit(config, "seeds: [0]", "seeds: [0, 1, 2, 3, 4]")
    edit(config, "variance: {dims: [3, 10], samples: 100}", "variance: {dims: [3, 10, 30, 100, 300, 1000], samples: 100}")
    edit(config, "  name: material\n", f"  name: material\n  custom_dir: {THEME.as_posix()}\n")
    edit(config, "  - pymdownx.superfences\n", "  - pymdownx.superfences\n  - pymdownx.details\n"
                                               "  - pymdownx.arithmatex:\n      generic: true\n")
    edit(config, "nav:\n  - Home: index.md\n  - Lesson: lesson.md\n", "")
    docs = site / "docs"
    (docs / "lesson.md").unlink()
    (docs / "corpora.md").write_text("# Corpora\n\n{{ scalecore: corpora }}\n", encoding="utf-8")
    for stem, title in (("multi-head-attention", "Multi-Head Attention"), ("encoder-block", "Encoder Block")):
        (docs / "modules").mkdir(exist_ok=True)
        (docs / "modules" / f"{stem}.md").write_text(f"# {title}\n", encoding="utf-8")
    return site


def test_the_guides_examples_are_found():
    examples = fenced_examples(GUIDE)
    markdown = [text for _, info, text in examples if info == "markdown"]
    assert len(markdown) >= 8
    kinds = {m[1] for text in markdown for m in re.finditer(r"^/// ([a-z-]+)", text, re.M)}
    assert {"scale-guards", "variance", "softmax", "console", "self-check"} <= kinds
    assert any("{{ baked:" in text for text in markdown) and any(text.startswith("!!! ") for text in markdown)
    assert any(info == "yaml" and text.startswith("---\ncode:") for _, info, text in examples)


@pytest.fixture(scope="module")
def examples_site(tmp_path_factory):
    """Each example of the guide as a page: guide/example-<line>.md (a front-matter example as a
    module page with that front matter)."""
    site = guide_site(tmp_path_factory.mktemp("guide") / "site")
    pages = {}
    for line, info, text in fenced_examples(GUIDE):
        if info == "markdown":
            page = text
        elif info == "yaml" and text.startswith("---\ncode:"):
            page = f"{text}\n# Module example\n"
        else:
            continue
        source = f"guide/example-{line}.md"
        (site / "docs" / "guide").mkdir(exist_ok=True)
        (site / "docs" / source).write_text(page, encoding="utf-8")
        pages[source] = text
    done = build(site)
    assert done.returncode == 0, done.describe()
    return site, pages


def test_every_example_of_the_authoring_guide_builds(examples_site):
    site, pages = examples_site
    for source, text in pages.items():
        html = page_html(site / "site", source)
        blocks = re.findall(r"^/// ([a-z-]+)", text, re.M)
        roots = [attrs["data-scalecore-kind"] for attrs in Elements(html).with_attribute("data-scalecore-kind")]
        assert roots == blocks, source
        article = html[html.index("<article"):html.index("</article>")]
        assert "{{" not in article and "///" not in article, source  # quotes and blocks all expanded
    self_checks = [source for source, text in pages.items() if "/// self-check" in text]
    assert self_checks and all('href="../../corpora/"' in page_html(site / "site", source) for source in self_checks
                               if "../corpora.md" in pages[source])


def test_the_guides_messages_for_quotes_and_tables_are_the_builds(examples_site, tmp_path):
    """Each documented error whose input is in the message itself (a quote, a table marker) is
    produced by building a page holding that input on that line."""
    site, _ = examples_site
    messages = [line for _, info, text in fenced_examples(GUIDE) if info == "text" for line in text.split("\n")
                if re.match(r"docs/example\.md:\d+: \{\{ (baked|scalecore):", line)]
    assert len(messages) >= 5
    for number, message in enumerate(messages):
        line, marker = re.match(r"docs/example\.md:(\d+): (\{\{.*?\}\})", message).groups()
        folder = copy_site(tmp_path / f"case-{number}", source=site)
        (folder / "docs" / "example.md").write_text("\n" * (int(line) - 1) + marker + "\n", encoding="utf-8")
        done = build(folder)
        assert done.returncode == 1 and done.errors[-1] == f"scalecore: {message}", done.describe()


# The input of each documented error (other than quotes and tables, whose input is in the
# message), in the order the guide lists them: docs/example.md, or mkdocs.yml's nav.
DOCUMENTED_ERRORS = [
    "/// softmax\n",
    "/// softmax\n\n/// variance\n///\n",
    "Text\n\n    /// softmax\n    ///\n",
    "Text\n///\n",
    "///softmax\n///\n",
    "/// softmax Big scores\n///\n",
    "//// softmax\n",
    "```\n/// softmax\n///\n",
    "/// scale-guard\n///\n",
    "/// scale-guards\ncorpra: kjv\n///\n",
    "/// self-check\nquestion: Q\nanswer: A\n///\n",
    "/// scale-guards\nseed:\n///\n",
    "/// scale-guards\nseed: 0\nseed: 1\n///\n",
    "/// scale-guards | The guards\ntitle: The guards again\n///\n",
    "/// scale-guards\ncorpus: [kjv\n///\n",
    "/// scale-guards\n- kjv\n///\n",
    "/// scale-guards\ncorpus: kjb\n///\n",
    "/// scale-guards\ncorpus: [all, kjv]\n///\n",
    "/// scale-guards\nseed: 7\n///\n",
    "/// scale-guards\nseed: one\n///\n",
    "/// scale-guards\nguards: init+scaling\n///\n",
    "/// scale-guards\nguards: init+init\n///\n",
    "/// scale-guards\nshow: [heatmaps]\n///\n",
    "/// variance\ndims: [50]\n///\n",
    "/// variance\ndims: [3, 100]\nd: 30\n///\n",
    "/// softmax\nscores: [1]\n///\n",
    "/// softmax\nfactor: -1\n///\n",
    "/// console\nheight: 100\n///\n",
    "/// self-check\nquestion: Q?\nanswer: See [the corpora](corpra.md).\nexplanation: E\n///\n",
    "/// self-check\nquestion: Why?\nanswer: A\nexplanation: E\n///\n\n/// self-check\ntitle: Again\nquestion: why?\n"
    "answer: A\nexplanation: E\n///\n",
    "/// self-check\nquestion: One?\nanswer: A\nexplanation: E\nid: saturation\n///\n\n/// self-check\nquestion: Two?\n"
    "answer: A\nexplanation: E\nid: saturation\n///\n",
    "\n" * 10 + '!!! language-pro "From a linguist\'s perspective"\n    A note.\n',
    "---\ncode: T1.demo\ntitle: A lesson\ndescription: A lesson.\naudience: [guest, practitioner]\n---\n\n# A lesson\n",
    "nav: guide/autoring.md",
]


def _documented_errors() -> list[str]:
    return [line for _, info, text in fenced_examples(GUIDE) if info == "text" for line in text.split("\n")
            if line.startswith(("docs/example.md:", "mkdocs.yml:")) and not re.match(r"docs/example\.md:\d+: \{\{", line)]


def _without_config_lines(message: str) -> str:
    return re.sub(r"\S*mkdocs\.yml:\d+", "mkdocs.yml:N", message)


def test_every_documented_error_is_what_the_build_says(examples_site, tmp_path):
    site, _ = examples_site
    documented = _documented_errors()
    assert len(documented) == len(DOCUMENTED_ERRORS)
    folders = []
    for number, page in enumerate(DOCUMENTED_ERRORS):
        folder = copy_site(tmp_path / f"case-{number}", source=site)
        if page.startswith("nav: "):
            (folder / "docs" / "guide" / "authoring.md").write_text("# Authoring\n", encoding="utf-8")
            with open(folder / "mkdocs.yml", "a", encoding="utf-8") as config:
                config.write(f"\nnav:\n  - Home: index.md\n  - {page.removeprefix('nav: ')}\n")
        else:
            (folder / "docs" / "example.md").write_text(page, encoding="utf-8")
        folders.append(folder)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(build, folders))
    for message, done in zip(documented, results):
        assert done.returncode == 1, done.describe()
        produced = done.errors[-1].removeprefix("scalecore: ")
        produced = produced.split(": ", 1)[1] if produced.startswith("Config value") else produced
        assert _without_config_lines(produced) == _without_config_lines(message), done.describe()


def test_the_documented_mkdocs_yml_lines_are_the_real_sites():
    from scalecore_generator.adapters.mkdocs.config import _option_line, nav_line

    config = str(REPO / "mkdocs.yml")
    lines = {"corpora": _option_line(config, "corpora"), "seeds": _option_line(config, "seeds"),
             "kinds": _option_line(config, "kinds")}
    documented = _documented_errors()
    for key, line in lines.items():  # a kind's setting is named within 'kinds' (its line, when written)
        assert any(re.search(rf"(the|in the) plugin option '{key}', mkdocs\.yml:{line}\)", message)
                   for message in documented), key
    assert any(message.startswith(f"mkdocs.yml:{nav_line(config, 'guide/authoring.md')}: the nav entry")
               for message in documented)


# --------------------------------------------------------------------------------------------
# (b) the options reference and the corpora table
# --------------------------------------------------------------------------------------------


def test_the_options_guide_shows_the_generated_reference():
    from scalecore_generator.foundation.text import fenced_lines

    text = OPTIONS_GUIDE.read_text(encoding="utf-8")
    lines = [line for line, fenced in zip(text.split("\n"), fenced_lines(text)) if not fenced]
    assert "{{ scalecore: options }}" in lines
    assert "{{ scalecore: corpora }}" in (REPO / "docs" / "corpora.md").read_text(encoding="utf-8").split("\n")
    assert "guide/options.md" in (REPO / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_option_appears_with_its_default_and_the_corpora_come_from_the_manifest(examples_site):
    site, _ = examples_site
    (site / "docs" / "options.md").write_text("# Options\n\n{{ scalecore: options }}\n\n{{ scalecore: kind-settings }}\n",
                                              encoding="utf-8")
    done = build(site)
    assert done.returncode == 0, done.describe()
    table, settings = Elements(page_html(site / "site", "options.md")).tables
    assert table[0] == ["Option", "Type", "Default", "Accepted values", "What it changes"]
    rows = {row[0]: row for row in table[1:]}
    assert list(rows) == [key for key, _ in ScalecoreConfig._schema]
    for key, option in ScalecoreConfig._schema:
        facts = option_facts(key, option)
        assert rows[key][1:3] == [facts["type"], facts["default"]], key
        assert rows[key][4] and rows[key][3], key
    assert rows["seeds"][2] == "[0, 1, 2, 3, 4]" and rows["math"][3] == "one of mathml, html"

    from scalecore_generator.kinds.registry import discover

    expected = [[name, key, option_facts(key, option)["type"], option_facts(key, option)["default"]]
                for name, kind in sorted(discover().items()) for key, option in kind.Settings._schema]
    assert len(expected) >= 5 and [row[:4] for row in settings[1:]] == expected
    assert all(row[5] and row[5] != "(not described by its kind)" for row in settings[1:])

    manifest = json.loads((site / "site" / "api" / "index.json").read_text(encoding="utf-8"))
    (corpora,) = Elements(page_html(site / "site", "corpora.md")).tables
    assert [row[1] for row in corpora[1:]] == [c["name"] for c in manifest["corpora"]] == ["demo", "wordnet", "kjv"]
    assert [row[2:] for row in corpora[1:]] == [[f"{c[k]:,}" for k in ("sentences", "tokens", "vocabulary")]
                                                for c in manifest["corpora"]]


def test_the_guides_plugin_examples_use_only_options_the_plugin_has():
    import yaml

    options = {key for key, _ in ScalecoreConfig._schema}
    checked = 0
    for guide in sorted((REPO / "docs").rglob("*.md")):
        for line, info, text in fenced_examples(guide):
            if info != "yaml" or "- scalecore:" not in text:
                continue
            plugins = yaml.safe_load(text)["plugins"]
            (given,) = [entry["scalecore"] for entry in plugins if isinstance(entry, dict) and "scalecore" in entry]
            assert set(given) <= options, f"{guide}:{line}: {set(given) - options}"
            checked += 1
    assert checked >= 2


def test_the_audiences_are_defined_once_and_the_guide_lists_the_default_ones():
    """One definition (module_meta.DEFAULT_AUDIENCES, or the site's option): the theme's script and
    templates read the audiences from the page (they kept copies that had to agree)."""
    from scalecore_generator.pages.module_meta import DEFAULT_AUDIENCES

    script = (THEME / "assets" / "scalecore-module" / "module.js").read_text(encoding="utf-8")
    macros = (REPO / "scalecore_generator" / "pages" / "templates" / "macros.html").read_text(encoding="utf-8")
    for code, audience in DEFAULT_AUDIENCES.items():
        assert code not in script and f'"{code}"' not in macros, code
        assert f"| `{code}` | `{audience['callout']}` | \"{audience['title']}\" |" in GUIDE.read_text(encoding="utf-8")


def test_an_option_without_a_description_cannot_reach_the_reference():
    from mkdocs.config import base
    from mkdocs.config import config_options as c

    from scalecore_generator.adapters.mkdocs.config import reference

    class Undocumented(base.Config):
        colour = c.Type(str, default="red")

    with pytest.raises(ValueError, match="the plugin option 'colour' has no description"):
        reference(Undocumented)


def test_table_markers_stand_alone_and_code_shows_them_as_written():
    from scalecore_generator.pages.generated import GeneratedError, expand_generated

    tables = {"options": lambda: "| a |\n|---|\n| 1 |", "corpora": lambda: "| b |"}
    page = "Intro.\n{{ scalecore: options }}\n\n```markdown\n{{ scalecore: options }}\n```\n`{{ scalecore: corpora }}`\n"
    assert expand_generated(page, tables, "docs/p.md", check=False) == (
        "Intro.\n\n| a |\n|---|\n| 1 |\n\n\n```markdown\n{{ scalecore: options }}\n```\n`{{ scalecore: corpora }}`\n")
    with pytest.raises(GeneratedError) as caught:
        expand_generated("---\n\nThe options: {{ scalecore: options }}\n", tables, "docs/p.md", line_offset=3)
    assert str(caught.value) == ("docs/p.md:6: {{ scalecore: options }} shares its line with other text. Fix: put "
                                 "it alone on its line (it becomes a table)")


# --------------------------------------------------------------------------------------------
# (c) corpus: all
# --------------------------------------------------------------------------------------------


def test_corpus_all_is_every_configured_corpus_in_config_order(tmp_path):
    site = copy_site(tmp_path / "site")
    edit(site / "mkdocs.yml", "corpora: [tiny, small]", "corpora: [small, tiny]")
    edit(site / "docs" / "lesson.md", "corpus: [tiny, small]", "corpus: all")
    edit(site / "docs" / "lesson.md", "corpus: small\n", "")  # the second block: the default
    done = build(site)
    assert done.returncode == 0, done.describe()
    panels = Elements(page_html(site / "site", "lesson.md")).with_attribute("data-scalecore-options")
    assert [json.loads(p["data-scalecore-options"])["corpus"] for p in panels] == [["small", "tiny"]] * 2


# --------------------------------------------------------------------------------------------
# (d) self-check ids
# --------------------------------------------------------------------------------------------

MODULE = """---
code: T01.checks.01
title: "Checks"
description: "A module page with self-checks."
audience: [guest]
---

# Checks

{checks}
"""


def _check(question: str) -> str:
    return f"/// self-check\nquestion: {question}\nanswer: A.\nexplanation: E.\n///\n"


def _ids(site: Path) -> list[tuple[str, str]]:
    roots = Elements(page_html(site / "site", "checks.md")).with_attribute("data-scalecore-legacy-id")
    return [(r["data-scalecore-id"], r["data-scalecore-legacy-id"]) for r in roots]


@pytest.fixture(scope="module")
def checks_site(tmp_path_factory):
    site = copy_site(tmp_path_factory.mktemp("checks") / "site")
    edit(site / "mkdocs.yml", "  name: material\n", f"  name: material\n  custom_dir: {THEME.as_posix()}\n")
    edit(site / "mkdocs.yml", "  - Lesson: lesson.md\n", "  - Lesson: lesson.md\n  - Checks: checks.md\n")
    questions = ["Why divide the scores?", "What does LayerNorm do?", "Which guard is enough?"]
    (site / "docs" / "checks.md").write_text(MODULE.format(checks="\n".join(map(_check, questions))), encoding="utf-8")
    done = build(site)
    assert done.returncode == 0, done.describe()
    return site


def test_inserting_a_self_check_keeps_the_others_ids(checks_site, tmp_path):
    before = _ids(checks_site)
    assert [legacy for _, legacy in before] == [f"scalecore-selfcheck-docs-checks-{n}" for n in (1, 2, 3)]
    site = copy_site(tmp_path / "site", source=checks_site)
    edit(site / "docs" / "checks.md", "# Checks\n\n", "# Checks\n\n" + _check("A new first question?") + "\n")
    done = build(site)
    assert done.returncode == 0, done.describe()
    after = _ids(site)
    assert len(after) == 4 and [i for i, _ in after[1:]] == [i for i, _ in before]
    assert after[0][0] not in {i for i, _ in before}


def test_giving_a_self_check_its_current_id_keeps_it_when_the_question_is_reworded():
    from test_blocks import Panels, expand

    def ids(*lines):
        text = "\n".join(["/// self-check", *lines, "answer: A", "explanation: E", "///", ""])
        return [p["data-scalecore-id"] for p in Panels(expand(text)).panels()]

    (derived,) = ids("question: Why divide by the root of d_k?")
    current = derived.rsplit("-", 1)[1]
    assert re.fullmatch(r"q[0-9a-f]{8}", current)
    assert ids("question: Why do we divide the scores by the root of d_k?", f"id: {current}") == [derived]


@pytest.fixture(scope="module")
def checks_url(checks_site):
    from browser import StaticServer

    server = StaticServer(checks_site / "site")
    yield server.url + "checks/"
    server.close()


def test_progress_saved_under_the_old_positional_ids_moves_to_the_new_ids_once(chromium, checks_site, checks_url):
    ids = _ids(checks_site)
    (first, first_old), (second, second_old), (third, third_old) = ids
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(checks_url)
        # What the previous version kept: the second answer revealed (panel) and counted (module).
        page.evaluate("""([second_old, third_old]) => {
            localStorage.clear();
            localStorage.setItem('scalecore:revealed:' + second_old, '1');
            localStorage.setItem('scalecore.selfchecks.T01.checks.01', JSON.stringify([second_old, third_old]));
        }""", [second_old, third_old])
        page.reload()
        page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
        assert page.locator("[data-scalecore-progress-text]").inner_text() == "2 of 3 self-checks done"
        stored = page.evaluate("() => Object.fromEntries(Object.entries(localStorage))")
        assert stored.get("scalecore:revealed:" + second) == "1"
        assert "scalecore:revealed:" + second_old not in stored
        assert sorted(json.loads(stored["scalecore.selfchecks.T01.checks.01"])) == sorted([second, third])
        panel = page.locator(f"[data-scalecore-id='{second}']")
        panel.scroll_into_view_if_needed()
        page.wait_for_function("el => el.querySelector('.scalecore-seen')", arg=panel.element_handle())
        assert page.locator(f"[data-scalecore-id='{first}'] .scalecore-seen").count() == 0

        # Once: the old keys are gone, so the next visit finds the same progress and moves nothing.
        page.reload()
        page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
        assert page.locator("[data-scalecore-progress-text]").inner_text() == "2 of 3 self-checks done"
        assert page.evaluate("() => Object.fromEntries(Object.entries(localStorage))") == stored
    finally:
        context.close()


# --------------------------------------------------------------------------------------------
# (e) mkdocs serve and the banner
# --------------------------------------------------------------------------------------------

TINY_KIND = '''from scalecore_generator.kinds.kind import Kind


class Note(Kind):
    label = "A note"

    def render(self, options, panel):
        return panel.render_template(options)
'''


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode("utf-8")


def _wait_for(url: str, text: str, seconds: float = 90) -> str:
    deadline, seen = time.monotonic() + seconds, ""
    while time.monotonic() < deadline:
        try:
            seen = _get(url)
            if text in seen:
                return seen
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{text!r} never appeared at {url}; last page:\n{seen[-2000:]}")


@contextlib.contextmanager
def _serving(site: Path):
    """``mkdocs serve`` of ``site`` on a free port: yields its address; stopped as a reader's
    Ctrl+C stops it (SIGINT to its group), killed if it does not stop."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
                              cwd=site, env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_mkdocs_serve_rebuilds_when_a_corpus_or_a_site_kind_changes(tmp_path):
    site = copy_site(tmp_path / "site")
    kind = site / "kinds" / "note"
    kind.mkdir(parents=True)
    (kind / "kind.py").write_text(TINY_KIND, encoding="utf-8")
    (kind / "panel.js").write_text("globalThis.scalecore.kinds.note = {}; /* no view */\n", encoding="utf-8")
    (kind / "template.html").write_text('{% extends "panel.html" %}{% block body %}<p>note one</p>{% endblock %}\n',
                                        encoding="utf-8")
    edit(site / "docs" / "lesson.md", "Without the guards:",
         "Tokens: {{ baked: corpus/tiny/tokens }}.\n\n/// note\n///\n\nWithout the guards:")
    with _serving(site) as root:
        url = root + "lesson/"
        page = _wait_for(url, "note one")
        tokens = int(re.search(r"Tokens: (\d+)\.", page)[1])
        (kind / "template.html").write_text('{% extends "panel.html" %}{% block body %}<p>note two</p>{% endblock %}\n',
                                            encoding="utf-8")
        _wait_for(url, "note two")
        (kind / "kind.py").write_text(TINY_KIND.replace('"A note"', '"A changed note"'), encoding="utf-8")
        _wait_for(url, 'aria-label="A changed note"')  # an edited kind.py is imported again
        corpus = site / "corpora" / "tiny"
        toml = (corpus / "corpus.toml").read_text(encoding="utf-8")
        (corpus / "corpus.toml").write_text(toml[: toml.index("[counts]")], encoding="utf-8")
        with (corpus / "text.txt").open("a", encoding="utf-8") as text:
            text.write("The old man looked at the light of the sun.\n")
        _wait_for(url, f"Tokens: {tokens + 10}.")


def test_mkdocs_serve_bakes_an_edited_compute_function_with_its_new_code(tmp_path):
    """The bake imports a kind's compute function by name in the serve process: Python handed back
    the module first imported, so an edited function was baked with its old code (a fresh
    author's raise in it built green and changed nothing), and cached under the new code's key."""
    from scalecore_generator.cli import new_site

    site = tmp_path / "site"
    new_site(site)
    with _serving(site) as root:
        url = root + "lessons/temperature.html"
        page = _wait_for(url, "Softmax of the scores at temperature")
        shown = re.search(r"Softmax of the scores at temperature ([0-9.]+):", page)[1]
        edit(site / "mylessons" / "temperature.py", '"temperature": temperature,', '"temperature": temperature * 10,')
        _wait_for(url, f"Softmax of the scores at temperature {float(shown) * 10}:")
        edit(site / "mylessons" / "temperature.py", "    total = sum(exps)\n",
             "    raise RuntimeError('an edit that breaks the compute function')\n")
        _wait_for(url, "an edit that breaks the compute function")  # the serve banner says it
        # mkdocs.yml that MkDocs cannot read fails before any plugin's hook: said all the same
        edit(site / "mylessons" / "temperature.py", "    raise RuntimeError('an edit that breaks the compute function')\n",
             "    total = sum(exps)\n")
        edit(site / "mkdocs.yml", "strict: true", "strict: maybe")
        page = _wait_for(url, "Config value &#x27;strict&#x27;")
        assert "The last build failed" in page
        assert re.search(r"mkdocs\.yml:\d+: Config value &#x27;strict&#x27;", page), page  # at its line
        edit(site / "mkdocs.yml", "strict: maybe", "strict: true")
        deadline = time.monotonic() + 90
        while "The last build failed" in _get(url):
            assert time.monotonic() < deadline, "the banner stayed after the build worked again"
            time.sleep(0.5)


def test_serve_watches_the_plugins_own_templates_and_kinds(tmp_path):
    from scalecore_generator.blocks.base import SHARED_TEMPLATES
    from scalecore_generator.adapters.mkdocs.plugin import ScalecorePlugin
    from scalecore_generator.builder.engine_site import EngineSite
    from scalecore_generator.builder.site_build import SiteBuild
    from scalecore_generator.kinds.registry import BUILT_IN

    class Server:
        def __init__(self):
            self.paths = []

        def watch(self, path):
            self.paths.append(path)

    site = copy_site(tmp_path / "site")
    (site / "kinds").mkdir()
    plugin = ScalecorePlugin()
    plugin.load_config({"corpora": ["tiny", "small"]}, str(site / "mkdocs.yml"))
    plugin.build = SiteBuild(plugin.config, EngineSite(config_file=site / "mkdocs.yml", docs_dir=site / "docs",
                                                       site_dir=site / "site"), "serve", logging.getLogger("test"))
    server = Server()
    assert plugin.on_serve(server, config=None, builder=None) is server
    assert set(server.paths) >= {str(site / "corpora"), str(site / "kinds"), str(BUILT_IN), str(SHARED_TEMPLATES),
                                 str(REPO / "scalecore_generator" / "assets"), str(THEME)}
    assert (BUILT_IN / "self-check" / "template.html").is_file() and (SHARED_TEMPLATES / "panel.html").is_file()


def test_mkdocs_build_run_directly_prints_no_end_of_life_banner(tmp_path):
    site = copy_site(tmp_path / "site")
    env = {key: value for key, value in environment().items() if key != "NO_MKDOCS_2_WARNING"}
    mkdocs = Path(sys.executable).parent / "mkdocs"
    done = subprocess.run([str(mkdocs), "build"], cwd=site, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "end of life" not in done.stderr and "NO_MKDOCS_2_WARNING" not in done.stderr, done.stderr[:1500]

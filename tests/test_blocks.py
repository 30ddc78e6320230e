"""Author blocks: markdown in, HTML out; and every mistake as `page:line: message`.

A small fake grid and synthetic baked data stand in for a real bake, so these tests are fast.
"""

import json
import re
import sys
from html.parser import HTMLParser

import markdown
import pytest

from scalecore_generator.blocks import BlockError, PageContext, Stash, expand_blocks, line_offset
from scalecore_generator.kinds.kind import Site
from scalecore_generator.kinds.registry import discover

KINDS = discover()

PAGE = "docs/lessons/guards.md"
KINDS_LIST = ", ".join(KINDS)  # the registry's kinds: the tests name none of them by list
VARIANCE_DIMS = (3, 10, 30)
SITE = Site(
    corpora=("demo", "wordnet", "kjv"),
    titles={"demo": "Demo corpus", "wordnet": "WordNet glosses", "kjv": "King James Bible"},
    seeds=(0, 1, 2),
    settings=dict(d_model=32, d_k=16, tokens=("the", "old", "man")),
)
SITES = {name: SITE for name in KINDS} | {"variance": Site(**{**SITE.__dict__, "options": {"dims": VARIANCE_DIMS}})}
# What the synthetic combination files hold, so tests can find the values in the HTML.
MEASURES = dict(input_spread=12.5, score_spread=40.25, mean_row_max=0.875, mean_entropy=0.3125,
                gradient=0.0625, saturated_share=0.5, word_row_max=0.9375, word_saturated_share=0.75,
                input_rms=13.0, query_gradient=2.5, value_gradient=3.5)


def read_baked(path: str) -> dict:
    read_baked.calls.append(path)
    if path == "api/variance/index.json":
        return {"samples": 400, "dims": [
            {"d": d, "raw": {"mean": 0.0, "variance": 1.02 * d, "std": (1.02 * d) ** 0.5},
             "scaled": {"mean": 0.0, "variance": 1.02, "std": 1.02 ** 0.5}} for d in VARIANCE_DIMS]}
    match = re.fullmatch(r"api/scale-guards/([a-z0-9-]+)/(\d+)/([a-z+]+)\.json", path)
    if not match:
        raise FileNotFoundError(path)
    return {
        "corpus": match[1], "seed": int(match[2]), "guards": match[3], "sentence": "the old man",
        "tokens": ["the", "old", "man"],
        "scores": [[9.0, 1.0, 0.0], [0.0, 9.0, 1.0], [1.0, 0.0, 9.0]],
        "weights": [[0.75, 0.125, 0.125], [0.0625, 0.875, 0.0625], [0.25, 0.25, 0.5]],
        "measures": dict(MEASURES), "settings": {"d_model": 32, "d_k": 16},
    }


read_baked.calls = []


def context(**changes) -> PageContext:
    values = dict(page=PAGE, site_root="../../", kinds=KINDS, sites=SITES, read_baked=read_baked)
    values.update(changes)
    return PageContext(**values)


def expand(text: str, **changes) -> str:
    return expand_blocks(text, context(**changes))


def error(text: str, **changes) -> str:
    with pytest.raises(BlockError) as caught:
        expand(text, **changes)
    assert str(caught.value) == f"{caught.value.page}:{caught.value.line}: {caught.value.message}"
    return str(caught.value)


def block(kind: str, *lines: str) -> str:
    return "\n".join([f"/// {kind}", *lines, "///"]) + "\n"


class Panels(HTMLParser):
    """Every element's tag and attributes, and the page's text, from expanded HTML."""

    def __init__(self, html: str):
        super().__init__()
        self.elements, self.text = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag, **attrs):
        return [a for t, a in self.elements if t == tag and all(a.get(k.rstrip("_").replace("_", "-")) == v
                                                                  for k, v in attrs.items())]

    def panels(self):
        return [a for t, a in self.elements if "scalecore-panel" in a.get("class", "").split()]


def options_of(html: str) -> list[dict]:
    return [json.loads(panel["data-scalecore-options"]) for panel in Panels(html).panels()]


# --- each kind expands --------------------------------------------------------------------------

def test_scale_guards_panel_root_fallback_and_scripts():
    html = expand(block("scale-guards", "corpus: [kjv, demo]", "seed: 1", "guards: scale+init",
                        "show: [table, heatmap, measures]"))
    parsed = Panels(html)
    (root,) = parsed.panels()
    assert root["data-scalecore-kind"] == "scale-guards"
    assert root["data-scalecore-manifest"] == "../../api/panels.json"
    assert root["data-scalecore-root"] == "../../"
    assert json.loads(root["data-scalecore-options"]) == {
        "title": None, "corpus": ["kjv", "demo"], "seed": 1, "guards": "init+scale",
        "show": ["heatmap", "measures", "table"], "locked": []}
    # the no-JS view is the first corpus's baked figure, with alt text that says what it shows
    (image,) = parsed.find("img")
    assert image["src"] == "../../api/scale-guards/kjv/1/init+scale.svg"
    assert "King James Bible (kjv), seed 1, guards init+scale" in image["alt"]
    assert "the old man" in image["alt"] and "0.88 of its attention" in image["alt"]
    assert "api/scale-guards/kjv/1/init+scale.json" in read_baked.calls
    # one data script: the initial corpus at the initial seed, relative to the page (another
    # corpus's loads when the reader picks it, located through the manifest); inert until the
    # panel hydrates, so the page does not fetch it
    assert [s["src"] for s in parsed.find("script")] == ["../../api/scale-guards/kjv/1/data.js"]
    assert all(s["type"] == "application/x-scalecore-data" for s in parsed.find("script"))
    assert parsed.find("div", class_="scalecore-controls")[0] == {"class": "scalecore-controls", "hidden": None}
    assert parsed.find("div", class_="scalecore-live-region")[0]["aria-live"] == "polite"


def test_scale_guards_tables_are_accessible():
    html = expand(block("scale-guards", "corpus: demo", "show: [measures, table]"))
    parsed = Panels(html)
    assert "<figure" not in html  # no heatmap asked for
    assert '<section class="scalecore-measures" aria-label="Measures of the head in Demo corpus (demo), seed 0, ' \
           'guards init+scale">' in html
    # the read-outs: the shared view, the same as the live panel's, a meter for bounded measures
    assert '<div class="scalecore-readout" data-measure="mean_row_max"><dt>Mean row-max</dt><dd><span ' \
           'class="scalecore-readout__value">0.875</span>' in html
    assert '<span class="scalecore-meter__fill" style="width:81.3%">' in html  # (0.875 - 1/3) / (1 - 1/3)
    assert 'data-measure="saturated_share"' in html
    # the weights as a matrix: a column header per token, a row header per query token
    assert ('<tr><th scope="col">query ↓ key →</th><th scope="col">the</th><th scope="col">old</th>'
            '<th scope="col">man</th></tr>') in html
    assert '<th scope="row">old</th><td>0.063</td><td>0.875</td><td>0.063</td>' in html


def test_scale_guards_defaults_come_from_the_grid():
    html = expand(block("scale-guards"))
    (options,) = options_of(html)
    assert options == {"title": None, "corpus": ["demo", "wordnet", "kjv"], "seed": 0, "guards": "init+scale",
                       "show": ["heatmap", "measures", "switches", "corpus", "seed", "table", "live"], "locked": []}
    assert len(Panels(html).find("script")) == 1  # the first corpus only; the others load when chosen
    assert "<figcaption>Attention weights in Demo corpus (demo), seed 0, guards init+scale. Input spread " \
           "12.5; Score spread 40.3; Mean row-max 0.875;" in html  # 40.25: the views' format rounds half up


def test_scale_guards_locked_and_title_from_the_header():
    html = expand("/// scale-guards | Turn the guards off one by one\nlocked: [scale, norm]\nguards: none\n///\n")
    (root,) = Panels(html).panels()
    options = json.loads(root["data-scalecore-options"])
    assert options["locked"] == ["norm", "scale"] and options["guards"] == "none"
    assert options["title"] == "Turn the guards off one by one"
    assert root["aria-labelledby"] == f"{root['id']}-title"
    assert f'<p class="scalecore-panel-title" id="{root["id"]}-title">Turn the guards off one by one</p>' in html


def test_variance_panel():
    html = expand(block("variance", "dims: [30, 3]", "d: 30", "show: [table, histogram]"), site_root="./")
    parsed = Panels(html)
    (options,) = options_of(html)
    assert options == {"title": None, "dims": [3, 30], "d": 30, "show": ["histogram", "table"]}
    assert [i["src"] for i in parsed.find("img")] == ["./api/variance/d-3.svg",
                                                      "./api/variance/d-30.svg"]
    assert "d = 30 entries" in parsed.find("img")[1]["alt"] and "variance 30.6" in parsed.find("img")[1]["alt"]
    assert [s["src"] for s in parsed.find("script")] == ["./api/variance/data.js"]
    assert ('<tr data-scalecore-d="30" class="scalecore-initial"><th scope="row">30</th>'
            '<td>30.6</td><td>1.02</td>') in html
    assert parsed.panels()[0]["data-scalecore-manifest"] == "./api/panels.json"


def test_softmax_panel_is_computed_by_the_core():
    html = expand(block("softmax", "scores: [1, 1, 2]", "factor: 2"))
    (options,) = options_of(html)
    assert options == {"title": None, "scores": [1.0, 1.0, 2.0], "factor": 2.0,
                       "show": ["weights", "jacobian", "table"]}
    # softmax([2, 2, 4]) = [0.106507, 0.106507, 0.786986]
    assert '<tr><th scope="row">3</th><td>2</td><td>4</td><td>0.787</td></tr>' in html
    assert 'class="scalecore-jacobian"' in html
    assert [s["src"] for s in Panels(html).find("script")] == ["../../api/softmax/data.js"]


def test_a_softmax_column_is_written_in_one_precision():
    """An author read "score 0.500 / 2.50 / 5" as three precisions, and a reader "0.500, 1.00, 1.50" down a column
    and "× 0.500" beside a slider's "× 0.5": numbers read side by side share their decimals, as few as they need
    (views.js alike), in the fallback's table as in the panel's bars and table; no zero is written "-0.000"."""
    html = expand(block("softmax", "scores: [1, 5, 10]", "factor: 0.5"))
    assert '<tr><th scope="row">3</th><td>10</td><td>5.0</td><td>0.915</td></tr>' in html, html
    assert '<td>0.5</td>' in html and '<td>2.5</td>' in html and "× 0.5<" in html and "multiplied by 0.5:" in html
    saturated = expand(block("softmax", "scores: [1, 2, 3]", "factor: 10"))
    assert "-0.000" not in saturated and "\u22120.000" not in saturated


def test_softmax_scores_are_bounded_so_that_times_the_factor_they_stay_finite():
    with pytest.raises(Exception, match="a number from -1,000,000 to 1,000,000, got 1e\\+308"):
        expand(block("softmax", "scores: [1.0e+308, 0]", "factor: 2"))
    assert "NaN" not in expand(block("softmax", "scores: [1000000, 0]", "factor: 1000000"))


def test_softmax_without_jacobian_table():
    html = expand(block("softmax", "show: [weights]"))
    assert "scalecore-jacobian" not in html and 'class="scalecore-softmax"' in html


def test_a_page_converted_with_its_panels_in_slots_is_the_page_converted_with_them_inline():
    # The plugin keeps each panel out of Python-Markdown's way (its raw-HTML parser read every
    # tag of every panel) and puts it back after: the converted page is the same
    page = "\n".join(["# Guards", "", "Some *text*.", "", *block("variance").splitlines(), "",
                       *block("console", "code: |", "  print(1 < 2)").splitlines(), "", "After."])
    stash = Stash()
    slotted = expand_blocks(page, context(), keep=stash.keep)
    inline = expand(page)
    extensions = ["md_in_html", "attr_list", "tables"]
    assert len(stash.kept) == 2 and all(html not in slotted for html in stash.kept.values())
    assert stash.restore(markdown.markdown(slotted, extensions=extensions)) == markdown.markdown(inline, extensions=extensions)


def test_a_slot_the_stash_did_not_issue_is_left_as_written():
    stash = Stash()
    ours = stash.keep("<div>panel</div>")
    foreign = '<div data-scalecore-slot="' + "0" * 32 + '"></div>'
    assert stash.restore(f"{ours}\n{foreign}") == f"<div>panel</div>\n{foreign}"
    assert Stash().keep("<div>panel</div>") == ours  # the same page gives the same slots


def test_console_panel_keeps_code_as_text():
    html = expand(block("console", "code: |", "  x = [1, 2]", "", "  print(x < [3])", "height: 12"))
    (options,) = options_of(html)
    assert options == {"title": None, "code": "x = [1, 2]\n\nprint(x < [3])\n", "height": 12}
    assert '<code class="language-python" tabindex="0">x = [1, 2]\n\nprint(x &lt; [3])\n</code>' in html
    assert Panels(html).find("script") == []


def test_console_without_code_starts_from_the_kinds_starter_file():
    # the console's script starts from the fallback's <code>: the starter (a Python file of the
    # console's kind folder, never a JavaScript string), and the note is not a <code>
    from markupsafe import escape  # what the templates escape with

    starter = (KINDS["console"].folder / "starter.py").read_text(encoding="utf-8").rstrip("\n")
    html = expand(block("console"))
    assert html.count("<code") == 1 and str(escape(starter)) in html
    assert "<kbd>python -m http.server</kbd>" in html


def test_a_console_on_a_site_without_corpora_starts_from_code_that_needs_none():
    """A site whose kinds need no corpus loads none (scalecore new's): its console starts from a
    starter without load_table, and offers no example that reads a corpus (both failed there)."""
    from markupsafe import escape

    bare = {**SITES, "console": Site(**{**SITE.__dict__, "corpora": (), "titles": {}})}
    plain = (KINDS["console"].folder / "starter-without-corpora.py").read_text(encoding="utf-8").rstrip("\n")
    html = expand(block("console"), sites=bare)
    assert str(escape(plain)) in html and "load_table" not in html
    assert "load_table" in expand(block("console"))  # with corpora: the starter and the core example read one


def test_scale_guards_without_a_view_still_has_its_measures():
    html = expand(block("scale-guards", "show: [switches, live]"))
    assert 'class="scalecore-measures"' in html and "<figure" not in html and "scalecore-weights" not in html


def test_self_check_is_markdown_in_a_details_with_a_stable_id():
    question_key = sys.modules[KINDS["self-check"].__module__].question_key

    text = "\n".join(["Before.", "", *block("self-check", "question: Why divide by $\\sqrt{d_k}$?",
                                              "answer: To keep the **variance** at 1.",
                                              "explanation: See [the lesson](../variance/).").splitlines(),
                      "", *block("self-check", "question: Q2", "answer: A2", "explanation: E2").splitlines()])
    html = expand(text, markdown_extensions=["pymdownx.arithmatex"],
                  markdown_config={"pymdownx.arithmatex": {"generic": True}})
    parsed = Panels(html)
    ids = [p["id"] for p in parsed.panels()]
    first = question_key("Why divide by $\\sqrt{d_k}$?")
    assert ids == [f"scalecore-selfcheck-docs-lessons-guards-{first}",
                   f"scalecore-selfcheck-docs-lessons-guards-{question_key('Q2')}"]
    assert [p["data-scalecore-id"] for p in parsed.panels()] == ids  # where progress is stored
    # the ids they had when ids were positions, for the browser to move saved progress once
    assert [p["data-scalecore-legacy-id"] for p in parsed.panels()] == [
        "scalecore-selfcheck-docs-lessons-guards-1", "scalecore-selfcheck-docs-lessons-guards-2"]
    assert len(parsed.find("details", class_="scalecore-selfcheck")) == 2
    assert "<summary>Show answer</summary>" in html
    assert '<span class="arithmatex">\\(\\sqrt{d_k}\\)</span>' in html  # the page's extensions
    assert "<p>To keep the <strong>variance</strong> at 1.</p>" in html
    assert '<a href="../variance/">the lesson</a>' in html


def _check(question: str, *extra: str) -> str:
    return block("self-check", f"question: {question}", "answer: A", "explanation: E", *extra)


def _check_ids(text: str) -> list[str]:
    return [p["data-scalecore-id"] for p in Panels(expand(text)).panels()]


def test_inserting_a_self_check_keeps_the_others_ids():
    before = _check_ids(_check("First?") + "\n" + _check("Second?") + "\n" + _check("Third?"))
    after = _check_ids(_check("A new one?") + "\n" + _check("First?") + "\n" + _check("Second?") + "\n"
                       + _check("Third?"))
    assert len(set(after)) == 4 and after[1:] == before
    # spacing and case do not make another question; an explicit id wins over the question
    assert _check_ids(_check("  first? ")) == _check_ids(_check("FIRST?")) == before[:1]
    assert _check_ids(_check("Reworded first?", "id: first-check")) == [
        "scalecore-selfcheck-docs-lessons-guards-first-check"]
    assert _check_ids(_check("First?", "id: first-check")) == _check_ids(_check("Reworded?", "id: first-check"))


def test_the_same_question_twice_on_a_page_names_both_lines():
    text = _check("Why divide?") + "\nText.\n\n" + _check("why   DIVIDE?")
    assert error(text) == (
        f"{PAGE}:10: /// self-check: option 'question': the same question as the self-check at {PAGE}:2; "
        "a reader's progress is kept per question. Fix: ask each question once on a page (reword one of "
        "the two, or remove one)")
    assert error(_check("One?", "id: shared") + "\n" + _check("Two?", "id: shared")) == (
        f"{PAGE}:12: /// self-check: option 'id': the id 'shared' is already the id of the self-check at "
        f"{PAGE}:5. Fix: give each self-check its own id")
    assert error(_check("One?", "id: 3d")) == (
        f"{PAGE}:5: /// self-check: option 'id': '3d' is not an id: write lower-case letters, digits and '-', "
        "starting with a letter (at most 64), e.g. id: softmax-saturation")


def test_hostile_text_shows_as_text():
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    html = expand(
        f"/// self-check | {hostile}\nquestion: '{hostile}'\nanswer: '{hostile}'\nexplanation: ok\n///\n"
        f"\n/// console | {hostile}\ncode: '{hostile}'\n///\n",
        markdown_extensions=["md_in_html", "attr_list"])
    parsed = Panels(html)
    assert parsed.find("script") == [] and parsed.find("img") == []
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "".join(parsed.text).count(hostile) == 5  # two titles, the question, the answer, the code


def test_options_json_is_attribute_escaped():
    html = expand("/// console | It's \"quoted\" & <b>\ncode: print('a' & \"b\")\n///\n")
    (root,) = Panels(html).panels()
    assert json.loads(root["data-scalecore-options"])["title"] == "It's \"quoted\" & <b>"
    assert "data-scalecore-options=\"{&#34;title&#34;:&#34;It&#39;s" in html


# --- the page around the blocks -----------------------------------------------------------------

def test_blocks_in_code_fences_are_untouched():
    text = "\n".join([
        "Write a panel like this:", "",
        "```markdown", "/// scale-guards", "corpus: nope", "///", "```", "",
        "~~~~", "```", "/// still inside: a shorter or other fence does not close", "~~~", "////", "~~~~", "",
        "  ````text", "  /// indented fence", "  ```", "  ````", "",
        "!!! example", "", "    ```", "    /// in an admonition", "    ```", "",
        "```python title=\"ok\"", "///x", "```", "",
    ])
    assert expand(text) == text


def test_backticks_in_the_info_string_make_no_fence():
    text = "``` `inline` ```\n/// variance\n///\n"
    assert "scalecore-panel" in expand(text)


def test_several_blocks_on_a_page_keep_the_text_between():
    text = ("# Title\n\nIntro.\n" + block("softmax") + "Between.\n" + block("variance", "d: 10")
            + "```\n/// softmax\n```\n" + block("scale-guards", "corpus: kjv") + "The end.\n")
    html = expand(text)
    assert [p["data-scalecore-kind"] for p in Panels(html).panels()] == ["softmax", "variance", "scale-guards"]
    assert [p["id"] for p in Panels(html).panels()] == [f"scalecore-docs-lessons-guards-{n}" for n in (1, 2, 3)]
    assert html.startswith("# Title\n\nIntro.\n\n<div class=\"scalecore-panel")
    assert "</div>\n\nBetween.\n\n<div" in html and "```\n/// softmax\n```" in html
    assert html.endswith("</div>\n\nThe end.\n")


def test_expanded_page_survives_python_markdown():
    text = "Intro.\n" + block("console", "code: |", "  a = 1", "", "  b = 2") + "Para *b*.\n" + block("softmax")
    html = expand(text)
    extensions = ["admonition", "attr_list", "md_in_html", "tables", "toc", "pymdownx.superfences"]
    rendered = markdown.markdown(html, extensions=extensions)
    for chunk in html.split("\n\n"):
        if chunk.startswith("<div"):
            assert chunk in rendered  # each panel passes through as raw HTML, unchanged
    assert "<p>Para <em>b</em>.</p>" in rendered


def test_closing_line_may_have_trailing_spaces():
    assert "scalecore-panel" in expand("/// softmax\n///   \n")


def test_line_offset_counts_front_matter():
    source = "---\ntitle: Guards\n---\n\n# Guards\n\n/// scale-guards\nseed: 9\n///\n"
    stripped = "# Guards\n\n/// scale-guards\nseed: 9\n///\n"  # what MkDocs hands on_page_markdown
    assert line_offset(source, stripped) == 4
    assert error(stripped, line_offset=line_offset(source, stripped)) == (
        f"{PAGE}:8: /// scale-guards: option 'seed': 9 is not a baked seed; the baked seeds are: 0, 1, 2")
    assert source.split("\n")[7] == "seed: 9"
    assert line_offset("# No front matter\n", "# No front matter\n") == 0


def test_the_registry_finds_every_built_in_kind_folder():
    from scalecore_generator.kinds.registry import BUILT_IN

    assert list(KINDS) == sorted(p.name for p in BUILT_IN.iterdir() if p.is_dir() and not p.name.startswith("_"))
    assert all(KINDS[name].folder == BUILT_IN / name for name in KINDS)


# --- errors: exact messages ---------------------------------------------------------------------

def test_unknown_kind_suggests_and_lists():
    assert error("Text\n\n/// scale-guard\n///\n") == (
        f"{PAGE}:3: unknown block kind 'scale-guard' (did you mean 'scale-guards'?); the kinds are: {KINDS_LIST}")
    assert error("/// chart\n///\n") == f"{PAGE}:1: unknown block kind 'chart'; the kinds are: {KINDS_LIST}"


def test_unknown_option_lists_the_options_of_the_kind():
    assert error(block("scale-guards", "corpus: demo", "seeds: 1")) == (
        f"{PAGE}:3: /// scale-guards: unknown option 'seeds' (did you mean 'seed'?); "
        "the options of /// scale-guards are: title, corpus, seed, guards, show, locked. Fix: write 'seed', or "
        "remove the line")


def test_wrong_type_names_option_value_and_type():
    assert error(block("scale-guards", "seed: zero")) == (
        f"{PAGE}:2: /// scale-guards: option 'seed': expected an integer >= 0, got 'zero' (text)")
    assert error(block("scale-guards", "seed: yes")) == (
        f"{PAGE}:2: /// scale-guards: option 'seed': expected an integer >= 0, "
        "got true (a yes/no value; quote it if you meant text)")
    assert error(block("console", "height: 100")) == (
        f"{PAGE}:2: /// console: option 'height': expected an integer from 1 to 60, got 100")
    assert error(block("softmax", "scores: [1, a]")) == (
        f"{PAGE}:2: /// softmax: option 'scores': expected a number from -1,000,000 to 1,000,000, got 'a' (text)")
    assert error(block("softmax", "factor: -1")) == (
        f"{PAGE}:2: /// softmax: option 'factor': expected a number from 0 to 1,000,000, got -1")
    assert error(block("softmax", "factor: .nan")) == (
        f"{PAGE}:2: /// softmax: option 'factor': expected a finite number, got nan")


def test_wrong_list_shapes():
    assert error(block("scale-guards", "show: heatmap")) == (
        f"{PAGE}:2: /// scale-guards: option 'show': expected a list such as [heatmap, measures], "
        "got 'heatmap' (text)")
    assert error(block("softmax", "scores: [1]")) == (
        f"{PAGE}:2: /// softmax: option 'scores': expected 2 to 8 items, got 1: [1] (a list)")
    assert error(block("scale-guards", "show: []")) == (
        f"{PAGE}:2: /// scale-guards: option 'show': expected at least 1 item, got 0: [] (a list)")


def test_choice_not_accepted():
    assert error(block("scale-guards", "show: [heatmp]")) == (
        f"{PAGE}:2: /// scale-guards: option 'show': 'heatmp' is not one of: "
        "heatmap, measures, switches, corpus, seed, table, live (did you mean 'heatmap'?)")
    assert error(block("scale-guards", "locked: [layernorm]")) == (
        f"{PAGE}:2: /// scale-guards: option 'locked': 'layernorm' is not one of: norm, init, scale "
        "(did you mean 'norm'?)")


def test_corpus_not_in_the_grid():
    assert error(block("scale-guards", "corpus: [demo, kvj]")) == (
        f"{PAGE}:2: /// scale-guards: option 'corpus': 'kvj' is not a baked corpus (did you mean 'kjv'?); "
        "the baked corpora are: demo, wordnet, kjv")
    assert error(block("scale-guards", "corpus: [demo, 3]")) == (
        f"{PAGE}:2: /// scale-guards: option 'corpus': expected a corpus name (text), got 3 (an integer)")


def test_seed_not_in_the_grid():
    assert error(block("scale-guards", "guards: none", "seed: 7")) == (
        f"{PAGE}:3: /// scale-guards: option 'seed': 7 is not a baked seed; the baked seeds are: 0, 1, 2")


def test_bad_guard_set():
    assert error(block("scale-guards", "guards: init+scal")) == (
        f"{PAGE}:2: /// scale-guards: option 'guards': unknown guard 'scal' in 'init+scal': "
        "valid guards are norm, init, scale (joined by '+'), or 'none'")
    assert error(block("scale-guards", "guards: [init]")) == (
        f"{PAGE}:2: /// scale-guards: option 'guards': expected a guard set such as 'init+scale', "
        "got [\"init\"] (a list)")


def test_variance_dims_not_in_the_grid():
    assert error(block("variance", "dims: [3, 64]")) == (
        f"{PAGE}:2: /// variance: option 'dims': 64 is not a baked dimension; the baked dimensions are: 3, 10, 30")
    assert error(block("variance", "dims: [3, 10]", "d: 30")) == (
        f"{PAGE}:3: /// variance: option 'd': 30 is not one of the panel's dims: 3, 10")


def test_malformed_yaml_reports_the_page_line():
    assert error("Intro\n\n" + block("scale-guards", "corpus: [demo, kjv", "seed: 0")) == (
        f"{PAGE}:5: /// scale-guards: the options are not valid YAML (expected ',' or ']', but got ':', "
        "while parsing a flow sequence that starts on line 4); write one 'option: value' per line, "
        "lists as [a, b]")
    assert error(block("scale-guards", "corpus: demo", "seed: 0: 1")) == (
        f"{PAGE}:3: /// scale-guards: the options are not valid YAML (mapping values are not allowed here); "
        "write one 'option: value' per line, lists as [a, b]; a value that holds ': ' (a question with a colon) "
        "must be quoted, question: \"...\", or written as a block, question: | and the text indented below it")
    # a fresh author's self-check question with a colon in it
    assert "must be quoted" in error(block("self-check", "question: The period of a 1 m pendulum: roughly?",
                                           "answer: 2 s"))


def test_body_must_be_a_mapping():
    assert error(block("scale-guards", "- demo", "- kjv")) == (
        f"{PAGE}:2: /// scale-guards: the options must be 'option: value' lines (a YAML mapping), "
        "got [\"demo\", \"kjv\"] (a list)")
    assert error(block("softmax", "scores [1, 2]")) == (
        f"{PAGE}:2: /// softmax: the options must be 'option: value' lines (a YAML mapping), "
        "got 'scores [1, 2]' (text)")


def test_option_given_twice_or_empty():
    assert error(block("scale-guards", "seed: 0", "corpus: kjv", "seed: 1")) == (
        f"{PAGE}:4: /// scale-guards: option 'seed' is given twice (lines 2 and 4); keep one")
    assert error(block("scale-guards", "seed:")) == (
        f"{PAGE}:2: /// scale-guards: option 'seed' has no value; give one after 'seed:' or remove the line")


def test_required_option_missing():
    assert error("\n" + block("self-check", "question: Why?", "explanation: Because.")) == (
        f"{PAGE}:2: /// self-check: missing required option 'answer'; "
        "/// self-check needs: question, answer, explanation")


def test_unclosed_block_reports_its_opening_line():
    assert error("Intro\n\n/// softmax\nscores: [1, 2]\n") == (
        f"{PAGE}:3: '/// softmax' opened here is never closed; add a line '///' after its options")
    assert error("/// softmax\nscores: [1, 2]\n\n/// variance\n///\n") == (
        f"{PAGE}:1: '/// softmax' opened here is not closed before '/// variance' on line 4; "
        "add a line '///' after its options (blocks do not nest)")


def test_stray_closing_line():
    assert error(block("softmax") + "///\n") == (
        f"{PAGE}:3: stray '///': no block is open, so there is nothing to close; "
        f"a block opens with '/// <kind>' (the kinds are: {KINDS_LIST})")


def test_lines_that_would_fall_through_as_text():
    assert error("//// scale-guards\n") == (
        f"{PAGE}:1: '//// scale-guards' starts with 4 slashes, so it is not block syntax and would show "
        "as text; a block opens with '/// <kind>' and closes with '///' (exactly three slashes)")
    assert error("text\n///scale-guards\n///\n") == (
        f"{PAGE}:2: '///scale-guards' needs a space after '///': write '/// scale-guards'")
    assert error("/// \n") == (
        f"{PAGE}:1: '///' followed only by spaces opens no block, and no block is open to close; "
        f"write '/// <kind>' (the kinds are: {KINDS_LIST}) or remove the line")
    assert error("    /// softmax\n") == (
        f"{PAGE}:1: '/// softmax' is indented by 4 spaces: block syntax starts at the beginning of the "
        "line (at most 3 spaces), as panels cannot sit inside lists, admonitions or tabs; to show it "
        "as an example, put it in a code fence")


def test_malformed_opening_lines():
    assert error("/// scale-guards extra words\n///\n") == (
        f"{PAGE}:1: '/// scale-guards extra words' has text after the kind 'scale-guards': a title goes "
        "after '|', as in '/// scale-guards | extra words'")
    assert error("/// softmax |  \n///\n") == (
        f"{PAGE}:1: '/// softmax |' has an empty title after '|': write '/// softmax | <title>' or drop the '|'")
    assert error("/// | Title\n///\n") == (
        f"{PAGE}:1: '/// | Title' has no kind before '|': write '/// <kind> | Title' (the kinds are: {KINDS_LIST})")
    assert error("/// softmax | A\ntitle: B\n///\n") == (
        f"{PAGE}:2: /// softmax: the title is given twice, after '|' and as option 'title'; keep one")


def test_unclosed_fence_hiding_a_block():
    assert error("Text\n\n````\n```\n/// softmax\n///\n") == (
        f"{PAGE}:3: the code fence '````' opened here is never closed, so the block syntax on line 5 "
        "is not expanded; close the fence with a line '````'")


def test_link_to_a_markdown_file_in_a_self_check_becomes_the_page_url():
    pages = {"lessons/variance.md": "variance.html", "corpora.md": "../corpora.html"}

    def resolve(target):
        import posixpath
        return pages.get(posixpath.normpath(posixpath.join("lessons", target)))

    html = expand(block("self-check", "question: Why?", "answer: See [it](variance.md#why).",
                        "explanation: And [the corpora](../corpora.md)."), resolve_link=resolve,
                  pages=tuple(pages))
    assert '<a href="variance.html#why">it</a>' in html and '<a href="../corpora.html">the corpora</a>' in html
    assert error(block("self-check", "question: Why?", "answer: See [it](../varaince.md#why).",
                       "explanation: E"), resolve_link=resolve, pages=tuple(pages)) == (
        f"{PAGE}:3: /// self-check: option 'answer': the link to '../varaince.md' names no page of this site "
        "(did you mean 'variance.md'?). Fix: link to a page by its .md file, relative to this page, e.g. "
        "[Corpora](../corpora.md)")


def test_missing_baked_file_is_a_block_error():
    def missing(path):
        raise FileNotFoundError(f"no such file: {path}")

    assert error(block("variance"), read_baked=missing) == (
        f"{PAGE}:1: /// variance: cannot read the baked file api/variance/index.json "
        "(no such file: api/variance/index.json); is the bake up to date?")


def test_errors_use_line_offset_everywhere():
    text = "/// softmax\nfactor: x\n///\n"
    assert error(text, line_offset=5).startswith(f"{PAGE}:7: /// softmax: option 'factor'")
    assert error("/// softmax\n\n/// variance\n///\n", line_offset=10) == (
        f"{PAGE}:11: '/// softmax' opened here is not closed before '/// variance' on line 13; "
        "add a line '///' after its options (blocks do not nest)")


def test_author_text_is_converted_once_and_kept_under_what_it_depends_on():
    """A block's author text (a self-check's answer) is kept as HTML in the build's memo under a
    key of the text, the page's extensions and their options; a text that includes a snippet is
    converted every time (pymdownx.snippets reads a file), and so is every text when snippets
    appends files of its own."""
    from scalecore_generator.blocks.base import _conversion_key

    extensions = ["admonition", "pymdownx.snippets"]
    key = _conversion_key(context(markdown_extensions=extensions))
    assert key("The *answer*.") == key("The *answer*.")
    assert key("The *answer*.") != key("The *other* answer.")
    other = _conversion_key(context(markdown_extensions=extensions, markdown_config={"admonition": {"x": 1}}))
    assert other("The *answer*.") != key("The *answer*.")
    assert key('--8<-- "notes.md"') is None and key('-8<- "notes.md"') is None
    appends = _conversion_key(context(markdown_extensions=extensions,
                                      markdown_config={"pymdownx.snippets": {"auto_append": ["abbr.md"]}}))
    assert appends("The *answer*.") is None

    class Memo:
        def __init__(self):
            self.values, self.made = {}, 0

        def get(self, key, make):
            if key not in self.values:
                self.made += 1
                self.values[key] = make()
            return self.values[key]

    memo = Memo()
    for _ in range(2):
        page = context(markdown_extensions=["admonition"], memo=memo)
        html = expand_blocks('/// self-check\nquestion: Why *scale*?\nanswer: Because.\nexplanation: See.\n///\n', page)
        assert "<em>scale</em>" in html
    assert memo.made == 3, "each of the three texts converted once over two builds"

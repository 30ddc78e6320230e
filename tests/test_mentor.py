"""The mentor answers from the module's own sources, and only from them (issue 11).

- scalecore_generator/mentor/: what a passage is (text, callouts, the parts a panel marks), formulas
  as readable text, the numbers from the quote trees, a data script nothing can break out of;
- mentor-core.js in Node (tests/mentor/answer.js, the same file the page loads): the module's
  self-check questions find their self-check, a numbers question gets the baked value, an
  unrelated question gets "not found";
- in Chromium on the built site: the form (Ctrl+Enter), the answer with its links, the outline
  when nothing is found, attachments (text, a PDF made here, an image), the keep-a-copy switch
  (kept across a reload only when on), hostile text shown as text, the questions kept and
  exported with the notes, and no request outside the site.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

pytest.register_assert_rewrite("browser")
from browser import page_url  # noqa: E402
from scalecore_generator import mentor  # noqa: E402
from test_module_page import Baked  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MODULE = "modules/softmax-range.html"
ANSWER = REPO / "tests" / "mentor" / "answer.js"
ASK = "textbox[name='Your question']"


# --------------------------------------------------------------------------------------------
# The sources, at build
# --------------------------------------------------------------------------------------------

PAGE = """
<h1 id="t">Title</h1>
<p>An opening paragraph that is long enough to count as a passage.</p>
<h2 id="step-one">1. Step one<a class="headerlink" href="#step-one">¶</a></h2>
<p>Scores are divided by \\(\\sqrt{d_k}\\) so that their variance stays one.</p>
<ul><li>A list item that explains the <code>scale</code> guard in a sentence.</li></ul>
<div class="admonition practitioner"><p class="admonition-title">For practitioners</p>
<p>This is the fan-in rule of LeCun and colleagues, in one line.</p></div>
<div class="scalecore-panel" id="check-1" aria-label="Check yourself" data-scalecore-kind="self-check">
<p class="scalecore-panel-title">Check yourself</p>
<div data-scalecore-passage="question"><p>Why divide by \\(\\sqrt{d_k}\\)?</p></div>
<button>Show answer</button>
<div data-scalecore-passage="answer"><p>Because the variance adds up.</p></div>
</div>
<div class="scalecore-panel" id="heat" data-scalecore-kind="heatmap"><p>Weights of a long caption here</p></div>
<h2 id="step-two">2. Step two</h2>
<p>Short.</p>
"""


# A lesson of our own for the answers' composition (nothing here is a real module's text).
LESSON = """
<h1 id="buckets">Buckets</h1>
<p>You will be able to: explain why a bucket overflows and why a hole drains it.</p>
<h2 id="overflow">1. Why buckets overflow</h2>
<div class="admonition abstract"><p class="admonition-title">Concept</p>
<p>A bucket holds a fixed volume \\(V\\). Water arrives at rate \\(r_{\\text{in}}\\) and leaves through the hole.</p>
<p>When the inflow exceeds the outflow, the level rises by \\(r_{\\text{in}} - r_{\\text{out}}\\) every second,
so a full bucket overflows.</p></div>
<p><strong>Why it matters:</strong> the size of the hole decides how much rain a bucket survives.</p>
<p>The bucket overflows in the demo after ten seconds of rain, as the panel shows.</p>
<p>The lid changes nothing for the level. It only hides the water, because a lid has no hole.</p>
<div class="admonition guest"><p class="admonition-title">In plain words</p>
<p>Pour faster than it drains and the bucket spills over the rim.</p></div>
<h2 id="holes">2. Holes</h2>
<p>A wide hole drains the bucket faster than a narrow hole, because the outflow grows with the area of the hole.</p>
<p>A narrow hole keeps the rain water for longer, and the level climbs sooner.</p>
<h2 id="go-further">Go further</h2>
<ul><li>Ada Lovelace et al. (1843), Notes on buckets, the overflow of rain water: <a href="https://example.org/b">b</a>.</li></ul>
<p><strong>Where next:</strong> <a href="pumps.html">Pumps</a>, where a pump empties the bucket through the hose.</p>
"""


def test_a_page_becomes_passages_under_their_sections():
    page = mentor.read_page(PAGE, "m/p.html", "Title")
    texts = [(p["anchor"], p["label"], p["text"]) for p in page.passages]
    assert texts == [
        ("", "", "An opening paragraph that is long enough to count as a passage."),
        ("step-one", "", "Scores are divided by √d_k so that their variance stays one."),
        ("step-one", "", "A list item that explains the scale guard in a sentence."),
        ("step-one", "For practitioners", "This is the fan-in rule of LeCun and colleagues, in one line."),
        ("check-1", "Check yourself", "Why divide by √d_k? Because the variance adds up."),
    ]
    assert page.passages[-1]["parts"] == {"question": "Why divide by √d_k?", "answer": "Because the variance adds up."}
    assert page.outline == [{"title": "1. Step one", "anchor": "step-one"}, {"title": "2. Step two", "anchor": "step-two"}]
    assert page.panels == [{"kind": "self-check", "anchor": "check-1", "options": {}}, {"kind": "heatmap", "anchor": "heat", "options": {}}]


@pytest.mark.parametrize("tex, text", [
    (r"\sqrt{d_{\text{model}}}", "√d_model"),
    (r"\operatorname{Var}(q_j) = d_{\text{model}}\,\mathbb{E}[x^2]\,s^2", "Var(q_j) = d_model E[x^2] s^2"),
    (r"\frac{QK^\top}{\sqrt{d_k}}", "(QKᵀ)/(√d_k)"),
    (r"J = \operatorname{diag}(p) - p\,p^\top", "J = diag(p) - p pᵀ"),
    # what a search snippet and a quote showed raw before (issue 47 follow-up)
    (r"\cos\theta = 45^\circ", "cos theta = 45°"),
    (r"\max_j x_j < \infty", "max_j x_j < ∞"),
    (r"\exp(x)", "exp(x)"),
    (r"t_{1/2} = \dfrac{\ln 2}{k}", "t_(1/2) = (ln 2)/(k)"),  # a chemistry author's search showed "dfracln 2k"
])
def test_formulas_are_quoted_as_readable_text(tex, text):
    assert mentor.tex_to_text(tex) == text


def test_the_data_script_cannot_be_closed_by_a_passage():
    page = mentor.read_page("<h2 id='a'>A</h2><p>A passage with &lt;/script&gt;&lt;script&gt;alert(1) in it.</p>", "p.html", "T")
    script = mentor.data_script(page, [page], {}, {}, "X.1")
    assert "</script" not in script.lower()
    data = json.loads(script.split("]=", 1)[1].rstrip(";\n"))
    assert data["passages"][0]["text"] == "A passage with </script><script>alert(1) in it."


def test_a_paragraph_s_bold_run_in_title_is_marked_and_leads_only_with_its_sentence(tmp_path):
    """"**Words used before the next module explains them.** Its three guards ..." is a paragraph with a title: the
    passage says so (run_in), and the mentor never leads with the title alone (a fresh reader's LayerNorm answer opened
    with it). A bold lead-in that runs into its sentence ("**Why it matters:** ...") and bold words later are no title."""
    html = ("<h2 id='a'>A</h2><p><strong>Words used before the pumps are explained.</strong> A bucket holds water and "
            "a pump moves it.</p><p><strong>Why it matters:</strong> the bucket overflows.</p>"
            "<p>A pump is <strong>not</strong> a bucket, whatever it holds.</p>")
    page = mentor.read_page(html, "m/p.html", "T")
    assert [p.get("run_in", False) for p in page.passages] == [True, False, False]
    assert page.passages[0]["text"].startswith("Words used before the pumps are explained. A bucket holds water")
    lead = _answered_from(page, "which words are used before the pumps are explained?", tmp_path)["lead"]
    assert lead["text"].startswith("Words used before the pumps are explained. A bucket holds water"), lead


def _answered_from(page, question: str, folder: Path) -> dict:
    """The mentor's answer to ``question`` from a page read here alone (its data script), in Node."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed")
    script = mentor.data_script(page, [page], {}, {}, "B.1")
    data, asked = folder / "data.json", folder / "questions.json"
    data.write_text(script.split("]=", 1)[1].rstrip(";\n"), encoding="utf-8")
    asked.write_text(json.dumps([{"question": question}]), encoding="utf-8")
    done = subprocess.run([node, str(ANSWER), "--data", str(data), str(asked)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["answers"][0]["answer"]


def test_a_panel_s_readouts_are_passages_once_a_page(tmp_path):
    """A reader asked what the "gradient size" readout measures; the page says so under every readout ("How much
    gradient reaches the scores ... Near 0, the scores cannot learn"), but only a panel's marked parts were read. Each
    readout is now a passage, "Name: hint", anchored at the first panel that shows it; its value is not (the facts
    give numbers), and the same readout in the next panel is not read again. Any kind's view makes them."""
    readout = ('<div class="scalecore-readout" data-measure="{key}"><dt>{name}</dt><dd><span class="scalecore-readout__value">'
               '{value}</span><span class="scalecore-readout__hint">{hint}</span></dd></div>')
    panel = ('<div class="scalecore-panel" id="{id}" data-scalecore-kind="pumps"><dl>' +
             readout.format(key="flow", name="Flow rate", value="{v}", hint="How much water leaves the bucket each second.") +
             readout.format(key="level", name="Level", value="0.5", hint="How full the bucket is: 0 is empty, 1 is full.") +
             "</dl></div>")
    html = ("<h2 id='a'>A</h2><p>A pump moves water from one bucket to the next one.</p>" +
            panel.format(id="first", v="3.2") + panel.format(id="second", v="0.1"))
    page = mentor.read_page(html, "m/p.html", "T")
    measures = [(p["role"], p["anchor"], p["label"], p["text"]) for p in page.passages if p["role"] == "measure"]
    assert measures == [("measure", "first", "Flow rate", "Flow rate: How much water leaves the bucket each second."),
                        ("measure", "first", "Level", "Level: How full the bucket is: 0 is empty, 1 is full.")]
    answer = _answered_from(page, "what is the flow rate number measuring?", tmp_path)
    shown = " ".join(p["text"] for p in answer["passages"])
    assert "How much water leaves the bucket each second." in shown, answer


def test_a_question_about_what_a_readout_means_is_answered_with_its_meaning_not_its_values(built_site):
    """"What does the gradient size number mean?" was answered with eight gradient sizes ("mean" read as the mean over
    the seeds, "size" as a count's cue) and "what is mean row-max?" with the seeds' means: a question about what a
    measure means is led by the readout's own words, once (a prerequisite's copy of the readout is not shown again),
    and gets no numbers; a question that names a setting still does."""
    got = answers(built_site, [{"question": "what does the gradient size number mean?"}, {"question": "what is mean row-max?"},
                               {"question": "what is the mean row-max on kjv with init+scale, seed 2?"}])["answers"]
    meaning, row_max, number = (reply["answer"] for reply in got)
    assert not meaning["numbers"] and meaning["lead"]["text"].startswith("Gradient size: How much gradient reaches the scores")
    assert not row_max["numbers"]
    readouts = [p["label"] for p in row_max["passages"] if p["role"] == "measure"]
    assert readouts and readouts[0] == "Mean row-max" and len(readouts) == len(set(readouts)), readouts
    assert number["numbers"][0]["path"] == "scale-guards/kjv/2/init+scale/mean_row_max", number["numbers"][:2]


def test_a_reader_s_own_number_and_words_for_plain_words_name_no_setting(built_site):
    """A fresh reader asked "whats the entropy number in the panel, is 2.18 good or bad" and got seed 2's entropies (the
    digits of 2.18), "is 0.5 ideal?" got seed 0's, and "explain layernorm like im five" matched the page's 5s; a
    readout's hint led without its last sentence ("About 1 is healthy"). A decimal that is no setting's value names
    nothing, "like I'm five" asks for plain words only, and a readout's hint leads whole."""
    got = answers(built_site, [{"question": "whats the entropy number in the panel, is 2.18 good or bad"},
                               {"question": "The gradient size says 0.322 - is bigger better, is 0.5 ideal?"},
                               {"question": "explain layernorm like im five pls"},
                               {"question": "What does Input spread tell me, what value should I want?"}])["answers"]
    entropy, gradient, plainly, spread = (reply["answer"] for reply in got)
    assert not entropy["numbers"] and "2.18 nats" in entropy["lead"]["text"], entropy["lead"]
    assert not gradient["numbers"] and gradient["lead"]["text"].startswith("Gradient size: "), gradient["lead"]
    assert plainly["terms"] == ["layernorm"], plainly["terms"]
    assert spread["lead"]["text"].startswith("Input spread: ") and "About 1 is healthy." in spread["lead"]["text"]


def test_passages_are_sentences_with_their_formulas_and_a_role():
    page = mentor.read_page(LESSON, "m/buckets.html", "Buckets")
    by_text = {p["text"][:30]: p for p in page.passages}
    roles = [(p["role"], p["text"][:25]) for p in page.passages]
    assert ("goals", "You will be able to: expl") in roles
    assert ("concept", "A bucket holds a fixed vo") in roles
    assert ("why", "Why it matters: the size ") in roles
    assert ("aside", "Pour faster than it drain") in roles
    assert ("reference", "Ada Lovelace et al. (1843") in roles
    navigation = next(p for p in page.passages if p["role"] == "navigation")
    assert navigation["links"] == [{"page": "m/pumps.html", "title": "Pumps"}]  # where it points, not the outside links
    concept = by_text["A bucket holds a fixed volume "]
    assert concept["sentences"][0] == ["A bucket holds a fixed volume ", {"tex": "V", "display": False}, "."]
    assert len(concept["sentences"]) == 2 and concept["text"].startswith("A bucket holds a fixed volume V. Water")
    cited = next(p for p in page.passages if p["role"] == "reference")
    assert len(cited["sentences"]) == 1  # "et al." and "(1843)," do not end a sentence


def test_formulas_travel_as_mathml_trees_that_can_run_nothing(tmp_path):
    import logging

    from scalecore_generator.pages import formulas

    hostile = ('<span class="katex"><math><mi onclick="alert(1)" href="x">a</mi><script>alert(2)</script>'
               '<foreignObject><img src=x></foreignObject><mo>+</mo></math></span><span class="katex-html">a+</span>')
    assert mentor.math_trees(hostile) == [["math", {}, ["mi", {}, "a"], ["mo", {}, "+"]]]
    page = mentor.read_page(LESSON, "m/buckets.html", "Buckets")
    for engine in ("mathml", "html"):  # the page's own output, MathML alone or KaTeX's MathML copy
        typesetter = formulas.Typesetter(engine, tmp_path / f"{engine}.json", logging.getLogger("test"))
        try:
            script = mentor.data_script(page, [page], {}, {}, "B.1",
                                        lambda tex, display: typesetter.formula(tex, display, "test", str))
        finally:
            typesetter.save()
        data = json.loads(script.split("]=", 1)[1].rstrip(";\n"))
        formula = next(f for f in data["math"] if f["text"] == "r_in - r_out")
        assert formula["trees"][0][0] == "math" and "r" in json.dumps(formula["trees"])
        concept = next(p for p in data["passages"] if p["role"] == "concept")
        assert {"m": data["math"].index(next(f for f in data["math"] if f["text"] == "V"))} in concept["sentences"][0]
        names = set(re.findall(r'\["([a-z]+)",', json.dumps(data["math"])))
        assert names <= mentor.MATHML and "span" not in names


def test_facts_keep_the_numbers_and_leave_the_rows():
    tree = {"k": {"a": {"mean": 0.123456789012, "weights": [[0.5, 0.5]], "favourite": [1, 2, 3, 4, 5], "pair": [1.5, 2.0]}},
            "other": {"x": 1.0}}
    assert mentor.facts(tree, {"k", "missing"}) == {"k": {"a": {"mean": 0.1234568, "pair": [1.5, 2.0]}}}


def test_facts_keep_a_list_of_records_as_rows_of_their_numbers_and_their_records():
    """A stack's layers ([{layer: 1, ...}]) and a layer's heads are kept at the paths the page quotes
    (encoder/.../layers/2/stream_spread, multihead/.../per_head/2/measures/mean_row_max), each row with its numbers and
    its records' (a head's measures), not its rows of weights; rows with no number at all are left."""
    tree = {"k": {"a": {"layers": [{"layer": 1, "spread": 2.0, "per_head": [{"w": [[1.0]], "max": 0.5}]}, {"layer": 2, "spread": 4.0}],
                        "heads": [{"weights": [[0.5]]}, {"weights": [[1.0]]}],
                        "per_head": [{"weights": [[0.5]], "measures": {"max": 0.25}}]}}}
    assert mentor.facts(tree, {"k"}) == {"k": {"a": {
        "layers": [{"layer": 1, "spread": 2.0, "per_head": [{"max": 0.5}]}, {"layer": 2, "spread": 4.0}],
        "per_head": [{"measures": {"max": 0.25}}]}}}


def test_every_module_page_has_its_mentor_data(built_site):
    for page in ("modules/softmax-range.html", "modules/multi-head-attention.html", "modules/encoder-block.html"):
        data = _data(built_site, page)
        assert data["module"]["page"] == page and data["outline"]
        pages = set(data["pages"])
        assert page in pages
        checks = [p for p in data["passages"] if p.get("parts", {}).get("question")]
        assert len([c for c in checks if c["page"] == page]) >= 5
    softmax = _data(built_site, MODULE)
    assert "modules/multi-head-attention.html" in softmax["pages"]  # its prerequisite
    assert set(softmax["facts"]) >= {"scale-guards", "variance", "corpus", "settings"}
    html = (built_site / MODULE).read_text(encoding="utf-8")
    assert 'data-scalecore-mentor="../assets/scalecore/mentor/modules--softmax-range.js"' in html
    assert not (built_site / "index.html").read_text(encoding="utf-8").count("data-scalecore-mentor=")


def _data(site: Path, page: str) -> dict:
    text = (site / mentor.script_path(page)).read_text(encoding="utf-8")
    return json.loads(text.split("]=", 1)[1].rstrip(";\n"))


# --------------------------------------------------------------------------------------------
# The answers, in Node (the page's own core)
# --------------------------------------------------------------------------------------------

def answers(site: Path, questions: list[dict], page: str = MODULE) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed")
    file = site.parent / f"questions-{abs(hash(json.dumps(questions)))}.json"
    file.write_text(json.dumps(questions), encoding="utf-8")
    done = subprocess.run([node, str(ANSWER), str(site), page, str(file)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _lesson_answers(tmp_path, questions: list[str]) -> list[dict]:
    """The page's own core, in Node, over LESSON's mentor data: the ranking and the answer's
    composition, with no site built (fast)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed")
    page = mentor.read_page(LESSON, "m/buckets.html", "Buckets")
    script = mentor.data_script(page, [page], {}, {}, "B.1")
    data, asked = tmp_path / "data.json", tmp_path / "questions.json"
    data.write_text(script.split("]=", 1)[1].rstrip(";\n"), encoding="utf-8")
    asked.write_text(json.dumps([{"question": q} for q in questions]), encoding="utf-8")
    done = subprocess.run([node, str(ANSWER), "--data", str(data), str(asked)], capture_output=True, text=True, check=True)
    return [reply["answer"] for reply in json.loads(done.stdout)["answers"]]


def test_a_why_question_leads_with_the_sentence_that_gives_the_reason(tmp_path):
    why, lid = _lesson_answers(tmp_path, ["Why does the bucket overflow?", "Why does the lid change nothing?"])
    assert why["kind"] == "why" and why["found"]
    assert why["lead"]["text"].startswith("When the inflow exceeds the outflow")  # not "overflows in the demo"
    assert why["lead"]["role"] == "concept" and {"m": 2} in why["lead"]["sentence"]  # the formula travels with it
    first = why["passages"][0]  # the evidence: the whole concept box, the lead marked in it
    assert first["text"].startswith("A bucket holds") and first["lead"] == [2, 2]
    # a lead that opens with "It" keeps the sentence it refers to
    assert lid["lead"]["text"] == "The lid changes nothing for the level. It only hides the water, because a lid has no hole."


def test_pointers_goals_and_references_are_never_the_answer(tmp_path):
    pump, = _lesson_answers(tmp_path, ["How does a pump empty the bucket through the hose?"])
    assert not pump["found"] and pump["lead"] is None and pump["passages"] == []
    assert {"page": "m/pumps.html", "anchor": "", "title": "Pumps"} in pump["closest"]
    goals, cited = _lesson_answers(tmp_path, ["Why does a hole drain it?", "What are the notes on buckets?"])
    assert all(p["role"] not in ("goals", "reference", "navigation") for p in goals["passages"] + cited["passages"])


def test_a_difference_question_is_answered_with_both_sides(tmp_path):
    reply, = _lesson_answers(tmp_path, ["What is the difference between a wide hole and a narrow hole?"])
    assert reply["kind"] == "difference"
    assert reply["lead"]["text"].startswith("A wide hole drains the bucket faster than a narrow hole")


def test_the_evidence_is_the_four_closest_passages_whole(tmp_path):
    """Round 3: an answer shows the closest passages up to three (four from round 9), each whole (a callout's box in
    one piece), the lead's first; a self-check's answer is not among them (it answers another question)."""
    reply, = _lesson_answers(tmp_path, ["What does the rain do to the level of the bucket?"])
    assert reply["found"] and len(reply["passages"]) == 4
    assert len({p["id"] for p in reply["passages"]}) == 4 and all(p["role"] != "check" for p in reply["passages"])
    concept = [p for p in reply["passages"] if p["role"] == "concept"]
    assert not concept or concept[0]["text"].startswith("A bucket holds") and "overflows" in concept[0]["text"]


def test_a_condition_stated_as_an_absence_and_a_word_written_as_two_are_read(tmp_path):
    """'no hole' is a condition of absence: the sentence that says what is missing ('a lid has no
    hole') holds it; 'in flow' is the module's 'inflow'."""
    lid, inflow = _lesson_answers(tmp_path, ["What happens with a lid that has no hole at all?",
                                             "why does the bucket overflow when the in flow is large?"])
    assert "\u00acabsent" in lid["terms"] and "no hole" in lid["lead"]["text"]
    assert "inflow" in inflow["terms"] and "inflow" in inflow["lead"]["text"]


@pytest.mark.parametrize("question, language", [
    ("Pourquoi le seau déborde-t-il quand il pleut ?", "French"),
    ("Warum läuft der Eimer über, wenn es regnet?", "German"),
    ("¿Por qué se desborda el cubo cuando llueve?", "Spanish"),
    ("为什么水桶会溢出？", "a language other than English"),
    ("Why does the bucket overflow if it rains?", None),
    ("Why does r_in - r_out matter?", None),
])
def test_a_question_in_another_language_is_named_not_silently_missed(tmp_path, question, language):
    reply, = _lesson_answers(tmp_path, [question])
    assert reply["language"] == language
    if language:
        assert not reply["found"] and reply["lead"] is None and reply["passages"] == []


def test_each_self_check_question_finds_its_self_check(built_site):
    data = _data(built_site, MODULE)
    checks = [p for p in data["passages"] if p["page"] == MODULE and p.get("parts", {}).get("question")]
    got = answers(built_site, [{"question": c["parts"]["question"]} for c in checks])["answers"]
    for check, reply in zip(checks, got):
        assert reply["answer"]["check"] is not None, check["parts"]["question"]
        assert reply["answer"]["check"]["anchor"] == check["anchor"], check["parts"]["question"]
        assert reply["answer"]["check"]["explanation"] == check["parts"]["explanation"]
        # round 9: beside the self-check, the passages of the page it stands on (up to three, none another self-check),
        # as for any answer: before, only a passage holding 3/4 of the question was shown, and most showed none
        shown = reply["answer"]["passages"]
        assert 1 <= len(shown) <= 3 and all(p["role"] != "check" for p in shown), check["parts"]["question"]


def test_a_numbers_question_gets_the_baked_value(built_site):
    baked = Baked(built_site)
    got = answers(built_site, [{"question": "What is the mean row-max on kjv with norm+init+scale, averaged over the seeds?"},
                               # "mean" as the measure's first word is no mean over the seeds: seed 0, as the panel
                               {"question": "What is the mean row-max on kjv with norm+init+scale?"},
                               {"question": "what is the variance at d = 100?"},
                               {"question": "What is the input spread on wordnet at seed 2 with init + scale?"},
                               # a mean the panel names by its one word ("Entropy": mean_entropy; a fresh reader's)
                               {"question": "what is the entropy on kjv at seed 0 with only the scale guard?"}])["answers"]
    for reply, path in zip(got, ["scale-guards/kjv/mean/norm+init+scale/mean_row_max",
                                 "scale-guards/kjv/0/norm+init+scale/mean_row_max", "variance/100/raw/variance",
                                 "scale-guards/wordnet/2/init+scale/input_spread", "scale-guards/kjv/0/scale/mean_entropy"],
                           strict=True):
        first = reply["answer"]["numbers"][0]
        assert first["path"] == path
        assert first["value"] == pytest.approx(baked.value(path), rel=1e-6)
        # a mean over the seeds is in no panel's state: its link would open seed 0's number beside it (a fresh reader's)
        if "/mean/" in path:
            assert first["panel"] is None, first
        else:
            assert first["panel"].startswith(MODULE + "#scalecore-")


def test_a_layer_is_named_by_its_number_and_a_placement_by_what_is_absent(built_site):
    """The encoder page's per-layer rows, as a reader names them: "after layer 3" is the row layers/2 (its number
    names no seed), "without LayerNorm" / "no layer norm" the placement none, "post-LN" post; the row's own number
    (layer) is never the measure; over the seeds when the question asks for the lowest; a large spread printed whole."""
    page = "modules/encoder-block.html"
    baked = Baked(built_site)
    asked = [("what's the stream spread after layer 3 on kjv without layernorm?", "encoder/kjv/0/none/layers/2/stream_spread"),
             ("mean row-max of layer 2 on demo with no layer norm", "encoder/demo/0/none/layers/1/mean_row_max"),
             ("stream spread after the first layer on kjv with post-LN, seed 3", "encoder/kjv/3/post/layers/0/stream_spread"),
             ("lowest mean row-max at layer 3 on kjv with pre-LN over the seeds", "encoder/kjv/all/pre/3/mean_row_max/lowest"),
             ("stream spread after six layers on demo with pre-LN", "encoder/demo/0/pre/layers/5/stream_spread"),
             ("how large is the stream after layer 2 on wordnet with post-LN?", "encoder/wordnet/0/post/layers/1/stream_spread")]
    got = first_numbers_are(built_site, page, baked, asked)
    assert got[0]["answer"]["numbers"][0]["text"] == f"{round(baked.value(asked[0][1])):,}"  # as the panel prints it


def test_a_self_check_asked_in_a_reader_s_own_words_is_found_by_meaning(built_site):
    """Round 9: a question that shares few words with a self-check's own question but says the same thing (the
    sentence encoder's cosine) is answered by that self-check, with its answer and the passages beside it."""
    page = "modules/encoder-block.html"
    reply, = answers(built_site, [{"question": "if the residual stream doubles in size, by how much do the raw scores grow?"}],
                     page)["answers"]
    check = reply["answer"]["check"]
    assert check is not None and check["question"].startswith("Suppose the stream that reaches a layer"), check
    assert check["answer"] and reply["answer"]["lead"]["role"] == "check" and reply["answer"]["passages"]


def test_a_word_for_what_the_reader_sees_is_not_a_topic_the_module_lacks(built_site):
    """A fresh reader's "what does the entropy readout show?" was refused: "readout" is no word of the module's text
    (a panel's readouts are a definition list), so it read as a topic the module never speaks of. The page's furniture
    (readout, heatmap, slider, ...) names what the reader sees: the question is answered from the readout's words."""
    reply, = answers(built_site, [{"question": "what does the entropy readout show?"}])["answers"]
    assert reply["answer"]["found"] and reply["answer"]["lead"]["text"].startswith("Entropy: How spread out attention is")
    assert "readout" not in reply["answer"]["terms"]


def test_of_self_checks_near_in_meaning_the_one_that_shares_the_question_s_words_answers(built_site):
    """"what happens to the attention weights if I add the same constant, say 100, to every score?" is 0.68 from the
    self-check on inputs that double and 0.64 from the one on adding 100 to the scores: the encoder alone chose the
    first ("They quadruple"). Among self-checks nearly as near, the one sharing the question's words answers."""
    reply, = answers(built_site, [{"question": "what happens to the attention weights if I add the same constant, say 100, to every score?"}])["answers"]
    check = reply["answer"]["check"]
    assert check is not None and check["question"].startswith("Add 100 to each of the scores"), check


def test_a_corpus_named_by_its_folder_name_is_read_by_the_encoder_as_its_size(built_site):
    """A fresh reader's "why isn't dividing by sqrt dk enough on kjv" was led by the self-check "Why divide by √d_k and
    not by d_k?" ("Because the variance changes with the square of the factor"): the encoder does not know kjv, and
    the page speaks of it as "a large corpus". The encoder reads the site's largest corpus as such."""
    reply, = answers(built_site, [{"question": "why isnt dividing by sqrt dk enough on kjv"}])["answers"]
    check = reply["answer"]["check"]
    assert check is not None and check["question"].startswith("Why does dividing by √d_k not rescue attention"), check


def test_a_lead_neither_goes_on_from_a_sentence_it_leaves_out_nor_repeats_a_callout_s_label(built_site):
    """A fresh reader's "In short" read "Saturation is not solved by any such trick", "So \"a saturated head cannot
    learn\" is too strong" and "Why it matters: ... Why it matters: ...": a sentence that goes on from the one before
    ("So", "The same", "any such") leads only with it, and a "why it matters" line leads without its label."""
    got = answers(built_site, [{"question": "what does saturated mean here, im new to this"}])["answers"]
    saturated = got[0]["answer"]["lead"]["text"]
    assert not saturated.startswith(("So ", "The same")) and " So \"a saturated" not in saturated, saturated
    assert "any such trick" not in saturated.split(". ")[0], saturated
    got = answers(built_site, [{"question": "why split the layer into several heads instead of using one big head?"}],
                  "modules/multi-head-attention.html")["answers"]
    lead = got[0]["answer"]["lead"]
    assert "Why it matters" not in lead["text"] and lead["text"][0].isupper(), lead["text"]
    assert isinstance(lead["sentence"][0], str) and not lead["sentence"][0].startswith("Why it matters"), lead["sentence"][:1]


def test_a_question_about_the_site_s_data_sets_is_not_refused_as_an_unknown_topic(built_site):
    """'dataset' is no word of the module's text, but the site's corpora are its data sets: a question about them is
    answered from the passages on the corpora (round 9; it was refused as a topic the module never speaks of)."""
    reply, = answers(built_site, [{"question": "Which dataset is the biggest one here?"}])["answers"]
    assert reply["answer"]["found"] and "kjv" in " ".join(p["text"] for p in reply["answer"]["passages"]).lower()


def test_a_large_number_is_printed_as_the_page_prints_it(built_site):
    """A baked value the page's text writes in groups of three digits ("7,903,577") is given as written, and one it
    does not write, as the panel's table prints it ("27,534"): never "7903577" (round 9; the heldout sets' keys)."""
    baked = Baked(built_site)
    spread, = first_numbers_are(built_site, MODULE, baked,
                                [("What is the score spread on kjv with init and scale at seed 0?", "scale-guards/kjv/0/init+scale/score_spread")])
    assert spread["answer"]["numbers"][0]["text"] == "7,903,577"
    assert "7,903,577" in (built_site / MODULE).read_text(encoding="utf-8")


def first_numbers_are(built_site, page: str, baked, asked: list[tuple[str, str]]) -> list[dict]:
    """Each question's first number is the baked value at its path; the answers."""
    got = answers(built_site, [{"question": q} for q, _ in asked], page)["answers"]
    for reply, (question, path) in zip(got, asked):
        first = reply["answer"]["numbers"][0]
        assert first["path"] == path, question
        assert first["value"] == pytest.approx(baked.value(path), rel=1e-6)
    return got


def test_a_reader_s_names_for_a_setting_find_its_number(built_site):
    """Round 11 (session 45), the development set's number questions: "every guard switched off" is the guard set none
    (it gave norm+init+scale: "every guard" read as all on), "king james" names kjv by its title (the module writes
    those words too, so they are no alias of it), and a measure named by its column ("the spread the first layer's
    attention adds") goes before one that only shares a word with the question (stream_spread, by "the stream")."""
    baked = Baked(built_site)
    first_numbers_are(built_site, MODULE, baked, [
        ("with every guard switched off on the demo corpus (seed 0) how big is the score spread?",
         "scale-guards/demo/0/none/score_spread"),
        ("score spread on kjv at seed 0 after turning off all three guards", "scale-guards/kjv/0/none/score_spread"),
        ("whats the score spread on the king james corpus with init+scale, seed 0?", "scale-guards/kjv/0/init+scale/score_spread")])
    first_numbers_are(built_site, "modules/encoder-block.html", baked, [
        ("no layernorm, kjv, seed 0: how big is the spread that the first layer's attention adds to the stream?",
         "encoder/kjv/0/none/layers/0/attention_update_spread")])


def test_an_everyday_function_word_finds_no_passage(built_site):
    """A fresh reader's "what is a guard? i don't really get what it is guarding against" was led by a sentence on
    the kjv gradients, chosen for its word "against" ("19.5 and 14.5 against..."): against, instead and simply are
    stop words now, and the answer is the guards'."""
    reply, = answers(built_site, [{"question": "what is a guard? i don't really get what it is guarding against"}])["answers"]
    assert "against" not in reply["answer"]["terms"]
    lead = reply["answer"]["lead"]["text"]
    assert "guard" in lead.lower() and "against" not in lead, lead


def test_a_reader_who_asks_in_plain_words_is_led_by_the_page_s_plain_words(built_site):
    """A fresh reader asked what a saturated softmax is, "explain simply", and was led by the Jacobian; the page has an
    "In plain words" box in that section. A question asking for plain words is led from the page's own box (never
    another lesson's), and the evidence follows as for any question."""
    got = answers(built_site, [{"question": 'What does it mean that the softmax is "saturated"? Please explain simply.'},
                               {"question": "can u list the three guards simply, what does each one do?"}])["answers"]
    for reply in got:
        shown = reply["answer"]["passages"]
        assert shown[0]["label"] == "In plain words" and shown[0]["page"] == MODULE, [(p["page"], p["label"]) for p in shown]
        assert len(shown) > 1
    assert "nudging the scores" in got[0]["answer"]["lead"]["text"] or "one word holds all" in got[0]["answer"]["lead"]["text"]
    assert got[1]["answer"]["lead"]["text"].startswith("Each guard answers a different reason")


def test_a_number_written_as_a_word_is_the_number(built_site):
    """A reader (held-out set 13, retired) asked what multiplying the scores 1, 2, 3 "by ten" does and was given the
    self-check about adding 100 to them ("Nothing: the weights stay exactly the same"): "ten" was not the page's 10,
    so the self-check that adds shared more of the question's words than the one that multiplies."""
    reply, = answers(built_site, [{"question": "what happens if i times the scores 1 2 3 by ten instead"}])["answers"]
    assert reply["answer"]["lead"]["text"].startswith("The weights harden towards one-hot"), reply["answer"]["lead"]["text"]


def test_a_self_check_that_asks_the_question_in_other_words_is_shown_with_the_answer(built_site):
    """A reader (held-out set 12, retired) asked whether the init guard alone rescues the King James corpus; the page's
    self-check asks just that ("Why does it not help on kjv? It keeps the input's scale"), in other words, and was not
    shown: a self-check was shown only when it led. The self-check nearest the question in meaning is now among the
    evidence (a page's own question and answer), unless another is about as near."""
    reply, = answers(built_site, [{"question": "Suppose I switch on only the init guard and leave the other two off. "
                                               "Does that rescue the King James corpus?"}])["answers"]
    shown = " ".join(p["text"] for p in reply["answer"]["passages"])
    assert "It keeps the input's scale; it does not reduce it." in shown, [p["text"][:60] for p in reply["answer"]["passages"]]


def test_a_lead_from_a_self_check_s_explanation_opens_with_its_answer(built_site):
    """A fresh reader asked what doubling the vectors does "but keep norm on" and was led by the self-check's
    explanation ("In general, multiplying the input by c multiplies the scores by c^2"), without its answer's
    condition: the answer ("They quadruple, unless norm is on: then nothing changes.") now comes first."""
    reply, = answers(built_site, [{"question": "What if I double the size of every word vector but keep norm on? "
                                               "Does the attention change?"}])["answers"]
    lead = reply["answer"]["lead"]["text"]
    assert lead.startswith("They quadruple, unless norm is on: then nothing changes."), lead
    # a what-if question only: the answer is to the check's own question, which a "why" is not (a second fresh reader)
    reply, = answers(built_site, [{"question": "Why does a bigger corpus make the attention scores so much bigger?"}])["answers"]
    assert not reply["answer"]["lead"]["text"].startswith("They quadruple"), reply["answer"]["lead"]["text"]


def test_a_symbol_is_defined_where_the_page_gives_its_width(built_site):
    """Round 12 (a fresh reader's "what is d_k?", led by a sentence that only used it): a what-is question about a
    symbol is led by the sentence that gives it as a width and its value ("queries and keys of width d_k = ...")."""
    for page in ("modules/multi-head-attention.html", "modules/encoder-block.html"):
        reply, = answers(built_site, [{"question": "what is d_k?"}], page)["answers"]
        assert re.search(r"width d_k = \S", reply["answer"]["lead"]["text"]), (page, reply["answer"]["lead"]["text"])


def test_a_what_is_question_is_answered_where_the_page_brings_the_term_in(built_site):
    """Round 11: the encoder page names the residual stream in most sections and says what it is in the first ("a
    running sum"); "what is the residual stream?" showed four later passages that only use the words."""
    reply, = answers(built_site, [{"question": "what is the residual stream?"}], "modules/encoder-block.html")["answers"]
    shown = " ".join(p["text"] for p in reply["answer"]["passages"]).lower()
    assert "running sum" in shown, [p["section"] for p in reply["answer"]["passages"]]


def test_a_setting_the_question_leaves_out_is_the_one_the_page_s_panels_show(built_site):
    """A second fresh reader asked for "the mean row-max with 4 heads on the demo corpus at seed 0" and got the guard
    sets init, init+scale and none (the tree's first), none of which a panel of the page shows by default: the numbers of
    the states the page's panels can show come first (norm+init+scale, 0.24 on the page)."""
    reply, = answers(built_site, [{"question": "What is the mean row-max with 4 heads on the demo corpus at seed 0?"}],
                     "modules/multi-head-attention.html")["answers"]
    first = reply["answer"]["numbers"][0]
    assert first["path"] == "multihead/demo/0/4/norm+init+scale/summary/mean_row_max", reply["answer"]["numbers"]


def test_a_measure_is_named_by_its_column_in_the_panel_s_table(built_site):
    """The encoder panel's table calls attention_update_spread "Attention adds" and attention_input_spread "Heads see":
    the build reads the names from the tables the page shows (never from the mentor's code), and a reader's "attention
    add" or "heads see" names the measure."""
    page = "modules/encoder-block.html"
    baked = Baked(built_site)
    stem = page.removesuffix(".html").replace("/", "--")
    script = (built_site / "assets/scalecore/mentor" / f"{stem}.js").read_text(encoding="utf-8")
    labels = json.loads(script.partition("]=")[2].rstrip().rstrip(";"))["labels"]["encoder"]
    assert labels["attention_update_spread"] == ["Attention adds"] and labels["attention_input_spread"] == ["Heads see"]
    asked = [("attention adds at layer 4 on demo with pre-LN", "encoder/demo/0/pre/layers/3/attention_update_spread"),
             ("what do the heads see in layer 2 on wordnet without LayerNorm?", "encoder/wordnet/0/none/layers/1/attention_input_spread")]
    first_numbers_are(built_site, page, baked, asked)


def test_a_table_s_column_names_the_one_measure_whose_values_it_prints():
    """A column names a measure when its cells, row 1 the list's first record, are that measure's values as printed;
    a column two measures fit names neither, and a row not headed by its number is not read."""
    from scalecore_generator.mentor.facts import column_names

    records = {"k": {"a": {"rows": [{"row": 1, "x": 0.5, "y": 2.0, "z": 1.0}, {"row": 2, "x": 0.25, "y": 2.0004, "z": 2.0}]}}}
    table = {"kind": "k", "columns": ["Row", "Half", "Two", "Index"],
             "rows": [["input", "9", "9", "9"], ["1", "0.500", "2.00", "1"], ["2", "0.250", "2.00", "2"]]}
    assert column_names([table], records) == {"k": {"x": ["Half"], "y": ["Two"]}}


def test_a_number_is_given_as_the_page_prints_it_with_a_state_the_panel_can_show(built_site):
    """0.9999495 is printed 0.9999 by the page (never rounded up to 1.00); a seed's value, not the
    mean over seeds, when the question names a seed; its link carries only values the panel's
    controls offer (a seed, never "mean"), and no answer carries template text."""
    got = answers(built_site, [{"question": "What is the mean row-max on kjv at seed 0 with init+scale?"},
                               {"question": "mean row max for kjv, init+scale, seed 0?"}])["answers"]
    html = (built_site / MODULE).read_text(encoding="utf-8")
    for reply in got:
        first = reply["answer"]["numbers"][0]
        assert first["path"] == "scale-guards/kjv/0/init+scale/mean_row_max"
        assert first["text"] == "0.9999" and "0.9999" in html
        assert "=mean" not in first["panel"]  # (Node has no panel base: the state is added in the page, below)
        assert "{{" not in json.dumps(reply["answer"]) and "baked:" not in json.dumps(reply["answer"])


def test_a_number_links_to_a_panel_that_can_show_its_state_and_names_it_in_words(built_site):
    """The page's first guards panel has its guards locked at init+scale: a number baked with norm alone links to the
    panel whose switches offer it, one with init alone on demo to the first panel that offers that (the init-guard
    panel, whose corpus is demo), never to a panel that would show another state. The number is named in words (the
    measure, then each setting by its axis), never by its path ("scale-guards · kjv · 0 · norm · mean_row_max")."""
    got = answers(built_site, [{"question": "What is the mean row-max on kjv at seed 0 with norm only?"},
                               {"question": "mean row-max on demo at seed 0 with init only?"},
                               {"question": "What is the mean row-max on kjv at seed 0 with init+scale?"}])["answers"]
    html = (built_site / MODULE).read_text(encoding="utf-8")
    panels = {m.group(1): json.loads(m.group(2).replace("&#34;", '"')) for m in re.finditer(
        r'id="(scalecore-docs-[^"]+)"[^>]*data-scalecore-kind="scale-guards" data-scalecore-options="([^"]*)"', html)}
    for reply, path in zip(got, ["scale-guards/kjv/0/norm/mean_row_max", "scale-guards/demo/0/init/mean_row_max",
                                 "scale-guards/kjv/0/init+scale/mean_row_max"]):
        first = reply["answer"]["numbers"][0]
        assert first["path"] == path
        _, corpus, _, guards, _ = path.split("/")
        options = panels[first["panel"].split("#")[1]]
        assert corpus in options["corpus"]
        locked = options["locked"]
        initial = set(options["guards"].split("+"))
        assert all((name in initial) == (name in guards.split("+")) for name in locked), (path, options)
        assert first["label"] == f"mean row max, corpus {corpus}, seed 0, guards {guards}", first["label"]
    assert any(options["locked"] for options in panels.values())  # the page has a panel that could not show them


def test_a_number_the_question_gives_an_axis_is_that_axis_s_value_only(built_site):
    """"4 heads ... seed 1": 4 is the heads and 1 the seed, so no number of 1 head or of seed 4 is given (the fresh
    reader got three, two of them of states the question did not ask for)."""
    reply, = answers(built_site, [{"question": "what is the mean row-max with 4 heads on wordnet seed 1 with all guards on?"}],
                     "modules/multi-head-attention.html")["answers"]
    paths = [n["path"].split("/") for n in reply["answer"]["numbers"]]
    assert paths and paths[0][:5] == ["multihead", "wordnet", "1", "4", "norm+init+scale"], paths
    assert all(p[3] == "4" and p[2] in ("1", "all", "mean") for p in paths), paths
    # and a number given to the heads names no seed: "2 heads" is not seed 2 (a second fresh reader's)
    reply, = answers(built_site, [{"question": "What's the mean row-max with 2 heads on demo?"}],
                     "modules/multi-head-attention.html")["answers"]
    paths = [n["path"].split("/") for n in reply["answer"]["numbers"]]
    assert paths and all(p[3] == "2" and p[2] != "2" for p in paths), paths


def test_a_head_is_named_by_its_place_and_a_count_the_question_states_is_no_setting(built_site):
    """Round 12: a layer's heads are numbers too, named as the panels label them ("head 3" is per_head/2), after the
    layer's own measure when the question names no head; "heads 4" is 4 heads, not head 4. On the encoder page, where
    every layer has 4 heads (no axis), "with 4 heads" is no seed 4 (it was), nor the answer "4 heads"."""
    baked = Baked(built_site)
    heads = "modules/multi-head-attention.html"
    third, summary = first_numbers_are(built_site, heads, baked, [
        ("mean row-max of the third head with 4 heads on demo, all guards", "multihead/demo/0/4/norm+init+scale/per_head/2/measures/mean_row_max"),
        ("what is the mean row-max with 4 heads on demo?", "multihead/demo/0/4/norm+init+scale/summary/mean_row_max")])
    assert third["answer"]["numbers"][0]["label"].endswith(", head 3"), third["answer"]["numbers"]
    spread, = answers(built_site, [{"question": "what's the score spread with no guards on demo?"}], heads)["answers"]
    assert spread["answer"]["numbers"][0]["path"].endswith("/measures/score_spread"), spread["answer"]["numbers"]  # not cost/scores
    encoder = "modules/encoder-block.html"
    got = answers(built_site, [{"question": "what is the mean row-max with 4 heads on demo?"},
                               {"question": "heads 4 on demo: what's the gradient?"}], encoder)["answers"]
    for reply in got:
        paths = [n["path"].split("/") for n in reply["answer"]["numbers"]]
        assert paths and all(p[2] == "0" and p[-1] != "heads" for p in paths), paths
        assert "per_head" not in paths[0], paths


def test_a_count_is_given_when_asked_as_one_and_a_spread_named_by_its_formula(built_site):
    """Round 12: a count (a corpus's tokens) only for a question that asks how many ("how much of its attention does a
    token give its top token" was answered with demo's 90 tokens, a wrong number); a total asked for with no setting
    named is given once, as no setting changes it; "sqrt(d_k)" names the spread sqrt_d_k of the head asked for."""
    heads = "modules/multi-head-attention.html"
    baked = Baked(built_site)
    first_numbers_are(built_site, heads, baked, [
        ("whats the total number of multiply-adds for one layer on the 10 token sentence?", "multihead/demo/0/1/norm+init+scale/cost/total"),
        ("kjv, seed 0, 8 heads, all three guards: what's head 3's score spread after dividing by sqrt(d_k)?",
         "multihead/kjv/0/8/norm+init+scale/per_head/2/spread/sqrt_d_k")])
    total, token = answers(built_site, [
        {"question": "whats the total number of multiply-adds for one layer on the 10 token sentence?"},
        {"question": "with a single head on demo, how much of its attention does a token give its top token on average?"}],
        heads)["answers"]
    assert [n["text"] for n in total["answer"]["numbers"]] == ["47,360"], total["answer"]["numbers"]
    assert all(not n["path"].endswith("/tokens") for n in token["answer"]["numbers"]), token["answer"]["numbers"]


def test_a_setting_given_by_its_value_under_a_root_names_it(built_site):
    """"divide by the square root of 32 instead" (a fresh reader's): 32 is d_model here, so the spread asked for is
    sqrt_d_model's, not the sqrt_d_k of the scale guard."""
    reply, = answers(built_site, [{"question": "With 8 heads on kjv seed 0, what's head 3's score spread if you divide by "
                                               "the square root of 32 instead?"}], "modules/multi-head-attention.html")["answers"]
    assert reply["answer"]["numbers"][0]["path"].endswith("/8/norm+init+scale/per_head/2/spread/sqrt_d_model"), reply["answer"]["numbers"]


def test_a_guard_turned_off_leaves_the_others_on(built_site):
    """A fresh reader's "turn off norm" gave the numbers of norm alone (the guard turned off), as "without norm" and
    "init off" did: a guard switched off, with none named on, leaves the other two on, as among the panel's switches."""
    heads = "modules/multi-head-attention.html"
    first_numbers_are(built_site, heads, Baked(built_site), [
        ("What's the entropy of head 4 when I use 8 heads on wordnet, seed 4, and turn off norm?",
         "multihead/wordnet/4/8/init+scale/per_head/3/measures/mean_entropy"),
        ("mean row-max with 4 heads on demo, init off", "multihead/demo/0/4/norm+scale/summary/mean_row_max"),
        ("mean row-max with 4 heads on demo without norm", "multihead/demo/0/4/init+scale/summary/mean_row_max")])


def test_a_number_the_page_does_not_print_reads_as_the_panel_s_read_outs(built_site):
    """Three significant digits with their zeros, as the panels' read-outs print a measure (0.182; a fresh reader saw
    "0.2361" beside the panel's "0.236"), whole from 100, a tiny one as a power of ten."""
    script = (
        "const core = require(process.argv[1]); const n = core.Mentor.prototype.printed.bind({data: {passages: []}});"
        "console.log(JSON.stringify([0.1815374, 0.2361445, 0.5, 64.7651, 155.2, 6855.873, 0.0000134]));"
        "console.log(JSON.stringify([0.1815374, 0.2361445, 0.5, 64.7651, 155.2, 6855.873, 0.0000134].map(n)));")
    core = REPO / "scalecore_generator" / "theme" / "assets" / "scalecore-module" / "mentor-core.js"
    out = subprocess.run(["node", "-e", script, str(core)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert json.loads(out[1]) == ["0.182", "0.236", "0.500", "64.8", "155", "6,856", "1.34 \u00d7 10\u207b\u2075"]


def test_a_number_no_setting_changes_is_given_once_and_a_refusal_names_each_section_once(built_site):
    """The scores' cost is 3,200 under every guard set: one number, not three. A refusal's closest sections name each
    section once (two anchors of "The switchboard" were two links of one name; a fresh reader's)."""
    cost, rope = answers(built_site, [{"question": "how many multiply-adds do the score matrices cost?"},
                                      {"question": "how does rotary position embedding (RoPE) work?"}],
                         "modules/multi-head-attention.html")["answers"]
    numbers = cost["answer"]["numbers"]
    assert [n["text"] for n in numbers] == ["3,200"], numbers
    titles = [(c["page"], c["title"]) for c in rope["answer"]["closest"]]
    assert not rope["answer"]["found"] and titles and len(titles) == len(set(titles)), titles


def test_no_answer_carries_template_text(built_site):
    for module in MODULES:
        got = answers(built_site, [{"question": q} for q in _asked_on(module)], module)["answers"]
        for reply in got:
            a = reply["answer"]
            shown = [a["lead"]["text"] if a["lead"] else ""] + [p["text"] for p in a["passages"]] + \
                [f["text"] for f in a["numbers"]] + ([a["check"][k] for k in ("question", "answer", "explanation")]
                                                     if a["check"] else [])
            assert not re.search(r"\{\{|\}\}|\{%|baked:", " ".join(shown)), reply["question"]


@pytest.mark.parametrize("module, question, fact", [
    # readers' wording written for the development set (tests/data/mentor-dev-readers.json): a typo,
    # a synonym ("skip connections" for the page's "residual"), no word of the answer's in common
    (MODULE, "why does the gradient vanish once softmax is saturatd?", "approaches 0"),
    (MODULE, "what is teh fan in rule for initialising weights?", "fan_in"),
    ("modules/encoder-block.html", "why do skip connections help the gradient?", "identity"),
    ("modules/multi-head-attention.html", "does using eight heads cost more multiplications than a single head?", "the same"),
    # a fresh reader's typos, mended before the question is searched and embedded (mulitple: multiple, scalling:
    # scaling; it was refused), and a contraction left as written
    ("modules/multi-head-attention.html", "why do mulitple heads not fix the scalling problem?", "do not protect"),
    (MODULE, "why doesnt dividing by sqrt of d_k fix the bible corpus?", "√d_k"),
])
def test_a_paraphrase_or_a_typo_is_answered_not_refused(built_site, module, question, fact):
    reply = answers(built_site, [{"question": question}], module)["answers"][0]["answer"]
    assert reply["found"], question
    shown = " ".join([reply["lead"]["text"] if reply["lead"] else ""] + [p["text"] for p in reply["passages"]] +
                     ([reply["check"]["answer"], reply["check"]["explanation"]] if reply["check"] else []))
    assert fact.lower() in shown.lower(), (question, shown[:300])


def test_the_refusal_rules(built_site):
    """Refused: what the module does not cover (off topic, another language, a topic the module's
    own pointers send elsewhere); answered: an English question whose words are also another
    language's ("per"), and one the module covers only loosely, marked uncertain, never refused."""
    asked = [{"question": q} for q in (
        "can you recommend a good pizza place near the station?",
        "Perché il flusso residuo cresce senza normalizzazione?",
        "Why does the residual connection help?",
        "difference between row max per token and per word?")]
    pizza, italian, residual, per = [r["answer"] for r in answers(built_site, asked)["answers"]]
    skip = answers(built_site, [{"question": "why do skip connections help the gradient?"}],
                   "modules/encoder-block.html")["answers"][0]["answer"]
    for refused in (pizza, italian, residual):
        assert not refused["found"] and refused["lead"] is None and refused["passages"] == []
    assert italian["language"] == "Italian"
    assert any(c["page"] == "modules/encoder-block.html" for c in residual["closest"])  # where the module points
    assert per["language"] is None and per["found"] and per["kind"] == "difference"
    assert "repeat" in " ".join(p["text"] for p in per["passages"])
    assert skip["found"] and skip["lead"] is not None


def test_a_question_about_a_thing_the_module_never_names_is_refused_in_common_words_too(built_site):
    """What a question asks about (its first two content words after "what is", "what does", "how does", "which")
    in words the module never uses, common English or not ("optimizer", "beam search"), is another topic: refused. A
    typo of the module's word, a reader's word for a corpus, or a known thing asked about in new words is answered."""
    asked = [{"question": q} for q in (
        "Which optimizer works best for training this head?",
        "How does beam search pick the next word?",
        "What is the scale gaurd for?",
        "what does the bible do to the scores?",
        "What does a saturated softmax do to learning?")]
    optimizer, beam, typo, bible, learning = [r["answer"] for r in answers(built_site, asked)["answers"]]
    for refused in (optimizer, beam):
        assert not refused["found"] and refused["lead"] is None and refused["passages"] == []
    for answered in (typo, bible, learning):
        assert answered["found"] and answered["passages"], answered["question"]


def test_a_question_about_a_hyphenated_name_the_module_never_writes_is_refused(built_site):
    """A method named by a compound the module never writes, in any spelling ("grouped-query attention": grouped,
    query and attention are each the module's words), is a method it does not teach: refused, however near in
    meaning. A compound the module writes ("one-hot", "pre-LN" as "pre LN" or "preLN"), or one of a stop word
    ("blow-up"), is answered."""
    softmax = [{"question": q} for q in ("What is grouped-query attention?", "How does the decoder's cross-attention "
                                         "read the encoder?", "What is top-k sampling?", "why does the attention go one-hot?")]
    grouped, cross, top_k, one_hot = [r["answer"] for r in answers(built_site, softmax)["answers"]]
    for refused in (grouped, cross, top_k):
        assert not refused["found"] and refused["lead"] is None and refused["passages"] == [], refused["question"]
    encoder = [{"question": q} for q in ("How does the blow-up of the stream happen layer after layer?",
                                         "what is pre-ln for?")]
    answered = [r["answer"] for r in answers(built_site, encoder, "modules/encoder-block.html")["answers"]]
    for answer in [one_hot, *answered]:
        assert answer["found"] and answer["passages"], answer["question"]


def test_a_readers_words_for_a_corpus_and_the_modules_abbreviations_find_the_passages(built_site):
    """The bible is kjv (the corpus's own description says so); a feed-forward network is the FFN
    the page defines; the expansion comes from the site's data, not from any question set."""
    data = _data(built_site, MODULE)
    kjv = next(c for c in data["corpora"] if c["name"] == "kjv")
    assert "Bible" in kjv["source"] and kjv["tokens"] == max(c["tokens"] for c in data["corpora"])
    bible, = [r["answer"] for r in answers(built_site, [{"question": "why is everything one-hot on the bible?"}])["answers"]]
    assert bible["found"] and "kjv" in " ".join(p["text"] for p in bible["passages"]).lower()
    ffn, = [r["answer"] for r in answers(built_site, [{"question": "what does the feed forward network do to each word?"}],
                                         "modules/encoder-block.html")["answers"]]
    assert ffn["found"] and "FFN" in " ".join([ffn["lead"]["text"]] + [p["text"] for p in ffn["passages"]])


def test_a_lead_answers_the_question_asked_not_a_neighbouring_self_check(built_site):
    """A general question gets no self-check's worked example as its lead; a 'what happens if'
    question is answered from a passage on consequences."""
    asked = [{"question": "What happens if a stack of six layers has no LayerNorm at all?"},
             {"question": "Why does softmax saturate?"}]
    deep, why = [r["answer"] for r in answers(built_site, asked, "modules/encoder-block.html")["answers"]]
    assert deep["kind"] == "what-if" and deep["check"] is None and deep["found"]
    assert not deep["lead"]["text"].startswith("In a Transformer, a head never works alone")  # not the page's opening
    assert why["check"] is None or "saturat" in why["check"]["question"].lower()


def test_a_what_if_question_leads_with_the_consequence_of_its_condition(built_site):
    """A what-if's lead states what happens: "Without LayerNorm the stream's spread is multiplied at every
    layer", not "nothing else sits on the identity path" (a bare "nothing" is no consequence; "changes
    nothing" is: CONSEQUENCE in mentor-core.js, round 5)."""
    deep = answers(built_site, [{"question": "What happens if a stack of six layers has no LayerNorm at all?"}],
                   "modules/encoder-block.html")["answers"][0]["answer"]
    assert re.search(r"grow|multipl", deep["lead"]["text"]), deep["lead"]["text"]


def test_the_embeddings_are_the_pinned_table(built_site):
    """The word-piece table the site serves is the one build_tools/mentor_embeddings.py makes from
    the pinned wheel (its sha256 in vendor/mentor-embeddings.json), with its licence beside it."""
    import hashlib

    pin = json.loads((REPO / "scalecore_generator" / "vendor" / "mentor-embeddings.json").read_text(encoding="utf-8"))
    source = REPO / "scalecore_generator" / "theme" / "assets" / "scalecore-module" / "mentor-embeddings.js"
    assert hashlib.sha256(source.read_bytes()).hexdigest() == pin["table"]["sha256"]
    assert (REPO / "scalecore_generator" / "vendor" / "LICENSES" / "Apache-2.0.txt").is_file()
    served = built_site / "assets" / "scalecore-module" / "mentor-embeddings.js"
    assert served.is_file() and served.stat().st_size < 25 * 2**20


def test_a_question_the_module_does_not_answer_says_so(built_site):
    got = answers(built_site, [{"question": "What is the capital of France?"},
                               {"question": "How do I bake sourdough bread?"}])["answers"]
    for reply in got:
        assert reply["answer"]["found"] is False
        assert reply["answer"]["numbers"] == [] and reply["answer"]["passages"] == []
        assert [s["anchor"] for s in reply["answer"]["outline"]][:2] == ["1-the-failure-reproduced", "2-why-scores-grow"]


def test_a_readers_file_is_cited_by_name_and_page(built_site):
    files = {"name": "my-notes.txt", "pages": ["Unrelated opening.\n\nThe quokka theorem says attention is a vote.",
                                               "Second page about the wombat lemma and softmax saturation."]}
    got = answers(built_site, [{"question": "What does the wombat lemma say?", "files": files}])["answers"][0]
    first = got["answer"]["passages"][0]
    assert first["source"] == {"file": "my-notes.txt", "page": 2} and "wombat" in first["terms"]


# --------------------------------------------------------------------------------------------
# The form, in Chromium
# --------------------------------------------------------------------------------------------

def _ask(page, question: str):
    box = page.get_by_role("textbox", name="Your question")
    box.fill(question)
    box.press("Control+Enter")
    page.wait_for_function("() => /Answered|Nothing in this module|reads English only|could not answer/.test("
                           "document.querySelector('[data-scalecore-mentor-status]').textContent)")
    said = page.locator("[data-scalecore-mentor-status]").text_content()
    assert "could not answer" not in said, said
    region = page.get_by_role("region", name="The mentor's answer")
    return region


def _reset_status(page):
    page.evaluate("document.querySelector('[data-scalecore-mentor-status]').textContent = ''")


def test_the_mentor_answers_in_the_page_with_its_sources(visit, site_server, built_site):
    mark = len(site_server.paths)
    page, watch = visit(site_server.url + page_url(MODULE))
    assert page.get_by_role("heading", name="Ask the mentor about this module").is_visible()
    page.wait_for_timeout(300)
    before = [p for p in site_server.paths[mark:] if "minisearch" in p or "/mentor/" in p or "mentor-core" in p]
    assert before == []  # nothing of the mentor's is fetched before the reader comes to the box
    region = _ask(page, "Why divide by the square root of d_k and not by d_k?")
    assert [p for p in site_server.paths[mark:] if "minisearch" in p]  # and then it is
    assert "The self-check it comes from" in region.inner_text()
    link = region.get_by_role("link", name="the self-check in 2. Why scores grow")
    assert link.get_attribute("href").startswith("#scalecore-selfcheck-") or "#scalecore-selfcheck-" in link.get_attribute("href")
    _reset_status(page)
    region = _ask(page, "What is the mean row-max on kjv with norm+init+scale?")
    value = Baked(built_site).value("scale-guards/kjv/0/norm+init+scale/mean_row_max")  # seed 0, as the panel shows
    assert f"{value:.3g}" in region.inner_text()
    assert region.get_by_role("link", name="See it in the panel").count() >= 1  # a seed the question leaves out: a few
    _reset_status(page)
    region = _ask(page, "What is the capital of France?")
    assert "Nothing in this module or its prerequisites answers this directly" in region.inner_text()
    assert region.get_by_role("link", name="2. Why scores grow").is_visible()
    history = page.locator("[data-scalecore-mentor-asked] li")
    assert history.count() == 3 and "capital of France" in history.first.inner_text()
    watch.check()


def test_hostile_questions_and_files_stay_text(visit, site_server, tmp_path):
    page, watch = visit(site_server.url + page_url(MODULE))
    hostile = "<img src=x onerror=\"window.__pwned=1\"> softmax <script>window.__pwned=2</script>"
    file = tmp_path / "evil.txt"
    file.write_text("<b onmouseover=alert(1)>saturation</b> of the softmax, <img src=y onerror=window.__pwned=3>",
                    encoding="utf-8")
    page.locator("[data-scalecore-mentor-files]").set_input_files(str(file))
    region = _ask(page, hostile)
    assert hostile in region.inner_text()
    assert region.locator("img, script, b").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert "Your file evil.txt, page 1" in region.inner_text()
    watch.check()


def _pdf(text: str) -> bytes:
    """A one-page PDF with ``text`` in Helvetica, written by hand (a few objects and an xref)."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_pdf_text_and_images_are_handled_as_promised(visit, site_server, tmp_path):
    page, watch = visit(site_server.url + page_url(MODULE))
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(_pdf("The platypus conjecture bounds the attention entropy."))
    image = tmp_path / "figure.png"
    image.write_bytes(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"))
    page.locator("[data-scalecore-mentor-files]").set_input_files([str(pdf), str(image)])
    region = _ask(page, "What does the platypus conjecture bound?")
    text = region.inner_text()
    assert "Your file paper.pdf, page 1" in text and "platypus conjecture" in text
    assert "cannot read images offline" in text
    assert region.get_by_role("img", name="Your image figure.png").is_visible()
    assert not [p for p in site_server.paths if p.endswith(".pdf")]  # read in the browser, never uploaded
    watch.check()


def test_a_copy_is_kept_across_a_reload_only_when_the_reader_asks(visit, site_server, tmp_path):
    page, watch = visit(site_server.url + page_url(MODULE))
    note = tmp_path / "kept.txt"
    note.write_text("A file to keep about softmax.", encoding="utf-8")
    keep = page.get_by_role("checkbox", name="Keep a copy of the files I attach, in this browser")
    page.get_by_role("textbox", name="Your question").focus()
    assert not keep.is_checked()
    page.locator("[data-scalecore-mentor-files]").set_input_files(str(note))
    page.reload()
    kept = page.locator("[data-scalecore-mentor-kept] li")
    page.wait_for_timeout(300)
    assert kept.count() == 0 and not page.get_by_role("checkbox", name="Keep a copy of the files I attach, in this browser").is_checked()
    page.get_by_role("checkbox", name="Keep a copy of the files I attach, in this browser").check()
    page.locator("[data-scalecore-mentor-files]").set_input_files(str(note))
    page.wait_for_function("() => document.querySelectorAll('[data-scalecore-mentor-kept] li').length === 1")
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('[data-scalecore-mentor-kept] li').length === 1")
    assert page.get_by_role("checkbox", name="Keep a copy of the files I attach, in this browser").is_checked()
    page.get_by_role("button", name="Delete the kept copy of kept.txt").click()
    page.wait_for_function("() => document.querySelectorAll('[data-scalecore-mentor-kept] li').length === 0")
    watch.check()


_STATUS = "[data-scalecore-mentor-status]"
_KEEP = "Keep a copy of the files I attach, in this browser"


def _ready(page) -> None:
    """The reader comes to the box and the mentor is loaded (its script's switches are live)."""
    page.get_by_role("textbox", name="Your question").focus()
    page.wait_for_selector("[data-scalecore-mentor-load-ms]", state="attached")


def _kept_records(page) -> int:
    """How many files the mentor's IndexedDB store holds (0 when it was never made)."""
    return page.evaluate("""() => new Promise((resolve) => {
      const request = indexedDB.open("scalecore-mentor", 1);
      request.onupgradeneeded = () => request.result.createObjectStore("files", { keyPath: "id", autoIncrement: true })
        .createIndex("module", "module");
      request.onsuccess = () => {
        const count = request.result.transaction("files").objectStore("files").count();
        count.onsuccess = () => { request.result.close(); resolve(count.result); };
      };
    })""")


@pytest.mark.parametrize("name, mime, payload, said", [
    ("huge.txt", "text/plain", b"softmax " * (2 * 1024 * 1024 // 8 + 1), "huge.txt is larger than 2 MB"),
    ("huge.pdf", "application/pdf", b"%PDF-1.4\n" + b"0" * (20 * 1024 * 1024), "huge.pdf is larger than 20 MB"),
    ("photo.txt", "text/plain", bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 4,
     "photo.txt is not UTF-8 text"),
    ("nul.txt", "text/plain", b"softmax\x00\x00\x01 saturates", "nul.txt holds control characters"),
    ("fake.pdf", "application/pdf", b"<html>not a pdf</html>", "fake.pdf is not a PDF"),
])
def test_an_attachment_is_checked_when_attached_and_nothing_is_kept_of_a_refused_one(visit, site_server, name, mime,
                                                                                     payload, said):
    """Issue 46.9: the size limit, a binary file posing as text and a PDF that is not one are said
    as the file is attached (no question asked), it is not attached, and with the keep switch on
    nothing of it reaches IndexedDB."""
    page, watch = visit(site_server.url + page_url(MODULE))
    _ready(page)
    page.get_by_role("checkbox", name=_KEEP).check()
    page.locator("[data-scalecore-mentor-files]").set_input_files({"name": name, "mimeType": mime, "buffer": payload})
    page.wait_for_function("(said) => document.querySelector('[data-scalecore-mentor-status]').textContent.includes(said)",
                           arg=said)
    assert page.locator("[data-scalecore-mentor-attached] li").count() == 0
    page.wait_for_timeout(300)
    assert _kept_records(page) == 0 and page.locator("[data-scalecore-mentor-kept] li").count() == 0
    watch.check()


def test_text_whose_character_straddles_64_kb_is_attached_kept_and_read(visit, site_server):
    """The check reads 64 kB: a UTF-8 character cut there is not taken for a binary file, and a
    good text file is attached, kept when the switch is on, and quoted."""
    page, watch = visit(site_server.url + page_url(MODULE))
    _ready(page)
    page.get_by_role("checkbox", name=_KEEP).check()
    text = ("a" * (64 * 1024 - 1) + "é\n\nThe okapi lemma: softmax saturation in the okapi regime.\n").encode("utf-8")
    page.locator("[data-scalecore-mentor-files]").set_input_files({"name": "long.txt", "mimeType": "text/plain", "buffer": text})
    page.wait_for_function("() => document.querySelectorAll('[data-scalecore-mentor-kept] li').length === 1")
    assert page.locator("[data-scalecore-mentor-attached] li").count() == 1 and _kept_records(page) == 1
    region = _ask(page, "What is the okapi lemma?")
    assert "Your file long.txt, page 1" in region.inner_text() and "okapi regime" in region.inner_text()
    watch.check()


def test_questions_are_exported_with_the_notes_and_can_be_deleted(visit, site_server):
    page, watch = visit(site_server.url + page_url(MODULE), accept_downloads=True)
    _ask(page, "Why does layernorm ignore scale?")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export as .md").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "## My questions to the mentor" in text and "Why does layernorm ignore scale?" in text
    page.get_by_role("button", name="Delete my questions").click()
    assert page.locator("[data-scalecore-mentor-history]").is_hidden()
    page.reload()
    assert page.locator("[data-scalecore-mentor-asked] li").count() == 0
    watch.check()


def test_the_mentor_s_script_loads_when_its_box_nears_and_a_question_sent_at_once_is_answered(visit, site_server):
    # This page's own requests (watch.requests), not the shared server's: a page the test before
    # reloaded at its mentor asks for mentor.js too, and the server may record that late.
    page, watch = visit(site_server.url + page_url(MODULE))
    page.wait_for_timeout(500)
    assert not [u for u in watch.requests if u.endswith("/mentor.js")]  # the page's top: not yet
    box = page.get_by_role("textbox", name="Your question")
    box.evaluate("box => { box.value = 'Why divide by the square root of d_k?'; box.focus(); }")  # no scroll
    box.press("Control+Enter")  # before the script has arrived: the question waits for it
    page.wait_for_function("() => /Answered/.test(document.querySelector('[data-scalecore-mentor-status]').textContent)")
    assert [u for u in watch.requests if u.endswith("/mentor.js")]
    assert page.evaluate("location.hash") == ""  # the form was never submitted to the page itself
    assert page.get_attribute("[data-scalecore-mentor]", "data-scalecore-mentor-load-ms")  # loaded on that focus
    watch.check()


MODULES = ("modules/multi-head-attention.html", "modules/softmax-range.html", "modules/encoder-block.html")
QUESTION_SET = [q for name in ("mentor-questions.json", "mentor-dev-readers.json")  # development sets only
                for q in json.loads((REPO / "tests" / "data" / name).read_text(encoding="utf-8"))["questions"]]


def _asked_on(module: str) -> list[str]:
    """The question set's questions for a module page (every kind of answer, and so of link:
    the lead's and the evidence's sources, the self-check, a baked number's panel, a
    prerequisite's section, the closest sections and the outline of a refusal)."""
    return [q["question"] for q in QUESTION_SET if q["page"] == module]


def _lands(page, href: str, opened=None) -> None:
    """The page a click on ``href`` opened (or this one, for a link into it) holds a page and
    the element its fragment names; served, it came with HTTP 200."""
    target = opened or page
    # A tab opened by Ctrl+click in headless Chromium does not always report its "load" to
    # Playwright (microsoft/playwright#30236: a fresh-clone run waited 30 s after
    # "domcontentloaded" had fired); the heading and the fragment's element are there by then.
    target.wait_for_load_state("domcontentloaded")
    status = target.evaluate("(performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0")
    assert not href.startswith("http") or status == 200, f"{href}: HTTP {status}"
    heading = target.locator("h1").first.text_content() if target.locator("h1").count() else ""
    assert heading and not heading.startswith("404"), f"{href}: no page there ({heading!r})"
    fragment = unquote(href.partition("#")[2])
    if fragment:
        assert target.locator(f'[id="{fragment}"]').count() == 1, f"{href}: no element with id {fragment!r}"
        if opened is None:  # a link into this page: the click took the reader there
            assert target.evaluate("decodeURIComponent(location.hash.slice(1))") == fragment, href
            # in view, and below the fixed header (a fresh reader found headings scrolled under it); or the
            # reader is inside it, where the link took them to the passage it quotes: a panel that spans the
            # screen, a section whose heading is above it and whose next heading is below the header
            target.wait_for_function("""id => {
              const el = document.getElementById(id), r = el.getBoundingClientRect();
              const h = document.querySelector('.md-header'), top = h ? h.getBoundingClientRect().bottom : 0;
              if (!el.offsetParent || (r.top >= top - 1 && r.top < innerHeight) || (r.top < top && r.bottom > top)) return true;
              const level = /^H([1-6])$/.exec(el.tagName);
              if (!level || r.top >= top) return false;
              let next = el.nextElementSibling;
              while (next && !(/^H[1-6]$/.test(next.tagName) && next.tagName[1] <= level[1])) next = next.nextElementSibling;
              return !next || next.getBoundingClientRect().top > top; }""", arg=fragment, timeout=5_000)


def _click_every_link(page, module: str, root: str) -> int:
    """Ask every question of the set on ``module`` and click the links of every answer and of
    the question history: a link into the page is clicked in place, a link to another page with
    Ctrl (it opens in a new tab, and the answer stays). A link whose href was clicked already on
    this page is only compared with it: the same href goes to the same place. Returns how many
    links the answers rendered."""
    clicked: set[str] = set()
    rendered = 0

    def follow(links):
        nonlocal rendered
        hrefs = links.evaluate_all("links => links.map(a => a.href)")
        rendered += len(hrefs)
        for i, href in enumerate(hrefs):
            assert href.startswith(root), f"{href} leaves {root}"
            if href in clicked:
                continue
            clicked.add(href)
            here = page.url.partition("#")[0]
            if href.partition("#")[0] == here:
                links.nth(i).click()
                _lands(page, href)
            else:
                with page.context.expect_page() as new_tab:
                    links.nth(i).click(modifiers=["Control"])
                opened = new_tab.value
                try:
                    assert opened.url == href, (opened.url, href)
                    _lands(page, href, opened)
                finally:
                    opened.close()

    for question in _asked_on(module):
        _reset_status(page)
        follow(_ask(page, question).locator("a[href]"))
    follow(page.locator("[data-scalecore-mentor-asked] a[href]"))
    assert len(clicked) >= 10, clicked
    return rendered


@pytest.mark.parametrize("module", MODULES)
def test_every_link_of_every_answer_to_the_question_set_lands(visit, site_server, module):
    page, watch = visit(site_server.url + page_url(module))
    assert _click_every_link(page, module, site_server.url) >= 3 * len(_asked_on(module))
    watch.check()


@pytest.mark.parametrize("module", MODULES)
def test_every_link_of_every_answer_lands_under_a_subpath(visit, subpath_server, module):
    page, watch = visit(subpath_server.url + page_url(module))
    _click_every_link(page, module, subpath_server.url)
    watch.check()


@pytest.fixture(scope="module")
def bundle(built_site, tmp_path_factory):
    """The offline bundle as a reader unpacks it: the built site in a folder of its own."""
    site = tmp_path_factory.mktemp("bundle") / "site"
    shutil.copytree(built_site, site)
    return site


@pytest.mark.parametrize("module", MODULES)
def test_every_link_of_every_answer_lands_from_disk(visit, bundle, module):
    page, watch = visit((bundle / module).as_uri())
    _click_every_link(page, module, bundle.as_uri())
    watch.check()


def test_a_why_answer_leads_with_the_reason_and_shows_the_pages_maths(visit, site_server):
    page, watch = visit(site_server.url + page_url(MODULE))
    region = _ask(page, "Why is the gradient near zero when softmax saturates?")
    headings = region.get_by_role("heading").all_inner_texts()
    assert headings[0] == "The reason, in short"  # the reason first, then the evidence
    lead = region.locator(".scalecore-mentor__lead")
    assert "every entry of" in lead.inner_text() and "approaches 0" in lead.inner_text()
    evidence = region.locator("blockquote").first
    assert evidence.locator("mark").inner_text().startswith("When one weight approaches 1")
    assert evidence.locator("math msub").count() >= 1  # J_ij = p_i (δ_ij - p_j), as the page sets it
    # Maths is MathML drawn by the browser (with the site's math font), not flattened text
    box = lead.locator("math").first.evaluate(
        "m => ({ns: m.namespaceURI, w: m.getBoundingClientRect().width, font: getComputedStyle(m).fontFamily})")
    assert box["ns"] == "http://www.w3.org/1998/Math/MathML" and box["w"] > 0, box
    # following the lead's source into the page keeps the answer (the theme draws the page again
    # on the first link into it): the reader can come back to it
    region.locator(".scalecore-mentor__lead + .scalecore-mentor__source a").click()
    assert page.evaluate("location.hash") == "#3-why-large-scores-stop-learning"
    page.wait_for_function("() => /The reason, in short/.test(document.querySelector('[data-scalecore-mentor-answer]').textContent)")
    _reset_status(page)
    region = _ask(page, "Why divide by √d_k and not by d_k?")
    assert region.locator("blockquote msqrt").count() >= 1
    quoted = " ".join(region.locator("blockquote, .scalecore-mentor__lead").all_inner_texts())
    assert "d" in quoted and "√d_k" not in quoted and "√(d_k)" not in quoted  # not the flattened text
    watch.check()


def test_a_source_link_lands_on_its_passage_not_on_its_section_s_heading(visit, site_server):
    """A fresh reader's link to a readout landed at the top of a panel 1,870 px tall: a source link scrolls to the
    readout it quotes, and a lead's to the paragraph it was taken from, below the header, in view; and Back returns
    to the answer."""
    page, watch = visit(site_server.url + page_url(MODULE), viewport={"width": 1280, "height": 800})
    in_view = ("el => { const r = el.getBoundingClientRect(); const h = document.querySelector('.md-header')"
               ".getBoundingClientRect().bottom; return r.top >= h - 1 && r.top < innerHeight - 40; }")

    def back_at_the_answer():  # Back returns to the answer, each time (a fresh reader's second Back stayed at the source)
        page.go_back()
        page.wait_for_function("() => { const r = document.querySelector('[data-scalecore-mentor-answer]')"
                               ".getBoundingClientRect(); return r.bottom > 100 && r.top < innerHeight - 100; }", timeout=5_000)

    region = _ask(page, "what does the entropy readout show?")
    source = region.locator(".scalecore-mentor__source a").nth(1)  # the first quote's: the lead's readout
    assert "Entropy" in region.locator("blockquote").first.inner_text()
    # what is drawn above the passage after the landing (a panel hydrating at another height, a font arriving) does
    # not take it away (the fresh-clone CI's first landing: the readout 55 px up, under the header)
    page.evaluate("""setTimeout(() => {  // as a panel hydrating does: its readouts drawn again, taller above them
      const dt = [...document.querySelectorAll('.scalecore-readout dt')].find(d => d.textContent.trim() === 'Entropy');
      const drawn = dt.closest('dl'), again = drawn.cloneNode(true);
      drawn.replaceWith(again);
      again.before(Object.assign(document.createElement('div'), {style: 'height: 300px'}));
    }, 150)""")
    source.click()
    readout = page.locator(".scalecore-readout", has=page.locator("dt", has_text=re.compile(r"^Entropy$"))).first
    page.wait_for_timeout(400)
    below_header = "el => el.getBoundingClientRect().top - document.querySelector('.md-header').getBoundingClientRect().bottom"
    assert 10 <= readout.evaluate(below_header) <= 16, readout.evaluate(below_header)
    # ... and the reader's own scroll is theirs at once
    page.mouse.wheel(0, 400)
    page.wait_for_timeout(300)
    assert readout.evaluate(below_header) < -300, readout.evaluate(below_header)
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(300)
    assert readout.evaluate(in_view), readout.evaluate("el => el.getBoundingClientRect().top")
    back_at_the_answer()
    _reset_status(page)
    region = _ask(page, "Why is the gradient near zero when softmax saturates?")
    region.locator(".scalecore-mentor__lead + .scalecore-mentor__source a").click()
    lead = page.locator("article p", has_text="every entry of J approaches 0").first
    assert lead.evaluate(in_view), lead.evaluate("el => el.getBoundingClientRect().top")
    back_at_the_answer()
    # a passage of the page's opening: found in the page, not in the mentor's own quote of it (the page stayed put)
    _reset_status(page)
    region = _ask(page, "what is layernorm actually doing to the input here?")
    sources = region.locator(".scalecore-mentor__source a")
    titles = sources.all_inner_texts()
    assert "Keeping Softmax in Its Range" in titles[1:], titles  # a quote from the page's opening
    at = titles[1:].index("Keeping Softmax in Its Range")
    quoted = region.locator("blockquote").nth(at).inner_text()[:40]
    sources.nth(at + 1).click()
    placed = page.locator("article li, article p", has_text=quoted).first
    assert placed.evaluate(in_view) and not page.locator("[data-scalecore-mentor-answer]").evaluate(in_view)
    back_at_the_answer()
    # a self-check's quoted answer is folded under "Show answer": the link unfolds it and lands on it (a fresh reader
    # landed on the question, the answer quoted still shut)
    _reset_status(page)
    region = _ask(page, "why do we divide the scores by the square root of d_k?")
    quoted = region.locator(".scalecore-mentor__lead").inner_text()[:30]
    region.locator(".scalecore-mentor__lead + .scalecore-mentor__source a").click()
    check = page.locator(".scalecore-panel", has_text="Why divide by").first
    assert check.locator("details").evaluate("d => d.open")
    answer = check.locator("details p", has_text=quoted).first
    assert answer.evaluate(in_view), answer.evaluate("el => el.getBoundingClientRect().top")
    watch.check()


def test_a_reload_answers_the_last_question_again_where_the_reader_left_it(visit, site_server):
    """A fresh reader reloaded a page after asking and found the answer gone. The answer is made again (in this tab
    only), and the page is left where the reload put the reader."""
    page, watch = visit(site_server.url + page_url(MODULE))
    _ask(page, "why does the softmax stop learning when the scores get big?")
    page.evaluate("window.scrollTo(0, 0)")
    page.reload()
    page.wait_for_function("() => /answered again/.test(document.querySelector('[data-scalecore-mentor-status]').textContent)")
    assert "softmax is saturated" in page.locator("[data-scalecore-mentor-answer]").inner_text()
    page.wait_for_timeout(300)
    assert page.evaluate("scrollY") < 50
    watch.check()


def test_a_source_link_lands_on_a_passage_the_browser_has_not_drawn_yet(visit, site_server):
    """The sections far from the screen are not drawn (content-visibility: auto), and their text as shown (innerText)
    is empty: a fresh reader's link to a passage there landed on its heading, the passage 1,400 px below."""
    page, watch = visit(site_server.url + page_url("modules/encoder-block.html"), viewport={"width": 1280, "height": 800})
    region = _ask(page, "pre-LN vs post-LN for a 24 layer stack?")
    quotes = region.locator("blockquote").all_inner_texts()
    links = region.locator(".scalecore-mentor__source a")
    landed = 0
    for i in range(1, links.count()):
        if not links.nth(i).get_attribute("href").startswith("#"):
            continue
        words = " ".join(quotes[i - 1].split()[:6])
        links.nth(i).click()
        page.wait_for_timeout(300)
        tops = page.evaluate("""words => [...document.querySelectorAll('article p')]
          .filter(p => !p.closest('[data-scalecore-mentor]') && p.textContent.replace(/\\s+/g, ' ').includes(words))
          .map(p => p.getBoundingClientRect().top - document.querySelector('.md-header').getBoundingClientRect().bottom)""",
                             words)
        assert any(-1 <= top < 800 - 48 - 40 for top in tops), (words, tops)
        landed += 1
        page.go_back()
        page.wait_for_timeout(300)
    assert landed >= 3, landed
    watch.check()


def test_back_from_a_source_link_right_after_the_load_keeps_the_answer_where_it_was(visit, site_server):
    """A fresh reader on a phone asked on a page just loaded, followed the lead's source into the page and pressed
    Back: the theme's instant navigation, whose listener on the window comes before any deferred script's, took that
    Back for a visit, fetched the page and drew it again, and the reader ended 1,600 px below a redrawn answer. The
    Back is the mentor's: the same answer, the link where it was on the screen, nothing fetched."""
    page, watch = visit(site_server.url + page_url("modules/multi-head-attention.html"), viewport={"width": 390, "height": 844})
    region = _ask(page, "what happens if i divide by sqrt(d_model) instead of sqrt(d_k) when i use 8 heads?")
    link = region.locator(".scalecore-mentor__lead + .scalecore-mentor__source a")
    link.scroll_into_view_if_needed()  # where the reader's tap finds it
    top = link.evaluate("a => { window.scalecoreTestAnswer = a.closest('[data-scalecore-mentor-answer]'); "
                        "return a.getBoundingClientRect().top; }")
    fetched = len(watch.requests)
    link.click()
    page.wait_for_timeout(300)
    page.go_back()
    page.wait_for_timeout(1200)
    assert page.evaluate("document.querySelector('[data-scalecore-mentor-answer]') === window.scalecoreTestAnswer")
    assert abs(link.evaluate("a => a.getBoundingClientRect().top") - top) < 2, (link.evaluate(
        "a => a.getBoundingClientRect().top"), top)
    assert not [u for u in watch.requests[fetched:] if u.split("#")[0].endswith("multi-head-attention.html")]
    watch.check()


def test_a_number_in_the_page_is_printed_as_the_page_prints_it_and_its_link_shows_that_state(visit, site_server):
    page, watch = visit(site_server.url + page_url(MODULE))
    region = _ask(page, "What is the mean row-max on kjv at seed 0 with init+scale?")
    numbers = region.locator(".scalecore-mentor__numbers li").first
    text = numbers.text_content()
    assert "0.9999" in text and "1.00" not in text
    assert not re.search(r"\{\{|\}\}|baked:", region.text_content())
    assert "is the mean row max, corpus kjv, seed 0, guards init+scale" in text and "scale-guards" not in text
    link = numbers.get_by_role("link", name="See it in the panel")
    href = link.get_attribute("href")
    assert "corpus=kjv" in href and "mean" not in href.split("#")[0], href
    # the link opens a panel in that very state (one whose guards are not locked away from it)
    link.click()
    panel = page.locator("#" + href.split("#")[1])
    panel.locator("[role=switch]").first.wait_for()
    page.wait_for_function("p => p.scalecorePanel && p.scalecorePanel.corpus === 'kjv'", arg=panel.element_handle())
    state = panel.evaluate("p => ({corpus: p.scalecorePanel.corpus, seed: p.scalecorePanel.seed, "
                           "on: [...p.querySelectorAll('[data-scalecore-state-item]')].filter(s => "
                           "s.getAttribute('aria-checked') === 'true').map(s => s.dataset.scalecoreStateItem)})")
    assert state == {"corpus": "kjv", "seed": 0, "on": ["init", "scale"]}, state
    watch.check()


def test_a_layer_s_number_links_to_the_panel_stacked_to_that_layer(visit, site_server, built_site):
    """A number of layer 3 opens the encoder panel with three layers stacked and layer 3 read closely, in the state
    it was baked in, and the panel's table shows that number (before: the panel opened at its one layer, whose row
    was another number)."""
    page, watch = visit(site_server.url + page_url("modules/encoder-block.html"))
    region = _ask(page, "what's the stream spread after layer 3 on kjv without layernorm?")
    item = region.locator(".scalecore-mentor__numbers li").first
    assert "layer 3" in item.text_content() and "stream spread" in item.text_content()
    link = item.get_by_role("link", name="See it in the panel")
    href = link.get_attribute("href")
    assert "layers=3" in href and "norm=none" in href and "corpus=kjv" in href, href
    link.click()
    panel = page.locator("#" + href.split("#")[1])
    value = round(Baked(built_site).value("encoder/kjv/0/none/layers/2/stream_spread"))
    page.wait_for_function("([p, v]) => p.getAttribute('data-encoder-layers') === '3' && [...p.querySelectorAll('table')]"
                           ".pop().innerText.replace(/,/g, '').includes('\\t' + v + '\\t')",  # the row of layer 3
                           arg=[panel.element_handle(), value])
    watch.check()


def test_a_head_s_number_links_to_the_panel_reading_that_head(visit, site_server, built_site):
    """A number of head 3 of 4 opens the multi-head panel at 4 heads with head 3 read (its select), in the state it
    was baked in, and the panel shows that head's row-max."""
    page, watch = visit(site_server.url + page_url("modules/multi-head-attention.html"))
    region = _ask(page, "mean row-max of the third head with 4 heads on demo, all guards")
    item = region.locator(".scalecore-mentor__numbers li").first
    assert "head 3" in item.text_content() and "heads 4" in item.text_content(), item.text_content()
    link = item.get_by_role("link", name="See it in the panel")
    href = link.get_attribute("href")
    assert "head=3" in href and "heads=4" in href and "heads=3" not in href, href
    link.click()
    panel = page.locator("#" + href.split("#")[1])
    value = Baked(built_site).value("multihead/demo/0/4/norm+init+scale/per_head/2/measures/mean_row_max")
    page.wait_for_function("([p, v]) => p.getAttribute('data-multihead-head') === '3' && p.innerText.includes('row-max ' + v)",
                           arg=[panel.element_handle(), f"{value:.2f}"])
    watch.check()


def test_a_question_near_the_module_in_meaning_is_not_sent_to_the_next_one(built_site):
    """Round 12: a question whose words the pointer to the next module matches better ("layer norm") is still this
    module's when its nearest passage is near in meaning; one about the next module alone is still refused there."""
    mine, theirs = answers(built_site, [
        {"question": "how does layer norm stop the scores blowing up when the corpus is massive?"},
        {"question": "Why does the residual connection help?"}])["answers"]
    assert mine["answer"]["found"] and "LayerNorm" in " ".join(p["text"] for p in mine["answer"]["passages"])
    assert not theirs["answer"]["found"]


def test_a_lead_for_an_open_question_has_no_yes_or_no_and_plain_words_open_their_box(built_site):
    """Round 12, a fresh reader's findings: a what-if question led by a self-check's answer read "No: every head still
    ..." (the check's own yes-or-no); a yes-or-no question keeps it. "In simple words" is led by the plain-words box's
    opening, not its last line ("One reader, however attentive, gives one answer.")."""
    heads = "modules/multi-head-attention.html"
    open_, closed, plain = answers(built_site, [
        {"question": "What happens if I use more heads but the input is not normalised?"},
        {"question": "Does splitting into more heads fix saturation on kjv?"},
        {"question": "I'm new to this, what is an attention head in simple words?"}], heads)["answers"]
    assert open_["answer"]["lead"]["text"].startswith("Every head still"), open_["answer"]["lead"]["text"]
    assert closed["answer"]["lead"]["text"].startswith("No:"), closed["answer"]["lead"]["text"]
    assert plain["answer"]["lead"]["text"].startswith("A head is one reader"), plain["answer"]["lead"]["text"]


def test_only_a_yes_or_no_of_its_own_is_taken_off_a_lead():
    """"No: every head ..." loses its "No:"; "No head of any split has ..." is a sentence, not an answer to a yes-or-no
    question, and keeps its first word (its meaning would turn over)."""
    core = REPO / "scalecore_generator" / "theme" / "assets" / "scalecore-module" / "mentor-core.js"
    script = ("const core = require(process.argv[1]); const out = [];"
              "for (const text of ['No: every head still looks at one token.', 'Yes, the cost is the same.',"
              " 'No head of any split has a mean row-max above 0.40.', 'Nothing changes.']) {"
              " const lead = {sentence: [text], text}; core.withoutYesOrNo(lead); out.push(lead.text); }"
              "console.log(JSON.stringify(out));")
    out = subprocess.run(["node", "-e", script, str(core)], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == ["Every head still looks at one token.", "The cost is the same.",
                               "No head of any split has a mean row-max above 0.40.", "Nothing changes."]


def test_a_what_if_answer_is_headed_as_what_happens(visit, site_server):
    """A what-if lead says what happens, and is headed so; "The reason, in short" heads only a sentence that gives a
    reason (a fresh reader read it over one that gave none)."""
    page, watch = visit(site_server.url + page_url(MODULE))
    region = _ask(page, "what happens if I add 100 to every score?")
    assert region.get_by_role("heading").all_inner_texts()[0] == "What happens, in short"
    assert "stay exactly the same" in region.locator(".scalecore-mentor__lead").inner_text()
    watch.check()


@pytest.mark.parametrize("scroll", ["auto", "manual"])
def test_back_from_a_panel_link_shows_the_answer_again(visit, site_server, scroll):
    """A fresh reader followed an answer's link to a panel (a page load: the link carries the panel's state) and went
    Back: the answer was gone. It is made again, and not recorded twice among the reader's questions. A second came
    Back to the page's top (the browser did not restore the scroll: history.scrollRestoration "manual" makes it so
    here), where the mentor's box is far and its script never loaded: on Back to a page whose mentor answered in this
    tab, the script loads at once, and the answer made again is brought into view."""
    page, watch = visit(site_server.url + page_url("modules/multi-head-attention.html"))
    region = _ask(page, "mean row-max of the third head with 4 heads on demo, all guards")
    page.wait_for_function("() => document.querySelectorAll('[data-scalecore-mentor-asked] li').length === 1")
    page.evaluate("scroll => { history.scrollRestoration = scroll; }", scroll)
    region.locator(".scalecore-mentor__numbers li").first.get_by_role("link", name="See it in the panel").click()
    page.wait_for_url("**head=3**")
    page.go_back()
    page.wait_for_function("() => /head 3/.test((document.querySelector('.scalecore-mentor__numbers') || {}).textContent || '')",
                           timeout=60000)
    assert page.locator("[data-scalecore-mentor-asked] li").count() == 1
    box = page.locator("[data-scalecore-mentor-answer]").bounding_box()
    assert box is not None and box["y"] < page.viewport_size["height"] and box["y"] + box["height"] > 0, box  # on screen
    watch.check()


def test_a_question_the_module_does_not_answer_offers_the_closest_sections(visit, site_server):
    page, watch = visit(site_server.url + page_url(MODULE))
    region = _ask(page, "Why does the residual connection help?")
    text = region.inner_text()
    assert "answers this directly" in text and "The closest sections:" in text
    assert region.locator("blockquote").count() == 0  # nothing beside the point is quoted
    assert "Where next" not in text
    link = region.locator(".scalecore-mentor__closest").get_by_role("link", name="Encoder Block")
    link.click()
    page.wait_for_url("**/modules/encoder-block.html")
    assert page.locator("h1").inner_text().startswith("Encoder Block")
    watch.check()


@pytest.mark.parametrize("question, language", [
    ("Pourquoi divise-t-on les scores par la racine de d_k ?", "French"),
    ("为什么要使用多头注意力？", "a language other than English"),
])
def test_a_question_in_another_language_is_told_the_mentor_reads_english(visit, site_server, question, language):
    page, watch = visit(site_server.url + page_url(MODULE))
    region = _ask(page, question)
    assert f"The mentor reads English only, and your question looks like it is in {language}." in region.inner_text()
    assert region.locator("blockquote").count() == 0
    status = page.locator("[data-scalecore-mentor-status]").inner_text()
    # the language is why, not the module: "nothing in this module answers that" misled a fresh reader (session 45)
    assert "reads English only" in status and "nothing in this module" not in status.lower(), status
    watch.check()


def test_the_mentor_answers_from_disk(visit, built_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    page, watch = visit((site / MODULE).as_uri())
    region = _ask(page, "Why divide by the square root of d_k and not by d_k?")
    assert "The self-check it comes from" in region.inner_text()
    watch.check()


# --------------------------------------------------------------------------------------------
# The optional local model (plugin option mentor_model)
# --------------------------------------------------------------------------------------------

def test_without_the_option_no_model_ships(built_site):
    models = built_site / "assets" / "scalecore" / "models"  # the sentence encoder alone (tests/test_mentor_encoder.py)
    assert not models.exists() or {p.name for p in models.iterdir()} <= {"mentor-encoder"}
    assert not (built_site / "assets" / "scalecore" / "vendor" / "wllama").exists()
    assert "data-scalecore-mentor-model" not in (built_site / MODULE).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def model_site(tmp_path_factory):
    """The site built with mentor_model: true (the model is fetched once into the cache)."""
    config = REPO / f".mkdocs-model-test-{abs(hash(str(tmp_path_factory.getbasetemp())))}.yml"
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    # The model is one 98 MB file: over 25 MiB, which the default host check refuses; GitHub Pages takes it.
    config.write_text(text.replace("  - scalecore:\n", "  - scalecore:\n      mentor_model: true\n      host: github-pages\n", 1),
                      encoding="utf-8")
    target = tmp_path_factory.mktemp("model") / "site"
    try:
        done = subprocess.run([str(REPO / ".venv" / "bin" / "mkdocs"), "build", "-q", "-f", str(config), "-d", str(target)],
                              cwd=REPO, capture_output=True, text=True, timeout=900)
    finally:
        config.unlink()
    assert done.returncode == 0, done.stderr[-3000:]
    return target


def test_the_local_model_writes_a_labelled_reply_beside_its_sources(visit, model_site):
    from browser import StaticServer

    server = StaticServer(model_site)
    try:
        page, watch = visit(server.url + page_url(MODULE))
        region = _ask(page, "Why divide by the square root of d_k and not by d_k?")
        assert not [p for p in server.paths if p.endswith(".gguf") or "wllama" in p]  # nothing until asked
        button = region.get_by_role("button", name="Ask a small local model to write a reply from these sources (98 MB, downloaded once)")
        button.click()
        page.wait_for_selector(".scalecore-mentor__written", timeout=600_000)
        assert region.get_by_role("heading", name="Written by a small local model").is_visible()
        assert "wrote this from the sources above and nothing else. It can be wrong" in region.inner_text()
        assert "The self-check it comes from" in region.inner_text()  # the sources stay beside it
        assert page.locator(".scalecore-mentor__written").inner_text().strip()
        assert [p for p in server.paths if p.endswith(".gguf")]  # fetched from the site itself
        watch.check()
    finally:
        server.close()


def test_a_module_script_from_the_memo_is_the_one_made_and_follows_its_facts(tmp_path):
    """Collector.scripts with a build's memo: a warm build's script is the one a build without the
    memo writes, and no page is read for it; a changed number (another key for the kind's
    entries) makes it again; the typesetter is still asked for every formula (it keeps only what
    the site uses)."""
    from scalecore_generator.foundation import cache
    from scalecore_generator.pages.quotes import LazyNamespace

    class Log:
        def info(self, message):
            raise AssertionError(message)

    asked, collectors = [], []

    def typeset(tex, display):
        asked.append(tex)
        return f"<math><mi>{tex}</mi></math>"

    def scripts(memo_file, entries_key, mean):
        memo = cache.Memo(memo_file, Log(), "v1") if memo_file else None
        readings = cache.Memo(memo_file.with_name("readings.json"), Log(), "v1") if memo_file else None
        collector = mentor.Collector(memo, readings)
        collectors.append(collector)
        lesson = LESSON.replace("<h2", '<div data-scalecore-kind="k" id="k-1" aria-label="K"></div><h2', 1)
        collector.read(lesson, "m/buckets.html", "Buckets", {"code": "B.1"})
        tree = LazyNamespace({"k": (entries_key, lambda: {"a": {"mean": mean}})}, {"tiny": {"tokens": 9}},
                             {"d_model": 4}, memo=memo)
        made = collector.scripts(tree, typeset, {"k": ["corpus"]}, "engine 1")
        if memo is not None:
            memo.save()
            readings.save()
        return made

    memo_file = tmp_path / "mentor.json"
    slow = scripts(None, "e1", 0.25)
    assert scripts(memo_file, "e1", 0.25) == slow
    asked.clear()
    assert scripts(memo_file, "e1", 0.25) == slow and asked, "the typesetter was not asked from the memo"
    assert collectors[-1].pages == {}  # the script came from the memo: no page's reading was needed
    changed = scripts(memo_file, "e2", 0.75)
    assert changed == scripts(None, "e2", 0.75) and changed != slow

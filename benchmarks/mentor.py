"""The mentor, measured: how often its answers hold the key fact, what it costs, how fast it is.

    .venv/bin/python -m benchmarks.mentor

Builds the site once (into a temporary folder), then:

- scores retrieval on two question sets side by side: the development set
  tests/data/mentor-questions.json (the one the mentor is tuned on), asked on each of the three
  module pages (the softmax module's own self-check questions, verbatim, and questions in the
  forms learners ask: why, how, what happens if, what is the difference, with the facts an answer
  must contain, the claims the module contradicts, numbers that must be the baked value,
  questions the module does not answer and questions in other languages, where a refusal is due),
  with the page's own mentor-core.js run in Node; and checks that every link each answer renders
  names a page and an element of the built site; and the held-out sets
  (tests/data/mentor-heldout-*.json, written from the built pages alone by someone who never saw
  the mentor, before any tuning), of which only the totals are printed: their questions are
  never shown here, so that nobody tunes the mentor to them;
- times an answer in Node and, in Chromium, from Ctrl+Enter to the answer on screen: the first
  question (which loads MiniSearch and the module's data) and the next ones;
- weighs what the mentor adds to a module page: nothing until the reader comes to the box, then
  the search library and the module's data (raw and gzip).

With --dev, the development set alone; with --cv (development set only), the variants of the mentor's
settings (VARIANTS, or a JSON object of them after --cv) on the whole set and on its two halves, and the
variant each half chooses, scored on the other.

Nothing here asserts; the numbers are printed for people to read.
"""

from __future__ import annotations

import gzip
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
QUESTIONS = REPO / "tests" / "data" / "mentor-questions.json"
READERS = REPO / "tests" / "data" / "mentor-dev-readers.json"  # development too: readers' forms, written while tuning
# every development set: the question set, then tests/data/mentor-dev-*.json (readers' forms; refusal, round 5; from
# round 9 the retired held-out sets too, mentor-dev-heldout-1..16.json, each reported held out before it was tuned on)
DEVELOPMENT = [QUESTIONS, *sorted((REPO / "tests" / "data").glob("mentor-dev-*.json"))]
HELD_OUT = sorted((REPO / "tests" / "data").glob("mentor-heldout-*.json"))
ANSWER = REPO / "tests" / "mentor" / "answer.js"


def build(target: Path) -> None:
    done = subprocess.run([str(REPO / ".venv" / "bin" / "mkdocs"), "build", "-q", "-d", str(target)], cwd=REPO,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"the site did not build:\n{done.stderr[-3000:]}")


def answer_text(answer: dict) -> str:
    """Everything the reader is shown, as text: the lead, numbers, the self-check, the passages."""
    parts = []
    if answer.get("lead"):
        parts.append(answer["lead"]["text"])
    for fact in answer["numbers"]:
        parts.append(f"{fact.get('text', fact['value'])} for {' · '.join(fact['path'].split('/'))}")  # as the page shows it
    if answer["check"]:
        parts += [answer["check"]["question"], answer["check"]["answer"], answer["check"]["explanation"]]
    parts += [p["text"] for p in answer["passages"]]
    return "\n".join(parts)


def lead_text(answer: dict) -> str:
    """What the answer leads with: its lead sentence, or the self-check's answer and explanation."""
    if answer["check"]:
        return answer["check"]["answer"] + "\n" + answer["check"]["explanation"]
    return answer["lead"]["text"] if answer.get("lead") else ""


def links(answer: dict, module: str) -> list[str]:
    """The site paths (page#anchor) of every link the page renders for this answer."""
    out = [fact["panel"] for fact in answer["numbers"] if fact.get("panel")]
    for part in ([answer["check"]] if answer["check"] else []) + ([answer["lead"]] if answer.get("lead") else []) + \
            [p for p in answer["passages"] if p.get("page")] + answer.get("closest", []):
        out.append(part["page"] + (f"#{part['anchor']}" if part.get("anchor") else ""))
    if not answer["found"]:
        out += [f"{module}#{section['anchor']}" for section in answer["outline"]]
    return out


class Targets:
    """Whether a site path and its fragment name a page and an element of the built site."""

    def __init__(self, site: Path):
        self.site, self.ids = site, {}

    def resolves(self, href: str) -> bool:
        import re

        page, _, fragment = href.partition("#")
        if page not in self.ids:
            file = self.site / page
            self.ids[page] = set(re.findall(r'\sid="([^"]+)"', file.read_text(encoding="utf-8"))) if file.is_file() else None
        return self.ids[page] is not None and (not fragment or fragment in self.ids[page])


ISO_639_1 = {"en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
             "nl": "Dutch"}


def score(entry: dict, answer: dict, baked, targets: Targets) -> dict:
    """One question's marks: whether the key fact is there (and in the lead), whether the answer
    states something the module contradicts, whether a due refusal was given, and its links."""
    text = answer_text(answer).lower()
    hrefs = links(answer, entry["page"])
    marks = {"links": len(hrefs), "broken": [h for h in hrefs if not targets.resolves(h)],
             "wrong": [w for w in entry.get("wrong", []) if w.lower() in text], "due": False, "refused": not answer["found"]}
    if entry.get("unanswerable") or entry.get("language"):
        marks["due"] = True
        quiet = not (answer["passages"] or answer["numbers"] or answer.get("lead") or answer["check"])
        ok = marks["refused"] and quiet
        if isinstance(entry.get("language"), str):  # a named language: the answer must say it reads English
            # named as the mentor names it, or by its ISO 639-1 code (mentor-dev-heldout-3.json: "es", "fr", "de")
            named = ISO_639_1.get(entry["language"], entry["language"])
            ok = ok and answer.get("language") == named
        # language: true (held-out sets 9 and 10: "in another language or not about the lesson") asks only
        # for the refusal: the name of the language is not part of the set (True never equalled a name)
        if entry.get("closest"):
            ok = ok and any(c["page"] == entry["closest"] for c in answer.get("closest", []))
        marks["key"] = marks["lead"] = ok
        if not quiet:
            marks["wrong"].append("quoted an answer to a question the module does not answer")
        return marks
    if entry.get("number"):
        numbers = answer["numbers"]
        expected = baked.value(entry["number"])
        # the value asked for: the set's path, or the same measure (its last name) with the same value under
        # settings that do not change it (a layer's cost is 47,360 at every head count and guard set; a corpus's
        # input spread is the same in the scale-guards and encoder trees): the reader is shown the number asked for
        ok = bool(numbers) and numbers[0]["path"].split("/")[-1] == entry["number"].split("/")[-1] and \
            abs(numbers[0]["value"] - expected) <= 1e-6 * max(1.0, abs(expected))
        marks["key"] = marks["lead"] = ok
        if numbers and not ok:
            marks["wrong"].append("a wrong number")
        return marks
    marks["key"] = all(any(phrase.lower() in text for phrase in item) for item in entry["key"])
    lead = lead_text(answer).lower()
    marks["lead"] = all(any(phrase.lower() in lead for phrase in item) for item in entry["key"])
    return marks


def in_node(site: Path, page: str, questions: list[dict], settings: dict | None = None) -> dict:
    import os

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump([{"question": q["question"]} for q in questions], file)
    env = dict(os.environ, MENTOR_SETTINGS=json.dumps(settings)) if settings else None
    done = subprocess.run(["node", str(ANSWER), str(site), page, file.name], capture_output=True, text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"answer.js failed on {page} with {settings}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def evaluate(site: Path, questions: list[dict], settings: dict | None = None) -> list[tuple[dict, dict, dict, float]]:
    """Every question asked on its page with the page's own core: (entry, answer, marks, ms)."""
    from test_module_page import Baked

    baked, targets = Baked(site), Targets(site)
    rows = []
    for page in dict.fromkeys(q["page"] for q in questions):
        asked = [q for q in questions if q["page"] == page]
        node = in_node(site, page, asked, settings)
        rows += [(q, a["answer"], score(q, a["answer"], baked, targets), a["ms"]) for q, a in zip(asked, node["answers"])]
    return rows


def report(rows) -> None:
    def line(name, group):
        answerable = [m for _, _, m, _ in group if not m["due"]]
        due = [m for _, _, m, _ in group if m["due"]]
        key = sum(m["key"] for m in answerable)
        lead = sum(m["lead"] for m in answerable)
        wrong = sum(bool(m["wrong"]) for _, _, m, _ in group)
        hrefs = sum(m["links"] for _, _, m, _ in group)
        broken = sum(len(m["broken"]) for _, _, m, _ in group)
        cells = [f"{name:28}", f"{len(group):3d} q"]
        cells.append(f"key fact {key:2d}/{len(answerable):<2d} ({100 * key / len(answerable):3.0f}%)" if answerable else " " * 23)
        cells.append(f"in the lead {lead:2d}/{len(answerable):<2d}" if answerable else " " * 17)
        cells.append(f"refusals where due {sum(m['key'] for m in due)}/{len(due)}" if due else " " * 22)
        cells.append(f"contradictions {wrong}")
        cells.append(f"links resolving {hrefs - broken}/{hrefs}")
        print("  " + "  ".join(cells))

    for page in dict.fromkeys(q["page"] for q, *_ in rows):
        line(page.split("/")[-1].removesuffix(".html"), [r for r in rows if r[0]["page"] == page])
    forms = {"self-check (verbatim)": lambda q: q.get("self_check"), "number": lambda q: q.get("number")}
    for form in ("why", "how", "what-if", "difference", "what", "language", "offtopic"):
        forms[form] = lambda q, form=form: q.get("form") == form
    forms["earlier, ours (what, how)"] = lambda q: not (q.get("self_check") or q.get("number") or q.get("form"))
    for name, test in forms.items():
        group = [r for r in rows if test(r[0])]
        if group:
            line(name, group)
    line("all", rows)
    for q, answer, m, _ in rows:
        if not m["key"]:
            print(f"    {'refusal missing' if m['due'] else 'missed'} ({q['page'].split('/')[-1]}): {q['question']}")
        if m["wrong"]:
            print(f"    contradicts ({', '.join(m['wrong'])}): {q['question']}")
        for href in m["broken"]:
            print(f"    broken link {href}: {q['question']}")

def totals(rows) -> dict:
    """One set's totals: the columns of the side-by-side table."""
    answerable = [(q, m) for q, _, m, _ in rows if not m["due"]]
    due = [(q, m) for q, _, m, _ in rows if m["due"]]
    numbers = [(q, m) for q, m in answerable if q.get("number") or q.get("form") == "number"]
    hrefs = sum(m["links"] for _, _, m, _ in rows)
    return {
        "questions": len(rows),
        "key": (sum(m["key"] for _, m in answerable), len(answerable)),
        "lead": (sum(m["lead"] for _, m in answerable), len(answerable)),
        "contradictions": sum(bool(m["wrong"]) for _, _, m, _ in rows),
        "refused": sum(m["refused"] for _, m in answerable),
        "due": (sum(m["key"] for _, m in due), len(due)),
        "numbers": (sum(m["key"] for _, m in numbers), len(numbers)),
        "links": (hrefs - sum(len(m["broken"]) for _, _, m, _ in rows), hrefs),
    }


def side_by_side(columns: dict[str, dict]) -> None:
    """The sets' totals in columns: development first, then each held-out set."""
    def ratio(pair, percent=False):
        got, of = pair
        return f"{got}/{of}" + (f" ({100 * got / of:.0f}%)" if percent and of else "")

    lines = [("questions", lambda t: str(t["questions"])),
             ("key facts (answerable)", lambda t: ratio(t["key"], True)),
             ("key fact in the lead", lambda t: ratio(t["lead"], True)),
             ("contradictions", lambda t: str(t["contradictions"])),
             ("answerable questions refused", lambda t: str(t["refused"])),
             ("unanswerable, rightly refused", lambda t: ratio(t["due"])),
             ("number questions right", lambda t: ratio(t["numbers"])),
             ("links that land", lambda t: ratio(t["links"]))]
    print("  " + f"{'':32}" + "".join(f"{name:>22}" for name in columns))
    for label, cell in lines:
        print("  " + f"{label:32}" + "".join(f"{cell(t):>22}" for t in columns.values()))


def in_chromium(site: Path, page: str, questions: list[str], throttle: int = 1) -> list[float]:
    """Milliseconds from Ctrl+Enter to the answer in the page, question by question (the page
    times itself: data-scalecore-mentor-ms), the CPU slowed ``throttle`` times (DevTools'
    Emulation.setCPUThrottlingRate, as Lighthouse's mobile runs do)."""
    from browser import ARGS, CHROMIUM, StaticServer
    from playwright.sync_api import sync_playwright

    server = StaticServer(site)
    times = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            tab = browser.new_context(service_workers="block").new_page()
            if throttle > 1:
                cdp = tab.context.new_cdp_session(tab)  # kept for the whole visit
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            tab.goto(server.url + page)
            box = tab.get_by_role("textbox", name="Your question")
            box.focus()  # the reader comes to the box: the mentor starts loading
            tab.wait_for_selector("[data-scalecore-mentor-load-ms]", state="attached")
            times.append(float(tab.get_attribute("[data-scalecore-mentor]", "data-scalecore-mentor-load-ms")))
            for question in questions:
                tab.evaluate("document.querySelector('[data-scalecore-mentor-status]').textContent = ''")
                box.fill(question)
                box.press("Control+Enter")
                tab.wait_for_function("() => /Answered|Nothing in this module|reads English only/.test("
                                      "document.querySelector('[data-scalecore-mentor-status]').textContent)")
                # measured by the page itself, from the send to the answer in the DOM
                times.append(float(tab.get_attribute("[data-scalecore-mentor]", "data-scalecore-mentor-ms")))
            browser.close()
    finally:
        server.close()
    return times


def weight(path: Path) -> str:
    data = path.read_bytes()
    return f"{len(data) / 1024:.1f} KiB ({len(gzip.compress(data, 9)) / 1024:.1f} KiB gzip)"


# Round 3's candidates (mentor-core.js's settings, S), measured on the development set and across its halves.
ROUND_2 = {"FILL": False, "REFUSE": "rules", "NEGATION": False, "COMPOUND": False}
VARIANTS = {
    "round 2": ROUND_2,
    "round 2 + 3 passages, whole": dict(ROUND_2, FILL=True),
    "round 2 + one threshold 0.31": dict(ROUND_2, REFUSE="one"),
    "round 2 + negation": dict(ROUND_2, NEGATION=True),
    "round 2 + compounds": dict(ROUND_2, COMPOUND=True),
    "round 3 (as shipped)": {},
    "  threshold 0.26": {"REFUSE_AT": 0.26},
    "  threshold 0.34": {"REFUSE_AT": 0.34},
    "  threshold 0.31, words 0.6": {"WORDS_SHARE": 0.6},
    "  4 passages": {"MAX_PASSAGES": 4},
    "  no hand-made weights": {"WEIGH": False},
    "  RRF k = 60": {"RRF_K": 60},
    "  meaning 0.5 of a lead's score": {"ALPHA": 0.5},
    "  SIF a = 1e-3": {"SIF": 1e-3},
    "  SIF a = 1e-2": {"SIF": 1e-2},
}


ROUND_3_VARIANTS = VARIANTS
# Round 4's: the sentence encoder (the build's vectors, the question embedded in onnxruntime-web) against
# the table and the keywords alone, and the encoder's settings one at a time.
VARIANTS = {
    "round 3: the table": {"EMBEDDINGS": "table"},
    "keywords alone": {"EMBEDDINGS": "none"},
    "encoder, round 3's settings": {},
    "  centred": {"MODEL_CENTRE": True},
    "  threshold 0.26": {"REFUSE_AT": 0.26},
    "  threshold 0.36": {"REFUSE_AT": 0.36},
    "  threshold 0.41": {"REFUSE_AT": 0.41},
    "  self-check 0.5": {"CHECK_MEANT": 0.5},
    "  self-check 0.6": {"CHECK_MEANT": 0.6},
    "  lead near 0.4, 0.45": {"NEAR_MIN": 0.4, "MEANT_MIN": 0.45},
    "  support near 0.5, 0.6": {"SUPPORT_MEANT": 0.5, "NEAR_SUPPORT": 0.6},
    "  meaning 0.5 of a lead's score": {"ALPHA": 0.5},
    "  meaning 0.15 of a lead's score": {"ALPHA": 0.15},
    "  RRF k = 30": {"RRF_K": 30},
    "  4 passages": {"MAX_PASSAGES": 4},
    "  nearest sentence 0.3": {"NEAR_SENTENCES": 0.3},
    "  nearest sentence 0.5": {"NEAR_SENTENCES": 0.5},
    "  nearest sentence 0.7": {"NEAR_SENTENCES": 0.7},
    "  meaning rank 0.7": {"MEANING_RANK": 0.7},
    "  meaning rank 1.5": {"MEANING_RANK": 1.5},
}


def merit(rows) -> int:
    """One number to choose by: key facts and due refusals, less contradictions and answerable refusals."""
    t = totals(rows)
    return t["key"][0] + t["due"][0] - t["contradictions"] - t["refused"]


def half(question: dict) -> int:
    """A fixed split of the development set in two, by a hash of the question's text."""
    import hashlib

    return hashlib.sha256(question["question"].encode("utf-8")).digest()[0] % 2


def cross_validate(site: Path, questions: list[dict], variants: dict[str, dict]) -> None:
    """Every variant on the whole development set and on each half; then, for each half, the
    variant the other half chooses and what it scores on this one (choose on A, check on B)."""
    runs = {name: evaluate(site, questions, settings) for name, settings in variants.items()}
    print(f"  {'variant':34}{'key facts':>12}{'lead':>6}{'contra':>8}{'ans.ref':>8}{'due ok':>8}{'merit':>7}"
          f"{'half A':>8}{'half B':>8}")
    merits = {}
    for name, rows in runs.items():
        t = totals(rows)
        merits[name] = [merit([r for r in rows if half(r[0]) == h]) for h in (0, 1)]
        print(f"  {name:34}{t['key'][0]:>6}/{t['key'][1]:<5}{t['lead'][0]:>6}{t['contradictions']:>8}{t['refused']:>8}"
              f"{t['due'][0]:>5}/{t['due'][1]:<2}{merit(rows):>7}{merits[name][0]:>8}{merits[name][1]:>8}")
    base = next(iter(variants))
    for chosen_on, checked_on in ((0, 1), (1, 0)):
        best = max(merits, key=lambda name: merits[name][chosen_on])
        print(f"  chosen on half {'AB'[chosen_on]}: {best}; on half {'AB'[checked_on]} it scores"
              f" {merits[best][checked_on]} ({base}: {merits[base][checked_on]})")


def main() -> None:
    questions = [q for path in DEVELOPMENT if path.is_file()
                 for q in json.loads(path.read_text(encoding="utf-8"))["questions"]]
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        if "--site" in sys.argv:  # a site built already (python -m benchmarks.mentor --site DIR)
            site = Path(sys.argv[sys.argv.index("--site") + 1]).resolve()
        else:
            build(site)
        if "--cv" in sys.argv:  # development set only: variants, and choosing on one half checked on the other
            variants = json.loads(sys.argv[sys.argv.index("--cv") + 1]) if len(sys.argv) > sys.argv.index("--cv") + 1 \
                and sys.argv[sys.argv.index("--cv") + 1].startswith("{") else VARIANTS
            cross_validate(site, questions, variants)
            return
        rows = evaluate(site, questions)
        columns = {"development": totals(rows)}
        tuning = "--dev" in sys.argv  # tuning: the development set alone, nothing else (never the held-out sets)
        for path in [] if tuning else HELD_OUT:
            held = json.loads(path.read_text(encoding="utf-8"))["questions"]
            columns[path.stem.removeprefix("mentor-")] = totals(evaluate(site, held))
        pages = sorted({q["page"] for q in questions})
        print(f"Development set: {len(questions)} questions on {len(pages)} module pages"
              f" ({', '.join(str(path.relative_to(REPO)) for path in DEVELOPMENT)});"
              f" held out: {', '.join(str(p.relative_to(REPO)) for p in HELD_OUT) or 'none'} (totals only)")
        print("Retrieval alone (no language model); 'key facts' counts the questions the module answers whose answer holds"
              " every key fact, 'in the lead' those whose lead sentence (or self-check answer) holds them; links are the"
              " page#anchor of every link the answer renders, found in the built site:")
        side_by_side(columns)
        print("The development set, page by page and form by form:")
        report(rows)
        if tuning:
            return
        ms = [row[3] for row in rows]
        print(f"Node: an answer takes {statistics.median(ms):.1f} ms (median), {max(ms):.1f} ms (slowest)")
        softmax = [q for q in questions if q["page"] == "modules/softmax-range.html"]
        for rate in (1, 4):
            times = in_chromium(site, "modules/softmax-range.html", [q["question"] for q in softmax[:8]], rate)
            print(f"Chromium{' at 4x CPU throttling' if rate > 1 else ''}: focus on the box to mentor ready (MiniSearch, core"
                  f" and data loaded, index built) {times[0]:.0f} ms; Ctrl+Enter to the answer in the page: first"
                  f" {times[1]:.0f} ms, then {statistics.median(times[2:]):.0f} ms (median of {len(times) - 2},"
                  f" slowest {max(times[1:]):.0f} ms)")
        print("Bytes, fetched only when the reader comes to the question box:")
        print(f"  MiniSearch                {weight(site / 'assets/scalecore/vendor/minisearch.js')}")
        for name in ("mentor-core.js", "mentor-words.js", "mentor-meaning.js", "mentor-numbers.js"):
            if (site / "assets/scalecore-module" / name).is_file():
                print(f"  {name:25} {weight(site / 'assets/scalecore-module' / name)}")
        encoder = site / "assets/scalecore/models/mentor-encoder"
        fetched = [p for p in sorted(encoder.glob("*")) if not p.name.startswith("LICENSE")] if encoder.is_dir() else []
        if fetched:
            print(f"  mentor-encoder.js         {weight(site / 'assets/scalecore-module/mentor-encoder.js')}")
            for path in fetched:  # the .gz files as published: sent as they are by any host, decoded in the page
                print(f"  encoder {path.name:17} {path.stat().st_size / 1024:.1f} KiB"
                      + ("" if path.suffix == ".gz" else f" ({len(gzip.compress(path.read_bytes(), 9)) / 1024:.1f} KiB gzip)"))
            print(f"  the encoder in all        {sum(p.stat().st_size for p in fetched) / 1e6:.1f} MB as published")
        if (site / "assets/scalecore-module/mentor-embeddings.js").is_file():
            print(f"  mentor-embeddings.js      {weight(site / 'assets/scalecore-module/mentor-embeddings.js')}"
                  "  (the word-piece table: build_tools/mentor_embeddings.py; fetched only where the encoder cannot load)")
        for data in sorted((site / "assets/scalecore/mentor").glob("*.js")):
            print(f"  data {data.stem:22} {weight(data)}")
        print(f"When the mentor nears the viewport: mentor.js {weight(site / 'assets/scalecore-module/mentor.js')}")
        print(f"On a PDF only: pdf.js      {weight(site / 'assets/scalecore/vendor/pdfjs/pdf.min.js')} "
              f"+ worker {weight(site / 'assets/scalecore/vendor/pdfjs/pdf.worker.min.js')}")
        from benchmarks import mentor_bytes

        mentor_bytes.report(mentor_bytes.measure(site))


if __name__ == "__main__":
    main()

"""The mentor, measured: how often its answers hold the key fact, what it costs, how fast it is.

    .venv/bin/python -m benchmarks.mentor

Builds the site once (into a temporary folder), then:

- scores retrieval on the question set tests/data/mentor-questions.json (the module's own
  self-check questions, verbatim, and questions of ours, with the facts an answer must contain,
  the claims the module contradicts, numbers that must be the baked value, and questions the
  module does not answer), with the page's own mentor-core.js run in Node;
- times an answer in Node and, in Chromium, from Ctrl+Enter to the answer on screen: the first
  question (which loads MiniSearch and the module's data) and the next ones;
- weighs what the mentor adds to a module page: nothing until the reader comes to the box, then
  the search library and the module's data (raw and gzip).

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
ANSWER = REPO / "tests" / "mentor" / "answer.js"


def build(target: Path) -> None:
    subprocess.run([str(REPO / ".venv" / "bin" / "mkdocs"), "build", "-q", "-d", str(target)], cwd=REPO, check=True,
                   capture_output=True)


def answer_text(answer: dict) -> str:
    """Everything the reader is shown, as text: numbers, the self-check, the passages."""
    parts = []
    for fact in answer["numbers"]:
        parts.append(f"{fact['path']} = {fact['value']}")
    if answer["check"]:
        parts += [answer["check"]["question"], answer["check"]["answer"], answer["check"]["explanation"]]
    parts += [p["text"] for p in answer["passages"]]
    return "\n".join(parts)


def score(entry: dict, answer: dict, baked) -> tuple[bool, bool]:
    """(holds the key fact, states something the module contradicts)."""
    text = answer_text(answer).lower()
    wrong = any(phrase.lower() in text for phrase in entry.get("wrong", []))
    if entry.get("unanswerable"):
        return (not answer["found"]), bool(answer["passages"] or answer["numbers"])
    if entry.get("number"):
        numbers = answer["numbers"]
        expected = baked.value(entry["number"])
        ok = bool(numbers) and numbers[0]["path"] == entry["number"] and \
            abs(numbers[0]["value"] - expected) <= 1e-6 * max(1.0, abs(expected))
        return ok, bool(numbers) and not ok
    ok = all(any(phrase.lower() in text for phrase in item) for item in entry["key"])
    return ok, wrong


def in_node(site: Path, page: str, questions: list[dict]) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump([{"question": q["question"]} for q in questions], file)
    done = subprocess.run(["node", str(ANSWER), str(site), page, file.name], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def in_chromium(site: Path, page: str, questions: list[str]) -> list[float]:
    """Milliseconds from Ctrl+Enter to the answer in the page, question by question (the page
    times itself: data-scalecore-mentor-ms)."""
    from browser import ARGS, CHROMIUM, StaticServer
    from playwright.sync_api import sync_playwright

    server = StaticServer(site)
    times = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            tab = browser.new_context(service_workers="block").new_page()
            tab.goto(server.url + page)
            box = tab.get_by_role("textbox", name="Your question")
            box.focus()  # the reader comes to the box: the mentor starts loading
            tab.wait_for_selector("[data-scalecore-mentor-load-ms]", state="attached")
            times.append(float(tab.get_attribute("[data-scalecore-mentor]", "data-scalecore-mentor-load-ms")))
            for question in questions:
                tab.evaluate("document.querySelector('[data-scalecore-mentor-status]').textContent = ''")
                box.fill(question)
                box.press("Control+Enter")
                tab.wait_for_function("() => /Answered|Nothing in this module/.test("
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


def main() -> None:
    from test_module_page import Baked

    spec = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    questions, page = spec["questions"], spec["page"]
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        build(site)
        baked = Baked(site)
        node = in_node(site, page, questions)
        results = [score(q, a["answer"], baked) for q, a in zip(questions, node["answers"])]
        groups = {
            "the module's self-checks": [r for q, r in zip(questions, results) if q.get("self_check")],
            "our questions on the text": [r for q, r in zip(questions, results)
                                          if not (q.get("self_check") or q.get("number") or q.get("unanswerable"))],
            "numbers questions": [r for q, r in zip(questions, results) if q.get("number")],
            "questions the module does not answer": [r for q, r in zip(questions, results) if q.get("unanswerable")],
        }
        print(f"Question set: {len(questions)} questions ({QUESTIONS.relative_to(REPO)}), page {page}")
        print("Retrieval alone (no language model):")
        for name, rows in groups.items():
            print(f"  {name:40} {sum(ok for ok, _ in rows):3d}/{len(rows)} hold the key fact, "
                  f"{sum(bad for _, bad in rows)} state something the module contradicts")
        total_ok = sum(ok for ok, _ in results)
        total_bad = sum(bad for _, bad in results)
        print(f"  {'all':40} {total_ok:3d}/{len(results)} ({100 * total_ok / len(results):.0f}%) hold the key fact, "
              f"{total_bad} ({100 * total_bad / len(results):.0f}%) contradict the module")
        for q, (ok, bad) in zip(questions, results):
            if not ok:
                print(f"    missed: {q['question']}")
            if bad:
                print(f"    contradicts ({', '.join(w for w in q.get('wrong', []) if w.lower() in answer_text(node['answers'][questions.index(q)]['answer']).lower()) or 'a wrong number'}): {q['question']}")
        ms = [a["ms"] for a in node["answers"]]
        print(f"Node: index of {node['passages']} passages built in {node['indexMs']:.0f} ms; "
              f"an answer takes {statistics.median(ms):.1f} ms (median), {max(ms):.1f} ms (slowest)")
        times = in_chromium(site, page, [q["question"] for q in questions[:8]])
        print(f"Chromium: focus on the box to mentor ready (MiniSearch, core and data loaded, index built) {times[0]:.0f} ms;"
              f" Ctrl+Enter to the answer in the page: first {times[1]:.0f} ms, then {statistics.median(times[2:]):.0f} ms"
              f" (median of {len(times) - 2})")
        print("Bytes, fetched only when the reader comes to the question box:")
        print(f"  MiniSearch                {weight(site / 'assets/scalecore/vendor/minisearch.js')}")
        print(f"  mentor-core.js            {weight(site / 'assets/scalecore-module/mentor-core.js')}")
        for data in sorted((site / "assets/scalecore/mentor").glob("*.js")):
            print(f"  data {data.stem:22} {weight(data)}")
        print(f"When the mentor nears the viewport: mentor.js {weight(site / 'assets/scalecore-module/mentor.js')}")
        print(f"On a PDF only: pdf.js      {weight(site / 'assets/scalecore/vendor/pdfjs/pdf.min.js')} "
              f"+ worker {weight(site / 'assets/scalecore/vendor/pdfjs/pdf.worker.min.js')}")


if __name__ == "__main__":
    main()

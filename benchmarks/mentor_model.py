"""Does the mentor's optional local model help? Measured on the question set, in Chromium.

    .venv/bin/python -m benchmarks.mentor_model [--limit N]

Builds the site with ``mentor_model: true`` (the model is fetched once, pinned by hash), then,
for each question of tests/data/mentor-questions.json, asks it in the page as a reader would,
clicks "Ask a small local model...", and scores what the model wrote against what retrieval
alone shows (the same scoring as benchmarks/mentor.py): does the text hold the key fact, and
does it state one of the claims the module contradicts. It also reports the download size, the
time to load the model, the time to write a reply and tokens per second. It takes about a
minute per question on a small machine, so it is not part of ``python -m benchmarks``; it
writes benchmarks/MENTOR-MODEL.md with every reply, for people to read.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
QUESTIONS = REPO / "tests" / "data" / "mentor-questions.json"
OUT = Path(__file__).resolve().parent / "MENTOR-MODEL.md"


def build(target: Path) -> None:
    config = REPO / ".mkdocs-model.yml"  # beside mkdocs.yml: its paths are relative to it
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    config.write_text(text.replace("  - scalecore:\n", "  - scalecore:\n      mentor_model: true\n", 1), encoding="utf-8")
    try:
        subprocess.run([str(REPO / ".venv" / "bin" / "mkdocs"), "build", "-q", "-f", str(config), "-d", str(target)],
                       cwd=REPO, check=True, capture_output=True)
    finally:
        config.unlink()


def contains(text: str, phrases: list[str]) -> bool:
    return any(phrase.lower() in text.lower() for phrase in phrases)


def states_value(text: str, value: float) -> bool:
    """A number written in the text equals ``value`` to three significant digits (a whole number
    token, so the 1 in 1000 is not the value 1)."""
    for token in re.findall(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?", text, re.I):
        try:
            number = float(token.replace(",", ""))
        except ValueError:
            continue
        if number == value or (value and abs(number - value) <= 5e-3 * abs(value)):
            return True
    return False


def score(entry: dict, text: str, numbers: dict) -> tuple[bool, bool]:
    """(holds the key fact, states a claim the module contradicts), for the model's text alone.
    ``numbers``: quote path -> the baked value, read from the site before it is removed."""
    wrong = contains(text, entry.get("wrong", []))
    if entry.get("unanswerable"):
        return contains(text, ["do not know", "don't know", "not know", "cannot answer", "no information"]), wrong
    if entry.get("number"):
        return states_value(text, numbers[entry["number"]]), wrong
    return all(contains(text, item) for item in entry["key"]), wrong


def main() -> None:
    from browser import ARGS, CHROMIUM, StaticServer
    from playwright.sync_api import sync_playwright
    from test_module_page import Baked

    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions")
    parser.add_argument("--rescore", action="store_true",
                        help="score the replies of the last run (benchmarks/MENTOR-MODEL.md) again, without the model")
    args = parser.parse_args()
    if args.rescore:
        return rescore()
    spec = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    page = "modules/softmax-range.html"  # the model was measured on this page's questions (the set's first 48)
    questions = [q for q in spec["questions"] if q["page"] == page and "form" not in q][: args.limit or None]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        build(site)
        baked = Baked(site)
        numbers = {q["number"]: baked.value(q["number"]) for q in questions if q.get("number")}
        size = (site / "assets/scalecore/models/SmolLM2-135M-Instruct.Q4_1.gguf").stat().st_size
        wasm = (site / "assets/scalecore/vendor/wllama/wllama.wasm").stat().st_size
        server = StaticServer(site)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
                tab = browser.new_context(service_workers="block").new_page()
                tab.goto(server.url + page)
                load_ms = None
                for entry in questions:
                    tab.evaluate("document.querySelector('[data-scalecore-mentor-status]').textContent = ''")
                    box = tab.get_by_role("textbox", name="Your question")
                    box.fill(entry["question"])
                    box.press("Control+Enter")
                    tab.wait_for_function("() => /Answered|Nothing in this module/.test("
                                          "document.querySelector('[data-scalecore-mentor-status]').textContent)")
                    button = tab.get_by_role("button", name="Ask a small local model")
                    if button.count() == 0:  # nothing found: retrieval says so, no model is offered
                        rows.append((entry, None, 0.0, 0))
                        continue
                    button.click()
                    tab.wait_for_selector(".scalecore-mentor__written", timeout=600_000)
                    root = "[data-scalecore-mentor]"
                    if load_ms is None:
                        load_ms = float(tab.get_attribute(root, "data-scalecore-mentor-model-load-ms"))
                    ms = float(tab.get_attribute(root, "data-scalecore-mentor-model-ms"))
                    tokens = int(tab.get_attribute(root, "data-scalecore-mentor-model-tokens"))
                    text = tab.inner_text(".scalecore-mentor__written")
                    rows.append((entry, text, ms, tokens))
                    ok, bad = score(entry, text, numbers)
                    print(f"{len(rows)}/{len(questions)} {ms / 1000:.0f} s key fact {'yes' if ok else 'no'}, "
                          f"contradicts {'yes' if bad else 'no'}: {text[:160]!r}", flush=True)
                browser.close()
        finally:
            server.close()
    written = [(e, t, ms, n) for e, t, ms, n in rows if t is not None]
    scores = [score(e, t, numbers) for e, t, _, _ in written]
    held = sum(ok for ok, _ in scores)
    wrong = sum(bad for _, bad in scores)
    speed = [n / (ms / 1000) for _, _, ms, n in written if ms]
    lines = [
        f"Questions: {len(questions)}; the model was offered (retrieval found sources) for {len(written)}.",
        f"Download: model {size / 1e6:.0f} MB + wllama.wasm {wasm / 1e6:.1f} MB; loading it took {load_ms / 1000:.1f} s "
        f"from 127.0.0.1 (first use; later visits read it from this browser's storage).",
        f"Writing a reply: median {statistics.median([ms for *_, ms, _ in written]) / 1000:.0f} s "
        f"(prompt and up to 96 tokens), {statistics.median(speed):.1f} tokens/s overall (median).",
        f"The model's text holds the key fact: {held}/{len(written)} ({100 * held / max(1, len(written)):.0f}%).",
        f"The model's text states a listed claim the module contradicts: {wrong}/{len(written)}.",
    ]
    print("\n".join(lines))
    report = ["# The mentor's local model, measured", "",
              f"`python -m benchmarks.mentor_model`: SmolLM2-135M-Instruct (Q4_1) in wllama, in headless Chromium, "
              "on the question set `tests/data/mentor-questions.json`. Every reply is below, as written.", ""]
    report += [f"- {line}" for line in lines] + ["", "| # | question | key fact | contradicts | reply |", "|---|---|---|---|---|"]
    for number, ((entry, text, _, _), (ok, bad)) in enumerate(zip(written, scores), 1):
        cell = (text or "").replace("|", "\\|").replace("\n", " ")
        report.append(f"| {number} | {entry['question']} | {'yes' if ok else 'no'} | {'yes' if bad else 'no'} | {cell} |")
    OUT.write_text("\n".join(report) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


def replies_of_last_run() -> dict[str, str]:
    """question -> reply, from the table benchmarks/MENTOR-MODEL.md holds."""
    found = {}
    for line in OUT.read_text(encoding="utf-8").splitlines():
        cells = [c.replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 5 and cells[0].strip().isdigit():
            found[cells[1].strip()] = cells[4].strip()
    return found


def rescore() -> None:
    from test_module_page import Baked

    spec = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    replies = replies_of_last_run()
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        subprocess.run([str(REPO / ".venv" / "bin" / "mkdocs"), "build", "-q", "-d", str(site)], cwd=REPO, check=True,
                       capture_output=True)
        baked = Baked(site)
        numbers = {q["number"]: baked.value(q["number"]) for q in spec["questions"] if q.get("number")}
    scored = [(q, replies[q["question"]]) for q in spec["questions"]
              if q["question"] in replies and q["page"] == "modules/softmax-range.html" and "form" not in q]
    held = [score(q, text, numbers)[0] for q, text in scored]
    print(f"Rescored {len(scored)} replies of the last run: the key fact in {sum(held)}/{len(scored)} "
          f"({100 * sum(held) / len(scored):.0f}%)")
    for (q, _), ok in zip(scored, held):
        print(f"  {'yes' if ok else 'no ':3} {q['question']}")


if __name__ == "__main__":
    main()

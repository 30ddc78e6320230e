"""The mentor on a host that compresses nothing: what it costs a reader, and how fast it answers.

    .venv/bin/python -m benchmarks.mentor_bytes SITE [PAGE]

Serves SITE (a built site) with ``python -m http.server`` (no gzip, no Content-Encoding: the worst
static host), opens PAGE (default modules/softmax-range.html) in Chromium with no service worker,
and counts the bytes the server sends (Chromium's DevTools: each response's encodedDataLength,
headers included) before the reader comes to the question box and from then until the mentor is
ready with its sentence encoder; then, at 4x CPU throttling (Emulation.setCPUThrottlingRate), the
time from Ctrl+Enter to the answer on screen, as the page measures it (data-scalecore-mentor-ms),
for the development set's first questions on that page. Nothing here asserts.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
QUESTIONS = REPO / "tests" / "data" / "mentor-questions.json"
DONE = "() => /Answered|Nothing in this module|reads English only/.test(document.querySelector('[data-scalecore-mentor-status]').textContent)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def measure(site: Path, page: str = "modules/softmax-range.html", asked: int = 8, throttle: int = 4) -> dict:
    """{before, box, files, ms, ready_ms, meaning}: bytes sent before the box and from the box to
    ready, the files fetched from the box on ({path: bytes}), the answers' times at ``throttle``."""
    from browser import ARGS, CHROMIUM
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "-d", str(site)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
                 if q["page"] == page and q.get("form") != "language"][:asked]
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            tab = browser.new_context(service_workers="block").new_page()
            cdp = tab.context.new_cdp_session(tab)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            urls, sent = {}, []  # requestId -> url; (url, bytes) as each finishes
            cdp.on("Network.responseReceived", lambda e: urls.__setitem__(e["requestId"], e["response"]["url"]))
            cdp.on("Network.loadingFinished", lambda e: sent.append((urls.get(e["requestId"], "?"), e["encodedDataLength"])))
            tab.goto(f"http://127.0.0.1:{port}/{page}", wait_until="networkidle")
            before = sum(size for _, size in sent)
            mark = len(sent)
            started = time.perf_counter()
            box = tab.get_by_role("textbox", name="Your question")
            box.focus()  # the reader comes to the box: the mentor starts loading
            tab.wait_for_selector("[data-scalecore-mentor-load-ms]", state="attached", timeout=120000)
            ready_ms = (time.perf_counter() - started) * 1000
            meaning = tab.get_attribute("[data-scalecore-mentor]", "data-scalecore-mentor-meaning")
            tab.wait_for_timeout(500)  # anything still in flight that the box asked for
            files = {}
            for url, size in sent[mark:]:
                files[url.split(f":{port}/", 1)[-1]] = files.get(url.split(f":{port}/", 1)[-1], 0) + size
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            times = []
            for question in questions:
                tab.evaluate("document.querySelector('[data-scalecore-mentor-status]').textContent = ''")
                box.fill(question)
                box.press("Control+Enter")
                tab.wait_for_function(DONE, timeout=60000)
                times.append(float(tab.get_attribute("[data-scalecore-mentor]", "data-scalecore-mentor-ms")))
            browser.close()
    finally:
        server.terminate()
        server.wait()
    return {"before": before, "box": sum(files.values()), "files": files, "ms": times, "ready_ms": ready_ms,
            "meaning": meaning, "throttle": throttle}


def report(found: dict) -> None:
    print(f"python -m http.server (no compression): {found['before'] / 1e6:.2f} MB before the question box; from the box"
          f" to the mentor ready ({found['meaning']}): {found['box'] / 1e6:.2f} MB in {len(found['files'])} files,"
          f" {found['ready_ms'] / 1000:.1f} s on this machine")
    for path, size in sorted(found["files"].items(), key=lambda item: -item[1])[:8]:
        print(f"  {size / 1e6:8.3f} MB  {path}")
    ms = found["ms"]
    print(f"At {found['throttle']}x CPU throttling, after ready: Ctrl+Enter to the answer {statistics.median(ms):.0f} ms"
          f" (median of {len(ms)}), slowest {max(ms):.0f} ms")


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if not a.startswith("-")]
    report(measure(Path(arguments[0]).resolve(), *arguments[1:2]))

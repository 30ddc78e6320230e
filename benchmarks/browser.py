"""Browser benchmarks, measured in one run in headless Chromium: ``.venv/bin/python -m benchmarks.browser``.

- page weight before any live use: every byte the module page loads, against the same page
  built as plain mkdocs-material (plugin removed, blocks stripped), and the Pyodide bytes in it
  (the target is 0 until the reader asks for live mode);
- baked switch: click to repaint (DOM updated) and click to the next frame, median of 20 clicks;
- live ready (first live action to Python ready) against a bare Pyodide load of the same
  runtime in a module worker, each in a fresh browser context, median of 3;
- how live mode starts, each against that bare load, median of 3, with the bytes fetched from
  the first live action to Python ready: cold (the site without its memory snapshot, as with
  live_snapshot: false), from the snapshot, and with prefetch on intent (the pointer rests on
  the live control for INTENT_DWELL_MS before the click), with and without the snapshot; "wait"
  is click to Python ready, what the reader waits for;
- one live recompute of all 8 guard sets (click to the new numbers in the DOM), median of 5 after
  the first, in each of the 3 fresh contexts, and the median of those, with the part of it the
  worker spent on the request (Python and its JSON); and one live recompute of each other module's
  kind (multihead, encoder) on its own page.
Prints numbers; asserts nothing.
"""

import functools
import http.server
import json
import os
import platform
import statistics
import tempfile
import threading
from pathlib import Path

from benchmarks.build import serve_both

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PAGE = "modules/softmax-range.html"
# The site's isolation service worker reloads a console page once on a first visit; these numbers
# are for the page itself (benchmarks/console.py measures what that first visit costs).
BLOCK_SW = "block"
BARE = """<!doctype html><meta charset=utf-8><title>bare Pyodide</title><script>
const started = performance.now();
const worker = new Worker(URL.createObjectURL(new Blob([`
  import { loadPyodide } from "${new URL('site/assets/pyodide/pyodide.mjs', location.href)}";
  await loadPyodide({ indexURL: "${new URL('site/assets/pyodide/', location.href)}" });
  postMessage("ready");`], { type: "text/javascript" })), { type: "module" });
worker.onmessage = () => { window.bareReadyMs = performance.now() - started; };
</script>"""


class Quiet(http.server.ThreadingHTTPServer):
    daemon_threads = True


class Files(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def copyfile(self, source, outputfile):  # every byte served is counted (server.served)
        while block := source.read(1 << 16):
            outputfile.write(block)
            with self.server.lock:
                self.server.served += len(block)


def serve(folder: Path) -> tuple[Quiet, str]:
    server = Quiet(("127.0.0.1", 0), functools.partial(Files, directory=str(folder)))
    server.served, server.lock = 0, threading.Lock()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def page_weight(browser, url: str) -> tuple[int, int]:
    """Bytes of every response the page loads until the network is idle, and Pyodide's share."""
    context = browser.new_context(service_workers=BLOCK_SW)
    page = context.new_page()
    sizes = {}

    def record(response):
        try:
            sizes[response.url] = len(response.body())
        except Exception:  # redirects and aborted requests have no body
            pass

    page.on("response", record)
    page.goto(url, wait_until="networkidle")
    page.wait_for_timeout(500)
    context.close()
    return sum(sizes.values()), sum(size for u, size in sizes.items() if "/pyodide/" in u or u.endswith(".whl"))


# Panels hydrate when they come near the viewport: a benchmark scrolls to them, as a reader does.
REACH = """async kind => {
  for (const panel of document.querySelectorAll('.scalecore-panel--' + kind)) {
    panel.scrollIntoView();
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  }
}"""


def repaint(browser, url: str, clicks: int = 20) -> tuple[float, float]:
    page = browser.new_page(service_workers=BLOCK_SW)
    page.goto(url)
    page.evaluate(REACH, "scale-guards")
    page.wait_for_function("() => document.querySelector('.scalecore-panel--scale-guards [role=switch]:not([disabled])')")
    switch = page.locator(".scalecore-panel--scale-guards [role=switch]:not([disabled])").first
    dom, frame = [], []
    for _ in range(clicks):
        switch.click()
        page.wait_for_timeout(60)
        timings = page.evaluate("scalecoreTimings")
        dom.append(timings["lastRepaintMs"])
        frame.append(timings["lastRepaintFrameMs"])
    page.close()
    return statistics.median(dom), statistics.median(frame)


def live(browser, url: str, recomputes: int = 5) -> tuple[float, float, float]:
    context = browser.new_context(service_workers=BLOCK_SW)
    page = context.new_page()
    page.goto(url)
    page.evaluate(REACH, "scale-guards")
    page.wait_for_function("() => document.querySelector('.scalecore-panel--scale-guards [role=switch]:not([disabled])')")
    panel = page.locator(".scalecore-panel--scale-guards").filter(has=page.get_by_role("button", name="Compute live")).first
    panel.get_by_role("button", name="Compute live").click()
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(), timeout=120000)
    ready = page.evaluate("scalecoreTimings.liveReadyMs")
    times, worker = [], []
    for _ in range(recomputes):
        page.evaluate("delete scalecoreTimings.lastRecomputeMs")
        panel.get_by_role("button", name="Recompute live").click()
        page.wait_for_function("() => scalecoreTimings.lastRecomputeMs !== undefined", timeout=60000)
        times.append(page.evaluate("scalecoreTimings.lastRecomputeMs"))
        # The worker's own time on the request (live.js, lastCall.workerMs); the rest is the page's.
        worker.append(page.evaluate("(scalecoreTimings.lastCall || {}).workerMs ?? NaN"))
    context.close()
    return ready, statistics.median(times), statistics.median(worker)


# The other modules' kinds, each recomputed live on its own page by its panel's form.
KIND_PAGES = (
    ("multihead", "modules/multi-head-attention.html", "8 guard sets of 4 heads"),
    ("encoder", "modules/encoder-block.html", "3 LayerNorm placements x 6 layers of 4 heads"),
)


def open_live_form(browser, url: str, kind: str):
    """(context, page, panel): the page at ``url`` in a fresh context, the first panel of ``kind``
    with a live form reached and its form opened."""
    context = browser.new_context(service_workers=BLOCK_SW)
    page = context.new_page()
    page.goto(url)
    page.evaluate(REACH, kind)
    page.wait_for_function("k => document.querySelector('.scalecore-panel--' + k + ' .scalecore-live__open')", arg=kind)
    panel = page.locator(f".scalecore-panel--{kind}").filter(has=page.locator(".scalecore-live__open")).first
    panel.locator(".scalecore-live__open").click()
    return context, page, panel


def kind_recompute(browser, url: str, kind: str, recomputes: int = 5) -> float:
    """One live recompute of a kind's panel (its shared live form), median after the first (which
    also starts Pyodide): what a reader waits for after pressing Compute live again."""
    context, page, panel = open_live_form(browser, url, kind)
    run = panel.locator(".scalecore-live__form button[type=submit]")
    times = []
    for _ in range(recomputes + 1):
        page.evaluate("delete scalecoreTimings.lastRecomputeMs")
        run.click()
        page.wait_for_function("() => scalecoreTimings.lastRecomputeMs !== undefined", timeout=120000)
        times.append(page.evaluate("scalecoreTimings.lastRecomputeMs"))
    context.close()
    return statistics.median(times[1:])


INTENT_DWELL_MS = 400  # pointer over the control to click: a reader's aim, then the press
RECORD_CLICKS = "document.addEventListener('click', () => { window.clickedAt = performance.now(); }, true)"


def without_snapshot(route):
    """The page manifest without its memory snapshot: the site as built with live_snapshot: false."""
    response = route.fetch()
    data = response.json()
    data["runtime"].pop("snapshot", None)
    route.fulfill(response=response, body=json.dumps(data))


def live_start(browser, url: str, server, snapshot: bool, intent: bool) -> dict:
    """One start of live mode from a fresh context: click to Python ready (``wait``), worker start
    to ready (``ready``), bytes served from the first live action to ready, and what the worker
    said about the snapshot."""
    context = browser.new_context(service_workers=BLOCK_SW)
    context.add_init_script(RECORD_CLICKS)
    if not snapshot:
        context.route("**/api/panels.json", without_snapshot)
    page = context.new_page()
    page.goto(url, wait_until="networkidle")
    page.evaluate(REACH, "scale-guards")
    page.wait_for_function("() => document.querySelector('.scalecore-panel--scale-guards [role=switch]:not([disabled])')")
    panel = page.locator(".scalecore-panel--scale-guards").filter(has=page.get_by_role("button", name="Compute live")).first
    button = panel.get_by_role("button", name="Compute live")
    button.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    before = server.served
    if intent:
        button.hover()
        page.wait_for_timeout(INTENT_DWELL_MS)
        button.click()
    else:
        button.dispatch_event("click")  # no pointer movement first: nothing is prefetched
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(), timeout=120000)
    timings = page.evaluate("scalecoreTimings")
    clicked = page.evaluate("window.clickedAt")
    context.close()
    return {"wait": max(0.0, timings["liveReadyAt"] - clicked), "ready": timings["liveReadyMs"],
            "bytes": server.served - before, "snapshot": timings["liveStartup"].get("snapshot")}


STARTS = (  # label, snapshot, intent
    ("cold, no snapshot", False, False),
    ("prefetch on intent, no snapshot", False, True),
    ("from the snapshot", True, False),
    ("snapshot + prefetch on intent", True, True),
)


def bare(browser, url: str) -> float:
    context = browser.new_context(service_workers=BLOCK_SW)
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.bareReadyMs !== undefined", timeout=120000)
    ready = page.evaluate("bareReadyMs")
    context.close()
    return ready


def main() -> None:
    from playwright.sync_api import sync_playwright

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, Chromium /usr/bin/chromium")
    with tempfile.TemporaryDirectory(prefix="scalecore-bench-") as folder:
        work = Path(folder)
        serve_both(work)
        (work / "serve" / "bare.html").write_text(BARE, encoding="utf-8")
        server, base = serve(work / "serve")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                weight, pyodide_bytes = page_weight(browser, base + "site/" + PAGE)
                plain_weight, _ = page_weight(browser, base + "plain/" + PAGE)
                dom, frame = repaint(browser, base + "site/" + PAGE)
                readies, bares, recompute, in_worker, bare_bytes = [], [], [], [], []
                starts = {label: [] for label, _, _ in STARTS}
                for _ in range(3):
                    before = server.served
                    bares.append(bare(browser, base + "bare.html"))
                    bare_bytes.append(server.served - before)
                    ready, again, worker = live(browser, base + "site/" + PAGE)
                    readies.append(ready)
                    recompute.append(again)
                    in_worker.append(worker)
                    for label, snapshot, intent in STARTS:
                        starts[label].append(live_start(browser, base + "site/" + PAGE, server, snapshot, intent))
                kinds = {kind: kind_recompute(browser, base + "site/" + page, kind) for kind, page, _ in KIND_PAGES}
                browser.close()
        finally:
            server.shutdown()
    print(f"\npage weight before live use ({PAGE}):")
    print(f"  scalecore {weight / 1e3:8.0f} kB   plain Material {plain_weight / 1e3:8.0f} kB   "
          f"ratio {weight / plain_weight:.2f}   Pyodide bytes before live use: {pyodide_bytes}")
    print(f"\nbaked switch, median of 20 clicks: DOM updated {dom:.1f} ms, next frame {frame:.1f} ms (one frame: 16.7 ms)")
    live_ready, bare_ready = statistics.median(readies), statistics.median(bares)
    print(f"\nlive ready {live_ready:.0f} ms   bare Pyodide load {bare_ready:.0f} ms   ratio {live_ready / bare_ready:.2f}"
          f"   (medians of 3: live {', '.join(f'{r:.0f}' for r in readies)}; bare {', '.join(f'{b:.0f}' for b in bares)})")
    print(f"\nhow live mode starts (medians of 3; each / the bare load {bare_ready:.0f} ms, "
          f"{statistics.median(bare_bytes) / 1e6:.1f} MB fetched; intent: the pointer rests {INTENT_DWELL_MS} ms "
          "on Compute live before the click):")
    for label, _, _ in STARTS:
        runs = starts[label]
        wait = statistics.median(run["wait"] for run in runs)
        ready = statistics.median(run["ready"] for run in runs)
        fetched = statistics.median(run["bytes"] for run in runs)
        said = ", ".join(sorted({str(run["snapshot"]) for run in runs}))
        print(f"  {label:32s} wait after the click {wait:5.0f} ms ({wait / bare_ready:.2f}x)   worker start to ready "
              f"{ready:5.0f} ms ({ready / bare_ready:.2f}x)   fetched {fetched / 1e6:5.1f} MB   snapshot: {said}")
    print(f"live recompute of all 8 guard sets: {statistics.median(recompute):.1f} ms (median; of it in the worker, "
          f"Python and its JSON, {statistics.median(in_worker):.1f} ms; each run's median of 5 after the first: "
          f"{', '.join(f'{r:.1f}' for r in recompute)})")
    for kind, page, what in KIND_PAGES:
        print(f"live recompute, {kind} ({what}, {page}): {kinds[kind]:.0f} ms (median of 5 after the first)")


if __name__ == "__main__":
    main()

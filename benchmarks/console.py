"""The scratch console, measured in one run in headless Chromium: ``.venv/bin/python -m benchmarks.console``.

- a first visit to the module page on a host without COOP/COEP headers: the bytes it loads with
  the isolation worker and without service workers while the reader only reads (no reload), then
  what reaching for the console costs (the one reload) and how long from that click until the
  page is cross-origin isolated with the focus back in the editor;
- Stop to the next run's first output: `while True: pass`, Stop, then `print(1)`, timed from the
  click on Stop to the "1" on the page; on a cross-origin-isolated page (Python interrupted in
  place) against a page that is not (the worker restarted: Pyodide starts again), median of 3;
- `import sympy` from the site's offline wheels: the bytes downloaded (as the server counts them)
  and the time from Run to the answer, split into loading the wheels (download and unpack) and
  Python's own import, in a fresh page each time, median of 3;
- a flood (2,000,000 lines printed): its time, the main thread's long tasks meanwhile
  (PerformanceObserver 'longtask', wall clock: other work on the machine stretches them, so the
  load average is printed too) and the most CPU time any one main-thread task used (a trace).
Prints numbers; asserts nothing.
"""

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PAGE = "modules/softmax-range.html"
RUNNING = "() => !document.querySelector('.scalecore-panel--console[data-scalecore-running]')"  # a function: the pages' CSP forbids eval
ISOLATING = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}


class Server:
    """The site on a free 127.0.0.1 port, counting the bytes of each path it sends."""

    def __init__(self, directory: Path, headers: dict[str, str]):
        self.sent: dict[str, int] = {}
        sent, extra = self.sent, headers

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def copyfile(self, source, outputfile):  # a body sent (a 304 sends none)
                path = unquote(urlsplit(self.path).path)
                start = source.tell()
                super().copyfile(source, outputfile)
                sent[path] = sent.get(path, 0) + source.tell() - start

            def end_headers(self):
                for name, value in extra.items():
                    self.send_header(name, value)
                super().end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(directory)))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def open_console(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    page.goto(url)
    panel = page.locator(".scalecore-panel--console").first
    panel.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'true'", arg=panel.element_handle())
    return context, page, panel, panel.locator("textarea"), panel.locator("pre.scalecore-console__output")


def run(page, editor, code: str, wait: bool = True, timeout: float = 300_000):
    editor.fill(code)
    editor.press("Control+Enter")
    if wait:
        page.wait_for_function(RUNNING, timeout=timeout)


def stop_to_output(browser, url: str) -> float:
    context, page, panel, editor, output = open_console(browser, url)
    run(page, editor, "print('warm')")
    run(page, editor, "while True: pass", wait=False)
    page.wait_for_timeout(500)
    started = page.evaluate("""() => new Promise((resolve) => {
      const out = document.querySelector('.scalecore-panel--console pre.scalecore-console__output');
      const before = out.textContent.length;
      window.firstOutput = null;
      new MutationObserver((changes, observer) => {
        if (out.textContent.slice(before).includes('\\n1\\n') || out.textContent.endsWith('\\n1\\n')) {
          window.firstOutput = performance.now(); observer.disconnect();
        }
      }).observe(out, {subtree: true, childList: true, characterData: true});
      resolve(performance.now());
    })""")
    panel.get_by_role("button", name="Stop").click()
    page.wait_for_function(RUNNING, timeout=120_000)
    editor.fill("print(1)")
    editor.press("Control+Enter")
    page.wait_for_function("() => window.firstOutput !== null", timeout=120_000)
    ms = page.evaluate("window.firstOutput") - started
    mode = page.evaluate("scalecoreTimings.lastStopMode")
    context.close()
    return ms, mode


def import_sympy(browser, server: Server) -> tuple[float, float, int]:
    context, page, panel, editor, output = open_console(browser, server.url + PAGE)
    run(page, editor, "print('warm')")
    before = dict(server.sent)
    started = time.monotonic()
    run(page, editor, "import time\n_t = time.perf_counter()\nimport sympy\nprint(round(time.perf_counter() - _t, 3))")
    total = time.monotonic() - started
    python = float(output.text_content().strip().splitlines()[-1])
    wheels = sum(size - before.get(path, 0) for path, size in server.sent.items() if path.endswith(".whl"))
    context.close()
    return total, python, wheels


def flood(browser, url: str, trace: Path) -> tuple[float, list[int], float]:
    """Seconds, the long tasks' wall-clock ms, and the most CPU one main-thread task used (ms,
    from a Chromium trace: what the page itself cost, whatever else the machine was doing)."""
    context, page, panel, editor, output = open_console(browser, url)
    run(page, editor, "print('warm')")
    browser.start_tracing(page=page, path=str(trace), categories=["toplevel", "devtools.timeline", "blink.user_timing"])
    page.evaluate("""() => { window.longTasks = []; performance.mark('scalecore-flood');
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(Math.round(e.duration)); })
        .observe({type: 'longtask'}); }""")
    started = time.monotonic()
    run(page, editor, "for i in range(2_000_000):\n    print(i)", timeout=900_000)
    seconds = time.monotonic() - started
    tasks = page.evaluate("window.longTasks")
    browser.stop_tracing()
    context.close()
    data = json.loads(trace.read_text(encoding="utf-8"))
    events = data["traceEvents"] if isinstance(data, dict) else data
    mark = next(e for e in events if e.get("name") == "scalecore-flood" and "blink.user_timing" in e.get("cat", ""))
    cpu = max((e.get("tdur", e.get("dur", 0)) for e in events
               if e.get("name") in ("RunTask", "ThreadControllerImpl::RunTask") and e.get("ph") == "X"
               and (e.get("pid"), e.get("tid")) == (mark["pid"], mark["tid"]) and e["ts"] >= mark["ts"]), default=0)
    return seconds, tasks, cpu / 1000


def first_visit(browser, server: Server, service_workers: str) -> tuple[int, int, float]:
    """Bytes the server sent for a first visit to the module page while the reader only reads,
    then in all once they clicked into the console (the isolation worker's one reload included,
    when service workers run; files the browser has already are revalidated, and http.server
    answers those with a 304 and no body), and the seconds from that click until the page is
    cross-origin isolated with the focus back in the editor (0 when it never is)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers=service_workers)
    page = context.new_page()
    before = dict(server.sent)

    def sent() -> int:
        return sum(size - before.get(path, 0) for path, size in server.sent.items())

    page.goto(server.url + PAGE, wait_until="networkidle")
    page.wait_for_timeout(1000)
    reading = sent()
    isolated = 0.0
    if service_workers == "allow":
        page.wait_for_function("() => globalThis.scalecoreIsolation && globalThis.scalecoreIsolation.active")
        page.locator(".scalecore-panel--console").first.scroll_into_view_if_needed()  # it hydrates
        editor = page.locator(".scalecore-panel--console textarea").first
        editor.wait_for()
        clicked = time.monotonic()
        editor.click()
        while time.monotonic() - clicked < 30:
            try:
                if page.evaluate("crossOriginIsolated && document.activeElement && "
                                 "document.activeElement.matches('.scalecore-panel--console textarea')"):
                    isolated = time.monotonic() - clicked
                    break
            except Exception:  # noqa: BLE001 - reloading
                pass
            page.wait_for_timeout(50)
        page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    context.close()
    return reading, sent(), isolated


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as work:
        site = Path(work) / "site"
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=ROOT,
                       check=True, capture_output=True)
        isolated, plain = Server(site, ISOLATING), Server(site, {})
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            without, _, _ = first_visit(browser, plain, "block")
            reading, reached, seconds = first_visit(browser, plain, "allow")
            print(f"first visit to the module page on a host without COOP/COEP: {reading / 1e3:,.0f} kB sent with "
                  f"the isolation worker while reading (no reload) against {without / 1e3:,.0f} kB without service "
                  f"workers; reaching for the console reloads the page once and starts Python on that intent: "
                  f"{(reached - reading) / 1e3:,.0f} kB more (Pyodide included), "
                  f"isolated with the editor focused {seconds:.2f} s after the click")
            if "first-visit" in sys.argv[1:]:
                return
            for name, server in (("isolated (interrupt)", isolated), ("not isolated (restart)", plain)):
                measured = [stop_to_output(browser, server.url + PAGE) for _ in range(3)]
                modes = sorted({mode for _, mode in measured})
                print(f"Stop -> next run's first output, {name}: {statistics.median(ms for ms, _ in measured):,.0f} ms "
                      f"(median of 3; stop mode {', '.join(modes)})")
            imports = [import_sympy(browser, isolated) for _ in range(3)]
            total = statistics.median(i[0] for i in imports)
            python = statistics.median(i[1] for i in imports)
            print(f"import sympy (first, offline wheels): {imports[0][2] / 1e6:.2f} MB downloaded "
                  f"(sympy + mpmath wheels); {total:.2f} s from Run to the answer, of which Python's import "
                  f"{python:.2f} s and loading the wheels {total - python:.2f} s (median of 3)")
            load = os.getloadavg()[0]
            seconds, tasks, cpu = flood(browser, isolated.url + PAGE, Path(work) / "trace.json")
            print(f"flood of 2,000,000 lines: {seconds:.1f} s; long tasks on the main thread (wall clock): "
                  f"{len(tasks)}{' (longest ' + str(max(tasks)) + ' ms)' if tasks else ''}; the most CPU one "
                  f"main-thread task used: {cpu:.1f} ms; load average {load:.2f} on {os.cpu_count()} cores at the start")
            browser.close()


if __name__ == "__main__":
    main()

"""The console's full scientific stack against its Pyodide, in one run in headless Chromium:
``.venv/bin/python -m benchmarks.full_stack``.

- bytes: what the option adds to the site (every file under assets/fullstack/), and what a
  reader downloads: python.wasm and the trimmed standard library, raw and as the gzip parts the
  site publishes (what every host sends), part by part;
- time to first output: from Run on `print(1)` to the "1" on the page, in a fresh browser
  context (nothing cached) for Pyodide and for the full stack, and on a revisit (the page
  opened again in a browser profile on disk: its HTTP cache), the full stack served two ways: as
  plain files (the worker decodes the parts), and as a host that sends a .gz file with
  Content-Encoding: gzip (the browser decodes the parts; the worker takes them as they are),
  with the bytes the server sent;
- first imports, timed in Python (time.perf_counter around the import): numpy, pandas,
  sklearn, matplotlib.pyplot, each once in that order on a fresh full stack;
- Stop: from the click to the console idle, and the restart from the compiled module.
Prints numbers; asserts nothing.
"""

import functools
import json
import os
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
RUNNING = "() => !document.querySelector('.scalecore-panel--console[data-scalecore-running]')"
FIRST_OUTPUT = """() => { window.firstOutput = null;
  if (window.firstOutputObserver) window.firstOutputObserver.disconnect();
  const out = document.querySelector('.scalecore-panel--console pre.scalecore-console__output');
  const before = out.textContent.length; // only what this run adds counts
  window.firstOutputObserver = new MutationObserver(() => {
    if (window.firstOutput === null && /\\n1\\n/.test(out.textContent.slice(before))) window.firstOutput = performance.now();
  });
  window.firstOutputObserver.observe(out, {childList: true, subtree: true, characterData: true});
  return performance.now(); }"""


class Server:
    """The site on a free 127.0.0.1 port, counting the bytes it sends; with ``gzip``, a .gz file
    is sent with Content-Encoding: gzip (the browser decodes it), as some hosts do."""

    def __init__(self, directory: Path, gzip: bool = False):
        self.sent = 0
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send_head(self):
                packed = Path(self.translate_path(self.path))
                if gzip and packed.suffix == ".gz" and packed.is_file() and "gzip" in self.headers.get("Accept-Encoding", ""):
                    body = packed.open("rb")
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(packed.stat().st_size))
                    self.end_headers()
                    return body
                return super().send_head()

            def copyfile(self, source, outputfile):
                start = source.tell()
                super().copyfile(source, outputfile)
                server.sent += source.tell() - start

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(directory)))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def open_console(context, url: str):
    page = context.new_page()
    page.goto(url)
    panel = page.locator(".scalecore-panel--console").first
    panel.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'true'", arg=panel.element_handle())
    return page, panel, panel.locator("textarea"), panel.locator("pre.scalecore-console__output")


def run(page, editor, code: str, wait: bool = True):
    editor.fill(code)
    editor.press("Control+Enter")
    if wait:
        page.wait_for_function(RUNNING, timeout=600_000)


def first_output(page, panel, editor, runtime: str) -> float:
    """Seconds from Run on print(1) to the 1 on the page, on ``runtime``."""
    panel.locator("select.scalecore-console__runtime").select_option(runtime)
    started = page.evaluate(FIRST_OUTPUT)
    run(page, editor, "print(1)", wait=False)
    page.wait_for_function("() => window.firstOutput !== null", timeout=600_000)
    seconds = (page.evaluate("window.firstOutput") - started) / 1000
    page.wait_for_function(RUNNING, timeout=600_000)
    return seconds


def imports(page, editor, output) -> dict[str, float]:
    times = {}
    for name in ("numpy", "pandas", "sklearn", "matplotlib.pyplot"):
        run(page, editor, f"import time as _time\n_t = _time.perf_counter()\nimport {name}\nprint(round(_time.perf_counter() - _t, 2))")
        times[name] = float(output.text_content().strip().splitlines()[-1])
    return times


def stop(page, panel, editor) -> tuple[float, float]:
    run(page, editor, "while True:\n    pass", wait=False)
    page.wait_for_timeout(1000)
    clicked = time.monotonic()
    panel.get_by_role("button", name="Stop").click()
    page.wait_for_function(RUNNING, timeout=60_000)
    idle = time.monotonic() - clicked
    page.wait_for_function("() => scalecoreTimings.fullStack && scalecoreTimings.fullStack.restartReadyMs", timeout=60_000)
    return idle, page.evaluate("scalecoreTimings.fullStack.restartReadyMs") / 1000


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as work:
        site = Path(work) / "site"
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=ROOT,
                       check=True, capture_output=True)
        runtime = json.loads((site / "api" / "index.json").read_text(encoding="utf-8"))["runtime"]
        added = sum(path.stat().st_size for path in (site / "assets" / "fullstack").rglob("*") if path.is_file())
        largest = max(path.stat().st_size for path in site.rglob("*") if path.is_file())
        print(f"bytes the option adds to the site: {added / 1e6:.1f} MB (every file under assets/fullstack/); "
              f"the site's largest file: {largest / 2**20:.1f} MiB")
        pyodide = sum(entry.get("bytes") or (site / "api" / entry["url"]).resolve().stat().st_size
                      for key, entry in runtime.items() if key.startswith("pyodide"))
        for key, name in (("fullstack_wasm", "python.wasm"), ("fullstack_stdlib", "python315.zip (trimmed, stored)")):
            entry = runtime[key]
            published = sum(part["bytes"] for part in entry["parts"])
            print(f"  {name:34} raw {entry['bytes'] / 1e6:6.1f} MB  published {published / 1e6:5.1f} MB in "
                  f"{len(entry['parts'])} gzip parts (" + ", ".join(f"{part['bytes'] / 1e6:.1f}" for part in entry["parts"]) + " MB)")
        raw = runtime["fullstack_wasm"]["bytes"] + runtime["fullstack_stdlib"]["bytes"]
        published = sum(part["bytes"] for key in ("fullstack_wasm", "fullstack_stdlib") for part in runtime[key]["parts"])
        print(f"  {'a reader downloads (both)':34} raw {raw / 1e6:6.1f} MB  published {published / 1e6:5.1f} MB, from any host"
              f"   (Pyodide's files, raw: {pyodide / 1e6:.1f} MB)")

        plain, packed = Server(site), Server(site, gzip=True)
        with sync_playwright() as playwright:
            browser_type = playwright.chromium
            browser = browser_type.launch(executable_path="/usr/bin/chromium", args=ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
            page, panel, editor, output = open_console(context, plain.url + PAGE)
            on_pyodide = first_output(page, panel, editor, "pyodide")
            sent = plain.sent
            fresh = first_output(page, panel, editor, "full")
            fresh_sent = plain.sent - sent
            times = imports(page, editor, output)
            idle, restart = stop(page, panel, editor)
            context.close()
            # A revisit, in a browser profile on disk (a fresh context is off the record: its
            # cache keeps no file as large as python.wasm): the first visit fills the cache.
            profile = browser_type.launch_persistent_context(str(Path(work) / "profile"), executable_path="/usr/bin/chromium",
                                                             args=ARGS, viewport={"width": 1280, "height": 900},
                                                             service_workers="block")
            page, panel, editor, output = open_console(profile, plain.url + PAGE)
            first_output(page, panel, editor, "full")
            page.close()
            page, panel, editor, output = open_console(profile, plain.url + PAGE)
            sent = plain.sent
            revisit = first_output(page, panel, editor, "full")
            revisit_sent = plain.sent - sent
            profile.close()
            context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
            page, panel, editor, output = open_console(context, packed.url + PAGE)
            sent = packed.sent
            gzip_fresh = first_output(page, panel, editor, "full")
            gzip_sent = packed.sent - sent
            context.close()
            browser.close()
        print(f"time to first output (Run on print(1) to the 1 on the page), fresh context, plain files:")
        print(f"  Pyodide {on_pyodide:.1f} s; full stack {fresh:.1f} s ({fresh_sent / 1e6:.1f} MB sent), "
              f"ratio {fresh / on_pyodide:.1f}x")
        print(f"  full stack, the parts sent with Content-Encoding: gzip (the browser decodes): {gzip_fresh:.1f} s "
              f"({gzip_sent / 1e6:.1f} MB sent)")
        print(f"  full stack, revisit (a profile on disk, its HTTP cache filled by a first visit): {revisit:.1f} s ({revisit_sent / 1e6:.2f} MB sent)")
        print("first imports on the full stack, timed in Python: " +
              ", ".join(f"{name} {seconds:.2f} s" for name, seconds in times.items()))
        print(f"Stop on `while True: pass`: the console idle {idle:.2f} s after the click; Python ready again "
              f"{restart:.2f} s after it (from the compiled module); load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

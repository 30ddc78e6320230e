"""The console's full scientific stack in Chromium (issue 31), on this repository's own site
(mkdocs.yml turns console_full_stack on), served from 127.0.0.1.

Every page here is watched (tests/browser.py, visit): a request to any other host, a console
error or a CSP violation fails the test. Timings are printed (run with -s), never asserted:
the numbers live in benchmarks/ (python -m benchmarks full_stack).
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

pytest.register_assert_rewrite("browser")
from browser import module_page, page_url, python_http_server  # noqa: E402

RUNNING = "() => !document.querySelector('.scalecore-panel--console[data-scalecore-running]')"
FULL_STACK_TIMEOUT_MS = 300_000  # a cold start downloads ~50 MB and imports scikit-learn: this catches a hang only
FIT = ("import numpy as np, pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
       "X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = [0, 0, 1, 1]\n"
       "model = LogisticRegression().fit(X, y)\nmodel.predict([[0.2], [2.8]]).tolist()")


class IsolatingServer:
    """The site on a free 127.0.0.1 port with COOP/COEP headers: its pages are cross-origin
    isolated from the start, so input() can wait for the reader."""

    def __init__(self, directory):
        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def end_headers(self):
                self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
                super().end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(directory)))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def isolating(built_site, visit):
    server = IsolatingServer(built_site)
    yield server
    try:
        visit.close_all()  # the pages go before their server
    finally:
        server.close()


@pytest.fixture(scope="module")
def lesson(built_site) -> str:
    return page_url(module_page(built_site))


def console(page):
    panel = page.locator(".scalecore-panel--console").first
    panel.scroll_into_view_if_needed()
    expect(panel).to_have_attribute("data-scalecore-hydrated", "true", timeout=30_000)
    return panel, panel.locator("textarea"), panel.locator("pre.scalecore-console__output")


def run(page, editor, code: str, wait: bool = True):
    editor.fill(code)
    editor.press("Control+Enter")
    if wait:
        page.wait_for_function(RUNNING, timeout=FULL_STACK_TIMEOUT_MS)


def last_run(output) -> str:
    """What the last run printed: the output after its echoed code (text only)."""
    return output.evaluate("""out => {
      const echoes = out.querySelectorAll('[data-stream="input"]');
      const after = document.createRange();
      after.setStartAfter(echoes[echoes.length - 1]);
      after.setEndAfter(out.lastChild);
      return after.toString();
    }""")


def switch_and_run(page, panel, editor, code: str) -> float:
    """Run code that imports the stack on Pyodide: the offer, then its switch; seconds to done."""
    run(page, editor, code, wait=False)
    offer = panel.locator(".scalecore-console__offer")
    expect(offer).to_contain_text("This site also ships the full scientific stack")
    expect(offer).to_contain_text(" MB download")
    started = time.monotonic()
    offer.get_by_role("button", name="Switch to the full stack and run").click()
    page.wait_for_function(RUNNING, timeout=FULL_STACK_TIMEOUT_MS)
    return time.monotonic() - started


def test_numpy_code_is_offered_the_full_stack_which_fits_a_model_and_keeps_state(visit, site_server, lesson):
    page, _ = visit(site_server.url + lesson)
    panel, editor, output = console(page)
    expect(panel.locator("select.scalecore-console__runtime")).to_have_value("pyodide")  # Pyodide first
    took = switch_and_run(page, panel, editor, FIT)
    print(f"\nfull stack: first run (download, start, imports, fit) {took:.1f} s")
    assert last_run(output) == "[0, 1]\n"
    assert output.locator('[data-stream="input"]').count() == 1  # the offer ran nothing on Pyodide
    run(page, editor, "pd.DataFrame({'g': [1, 1, 2], 'v': [1, 2, 3]}).groupby('g').v.sum().to_dict()")
    assert last_run(output) == "{1: 3, 2: 3}\n"  # `pd` from the run before: state is kept
    run(page, editor, "import time\nstart = time.monotonic(); time.sleep(0.2); time.monotonic() - start")
    assert 0.2 <= float(last_run(output)) < 1.0  # measured in Python: the shim's own wait took seconds
    run(page, editor, "def inner():\n    return 1 / 0\ninner()")
    failed = last_run(output)
    assert 'File "<console>", line 2, in inner' in failed and "ZeroDivisionError: division by zero" in failed
    assert "\x1b" not in output.text_content()
    run(page, editor, "type(load_table('demo')).__name__, scalecore.__name__")
    assert last_run(output) == "('EmbeddingTable', 'scalecore')\n"  # the site's core and its tables
    run(page, editor, "name = input('Your name? ')")
    assert "input() cannot read here: this page is not cross-origin isolated" in last_run(output)

    page.reload()  # the choice is remembered for the site
    panel, editor, output = console(page)
    expect(panel.locator("select.scalecore-console__runtime")).to_have_value("full")
    run(page, editor, "import numpy as np\nint(np.arange(5).sum())")
    assert last_run(output) == "10\n"
    assert panel.locator(".scalecore-console__offer").is_hidden()


def test_stop_ends_a_busy_loop_restarts_at_once_and_offers_the_earlier_snippets(visit, site_server, lesson):
    page, _ = visit(site_server.url + lesson)
    panel, editor, output = console(page)
    panel.locator("select.scalecore-console__runtime").select_option("full")  # chosen up front
    run(page, editor, "x = 41")
    run(page, editor, "while True:\n    pass", wait=False)
    expect(panel.get_by_role("button", name="Stop")).to_be_enabled()
    page.wait_for_timeout(500)  # the loop is running
    asked = time.monotonic()
    panel.get_by_role("button", name="Stop").click()
    page.wait_for_function(RUNNING, timeout=FULL_STACK_TIMEOUT_MS)
    print(f"\nfull stack: Stop to the console idle {time.monotonic() - asked:.2f} s")
    assert "Stopped. The full stack cannot be interrupted in place" in last_run(output)
    offer = panel.locator(".scalecore-console__offer")
    expect(offer).to_contain_text("Python was restarted, so what earlier snippets defined is gone")
    offer.get_by_role("button", name="Run the earlier snippet again").click()
    page.wait_for_function(RUNNING, timeout=FULL_STACK_TIMEOUT_MS)
    run(page, editor, "x + 1")
    assert last_run(output) == "42\n"
    ready = page.evaluate("scalecoreTimings.fullStack")
    print(f"full stack: first ready {ready['readyMs']:.0f} ms, after Stop {ready['restartReadyMs']:.0f} ms")


def test_a_matplotlib_figure_shows_as_an_image_under_the_pages_policy(visit, site_server, lesson):
    page, watch = visit(site_server.url + lesson, bypass_csp=False)  # the site's CSP applies
    panel, editor, output = console(page)
    panel.locator("select.scalecore-console__runtime").select_option("full")
    editor.fill("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2]); plt.title('three points'); plt.show()\n"
                "print('after the figure')")
    editor.press("Control+Enter")
    figure = output.locator("img.scalecore-console__figure")
    expect(figure).to_be_visible(timeout=FULL_STACK_TIMEOUT_MS)
    expect(output).to_contain_text("after the figure", timeout=FULL_STACK_TIMEOUT_MS)
    assert figure.get_attribute("src").startswith("blob:")
    assert figure.evaluate("img => img.complete && img.naturalWidth") > 100  # decoded: the policy let it load
    assert watch.problems() == []  # no CSP violation, no request elsewhere


def test_a_changed_byte_in_a_full_stack_file_is_refused_with_the_reason(visit, site_server, lesson):
    def tampered(route):
        response = route.fetch()
        body = bytearray(response.body())
        body[0] ^= 0x01
        route.fulfill(response=response, body=bytes(body))

    page, _ = visit(site_server.url + lesson)
    page.route("**/assets/fullstack/shim/wasi.js", tampered)
    panel, editor, output = console(page)
    panel.locator("select.scalecore-console__runtime").select_option("full")
    run(page, editor, "1 + 1")
    assert "failed its check: its sha256 is" in last_run(output)
    assert "fullstack/shim/wasi.js" in last_run(output)
    assert "2\n" not in last_run(output)


def test_a_plain_http_server_sends_what_the_label_says_and_numpy_runs(visit, built_site, lesson):
    """``python -m http.server`` (no Content-Encoding, the way the guides serve a site): the
    parts arrive as published, and what the browser received for them is the label's size."""
    process, url = python_http_server(built_site)
    try:
        page, _ = visit(url + lesson)
        finished = []
        page.context.on("requestfinished", lambda request: finished.append(request))
        panel, editor, output = console(page)
        run(page, editor, "import numpy\nint(numpy.arange(4).sum())", wait=False)
        offer = panel.locator(".scalecore-console__offer")
        expect(offer).to_contain_text(" MB download")
        label = re.search(r"a (\d+) MB download \((\d+) MB unpacked\)", offer.text_content())
        assert label, offer.text_content()
        offer.get_by_role("button", name="Switch to the full stack and run").click()
        page.wait_for_function(RUNNING, timeout=FULL_STACK_TIMEOUT_MS)
        assert last_run(output) == "6\n"
        parts = [request for request in finished
                 if re.search(r"/assets/fullstack/[^/]+\.part-\d+\.gz$", request.url)]
        manifest = json.loads((built_site / "api" / "index.json").read_text(encoding="utf-8"))["runtime"]
        listed = [part for key in ("fullstack_wasm", "fullstack_stdlib") for part in manifest[key]["parts"]]
        assert len(parts) == len(listed)
        assert all(request.response().header_value("content-encoding") is None for request in parts)
        received = sum(request.sizes()["responseBodySize"] for request in parts)
        assert received == sum(part["bytes"] for part in listed)
        stated = int(label[1]) * 1e6
        print(f"\nfull stack over http.server: label {label[0]!r}, received {received} bytes in {len(parts)} parts")
        assert abs(received - stated) <= 0.02 * stated
        assert int(label[2]) == round(sum(manifest[key]["bytes"] for key in ("fullstack_wasm", "fullstack_stdlib")) / 1e6)
    finally:
        visit.close_all()  # the pages go before their server
        process.terminate()
        process.wait()


def test_a_part_a_host_decoded_is_taken_as_it_is(visit, site_server, lesson):
    def decoded(route):  # as a host that sent it with Content-Encoding: gzip leaves it to the worker
        response = route.fetch()
        route.fulfill(status=200, body=gzip.decompress(response.body()),
                      headers={"content-type": "application/octet-stream"})

    page, _ = visit(site_server.url + lesson)
    page.route("**/assets/fullstack/python315.zip.part-*.gz", decoded)
    panel, editor, output = console(page)
    panel.locator("select.scalecore-console__runtime").select_option("full")
    run(page, editor, "import numpy\nint(numpy.arange(3).sum())")
    assert last_run(output) == "3\n"


def test_a_changed_byte_in_a_part_is_refused_with_the_reason(visit, site_server, lesson):
    def tampered(route):
        response = route.fetch()
        body = bytearray(response.body())
        body[len(body) // 2] ^= 0x01
        route.fulfill(response=response, body=bytes(body))

    page, _ = visit(site_server.url + lesson)
    page.route("**/assets/fullstack/python.wasm.part-2.gz", tampered)
    panel, editor, output = console(page)
    panel.locator("select.scalecore-console__runtime").select_option("full")
    run(page, editor, "1 + 1")
    assert "fullstack/python.wasm.part-2.gz failed its check: its sha256 is" in last_run(output)
    assert "2\n" not in last_run(output)


def test_a_browser_without_exception_handling_is_told_so_before_any_download(visit, site_server, lesson):
    page, watch = visit(site_server.url + lesson)
    page.add_init_script("WebAssembly.validate = () => false")  # as a browser without exnref answers
    page.reload()
    panel, editor, output = console(page)
    run(page, editor, "import numpy", wait=False)
    offer = panel.locator(".scalecore-console__offer")
    expect(offer).to_contain_text("This browser cannot run the full scientific stack")
    expect(offer.get_by_role("button", name="Switch to the full stack and run")).to_have_count(0)
    panel.locator("select.scalecore-console__runtime").select_option("full")
    expect(panel.locator("select.scalecore-console__runtime")).to_have_value("pyodide")
    assert not any("/assets/fullstack/" in url for url in watch.requests)


def test_from_disk_the_console_says_how_to_serve_the_site(visit, built_site, lesson):
    page, _ = visit((built_site / lesson / "index.html" if not lesson.endswith(".html") else built_site / lesson).as_uri())
    panel = page.locator(".scalecore-panel--console").first
    panel.scroll_into_view_if_needed()  # panels hydrate as they come into view
    expect(panel).to_have_attribute("data-scalecore-hydrated", "true", timeout=30_000)
    expect(panel).to_contain_text("allow that only for pages served over http")
    expect(panel.locator(".scalecore-note--http")).to_contain_text("python3 -m http.server")
    expect(panel.locator("select.scalecore-console__runtime")).to_have_count(0)  # nothing to choose from disk


def test_input_waits_for_the_readers_answer_on_an_isolated_page(visit, isolating, lesson):
    page, _ = visit(isolating.url + lesson)
    assert page.evaluate("crossOriginIsolated")
    panel, editor, output = console(page)
    panel.locator("select.scalecore-console__runtime").select_option("full")
    run(page, editor, "name = input('Your name? ')\nprint('Hello, ' + name)", wait=False)
    answer = output.get_by_role("textbox", name="Answer to Python's input(): Your name?")
    expect(answer).to_be_focused(timeout=FULL_STACK_TIMEOUT_MS)
    answer.fill("Ada")
    answer.press("Enter")
    page.wait_for_function(RUNNING, timeout=FULL_STACK_TIMEOUT_MS)
    assert last_run(output) == "Your name? Ada\nHello, Ada\n"


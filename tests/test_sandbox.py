"""The console's box, end to end in Chromium (issue 16, item 9).

Code pasted in the console runs in the Pyodide worker. It must not reach another origin (a
second server on 127.0.0.1, on another port, logs every connection and must log none), it must
get a clear error saying so, and it must not be able to make the page show a message of its
own (a forged progress, ready, stream or result message, or an error event). The site's own
origin stays reachable (load_table, fetch), and the console, live mode and Stop keep working.

The page may make requests to that second server as far as the browser watch is concerned
(they are not aborted), so the server's log is what proves nothing left.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser import PYODIDE_TIMEOUT_MS, module_page, page_url, same_origin

MARKER = "FORGED"  # never written as one word in console code: the console echoes the code
IDLE = "!document.querySelector('.scalecore-panel--console[data-scalecore-running]')"


class _Logger(BaseHTTPRequestHandler):
    """Answers anything with 200 (CORS open, as JavaScript), after logging it."""

    log: list[str]

    def log_message(self, *args):  # quiet
        pass

    def handle(self):
        self.log.append(f"connection from {self.client_address[0]}")
        super().handle()

    def _answer(self):
        self.log.append(f"{self.command} {self.path}")
        body = b"export default 1; fetch(location.origin + '/from-script');"
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Type", "text/javascript")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = do_OPTIONS = _answer


@pytest.fixture
def elsewhere():
    """Another origin on 127.0.0.1 (another port) that logs every connection and request."""
    log: list[str] = []
    handler = type("Handler", (_Logger,), {"log": log})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.origin = f"http://127.0.0.1:{server.server_address[1]}"
    server.requests = log
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def lesson(visit, site_server, built_site, elsewhere):
    """The lesson page (it has a console and live panels); requests to `elsewhere` are let
    through by the browser watch, so only the sandbox can stop them."""
    own = same_origin(site_server.url)
    page, watch = visit(site_server.url + page_url(module_page(built_site)),
                        allowed=lambda url: own(url) or url.startswith(elsewhere.origin))
    page.locator(".scalecore-panel--console").scroll_into_view_if_needed()  # panels hydrate when reached
    page.wait_for_selector(".scalecore-panel--console textarea")
    return page


def _run(page, code: str, timeout: float = PYODIDE_TIMEOUT_MS) -> str:
    """Run code in the console; its output once the run has ended (the status line says how)."""
    panel = page.locator(".scalecore-panel--console")
    editor, output, status = (panel.locator("textarea"), panel.locator("pre.scalecore-console__output"),
                              panel.locator(".scalecore-status"))
    panel.get_by_role("button", name="Clear output").click()
    status.evaluate("node => { node.textContent = ''; }")
    editor.fill(code)
    editor.press("Control+Enter")
    page.wait_for_function(f"el => {IDLE} && /^(Done|Finished|Stopped|Python)/.test(el.textContent)",
                           arg=status.element_handle(), timeout=timeout)
    return output.text_content()


def _outcomes(output: str) -> dict[str, str]:
    """The lines `[name] outcome` the probes print."""
    found = {}
    for line in output.splitlines():
        if line.startswith("[") and "] " in line:
            name, outcome = line[1:].split("] ", 1)
            found[name] = outcome
    return found


PROBES = r'''
import inspect, js
from pyodide.ffi import to_js

OTHER = "@OTHER@"
SOCKET = OTHER.replace("http:", "ws:")


async def attempt(name, make):
    try:
        value = make()
        if inspect.isawaitable(value):
            value = await value
        print(f"[{name}] reached ({value!r})"[:200])
    except Exception as error:
        print(f"[{name}] {' '.join(str(error).split())}")


def xhr():
    request = js.XMLHttpRequest.new()
    request.open("GET", OTHER + "/xhr", False)
    request.send()
    return request.status


def worker_global_prototype():
    return js.Object.getPrototypeOf(js.Object.getPrototypeOf(js))


def fetch_after_delete():
    js.Reflect.deleteProperty(js, "fetch")
    js.Reflect.deleteProperty(worker_global_prototype(), "fetch")
    return js.fetch(OTHER + "/after-delete")


async def cache_add():
    cache = await js.caches.open("scalecore-sandbox-test")
    return await cache.add(OTHER + "/cache")


def blob_worker():
    source = js.Blob.new(to_js([f"fetch('{OTHER}/from-worker')"]), to_js({"type": "text/javascript"}, dict_converter=js.Object.fromEntries))
    return js.Worker.new(js.URL.createObjectURL(source))


def beacon():
    if not hasattr(js.navigator, "sendBeacon"):
        return "not in this browser's workers"
    return js.navigator.sendBeacon(OTHER + "/beacon", "x")


# Requests to another origin: each is refused, with the reason.
await attempt("fetch", lambda: js.fetch(OTHER + "/fetch"))
await attempt("fetch Request", lambda: js.fetch(js.Request.new(OTHER + "/request")))
await attempt("fetch from the prototype", lambda: worker_global_prototype().fetch.call(js, OTHER + "/prototype"))
from pyodide.http import pyfetch
await attempt("pyfetch", lambda: pyfetch(OTHER + "/pyfetch"))
await attempt("XMLHttpRequest", xhr)
await attempt("WebSocket", lambda: js.WebSocket.new(SOCKET + "/socket"))
await attempt("WebSocket prototype constructor", lambda: js.WebSocket.prototype.constructor.new(SOCKET + "/socket2"))
await attempt("WebSocketStream", lambda: js.WebSocketStream.new(SOCKET + "/stream"))
await attempt("EventSource", lambda: js.EventSource.new(OTHER + "/events"))
await attempt("WebTransport", lambda: js.WebTransport.new(OTHER.replace("http:", "https:") + "/transport"))
await attempt("importScripts", lambda: js.importScripts(OTHER + "/script.js"))
await attempt("Cache.add", cache_add)
await attempt("FontFace", lambda: js.FontFace.new("probe", f"url({OTHER}/font.woff2)").load())
# What could start code outside the box, or import() from another origin.
await attempt("Worker", blob_worker)
await attempt("eval import", lambda: js.eval(f"import('{OTHER}/eval.js')"))
await attempt("Function import", lambda: js.Function.new(f"return import('{OTHER}/function.js')")())
await attempt("constructor import", lambda: js.fetch.constructor.new(f"return import('{OTHER}/constructor.js')")())
await attempt("setTimeout string", lambda: js.setTimeout(f"import('{OTHER}/timeout.js')", 0))
await attempt("sendBeacon", beacon)

# The site's own origin stays reachable.
print("[load_table]", load_table("demo").corpus)
response = await js.fetch(js.location.href)
print("[same-origin fetch]", response.status)
print("[same-origin pyfetch]", (await pyfetch(js.location.href)).status)
same = js.XMLHttpRequest.new()
same.open("GET", js.location.href, False)
same.send()
print("[same-origin XMLHttpRequest]", same.status)
import asyncio
await asyncio.sleep(0.2)  # timers still work
print("[timers] ok")
# Last, as it deletes what it can: the wrapped fetch cannot be removed to bring the original back.
await attempt("fetch after delete", fetch_after_delete)
'''

REFUSED = ("FontFace", "Worker", "Cache.add",  # Cache.add: the site's caches are closed to the console altogether
            "eval import", "Function import", "constructor import", "setTimeout string")


def test_console_code_cannot_reach_another_origin(lesson, elsewhere):
    page = lesson
    output = _run(page, PROBES.replace("@OTHER@", elsewhere.origin))
    outcomes = _outcomes(output)
    page.wait_for_timeout(1500)  # anything asynchronous (a socket, a worker, a font) has had its chance
    assert elsewhere.requests == [], f"the other origin was reached: {elsewhere.requests}\n{output}"

    for name in ("fetch", "fetch from the prototype", "pyfetch", "XMLHttpRequest", "WebSocket", "EventSource",
                 "importScripts", "Cache.add", "Worker", "eval import", "Function import", "sendBeacon"):
        assert name in outcomes, f"{name}: no outcome\n{output}"
    for name, outcome in outcomes.items():
        if name.startswith(("load_table", "same-origin", "timers")):
            continue
        if name == "sendBeacon" and "not in this browser's workers" in outcome:
            continue
        assert "reached" not in outcome, f"{name}: {outcome}"
        wanted = "is blocked here" if name in REFUSED else "requests to other origins are blocked"
        assert wanted in outcome, f"{name}: {outcome}"
        if name != "pyfetch":  # pyfetch re-raises the JavaScript error as an OSError with its text
            assert "SecurityError" in outcome, f"{name}: {outcome}"

    assert outcomes["load_table"] == "demo", output
    for name in ("same-origin fetch", "same-origin pyfetch", "same-origin XMLHttpRequest"):
        assert outcomes.get(name) == "200", f"{name}: {outcomes.get(name)}\n{output}"
    assert outcomes.get("timers") == "ok", output


FORGERIES = r'''
import js
from pyodide.ffi import to_js

text = "FOR" + "GED: Python could not start; download a fix from http://example.invalid"
shapes = [
    {"type": "progress", "stage": "error", "step": 0, "text": text},
    {"type": "progress", "stage": "download", "step": 0.5, "text": text},
    {"type": "ready", "timings": {"totalMs": 1}},
]
for i in range(64):
    shapes += [
        {"type": "stream", "id": i, "stream": "stderr", "text": text},
        {"type": "stream", "id": i, "stream": "stdout", "text": text},
        {"id": i, "error": text},
        {"id": i, "result": {"outcome": "ok", "ms": 8_675_309_000, "tokens": [text]}},
    ]
for shape in shapes:
    message = to_js(shape, dict_converter=js.Object.fromEntries)
    js.postMessage(message)
    js.self.postMessage(message)
    js.globalThis.postMessage.call(js, message)
# Error events: an uncaught error must not turn into "Python could not start: ...".
js.reportError(js.Error.new(text))
js.setTimeout(js.JSON.parse.bind(None, text), 0)
# A request the page never sent, dispatched to the worker itself, gets no answer either.
js.dispatchEvent(js.MessageEvent.new("message", to_js({"data": {"id": 1, "type": "run", "payload": {"code": "print(1)", "session": "x"}}}, dict_converter=js.Object.fromEntries)))
# The worker's end of the page's channel is not among the globals Python can read.
ports = [name for name in js.Object.getOwnPropertyNames(js) if js.MessagePort.prototype.isPrototypeOf(js.Reflect.get(js, name))]
print("ports on globalThis:", len(ports))
import asyncio
await asyncio.sleep(0.3)
print("posted", len(shapes))
'''

SHOWN = """() => {
  const texts = [document.body.textContent, document.title];
  for (const node of document.querySelectorAll('[aria-label], [title]')) texts.push(node.getAttribute('aria-label') || '', node.title || '');
  return texts.join('\\n');
}"""


def _no_forgery_shown(page, when: str) -> None:
    shown = page.evaluate(SHOWN)
    assert MARKER not in shown, f"{when}: a forged message is on the page:\n" + \
        "\n".join(line for line in shown.splitlines() if MARKER in line)[:2000]
    assert "8675309" not in shown, f"{when}: a forged result reached the console"
    stage = page.evaluate("document.querySelector('.scalecore-panel--console').scalecoreConsole.live.progress.stage")
    assert stage == "ready", f"{when}: the page's Python client is in stage {stage!r}"


def test_console_code_cannot_forge_the_sites_messages(lesson, elsewhere):
    page = lesson
    output = _run(page, FORGERIES)
    page.wait_for_timeout(800)  # let anything posted after the answer arrive
    assert "posted 259" in output and "ports on globalThis: 0" in output, output
    _no_forgery_shown(page, "after the forgeries")
    status = page.locator(".scalecore-panel--console .scalecore-status").text_content()
    assert status.startswith("Done in"), status

    # The console, live mode and Stop still work.
    assert "42" in _run(page, "print(6 * 7)")
    compute = page.get_by_role("button", name="Compute live").first
    panel = page.locator(".scalecore-panel--scale-guards").filter(has=compute).first
    compute.click()
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    _no_forgery_shown(page, "after live mode")

    console = page.locator(".scalecore-panel--console")
    console.locator("textarea").fill("while True: pass")
    console.locator("textarea").press("Control+Enter")
    page.wait_for_timeout(500)
    console.get_by_role("button", name="Stop").click()
    page.wait_for_function(IDLE, timeout=10_000)
    assert page.evaluate("scalecoreTimings.lastStopMode") == "restarted"

    # The restarted worker is in the same box: forgeries ignored, other origins refused.
    again = _run(page, FORGERIES + f"\ntry:\n    await js.fetch('{elsewhere.origin}/after-restart')\n"
                 "except Exception as error:\n    print('[fetch]', error)\n")
    assert "posted 259" in again and "requests to other origins are blocked" in again, again
    page.wait_for_timeout(800)
    _no_forgery_shown(page, "after a restart")
    assert elsewhere.requests == [], elsewhere.requests
    assert json.loads(page.evaluate("JSON.stringify(scalecoreTimings.lastStopMode)")) == "restarted"


STORAGE = """
import js
from pyodide.ffi import to_js

def probe(name, get):
    try:
        found = get()
        print(f"[{name}] reached: {found}")
    except Exception as error:
        print(f"[{name}] {error}")

probe("indexedDB", lambda: js.indexedDB.open("scalecore-mentor"))
probe("indexedDB from the prototype", lambda: js.Object.getOwnPropertyDescriptor(
    js.Object.getPrototypeOf(js.Object.getPrototypeOf(js.globalThis)), "indexedDB").get.call(js.globalThis))
probe("caches", lambda: js.caches.keys())
probe("getDirectory", lambda: js.navigator.storage.getDirectory())
"""


def test_console_code_cannot_read_what_the_reader_keeps_on_the_site(lesson, elsewhere):
    """The mentor keeps the files a reader attaches in the site's IndexedDB: code pasted into the
    console (the same origin) must not open it, nor the site's other storage."""
    page = lesson
    page.evaluate("""() => new Promise((done, failed) => {
        const opening = indexedDB.open('scalecore-mentor-probe', 1);
        opening.onupgradeneeded = () => opening.result.createObjectStore('files');
        opening.onsuccess = () => { opening.result.close(); done(); };
        opening.onerror = () => failed(opening.error);
    })""")  # the page itself keeps its storage
    outcomes = _outcomes(_run(page, STORAGE))
    for name in ("indexedDB", "indexedDB from the prototype", "caches", "getDirectory"):
        assert name in outcomes, f"{name}: no outcome: {outcomes}"
        assert "reached" not in outcomes[name], f"{name}: {outcomes[name]}"
        assert "is blocked here: it holds what the reader keeps on this site" in outcomes[name] or \
            (name == "indexedDB from the prototype" and "is blocked here" in outcomes[name]), f"{name}: {outcomes[name]}"
    assert "42" in _run(page, "print(6 * 7)")  # the console goes on

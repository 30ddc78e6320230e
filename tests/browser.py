"""Shared Playwright helpers for the end-to-end tests: Chromium, a static server, request watchers.

Registered as a pytest plugin in tests/conftest.py (``pytest_plugins = ["browser"]``), so the
fixtures here are shared by all of them (the servers and Chromium, one each for the session):

    chromium          a headless Chromium (Debian's /usr/bin/chromium; never `playwright install`)
    site_server       the real site (conftest's ``built_site``) served at http://127.0.0.1:<port>/
    subpath_server    the same site served under /docs/softmax/ only (everything else is a 404)
    visit             visit(url, allowed=..., **context_options) -> (page, watch); checked at the end

Every page a test opens is watched: console errors and uncaught errors (of the page and of its
workers), HTTP errors, and every request (workers included). A request that leaves what the
test allows (by default the page's own origin, or file:// for a page on disk; the subpath tests
allow only their prefix) is recorded and aborted, so nothing ever leaves the machine, and fails
the test.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
AXE = REPO / "build_tools" / "node_modules" / "axe-core" / "axe.min.js"
SUBPATH = "/docs/softmax/"
PYODIDE_TIMEOUT_MS = 90_000  # a cold start takes ~4 s here; this only catches a hang
HYDRATED = ("() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind]'))"
            ".every(p => p.getAttribute('data-scalecore-hydrated') === 'true')")


def require_chromium() -> None:
    if CHROMIUM.is_file():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run in CI: {CHROMIUM} is missing", pytrace=False)
    pytest.skip(f"browser tests skipped: {CHROMIUM} is missing")


# --------------------------------------------------------------------------------------------
# The site's pages
# --------------------------------------------------------------------------------------------


def site_pages(site: Path) -> list[str]:
    """Every page of a built site (relative paths of its HTML files), without the 404 page, the
    search page and the static API or assets."""
    pages = []
    for path in site.rglob("*.html"):
        relative = path.relative_to(site).as_posix()
        if relative == "404.html" or relative.startswith(("api/", "assets/", "search/")):
            continue
        pages.append(relative)
    return sorted(pages)


def docs_pages(docs: Path = REPO / "docs") -> list[str]:
    """The pages the repository's docs/ folder builds to (use_directory_urls is false: x.md ->
    x.html), known before the build, to parametrize tests by page. A test compares them with
    site_pages(built_site), so a page the build adds cannot escape the tours."""
    return sorted(path.relative_to(docs).with_suffix(".html").as_posix() for path in docs.rglob("*.md"))


def site_manifest(site: Path) -> dict:
    """The site manifest of a built site (api/index.json); its URLs are relative to api/."""
    return json.loads((site / "api" / "index.json").read_text(encoding="utf-8"))


def baked(site: Path, kind: str, point: str) -> dict:
    """A kind's baked point ("kjv/0/none", "index"), found through the site's own manifest (never
    a path built by hand)."""
    entry = site_manifest(site)["kinds"][kind]
    return json.loads((site / "api" / entry["files"][entry["points"][point]["json"]]["url"])
                      .read_text(encoding="utf-8"))


def module_page(site: Path) -> str:
    """The lesson page: the page of the built site with the most kinds of panel (found by the
    panels it holds, not by its name; the first in the site's order on a tie)."""
    kinds = tuple(site_manifest(site)["kinds"])
    counts = {}
    for page in site_pages(site):
        html = (site / page).read_text(encoding="utf-8")
        counts[page] = sum(f'data-scalecore-kind="{kind}"' in html for kind in kinds)
    best = max(counts.values(), default=0)
    if not best:
        pytest.fail("no page of the site has a panel")
    return next(page for page, count in counts.items() if count == best)


def panel_pages(site: Path) -> list[str]:
    """Every page of the built site that holds at least one panel."""
    return [page for page in site_pages(site) if 'class="scalecore-panel ' in (site / page).read_text(encoding="utf-8")]


def page_url(page: str) -> str:
    """A page's URL path relative to the site root (use_directory_urls on or off)."""
    if page == "index.html":
        return ""
    return page[: -len("index.html")] if page.endswith("/index.html") else page


# --------------------------------------------------------------------------------------------
# A static server that can host the site under a subpath
# --------------------------------------------------------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    prefix = "/"
    record: Callable[[str], None] = staticmethod(lambda path: None)

    def log_message(self, *args):  # quiet
        pass

    def send_head(self):
        path = unquote(urlsplit(self.path).path)
        self.record(path)
        if not path.startswith(self.prefix):
            self.send_error(404, f"outside {self.prefix}")
            return None
        error_page = Path(self.directory) / "404.html"
        if not Path(self.translate_path(self.path)).exists() and error_page.is_file():
            # As a static host does: a missing address under the site answers with its 404 page.
            body = error_page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()

    def translate_path(self, path):
        # Only called for paths under the prefix (send_head checked): drop it, serve the folder.
        path = urlsplit(path).path
        return super().translate_path("/" + path[len(self.prefix):])


class StaticServer:
    """The site folder served on a free 127.0.0.1 port at ``prefix`` (a 404 anywhere else).

    ``paths`` is every path the server was asked for, in order (workers' requests too);
    ``outside_since(mark)`` those not under the prefix."""

    def __init__(self, directory: Path, prefix: str = "/"):
        assert prefix.startswith("/") and prefix.endswith("/"), prefix
        self.directory, self.prefix = Path(directory), prefix
        self.paths: list[str] = []
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"prefix": prefix, "record": staticmethod(self._record)})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.url = self.origin + prefix
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _record(self, path: str) -> None:
        with self._lock:
            self.paths.append(path)

    def outside_since(self, mark: int = 0) -> list[str]:
        """Paths asked for outside the prefix since ``len(paths)`` was ``mark``."""
        with self._lock:
            return [path for path in self.paths[mark:] if not path.startswith(self.prefix)]

    def allows(self, url: str) -> bool:
        """True for a URL of this server under its prefix (and for in-memory data:/blob: URLs)."""
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob"):
            return True
        return (parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.port == self.port
                and parts.path.startswith(self.prefix))

    def elsewhere(self) -> re.Pattern:
        """A pattern of every URL ``allows`` refuses (see Rule)."""
        return _in_memory_or(re.escape(f"http://127.0.0.1:{self.port}{self.prefix}"))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Rule:
    """Which URLs a page may ask for: ``rule(url)``, and ``rule.elsewhere`` the pattern of every
    other URL. Routing only that pattern lets Playwright's driver match it: a catch-all Python
    handler holds every request (service workers' too) until the test's thread next calls into
    Playwright, which slowed a page's downloads to a few files a second."""

    def __init__(self, allowed: Callable[[str], bool], elsewhere: re.Pattern):
        self.allowed, self.elsewhere = allowed, elsewhere

    def __call__(self, url: str) -> bool:
        return self.allowed(url)


def _in_memory_or(prefix: str) -> re.Pattern:
    return re.compile(r"^(?!data:|blob:|" + prefix + ")")


# Every http(s) URL of another host than 127.0.0.1 (a route for only these, see Rule).
OTHER_HOSTS = re.compile(r"^https?://(?!127\.0\.0\.1[:/])")

only_files = Rule(lambda url: urlsplit(url).scheme in ("file", "data", "blob"), _in_memory_or("file:"))
only_files.__doc__ = "The rule for pages opened from disk: file:// only (data:/blob: are in memory)."


def same_origin(url: str) -> Rule:
    """The rule for a served page: its own origin only (data:/blob: are in memory)."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}/"
    return Rule(lambda other: urlsplit(other).scheme in ("data", "blob") or other.startswith(origin),
                _in_memory_or(re.escape(origin)))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def python_http_server(directory: Path, timeout: float = 20.0):
    """``python -m http.server`` on 127.0.0.1 (a free port) in ``directory``, as the offline guide
    tells a reader to run it. Returns (process, url); the caller terminates the process."""
    for _ in range(5):  # the port may be taken between probing and binding: try another
        port = free_port()
        process = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
                                   cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return process, f"http://127.0.0.1:{port}/"
            except OSError:
                time.sleep(0.05)
        process.kill()
        process.wait()
    raise AssertionError(f"python -m http.server did not start: {process.stderr.read().decode()[-2000:]}")


# --------------------------------------------------------------------------------------------
# Watching what a page does
# --------------------------------------------------------------------------------------------


class Watch:
    """What a browser context did: console errors and uncaught errors (pages and workers), HTTP
    errors, every request, and the requests the test does not allow (aborted)."""

    def __init__(self, allowed: Callable[[str], bool]):
        self.allowed = allowed
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.refused: list[str] = []
        self.in_flight: set = set()

    def attach(self, context) -> None:
        def route(route):
            if not self.allowed(route.request.url):
                self.refused.append(route.request.url)
                return route.abort()
            return route.continue_()

        # A known rule routes only what it refuses (see Rule); any other callable sees every request.
        owner = getattr(self.allowed, "__self__", None)
        if isinstance(self.allowed, Rule):
            context.route(self.allowed.elsewhere, route)
        elif isinstance(owner, StaticServer) and self.allowed == owner.allows:
            context.route(owner.elsewhere(), route)
        else:
            context.route("**/*", route)
        # The page's Content-Security-Policy (scalecore_generator/pages/csp.py): a violation is an error here,
        # whatever the test is about (the browser also logs it, but not always as an error).
        context.add_init_script("document.addEventListener('securitypolicyviolation', e => console.error("
                                "'CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + "
                                "' at ' + e.sourceFile + ':' + e.lineNumber))")
        context.on("request", self._request)
        context.on("requestfinished", lambda request: self.in_flight.discard(request))
        context.on("requestfailed", lambda request: self.in_flight.discard(request))
        context.on("response", lambda response: response.status >= 400 and self.errors.append(
            f"HTTP {response.status} for {response.url}"))
        context.on("console", lambda message: message.type == "error" and self.errors.append(
            f"console error: {message.text} ({_where(message)})"))
        context.on("weberror", lambda error: self.errors.append(f"uncaught: {error.error}"))

    def watch_page(self, page) -> None:
        page.on("pageerror", lambda error: self.errors.append(f"uncaught in the page: {error}"))
        page.on("worker", lambda worker: worker.on(
            "console", lambda message: message.type == "error" and self.errors.append(
                f"console error in worker {worker.url}: {message.text}")))

    def _request(self, request) -> None:
        self.requests.append(request.url)
        self.in_flight.add(request)
        if not self.allowed(request.url) and request.url not in self.refused:
            self.refused.append(request.url)

    def settle(self, page, quiet_ms: int = 300, timeout: float = 15.0) -> bool:
        """Until no request of the context has been in flight for ``quiet_ms`` (True), or the
        timeout (False): before a test does something that navigates or closes the page (cutting
        off what is still downloading, which the service worker then logs as an error), without
        guessing how long the downloads take."""
        deadline = time.monotonic() + timeout
        quiet_since = None
        while time.monotonic() <= deadline:
            if self.in_flight:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            if quiet_since is not None and time.monotonic() - quiet_since >= quiet_ms / 1000:
                return True
            page.wait_for_timeout(50)  # lets Playwright deliver the request events
        return False

    def still_in_flight(self) -> str:
        return "requests still in flight:\n  " + "\n  ".join(sorted(r.url for r in self.in_flight))

    def problems(self) -> list[str]:
        found = []
        if self.refused:
            found.append("requests the page may not make:\n  " + "\n  ".join(dict.fromkeys(self.refused)))
        if self.errors:
            found.append("errors:\n  " + "\n  ".join(dict.fromkeys(self.errors)))
        return found

    def check(self) -> None:
        problems = self.problems()
        assert not problems, "\n".join(problems)


def _where(message) -> str:
    try:
        location = message.location
        return f"{location.get('url', '?')}:{location.get('lineNumber', '?')}"
    except Exception:  # noqa: BLE001 - only for the report
        return "?"


# A reader's scroll through the page: each panel comes into view (panels hydrate when they come
# near the viewport), then back to the top.
# The panel base watches panels from a task after Material's set-up; a scroll that ran before it
# would pass panels unseen (an observer reports only where a panel is, not where it was), so the
# scroll waits until every panel is watched or already hydrated.
SCROLL_THROUGH = """async () => {
  const panels = () => document.querySelectorAll('.scalecore-panel[data-scalecore-kind]');
  const watched = p => p.hasAttribute('data-scalecore-waiting') || p.hasAttribute('data-scalecore-hydrated');
  const giveUp = performance.now() + 10000;  // then the wait below names the panels that failed
  while (!Array.from(panels()).every(watched) && performance.now() < giveUp)
    await new Promise(done => setTimeout(done, 20));
  for (const panel of document.querySelectorAll('.scalecore-panel[data-scalecore-kind]')) {
    panel.scrollIntoView({block: 'center'});
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  }
  window.scrollTo(0, 0);
}"""


def wait_hydrated(page, timeout: float = 20_000) -> int:
    """Scroll every panel of the page into view, as a reader would, and wait until each is
    hydrated (a panel that failed fails here, naming it); returns the number of panels."""
    try:
        page.evaluate(SCROLL_THROUGH)
        page.wait_for_function(HYDRATED, timeout=timeout)
    except Exception:
        states = page.evaluate("""() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind]'))
            .map(p => p.id + ' (' + p.dataset.scalecoreKind + '): ' + p.getAttribute('data-scalecore-hydrated') +
                 ((p.querySelector('.scalecore-error') || {}).textContent || ''))""")
        raise AssertionError("panels not hydrated:\n  " + "\n  ".join(states)) from None
    return page.locator(".scalecore-panel[data-scalecore-kind]").count()


def effective_background(locator) -> str:
    """The colour behind an element: its own background, else the first ancestor's that is not
    transparent."""
    return locator.evaluate("""el => {
        for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
          const colour = getComputedStyle(node).backgroundColor;
          if (colour && colour !== 'transparent' && !/rgba\\([^)]*,\\s*0\\)$/.test(colour)) return colour;
        }
        return getComputedStyle(document.documentElement).backgroundColor;
    }""")


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole session, shared by every test module. Only one sync
    Playwright can run in a thread, so no test starts its own: they all use this one."""
    require_chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def site_server(built_site):
    server = StaticServer(built_site)
    yield server
    server.close()


@pytest.fixture(scope="session")
def subpath_server(built_site):
    server = StaticServer(built_site, SUBPATH)
    yield server
    server.close()


@pytest.fixture
def visit(chromium):
    """visit(url, allowed=None, **context_options) -> (page, watch), in a fresh context.

    ``allowed(url) -> bool`` says which requests the page may make (default: the origin of
    ``url`` for http pages, file:// for pages on disk). Every context is closed and its watch
    checked when the test ends.

    Served pages get no service worker unless a test asks (``service_workers="allow"``): the
    site's isolation worker reloads a console page once when the reader first reaches for the
    console, which a test of something else must not race with (tests/test_console.py tests it)."""
    opened = []

    def open_(url: str, allowed: Callable[[str], bool] | None = None, **options):
        if allowed is None:
            allowed = only_files if urlsplit(url).scheme == "file" else same_origin(url)
        options.setdefault("viewport", {"width": 1280, "height": 900})
        # The pages' Content-Security-Policy forbids eval, and Playwright's wait_for_function
        # evaluates its predicate in the page when it polls (an intermittent EvalError, see
        # microsoft/playwright#7395): tests of other things bypass the policy; tests/test_csp.py
        # keeps it (bypass_csp=False) and waits without wait_for_function.
        options.setdefault("bypass_csp", True)
        if urlsplit(url).scheme != "file":
            options.setdefault("service_workers", "block")
        context = chromium.new_context(**options)
        watch = Watch(allowed)
        watch.attach(context)
        page = context.new_page()
        watch.watch_page(page)
        opened.append((context, page, watch))
        page.goto(url)
        return page, watch

    def close_all() -> None:
        """Close every context opened so far and check what each page did. A server fixture of
        a test's own calls it before it stops (the pages must not outlive the server they load
        from: the service worker logs a download the closed server cut off as the page's error)."""
        problems = []
        while opened:
            context, page, watch = opened.pop(0)
            # What the page still downloads when the test ends (the console's Python, say) is
            # let finish: closing the context cuts it off, which the service worker logs.
            if not page.is_closed():
                watch.settle(page, quiet_ms=0, timeout=10.0)  # a download still going after 10 s is cut off
            context.close()
            problems += watch.problems()
        assert not problems, "\n".join(problems)

    open_.close_all = close_all
    yield open_
    close_all()

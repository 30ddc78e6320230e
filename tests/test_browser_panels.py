"""The panels, end to end in Chromium: the real site, built once, served on 127.0.0.1.

Driven by Playwright for Python with Debian's Chromium (/usr/bin/chromium; never
`playwright install`). Every page a test opens is watched: a console error, an uncaught page
error, or a request to any host but the test server fails the test (such requests are also
aborted, so nothing ever leaves the machine).

Two servers share the built site: a plain one (like `python3 -m http.server`, so Python cannot be
interrupted and Stop restarts the worker) and a cross-origin-isolated one (COOP + COEP headers,
so Stop interrupts Python in place). The plain one answers /sitemap.xml with the site's pages at
its own address: Material's instant navigation only intercepts links listed in the sitemap, and
the repository builds with site_url "" (an empty sitemap).

Timings are printed (run with -s to see them), never asserted: see benchmarks/ for numbers.
"""

from __future__ import annotations

import functools
import json
import math
import re
import os
import shutil
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
from browser import OTHER_HOSTS, SCROLL_THROUGH  # noqa: E402
from scalecore.corpus import SHARED_SENTENCE  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
API = "api"  # the site manifest, api/index.json; its URLs are relative to it
HYDRATED = "document.querySelectorAll('.scalecore-panel[data-scalecore-hydrated=\"true\"]').length"
PYODIDE_TIMEOUT_MS = 90_000  # a cold start takes ~4 s here; this only catches a hang


def _require_chromium() -> None:
    if CHROMIUM.is_file():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run in CI: {CHROMIUM} is missing", pytrace=False)
    pytest.skip(f"browser tests skipped: {CHROMIUM} is missing")


# --------------------------------------------------------------------------------------------
# The site and its servers
# --------------------------------------------------------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    isolated = False

    def log_message(self, *args):  # quiet
        pass

    def end_headers(self):
        if self.isolated:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def do_GET(self):
        if urlsplit(self.path).path == "/sitemap.xml":
            return self._sitemap()
        return super().do_GET()

    def _sitemap(self):
        root = Path(self.directory)
        base = f"http://127.0.0.1:{self.server.server_address[1]}/"
        urls = "".join(f"<url><loc>{base}{_url_of(page)}</loc></url>" for page in _pages(root))
        body = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/'
                f'sitemap/0.9">{urls}</urlset>\n').encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _pages(site: Path) -> list[str]:
    """The site's pages, as paths relative to its root."""
    return sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html")
                  if not path.relative_to(site).as_posix().startswith(("api/", "assets/", "search/", "404")))


def _url_of(page: str) -> str:
    """A page's URL path (use_directory_urls on or off)."""
    if page == "index.html":
        return ""
    return page[: -len("index.html")] if page.endswith("/index.html") else page


def _serve(directory: Path, isolated: bool):
    handler = type("Handler", (_Handler,), {"isolated": isolated})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="session")
def servers(built_site):
    plain, isolated = _serve(built_site, False), _serve(built_site, True)
    yield {name: f"http://127.0.0.1:{server.server_address[1]}/"
           for name, server in (("plain", plain), ("isolated", isolated))}
    for server in (plain, isolated):
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base(servers) -> str:
    return servers["plain"]


@pytest.fixture(scope="session")
def module(built_site) -> str:
    """The URL path of the lesson page: the page with every kind of panel."""
    kinds = ("scale-guards", "variance", "softmax", "console", "self-check")
    for page in _pages(built_site):
        html = (built_site / page).read_text(encoding="utf-8")
        if all(f'data-scalecore-kind="{kind}"' in html for kind in kinds):
            return _url_of(page)
    pytest.fail("no page of the site has every kind of panel")


@pytest.fixture(scope="module")
def browser(chromium):
    """The shared headless Chromium (tests/browser.py)."""
    return chromium


class Watch:
    """What a page did: console errors, page errors, requests, and requests to other hosts."""

    def __init__(self):
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.outside: list[str] = []

    def check(self):
        assert not self.outside, f"requests left the page's origin: {self.outside}"
        assert not self.errors, "console errors:\n" + "\n".join(self.errors)


@pytest.fixture
def open_page(browser):
    """open_page(url, **context_options) -> (page, watch); checked when the test ends. No service
    worker unless a test asks (service_workers="allow"): the site's isolation worker would reload
    a console page once when the console is first reached (see tests/test_console.py)."""
    opened = []

    def open_(url: str, **options):
        options.setdefault("service_workers", "block")
        options.setdefault("bypass_csp", True)  # wait_for_function polls with eval (see tests/browser.py)
        context = browser.new_context(viewport=options.pop("viewport", {"width": 1280, "height": 900}), **options)
        watch = Watch()

        def guard(route):
            host = urlsplit(route.request.url)
            if host.scheme in ("http", "https") and host.hostname != "127.0.0.1":
                watch.outside.append(route.request.url)
                return route.abort()
            return route.continue_()

        context.route(OTHER_HOSTS, guard)  # matched by the driver: see browser.Rule
        context.on("request", lambda request: watch.requests.append(request.url))
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and watch.errors.append(message.text))
        page.on("pageerror", lambda error: watch.errors.append(f"uncaught: {error}"))
        page.on("response", lambda response: response.status >= 400 and watch.errors.append(
            f"HTTP {response.status} for {response.url}"))
        opened.append((context, watch))
        page.goto(url)
        return page, watch

    yield open_
    for context, watch in opened:
        context.close()
    for _, watch in opened:
        watch.check()


def _hydrated(page, count: int | None = None) -> None:
    """Scroll through the page (panels hydrate as they come near the viewport), then wait."""
    total = page.locator(".scalecore-panel").count() if count is None else count
    page.evaluate(SCROLL_THROUGH)
    page.wait_for_function(f"{HYDRATED} >= {total}", timeout=15_000)


def _point(site: Path, kind: str, path: str) -> dict:
    """A kind's baked point, found through the site's own manifest (never a path built by hand)."""
    entry = json.loads((site / API / "index.json").read_text(encoding="utf-8"))["kinds"][kind]
    return json.loads((site / API / entry["files"][entry["points"][path]["json"]]["url"]).read_text(encoding="utf-8"))


def _baked(site: Path, corpus: str, seed: int, guards: str) -> dict:
    return _point(site, "scale-guards", f"{corpus}/{seed}/{guards}")


def _close(a, b, tolerance=1e-9) -> bool:
    return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)


def _guards_panel(page, locked: str = "none"):
    """The first scale-guards panel whose locked guards are "none", "some" or "all" (panels are
    found by their options, not by the lesson's wording)."""
    index = page.evaluate("""wanted => Array.from(document.querySelectorAll('.scalecore-panel--scale-guards'))
        .findIndex(root => {
          const n = (JSON.parse(root.dataset.scalecoreOptions).locked || []).length;
          return wanted === 'none' ? n === 0 : wanted === 'all' ? n === 3 : n > 0 && n < 3;
        })""", locked)
    if index < 0:
        pytest.skip(f"the lesson has no scale-guards panel with {locked} guards locked")
    return page.locator(".scalecore-panel--scale-guards").nth(index)


# --------------------------------------------------------------------------------------------
# Baked panels
# --------------------------------------------------------------------------------------------


def test_a_switch_repaints_heatmap_readouts_and_table_from_baked_data(open_page, base, built_site, module):
    page, watch = open_page(base + module)
    _hydrated(page)
    panel = _guards_panel(page)
    corpus = panel.locator("select").first.input_value()
    assert panel.get_attribute("data-scalecore-guards") == "init+scale"
    before = len(watch.requests)

    norm = panel.get_by_role("switch", name="norm")
    assert norm.get_attribute("aria-checked") == "false"
    norm.click()
    assert norm.get_attribute("aria-checked") == "true"
    assert panel.get_attribute("data-scalecore-guards") == "norm+init+scale"

    baked = _baked(built_site, corpus, 0, "norm+init+scale")
    shown = panel.evaluate("root => root.scalecorePanel.current()")
    assert shown["weights"] == baked["weights"] and shown["measures"] == baked["measures"]
    opacities = panel.locator(".scalecore-heatmap__svg .scalecore-cell__fill").evaluate_all("cells => cells.map(c => +c.getAttribute('fill-opacity'))")
    expected = [math.sqrt(w) for row in baked["weights"] for w in row]
    assert len(opacities) == len(expected)
    assert all(abs(a - b) < 1e-4 for a, b in zip(opacities, expected))
    # The repainted cells are exactly what the shared view draws afresh for these weights.
    same = panel.evaluate("""(root, baked) => {
        const svg = root.querySelector('.scalecore-heatmap__svg');
        const font = Number(svg.querySelector('.scalecore-axis-label').getAttribute('font-size'));
        const fresh = document.createElement('div');
        fresh.innerHTML = scalecoreViews.heatmap({tokens: baked.tokens, weights: baked.weights,
                                                  title: svg.querySelector('title').textContent, font});
        const cells = (node) => Array.from(node.querySelectorAll('.scalecore-cell__bg, .scalecore-cell__fill, .scalecore-cell__text'),
                                           (cell) => cell.outerHTML);
        return JSON.stringify(cells(svg)) === JSON.stringify(cells(fresh));
    }""", baked)
    assert same, "a repainted heatmap differs from a freshly drawn one"
    # Each cell's weight is its tooltip, with the pointer on the cell's number too.
    panel.locator(".scalecore-heatmap__svg").scroll_into_view_if_needed()
    tooltip = panel.evaluate("""root => {
        const number = root.querySelectorAll('.scalecore-heatmap__svg text.scalecore-cell__text')[1];
        const box = number.getBoundingClientRect();
        const under = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
        return under.querySelector(':scope > title').textContent;
    }""")
    pair, weight = tooltip.split(": ")
    assert pair == f"{baked['tokens'][0]} \u2192 {baked['tokens'][1]}"
    assert abs(float(weight) - baked["weights"][0][1]) <= 5e-3 * baked["weights"][0][1]
    for key in ("input_spread", "score_spread", "mean_row_max", "mean_entropy", "gradient"):
        text = panel.locator(f"[data-measure={key}] .scalecore-readout__value").text_content()
        assert text.startswith(page.evaluate("v => scalecoreViews.measure(v)", baked["measures"][key]))
    panel.get_by_text("The weights as a table").click()
    # The table is drawn on the details' toggle event, which the browser fires after the click returns.
    rows = panel.locator("table.scalecore-weights tbody tr")
    rows.first.wait_for()
    first_row = rows.first.locator("td").all_text_contents()
    assert first_row == [f"{w:.3f}" for w in baked["weights"][0]]
    # Announced, and nothing fetched: the 8 guard sets were already in the page.
    page.wait_for_function("el => el.textContent.includes('norm+init+scale')",
                           arg=panel.locator(".scalecore-live-region").element_handle())
    # (The switch is a new history entry, for which the browser asks for the page's icon again.)
    assert [url for url in watch.requests[before:] if not url.endswith("/favicon.png")] == []
    print(f"\nclick-to-repaint: {page.evaluate('scalecoreTimings.lastRepaintMs'):.1f} ms (DOM), "
          f"{page.evaluate('scalecoreTimings.lastRepaintFrameMs'):.1f} ms (next frame)")


def test_switches_work_from_the_keyboard_and_locked_guards_stay(open_page, base, module):
    page, _ = open_page(base + module)
    _hydrated(page)
    panel = _guards_panel(page)
    scale = panel.get_by_role("switch", name="scale")
    scale.focus()
    page.keyboard.press("Space")
    assert scale.get_attribute("aria-checked") == "false"
    assert panel.get_attribute("data-scalecore-guards") == "init"
    page.keyboard.press("Enter")
    assert panel.get_attribute("data-scalecore-guards") == "init+scale"

    locked = _guards_panel(page, "all")
    for name in ("norm", "init", "scale"):
        assert locked.get_by_role("switch", name=name).is_disabled()
    partly = _guards_panel(page, "some")
    assert partly.get_by_role("switch", name="norm").is_disabled()
    assert partly.get_by_role("switch", name="init").is_enabled()


def test_another_seed_loads_its_data_script_once(open_page, base, built_site, module):
    page, watch = open_page(base + module)
    _hydrated(page)
    panel = _guards_panel(page)
    corpus = panel.locator("select").first.input_value()
    panel.get_by_label("Seed").select_option("3")
    page.wait_for_function("el => el.scalecorePanel.seed === 3 && !el.querySelector('[aria-busy]')",
                           arg=panel.element_handle())
    assert panel.evaluate("root => root.scalecorePanel.current()")["weights"] == \
        _baked(built_site, corpus, 3, "init+scale")["weights"]
    panel.get_by_label("Seed").select_option("0")
    panel.get_by_label("Seed").select_option("3")
    loads = [url for url in watch.requests if url.endswith(f"/{corpus}/3/data.js")]
    assert len(loads) == 1, loads


def test_variance_and_softmax_panels_follow_their_controls(open_page, base, built_site, module):
    page, _ = open_page(base + module)
    _hydrated(page)
    variance = page.locator(".scalecore-panel--variance")
    slider = variance.locator("input[type=range]")
    slider.focus()
    page.keyboard.press("End")
    assert variance.get_attribute("data-scalecore-d") == "1000"
    lesson = _point(built_site, "variance", "index")
    raw = next(row for row in lesson["dims"] if row["d"] == 1000)["raw"]["variance"]
    assert variance.locator("[data-measure=raw]").text_content() == page.evaluate("v => scalecoreViews.measure(v)", raw)
    assert variance.locator(".scalecore-bar").count() > 0

    softmax = page.locator(".scalecore-panel--softmax")
    factor = softmax.locator("input[type=range]")
    gradient = softmax.locator("[data-measure=gradient]")
    at_one = float(softmax.evaluate("root => root.scalecorePanel.state(1).gradient"))
    factor.fill("8")
    assert softmax.get_attribute("data-scalecore-factor") == "8"
    assert float(softmax.evaluate("root => root.scalecorePanel.state(8).gradient")) < at_one / 20
    assert gradient.text_content() != ""
    # The slider's JavaScript softmax agrees with the core's baked sweep.
    sweep = _point(built_site, "softmax", "index")["sweep"]
    for point in sweep:
        got = softmax.evaluate("(root, f) => root.scalecorePanel.state(f)", point["factor"])
        assert _close(got["gradient"], point["gradient"], 1e-12)
        assert all(_close(a, b, 1e-12) for a, b in zip(got["weights"], point["weights"]))
    # A reader's huge score is refused in words (1e308 x 8 was Infinity, and the chart NaN).
    scores = softmax.locator("input[data-scalecore-state=scores]")
    scores.fill("1e308, 0")
    scores.dispatch_event("change")
    assert "from -1,000,000 to 1,000,000" in softmax.locator(".scalecore-status").first.text_content()
    assert scores.get_attribute("aria-invalid") == "true"
    assert "NaN" not in softmax.inner_text()
    scores.fill("1000000, 0")
    scores.dispatch_event("change")
    assert scores.get_attribute("aria-invalid") is None and "NaN" not in softmax.inner_text()


def test_self_check_remembers_that_the_answer_was_seen(open_page, base, module):
    page, _ = open_page(base + module)
    _hydrated(page)
    check = page.locator(".scalecore-panel--self-check").first
    key = "scalecore:revealed:" + check.get_attribute("data-scalecore-id")
    check.locator("summary").click()
    # Kept on the details' toggle event, which the browser fires after the click returns.
    page.wait_for_function("k => localStorage.getItem(k) === '1'", arg=key)
    assert check.locator(".scalecore-seen").count() == 0  # seen now, not "seen before"
    page.reload()
    _hydrated(page)
    assert page.locator(".scalecore-panel--self-check").first.locator(".scalecore-seen").count() == 1


def test_dark_mode_paints_the_panel_in_dark_colours(open_page, base, module):
    page, _ = open_page(base + module, color_scheme="dark")
    _hydrated(page)
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
    panel = _guards_panel(page)
    empty = panel.locator(".scalecore-cell__bg").first.evaluate("c => getComputedStyle(c).fill")
    text = panel.locator(".scalecore-readout dt").first.evaluate("c => getComputedStyle(c).color")
    assert _luminance(empty) < 0.3, empty  # an empty cell is dark...
    assert _luminance(text) > 0.5, text  # ...and the text light


def _luminance(css: str) -> float:
    parts = css[css.index("(") + 1:css.index(")")].replace("/", " ").replace(",", " ").split()
    r, g, b = (float(x) / 255 for x in parts[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_panels_come_back_after_an_instant_navigation(open_page, base, module):
    page, _ = open_page(base)
    page.evaluate("window.__sameDocument = true")
    before = page.title()
    page.locator(f"a.md-nav__link[href$='{module}']").first.click()
    page.wait_for_url("**/" + module)
    # the URL changes before Material swaps the content in: wait for the new page's title too,
    # or the panels found next could be the old page's
    page.wait_for_function("t => document.title !== t", arg=before)
    _hydrated(page)
    assert page.evaluate("window.__sameDocument") is True, "Material did a full reload, not an instant swap"
    panel = _guards_panel(page)
    panel.get_by_role("switch", name="norm").click()
    assert panel.get_attribute("data-scalecore-guards") == "norm+init+scale"
    title = page.title()
    # Back first walks the panel's own state (the switch is in the address), on the same page...
    page.go_back()
    page.wait_for_function("() => !location.search")
    assert page.title() == title
    assert _guards_panel(page).get_attribute("data-scalecore-guards") == "init+scale"
    # ...then leaves the page, through instant navigation.
    page.go_back()
    page.wait_for_function("t => document.title !== t", arg=title)
    _hydrated(page)  # whatever panels the first page has
    page.go_forward()
    page.wait_for_function("t => document.title === t", arg=title)
    _hydrated(page)
    assert _guards_panel(page).get_attribute("data-scalecore-guards") == "init+scale"  # a fresh panel
    assert page.evaluate("window.__sameDocument") is True


def test_on_a_plain_host_the_isolation_worker_keeps_search_navigation_panels_and_live_mode(open_page, base, module):
    """A host without COOP/COEP headers (like python3 -m http.server): the site's service worker
    isolates the pages (the console page reloads once when the reader reaches for the console, see
    tests/test_console.py); Material's search, instant navigation, the panels and live mode work as before."""
    page, _ = open_page(base + module, service_workers="allow")
    page.wait_for_function("() => globalThis.scalecoreIsolation && globalThis.scalecoreIsolation.active === true")
    page.locator(".scalecore-panel--console").first.scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('.scalecore-panel--console[data-scalecore-hydrated=\"true\"] textarea')")
    page.locator(".scalecore-panel--console textarea").first.click()
    for _ in range(200):
        try:
            if page.evaluate("crossOriginIsolated && !!navigator.serviceWorker.controller"):
                break
        except Exception:  # noqa: BLE001 - reloading
            pass
        page.wait_for_timeout(100)
    page.wait_for_load_state("load")
    assert page.evaluate("crossOriginIsolated") is True
    page.evaluate("window.__sameDocument = true")
    _hydrated(page)
    panel = _guards_panel(page)
    panel.get_by_role("button", name="Compute live").click()
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)

    page.locator("input.md-search__input").click()
    page.keyboard.type("softmax")
    page.locator(".md-search-result__item").first.wait_for(timeout=15_000)
    page.keyboard.press("Escape")

    title = page.title()
    page.locator("a.md-nav__link[href$='corpora.html']").first.click()
    page.wait_for_function("t => document.title !== t", arg=title)
    _hydrated(page)
    page.locator(f"a.md-nav__link[href$='{module}']").first.click()
    page.wait_for_function("t => document.title === t", arg=title)
    _hydrated(page)
    assert page.evaluate("window.__sameDocument") is True, "Material did a full reload, not an instant swap"
    assert page.evaluate("crossOriginIsolated") is True


def test_from_disk_baked_panels_work_and_live_parts_say_how_to_serve(open_page, built_site, tmp_path, module):
    site = tmp_path / "site"  # a copy: file:// reads the folder as any reader would
    shutil.copytree(built_site, site)
    page, _ = open_page((site / (module if module.endswith('.html') else module + 'index.html')).as_uri())
    _hydrated(page)
    panel = _guards_panel(page)
    panel.get_by_role("switch", name="norm").click()
    assert panel.get_attribute("data-scalecore-guards") == "norm+init+scale"
    panel.get_by_label("Seed").select_option("2")  # another seed's data.js, as a script tag
    page.wait_for_function("el => el.scalecorePanel.seed === 2", arg=panel.element_handle())
    panel.get_by_role("button", name="Compute live").click()
    note = panel.locator(".scalecore-note--http")
    assert "served over http" in note.text_content()
    assert "python3 -m http.server -d site 8000" in note.text_content()
    console = page.locator(".scalecore-panel--console .scalecore-note--http")
    assert "python3 -m http.server -d site 8000" in console.text_content()


# --------------------------------------------------------------------------------------------
# Live mode and the console (Pyodide in a worker)
# --------------------------------------------------------------------------------------------


def test_live_mode_reproduces_the_baked_numbers_and_names_unknown_words(open_page, base, built_site, module):
    page, _ = open_page(base + module)
    _hydrated(page)
    panel = _guards_panel(page)
    corpus = panel.locator("select").first.input_value()
    panel.get_by_role("button", name="Compute live").click()
    progress = panel.locator(".scalecore-progress")
    progress.wait_for(state="visible")  # the reader sees it start
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert panel.locator(".scalecore-badge").text_content() == "live"
    live = panel.evaluate("root => root.scalecorePanel.live.results")
    manifest = json.loads((built_site / API / "index.json").read_text())
    assert sorted(live) == sorted(manifest["kinds"]["scale-guards"]["axes"]["guards"])
    for guards, result in live.items():
        baked = _baked(built_site, corpus, 0, guards)
        assert result["tokens"] == baked["tokens"]
        for name in ("weights", "scores"):
            for got_row, want_row in zip(result[name], baked[name]):
                assert all(_close(a, b) for a, b in zip(got_row, want_row)), (guards, name)
        for key, value in baked["measures"].items():
            assert _close(result["measures"][key], value), (guards, key)

    panel.get_by_label("Sentence").fill("the old zyxwv looked at the qwrtp")
    panel.get_by_role("button", name="Recompute live").click()
    page.wait_for_function("el => el.hasAttribute('data-scalecore-unknown')", arg=panel.element_handle())
    message = panel.locator(".scalecore-live__message").text_content()
    assert "zyxwv" in message and "qwrtp" in message and "Not in the vocabulary" in message

    panel.get_by_label("Sentence").fill("  ")  # nothing to compute over: said in words, not Python's ValueError
    panel.get_by_role("button", name="Recompute live").click()
    live_message = panel.locator(".scalecore-live__message")
    expect(live_message).to_contain_text("Write a sentence first")
    assert "ValueError" not in live_message.text_content()

    panel.get_by_label("Sentence").fill("the man looked at the sun")
    panel.locator(".scalecore-live__form").get_by_label("Seed").fill("123456")
    panel.get_by_role("button", name="Recompute live").click()
    page.wait_for_function("el => el.scalecorePanel.live.seed === 123456", arg=panel.element_handle())
    assert panel.locator(".scalecore-heatmap__svg .scalecore-cell__fill").count() == 36  # 6 tokens
    timings = page.evaluate("scalecoreTimings")
    print(f"\nlive ready: {timings['liveReadyMs']:.0f} ms; recompute of 8 guard sets: "
          f"{timings['lastRecomputeMs']:.0f} ms")
    assert not timings["lastRecomputePrepared"]  # typed and clicked at once: computed on the click

    # Typed, then a reader's pause: the worker computed the request meanwhile (live.js, prepare),
    # and the click gets that answer, equal to the baked numbers; a half-typed field prepares nothing
    seed = panel.locator(".scalecore-live__form").get_by_label("Seed")
    seed.fill("")
    panel.get_by_label("Sentence").fill(SHARED_SENTENCE)
    page.wait_for_timeout(400)
    before = page.evaluate("scalecoreTimings.lastPreparedAt === undefined ? null : scalecoreTimings.lastPreparedAt")
    seed.fill("1")
    # this request's preparation (an earlier one, on a loaded machine, could have been the one seen)
    page.wait_for_function("b => (scalecoreTimings.lastPreparedAt === undefined ? null : scalecoreTimings.lastPreparedAt) !== b", arg=before)
    panel.get_by_role("button", name="Recompute live").click()
    page.wait_for_function("el => el.scalecorePanel.live.seed === 1", arg=panel.element_handle())
    assert page.evaluate("scalecoreTimings.lastRecomputePrepared")
    for guards, result in panel.evaluate("root => root.scalecorePanel.live.results").items():
        baked = _baked(built_site, corpus, 1, guards)
        for got_row, want_row in zip(result["weights"], baked["weights"], strict=True):
            assert all(_close(a, b) for a, b in zip(got_row, want_row, strict=True)), guards
        for key, value in baked["measures"].items():
            assert _close(result["measures"][key], value), (guards, key)


def test_the_variance_panel_samples_any_d_live_with_the_function_that_baked_the_others(open_page, base, built_site,
                                                                                      module):
    from scalecore.variance import lesson

    page, _ = open_page(base + module)
    _hydrated(page)
    variance = page.locator(".scalecore-panel--variance")
    variance.get_by_role("button", name="Any d, live").click()
    message = variance.locator(".scalecore-live__message")
    field = variance.get_by_label("d (1 to 2048)")
    field.fill("0")
    variance.get_by_role("button", name="Sample live").click()
    page.wait_for_function("el => el.textContent.includes('must be a whole number from 1 to 2048')",
                           arg=message.element_handle())
    assert "scalecore-live__message--error" in message.get_attribute("class")

    field.fill("100")
    variance.get_by_role("button", name="Sample live").click()
    page.wait_for_function("el => el.dataset.scalecoreD === '100'", arg=variance.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert message.text_content().startswith("Live: d = 100 sampled in your browser in ")
    baked = _point(built_site, "variance", "index")
    want = lesson([100], baked["samples"], baked["seed"], baked["bins"])["dims"][0]
    shown = variance.evaluate("root => root.scalecorePanel.rows.find(r => r.live && r.d === 100)")
    for side in ("raw", "scaled"):
        assert shown[side]["counts"] == want[side]["counts"]
        assert _close(shown[side]["variance"], want[side]["variance"])
    assert variance.locator("[data-measure=raw]").text_content() == \
        page.evaluate("v => scalecoreViews.measure(v)", want["raw"]["variance"])


def test_a_tampered_core_wheel_is_refused(open_page, base, module):
    page, _ = open_page(base + module)
    page.context.route("**/*.whl", lambda route: route.fulfill(body=b"not the wheel", content_type="application/zip"))
    _hydrated(page)
    panel = _guards_panel(page)
    panel.get_by_role("button", name="Compute live").click()
    message = panel.locator(".scalecore-progress__text")
    page.wait_for_function("el => el.textContent.includes('failed its check')", arg=message.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert "sha256" in message.text_content()


@pytest.mark.parametrize("name", ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide.asm.mjs", "pyodide.mjs"])
def test_a_tampered_runtime_file_stops_live_mode_with_a_plain_message(open_page, base, module, name):
    """Every file of Pyodide's is checked against the manifest's sha256 before Python uses it."""
    page, _ = open_page(base + module)
    other = {"pyodide.asm.wasm": "python_stdlib.zip", "python_stdlib.zip": "pyodide.asm.wasm"}.get(name)
    if other:  # the other big download ends after the check failed: its progress must not cover the message
        page.context.route(f"**/assets/pyodide/{other}", lambda route: (time.sleep(2), route.continue_()))
    page.context.route(f"**/assets/pyodide/{name}", lambda route: route.fulfill(
        body=b"export const x = 1;" if name.endswith(".mjs") else b"tampered", status=200,
        content_type="text/javascript" if name.endswith(".mjs") else "application/octet-stream"))
    _hydrated(page)
    panel = _guards_panel(page)
    panel.get_by_role("button", name="Compute live").click()
    message = panel.locator(".scalecore-progress")
    # A locator assertion, polled by Playwright rather than by a string evaluated in the page: the
    # page's Content-Security-Policy forbids eval, which wait_for_function needs when it polls.
    expect(message).to_contain_text(re.compile(rf"the Python runtime file \S*{re.escape(name)} failed its check: "
                                               r"its sha256 is [0-9a-f]{64}, the manifest says [0-9a-f]{64}"),
                                    timeout=PYODIDE_TIMEOUT_MS)
    assert panel.get_attribute("data-scalecore-source") != "live"


def _console(page):
    panel = page.locator(".scalecore-panel--console")
    return panel, panel.locator("textarea"), panel.locator("pre.scalecore-console__output")


def _run(page, editor, code: str, wait: bool = True):
    editor.fill(code)
    editor.press("Control+Enter")
    if wait:
        page.wait_for_function("!document.querySelector('.scalecore-panel--console[data-scalecore-running]')",
                               timeout=PYODIDE_TIMEOUT_MS)


def test_console_runs_code_streams_output_and_stops_a_loop(open_page, base, module):
    page, _ = open_page(base + module)
    _hydrated(page)
    panel, editor, output = _console(page)
    _run(page, editor, "t = load_table('demo')\nprint(t.corpus, t.d_model, len(t.vocabulary) > 10)\nx = 41\nx + 1")
    assert "demo 32 True\n42\n" in output.text_content()

    # Output arrives while the code runs, not only at the end.
    _run(page, editor, "import time\nfor i in range(4):\n    print('tick', i, flush=True)\n    time.sleep(0.4)", wait=False)
    page.wait_for_function("el => el.textContent.includes('tick 1')", arg=output.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert panel.get_attribute("data-scalecore-running") is not None, "output came only after the run"
    page.wait_for_function("!document.querySelector('.scalecore-panel--console[data-scalecore-running]')")

    # Errors are text from the reader's code only; SystemExit does not kill the console.
    _run(page, editor, "print('<b>bold</b>')\n1/0")
    assert output.locator("b").count() == 0 and "<b>bold</b>" in output.text_content()
    assert 'File "<console>", line 2' in output.text_content() and "ZeroDivisionError" in output.text_content()
    _run(page, editor, "raise SystemExit(3)")
    assert "SystemExit(3)" in output.text_content()

    # Not cross-origin isolated: Stop restarts the worker, and says so. The page stays usable.
    _run(page, editor, "while True: pass", wait=False)
    page.wait_for_timeout(500)
    assert page.evaluate("1 + 1") == 2  # the page is not frozen
    panel.get_by_role("button", name="Stop").click()
    page.wait_for_function("!document.querySelector('.scalecore-panel--console[data-scalecore-running]')",
                           timeout=10_000)
    assert "restarted" in output.text_content()
    assert page.evaluate("scalecoreTimings.lastStopMode") == "restarted"
    _run(page, editor, "print('x' in globals(), 'load_table' in globals())")
    assert "False True" in output.text_content()

    # History: Alt+Up brings back earlier code.
    editor.fill("")
    editor.press("Alt+ArrowUp")
    assert "globals()" in editor.input_value()
    panel.get_by_role("button", name="Clear output").click()
    assert output.text_content() == ""


def test_console_interrupts_in_place_when_cross_origin_isolated(open_page, servers, module):
    page, _ = open_page(servers["isolated"] + module)
    assert page.evaluate("crossOriginIsolated") is True
    _hydrated(page)
    panel, editor, output = _console(page)
    _run(page, editor, "kept = 'still here'")
    _run(page, editor, "while True: pass", wait=False)
    page.wait_for_timeout(500)
    panel.get_by_role("button", name="Stop").click()
    page.wait_for_function("!document.querySelector('.scalecore-panel--console[data-scalecore-running]')",
                           timeout=10_000)
    assert "KeyboardInterrupt" in output.text_content(), page.evaluate("scalecoreTimings.lastStopUnanswered || null")
    # noted when the live client's stop() resolves, which polls every 15 ms: it may come after the run ends
    page.wait_for_function("() => scalecoreTimings.lastStopMode !== undefined", timeout=10_000)
    assert page.evaluate("scalecoreTimings.lastStopMode") == "interrupted"
    _run(page, editor, "print(kept)")
    assert "still here" in output.text_content()


def _numbers(value):
    """Every number in a JSON value, in order (to compare a live point with its baked file)."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _numbers(value[key])
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def _encoder_panel(open_page, base, built_site):
    """The first page with an encoder panel, opened, and that panel once its script runs."""
    [encoder_page] = [page for page in _pages(built_site)
                      if "scalecore-panel--encoder" in (built_site / page).read_text(encoding="utf-8")][:1]
    page, _ = open_page(base + encoder_page)
    panel = page.locator(".scalecore-panel--encoder").first
    panel.scroll_into_view_if_needed()
    page.wait_for_function("el => el.scalecorePanel", arg=panel.element_handle(), timeout=20_000)
    return page, panel


def test_a_live_forms_seed_follows_the_panels_seed_until_the_reader_types_one(open_page, base, built_site):
    """A fresh reader opened the encoder at seed 4 (its address) and computed live: the live form
    said seed 0, and so did the result. The form's seed shows the panel's, until the reader types
    a seed of their own."""
    page, panel = _encoder_panel(open_page, base, built_site)
    panel.get_by_label("Seed", exact=True).select_option("4")
    page.wait_for_function("el => el.scalecorePanel.seed === 4", arg=panel.element_handle())
    panel.get_by_role("button", name="Compute live").click()
    seed = panel.locator(".scalecore-live__form").get_by_label("Any seed")
    assert seed.input_value() == "4"
    panel.get_by_label("Seed", exact=True).select_option("2")
    page.wait_for_function("el => el.scalecorePanel.seed === 2", arg=panel.element_handle())
    assert seed.input_value() == "2"
    seed.fill("7")  # the reader's own seed stays
    panel.get_by_label("Seed", exact=True).select_option("1")
    page.wait_for_function("el => el.scalecorePanel.seed === 1", arg=panel.element_handle())
    assert seed.input_value() == "7"


def test_the_encoders_live_mode_shows_the_placement_on_screen_first_then_the_other_two(open_page, base, built_site):
    """The encoder computes three placements of six layers; the reader looks at one: it is shown as
    soon as it is computed, the other two follow, and each equals its baked file within 1e-9."""
    page, panel = _encoder_panel(open_page, base, built_site)
    panel.evaluate("""root => {
      const p = root.scalecorePanel, render = p.render.bind(p);
      root.renders = [];
      p.render = (clicked) => { root.renders.push(p.live ? Object.keys(p.live.results).sort().join(",") : "baked"); return render(clicked); };
    }""")
    norm = panel.evaluate("root => root.scalecorePanel.norm")
    corpus = panel.evaluate("root => root.scalecorePanel.corpus")
    panel.get_by_role("button", name="Compute live").click()
    page.evaluate("delete scalecoreTimings.lastRecomputeAllMs")
    panel.evaluate("root => { root.renders = []; }")
    panel.locator(".scalecore-live__form").get_by_role("button", name="Compute", exact=True).click()
    page.wait_for_function("() => scalecoreTimings.lastRecomputeAllMs !== undefined", timeout=PYODIDE_TIMEOUT_MS)
    renders = panel.evaluate("root => root.renders")
    assert renders == [norm], f"the shown placement ({norm}) alone is drawn first, and only once: {renders}"
    message = panel.locator(".scalecore-live__message").text_content()
    assert re.search(r"computed in your browser, what is shown in \d+ ms and the rest by \d+ ms\.", message), message
    live = panel.evaluate("root => root.scalecorePanel.live.results")
    assert sorted(live) == ["none", "post", "pre"]
    for placement, result in live.items():
        baked = _point(built_site, "encoder", f"{corpus}/0/{placement}")
        got, want = list(_numbers(result)), list(_numbers(baked))
        assert len(got) == len(want) and all(_close(a, b) for a, b in zip(got, want)), placement
    other = next(n for n in ("none", "post", "pre") if n != norm)
    panel.locator(f"input[value='{other}']").check(force=True)
    page.wait_for_function("([el, norm]) => el.getAttribute('data-encoder-norm') === norm", arg=[panel.element_handle(), other])
    assert panel.get_attribute("data-scalecore-source") == "live"
    timings = page.evaluate("scalecoreTimings")
    print(f"\nencoder live: shown in {timings['lastRecomputeMs']:.0f} ms, all three in {timings['lastRecomputeAllMs']:.0f} ms")

    # Seed 1 typed, then a reader's pause: the placement on screen was computed meanwhile (prepare),
    # the click shows it at once and computes the other two; all three equal seed 1's baked files
    form = panel.locator(".scalecore-live__form")
    form.get_by_label("Seed").fill("1")
    page.wait_for_function("() => scalecoreTimings.lastPreparedAt !== undefined")
    page.evaluate("delete scalecoreTimings.lastRecomputeAllMs")
    panel.evaluate("root => { root.renders = []; }")
    form.locator("button[type=submit]").click()
    page.wait_for_function("() => scalecoreTimings.lastRecomputeAllMs !== undefined", timeout=PYODIDE_TIMEOUT_MS)
    assert page.evaluate("scalecoreTimings.lastRecomputePrepared")
    assert panel.evaluate("root => root.renders") == [other]
    for placement, result in panel.evaluate("root => root.scalecorePanel.live.results").items():
        got, want = list(_numbers(result)), list(_numbers(_point(built_site, "encoder", f"{corpus}/1/{placement}")))
        assert len(got) == len(want) and all(_close(a, b) for a, b in zip(got, want)), placement

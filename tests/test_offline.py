"""Reading offline after one visit (issues 33 and 42), in Chromium with the site's service worker.

A reader visits two pages of a served site, goes offline (the browser context's offline mode),
reloads both, and opens a third that only "Make this site available offline" fetched; with the
live runtime saved too, the console runs Python offline. Pages read without saving stay readable,
with the figures they showed; an unread page says so; live mode and the console say truthfully
what was saved. The worker is never in the way: a second page's quick switches while it installs
and saves lose nothing, and a new build reaches every open tab with one action. A cached file
that was altered is refused. Every server records what it was asked for, so "nothing
reached the network" is checked on the server's side, and no request ever leaves 127.0.0.1.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

pytest.register_assert_rewrite("browser")
from browser import PYODIDE_TIMEOUT_MS, StaticServer, module_page, page_url, wait_hydrated  # noqa: E402

from scalecore_generator.builder import offline  # noqa: E402

WORKER = "/" + offline.WORKER


def network(server, since: int) -> list[str]:
    """What reached the server since ``since``, but the browser's own check for a newer worker
    script: the browser makes it, not a page, and Playwright's offline mode does not cover it
    (a reader really offline has it fail, and the worker keeps serving its build)."""
    return [path for path in server.paths[since:] if not path.endswith(WORKER)]


FIRST, THIRD = "index.html", "guide/kinds.html"  # the third: never visited, saved by the button
CONTROLLED = "() => !!navigator.serviceWorker.controller"
CACHE_KEYS = """async () => {
  const found = {};
  for (const name of await caches.keys()) found[name] = (await (await caches.open(name)).keys()).map(r => r.url);
  return found;
}"""


@pytest.fixture
def reader(chromium):
    """reader(server) -> (context, page): a fresh browser profile with service workers allowed,
    every request outside the server refused and recorded in ``context.refused``."""
    opened = []

    def open_(server):
        context = chromium.new_context(service_workers="allow", viewport={"width": 1280, "height": 900})
        context.refused = []

        def refuse(route):
            context.refused.append(route.request.url)
            return route.abort()

        # Only what is not the server's is routed here: a pattern is matched by Playwright's driver,
        # while a catch-all handler would hold every request (the worker's too) until this thread
        # next called into Playwright, so a save crawled at a few files a second.
        context.route(server.elsewhere(), refuse)
        opened.append(context)
        return context, context.new_page()

    yield open_
    for context in opened:
        context.close()


def published(tmp_path, site, name: str = "current"):
    """The served folder: a link to a build, which ``publish`` swaps atomically (as a host would)."""
    link = tmp_path / name

    def publish(build):
        staged = tmp_path / f".{name}.next"
        staged.unlink(missing_ok=True)
        staged.symlink_to(build, target_is_directory=True)
        os.replace(staged, link)

    publish(site)
    return link, publish


def wait_saved(page, runtime: bool = False, timeout: float = 120_000) -> str:
    """Open the dialog, read the size it states, save, wait until it says it is done."""
    page.get_by_role("button", name="Make this site available offline").click()
    dialog = page.get_by_role("dialog", name="Make this site available offline")
    size = dialog.locator(f'[data-size="{"runtime" if runtime else "site"}"]')
    expect(size).to_contain_text("MB", timeout=20_000)  # stated before anything is fetched
    stated = size.text_content()
    if runtime:
        dialog.get_by_label("All of that and the live runtime", exact=False).check()
    dialog.get_by_role("button", name="Save for offline").click()
    expect(dialog.locator(".scalecore-offline__status[data-done]")).to_be_visible(timeout=timeout)
    expect(dialog.get_by_role("button", name="Saved", exact=True)).to_be_disabled()  # nothing left to save at this level
    dialog.get_by_role("button", name="Close").click()
    return stated


def controlled(page, url: str) -> None:
    page.goto(url)
    page.wait_for_function(CONTROLLED, timeout=20_000)
    page.wait_for_load_state("networkidle")


def test_two_pages_read_and_a_third_saved_open_offline(reader, site_server, built_site):
    context, page = reader(site_server)
    second = page_url(module_page(built_site))
    controlled(page, site_server.url)  # the first visit: the worker starts, keeps what the page used
    page.goto(site_server.url + second)
    expect(page.locator(".scalecore-panel").first).to_be_visible()
    stated = wait_saved(page)
    listing = json.loads((built_site / offline.LISTING).read_text(encoding="utf-8"))["files"]
    site_bytes = sum(entry["bytes"] for entry in listing.values() if not entry.get("runtime"))
    assert f"({site_bytes / 1e6:.0f} MB in all)" in stated, stated  # the size, stated before saving
    keys = page.evaluate(CACHE_KEYS)
    assert len(keys) == 1, keys  # one cache: this build's
    kept = next(iter(keys.values()))
    assert all(url.startswith(site_server.url) for url in kept), [u for u in kept if not u.startswith(site_server.url)]

    context.set_offline(True)
    asked = len(site_server.paths)
    for url in (FIRST, second):
        page.goto(site_server.url + page_url(url))
        page.reload()
        expect(page.locator("h1").first).to_be_visible()
        assert page.evaluate("document.querySelectorAll('link[rel=stylesheet]').length") > 0
        assert page.evaluate("getComputedStyle(document.body).fontFamily") != ""
    page.goto(site_server.url + THIRD)
    expect(page.locator("h1").first).to_contain_text("Write your own interactive")
    assert page.evaluate("crossOriginIsolated"), "the worker's answers keep the isolation headers"
    assert network(site_server, asked) == [], "offline, nothing reached the server"
    assert context.refused == []


def test_live_mode_and_the_console_start_offline_once_saved_with_the_runtime(reader, site_server, built_site):
    context, page = reader(site_server)
    lesson = page_url(module_page(built_site))
    controlled(page, site_server.url + lesson)
    stated = wait_saved(page, runtime=True, timeout=PYODIDE_TIMEOUT_MS * 2)
    assert "MB" in stated
    context.set_offline(True)
    asked = len(site_server.paths)
    page.reload()
    panel = page.locator(".scalecore-panel--console").first
    panel.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'true'", arg=panel.element_handle())
    editor, output = panel.locator("textarea"), panel.locator("pre.scalecore-console__output")
    editor.fill("import scalecore.experiment\nprint(6 * 7)")
    editor.press("Control+Enter")
    expect(output).to_contain_text("42", timeout=PYODIDE_TIMEOUT_MS)
    compute_live(page)
    assert network(site_server, asked) == []
    assert context.refused == []


def new_build(tmp_path, site, marker: str, styles: bool = True):
    """The site as a next build publishes it: one page and (``styles``) the stylesheet changed, the
    listing and the worker written again by the code the build runs (scalecore_generator/builder/offline.py)."""
    target = tmp_path / marker
    shutil.copytree(site, target, copy_function=os.link)
    changed = [(target / FIRST, "</h1>", f" ({marker})</h1>")]
    if styles:
        changed.append((target / "assets/scalecore/scalecore.min.css", "", f"\nbody{{--scalecore-build:{marker}}}"))
    for path, old, new in changed:
        text = path.read_text(encoding="utf-8")
        path.unlink()  # a hard link: never write through it into the first build
        path.write_text(text.replace(old, new, 1) if old else text + new, encoding="utf-8")
    offline.write(target)
    return target


BUILD_OF_STYLES = "() => getComputedStyle(document.body).getPropertyValue('--scalecore-build').trim()"
UPDATE = ".scalecore-update"


def test_a_new_build_reaches_every_tab_with_one_action(reader, built_site, tmp_path):
    """Online, the network answers first: a reload after a new build is published brings it at
    once (page and styles of the same build). The newer build's worker takes over as soon as it
    holds what the reader had; a second tab still showing the older build offers one action,
    "Reload to update", which brings the new version; the tab already of the new build is not
    asked. The old cache is gone, and the site the reader saved stays saved, of the new build."""
    folder, publish = published(tmp_path, built_site)
    server = StaticServer(folder)
    try:
        context, page = reader(server)
        controlled(page, server.url)
        wait_saved(page)
        other = context.new_page()
        controlled(other, server.url + THIRD)
        publish(new_build(tmp_path, built_site, "second"))
        page.reload()
        expect(page.locator("h1").first).to_contain_text("(second)", timeout=20_000)
        assert page.evaluate(BUILD_OF_STYLES) == "second"
        # The second tab: told once the new worker has taken over, with one action.
        notice = other.locator(UPDATE)
        expect(notice).to_contain_text("This site was updated", timeout=60_000)
        other.get_by_role("button", name="Reload to update").click()
        other.goto(server.url)
        expect(other.locator("h1").first).to_contain_text("(second)", timeout=20_000)
        assert page.locator(UPDATE).count() == 0, "the tab already of the new build is not asked to reload"
        page.wait_for_function("() => caches.keys().then(names => names.length === 1)", timeout=20_000)
        context.set_offline(True)
        page.goto(server.url + THIRD)  # the update kept the whole site saved
        expect(page.locator("h1").first).to_contain_text("Write your own interactive")
        assert page.evaluate(BUILD_OF_STYLES) == "second"
        assert context.refused == []
    finally:
        server.close()


def test_a_tab_that_a_new_build_did_not_change_is_not_asked_to_reload(reader, built_site, tmp_path):
    """Issue 42: a new build that changed another page only leaves a tab whose page and files are
    the same in both builds as it is, with no "Reload to update"; one that changed a file the tab
    used (the stylesheet) asks. The saving dialog offers what is left to save: "Saved" once the
    site is, "Save for offline" again for the bigger level."""
    folder, publish = published(tmp_path, built_site)
    server = StaticServer(folder)
    try:
        context, page = reader(server)
        controlled(page, server.url + THIRD)
        wait_saved(page)
        page.get_by_role("button", name="Make this site available offline").click()
        dialog = page.get_by_role("dialog", name="Make this site available offline")
        expect(dialog.get_by_role("button", name="Saved", exact=True)).to_be_disabled(timeout=20_000)
        dialog.get_by_label("All of that and the live runtime", exact=False).check()
        expect(dialog.get_by_role("button", name="Save for offline")).to_be_enabled()
        dialog.get_by_label("Pages, styles, fonts and data", exact=False).check()
        expect(dialog.get_by_role("button", name="Saved", exact=True)).to_be_disabled()
        dialog.get_by_role("button", name="Close").click()

        other = context.new_page()
        controlled(other, server.url)
        publish(new_build(tmp_path, built_site, "page-only", styles=False))
        other.reload()  # the browser finds the newer worker, which takes over both tabs
        expect(other.locator("h1").first).to_contain_text("(page-only)", timeout=20_000)
        page.wait_for_function("() => caches.keys().then(names => names.length === 1)", timeout=60_000)
        page.wait_for_timeout(1500)  # the tab's question to the new worker and its answer
        assert page.locator(UPDATE).count() == 0, "nothing the tab used changed: it is of the new build too"
        assert other.locator(UPDATE).count() == 0
        # No newer worker left waiting (Chrome deferred its skipWaiting with two tabs open, and the
        # next navigation in the other tab hung on it): the pages ask it again.
        assert page.evaluate("navigator.serviceWorker.getRegistration().then(r => !r.waiting)")

        publish(new_build(tmp_path, built_site, "styles"))
        other.reload()
        expect(other.locator("h1").first).to_contain_text("(styles)", timeout=20_000)
        expect(page.locator(UPDATE)).to_contain_text("This site was updated", timeout=60_000)
        page.reload(timeout=20_000)  # the other tab's reload brought the newer worker: this one does not hang
        expect(page.locator("h1").first).to_contain_text("Write your own interactive")
        assert context.refused == []
    finally:
        server.close()


def test_a_lone_tab_is_told_of_a_new_build_when_the_reader_comes_back_to_it(reader, built_site, tmp_path):
    """The browser looks for a newer worker only when a page loads: a tab left open alone (no
    other tab, no reload) was never told. It asks when the reader comes back to it."""
    folder, publish = published(tmp_path, built_site)
    server = StaticServer(folder)
    try:
        context, page = reader(server)
        controlled(page, server.url)
        publish(new_build(tmp_path, built_site, "lone"))
        page.evaluate("""() => {
          Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
          document.dispatchEvent(new Event('visibilitychange'));
          Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
          document.dispatchEvent(new Event('visibilitychange'));
        }""")
        expect(page.locator(UPDATE)).to_contain_text("This site was updated", timeout=60_000)
        assert context.refused == []
    finally:
        server.close()


SWITCH_EVERY_GUARD = """() => {
  for (const panel of document.querySelectorAll('.scalecore-panel--scale-guards')) {
    panel.scrollIntoView();
    for (const control of panel.querySelectorAll('[role=switch]:not([disabled])')) { control.click(); control.click(); }
  }
}"""
# An image that finished loading with nothing to show (one still loading lazily is not broken).
BROKEN_IMAGES = """() => Array.from(document.querySelectorAll('.scalecore-panel img'))
  .filter(img => img.getAttribute('src') && img.complete && img.naturalWidth === 0).map(img => img.src)"""


def switch_everything(page) -> None:
    """Every guard switch of every scale-guards panel on the page, on and off, without waiting."""
    wait_hydrated(page)
    page.evaluate(SWITCH_EVERY_GUARD)
    page.wait_for_load_state("networkidle")


def test_a_readers_second_page_loses_nothing_while_the_worker_is_busy(reader, site_server, built_site):
    """Issue 42's sequence: the first page (the worker installs and keeps what it used), then the
    home page's guard switches in turn; then every module page's switches while the reader's
    first save runs. Every request the pages make is answered: no failed request, no broken
    figure."""
    context, page = reader(site_server)
    failed = []  # a request the page cancelled itself (ERR_ABORTED: it navigated on) is not one the site failed
    page.on("requestfailed", lambda request: request.failure == "net::ERR_ABORTED"
            or failed.append(f"{request.url}: {request.failure}"))
    page.goto(site_server.url + "corpora.html")
    page.goto(site_server.url + "index.html")
    switch_everything(page)
    assert failed == [] and page.evaluate(BROKEN_IMAGES) == []
    page.get_by_role("button", name="Make this site available offline").click()
    dialog = page.get_by_role("dialog", name="Make this site available offline")
    expect(dialog.locator('[data-size="site"]')).to_contain_text("MB", timeout=20_000)
    dialog.get_by_role("button", name="Save for offline").click()  # the first save: the worker is busy
    dialog.get_by_role("button", name="Close").click()
    for module in module_pages(built_site):
        page.goto(site_server.url + page_url(module))
        switch_everything(page)
        assert page.evaluate(BROKEN_IMAGES) == [], module
    assert failed == [], failed
    assert context.refused == []


def module_pages(site) -> list[str]:
    return sorted(path.relative_to(site).as_posix() for path in (site / "modules").glob("*.html") if path.name != "index.html")


def test_pages_read_stay_readable_offline_and_an_unread_one_says_so(reader, site_server, built_site):
    """Without saving anything: the pages the reader opened (and the figures their switches
    showed) open offline; a page never opened says it was not saved, and lists those that were."""
    context, page = reader(site_server)
    controlled(page, site_server.url)
    lesson = page_url(module_page(built_site))
    page.goto(site_server.url + lesson)
    switch_everything(page)
    page.wait_for_timeout(1000)  # the copies are kept after the answers
    context.set_offline(True)
    asked = len(site_server.paths)
    for url in ("", lesson):
        page.goto(site_server.url + url)
        page.reload()
        expect(page.locator("h1").first).to_be_visible()
        assert page.evaluate("document.querySelectorAll('link[rel=stylesheet]').length") > 0
    switch_everything(page)
    assert page.evaluate(BROKEN_IMAGES) == []
    page.goto(site_server.url + THIRD)
    expect(page.locator("h1")).to_have_text("Not saved for offline reading")
    title = re.search(r"<title>([^<]*)</title>", (built_site / lesson.split("?")[0]).read_text(encoding="utf-8"))[1]
    saved = page.get_by_role("link", name=html.unescape(title))  # the saved pages, by their titles
    expect(saved).to_be_visible()
    saved.click()
    expect(page.locator(".scalecore-panel").first).to_be_visible()
    page.goto(site_server.url + "modules/no-such-page.html")  # not a page of the site: said as such
    expect(page.locator("h1")).to_have_text("Not a page of the saved site")
    assert network(site_server, asked) == []
    assert context.refused == []


def test_a_choice_never_viewed_online_says_offline_that_it_was_not_saved(reader, site_server, built_site):
    """A reader offline chose a seed they had not viewed online: the panel said "Could not load kjv,
    seed 3: could not load http://.../data.js" (a fresh reader). It says, as the pages do, that
    it was not saved, and keeps what it showed."""
    context, page = reader(site_server)
    lesson = page_url(module_page(built_site))
    controlled(page, site_server.url + lesson)
    page.reload()
    wait_hydrated(page)
    page.wait_for_load_state("networkidle")
    context.set_offline(True)
    panel = page.locator(".scalecore-panel--scale-guards").filter(has=page.get_by_label("Seed")).first
    panel.scroll_into_view_if_needed()
    seed = panel.get_by_label("Seed").first
    shown = seed.input_value()
    other = [value for value in seed.locator("option").evaluate_all("options => options.map(o => o.value)")
             if value != shown][-1]
    seed.select_option(other)
    status = panel.locator(".scalecore-panel__status, [role=status]").filter(has_text="not saved on this device")
    expect(status.first).to_contain_text("is not saved on this device, and there is no network", timeout=10_000)
    assert "could not load" not in panel.inner_text().lower()


def compute_live(page) -> None:
    """Compute live in the page's first scale-guards panel, and wait for its live results."""
    guards = page.locator(".scalecore-panel--scale-guards").first
    guards.scroll_into_view_if_needed()
    guards.get_by_role("button", name="Compute live").click()
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=guards.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)


def test_offline_live_mode_and_the_console_say_what_was_saved(reader, site_server, built_site):
    """A page read online, live mode never started: offline, live mode and the console say they
    were not saved on this device (never the file:// text, never a module error). Started once
    online on that page, live mode then runs there offline."""
    context, page = reader(site_server)
    lesson = page_url(module_page(built_site))
    controlled(page, site_server.url + lesson)
    page.reload()
    wait_hydrated(page)  # every panel's code, the console's too, kept; not the runtime
    page.wait_for_load_state("networkidle")
    context.set_offline(True)
    page.reload()
    wait_hydrated(page)
    console = page.locator(".scalecore-panel--console").first
    console.locator("textarea").fill("print(6 * 7)")
    console.locator("textarea").press("Control+Enter")
    expect(console.locator("pre.scalecore-console__output")).to_contain_text("not saved on this device", timeout=10_000)
    assert console.locator("pre.scalecore-console__output").text_content().endswith("you are online.\n")  # a sentence
    page.reload()
    guards = page.locator(".scalecore-panel--scale-guards").first
    guards.scroll_into_view_if_needed()
    guards.get_by_role("button", name="Compute live").click()
    message = guards.locator(".scalecore-live__message")
    expect(message).to_contain_text("not saved on this device", timeout=30_000)
    assert "dynamically imported" not in message.text_content()
    assert message.text_content().rstrip().endswith("you are online.")
    assert not page.locator(".scalecore-panel--console").first.get_by_text("rather than opened from disk").is_visible()
    context.set_offline(False)
    page.reload()
    compute_live(page)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(1000)
    context.set_offline(True)
    asked = len(site_server.paths)
    page.reload()
    compute_live(page)
    assert network(site_server, asked) == []
    assert context.refused == []


def test_an_altered_cached_file_is_refused(reader, site_server, built_site):
    context, page = reader(site_server)
    controlled(page, site_server.url)
    wait_saved(page)
    cache = page.evaluate("caches.keys().then(names => names[0])")
    page.evaluate("""async ([cache, url]) => {
      const altered = new Response('<!doctype html><h1>altered</h1>', {headers: {'Content-Type': 'text/html'}});
      await (await caches.open(cache)).put(url, altered);
    }""", [cache, site_server.url + THIRD])
    context.set_offline(True)
    page.goto(site_server.url + THIRD)
    expect(page.locator("h1")).to_have_text("Not saved for offline reading")  # refused, not served
    context.set_offline(False)
    page.reload()
    expect(page.locator("h1").first).to_contain_text("Write your own interactive")  # the genuine file, checked
    context.set_offline(True)
    page.reload()
    expect(page.locator("h1").first).to_contain_text("Write your own interactive")  # and kept again


def test_under_a_subpath_the_worker_keeps_to_it_and_reads_offline(reader, subpath_server, built_site):
    context, page = reader(subpath_server)
    controlled(page, subpath_server.url + page_url(module_page(built_site)))
    assert page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)") == subpath_server.url
    wait_saved(page)
    kept = [url for urls in page.evaluate(CACHE_KEYS).values() for url in urls]
    assert kept and all(url.startswith(subpath_server.url) for url in kept)
    context.set_offline(True)
    asked = len(subpath_server.paths)
    page.goto(subpath_server.url + THIRD)
    expect(page.locator("h1").first).to_contain_text("Write your own interactive")
    assert network(subpath_server, asked) == [] and subpath_server.outside_since(0) == []
    assert context.refused == []


def test_two_sites_of_one_origin_keep_their_own_pages(reader, built_site, tmp_path):
    """Two sites under two subpaths of one origin (two project sites of a GitHub user, two
    versions on Read the Docs), each a build of its own: reading one never drops what the other
    kept, and both read offline."""
    root = tmp_path / "origin"
    root.mkdir()
    (root / "a").symlink_to(built_site, target_is_directory=True)
    (root / "b").symlink_to(new_build(tmp_path, built_site, "second"), target_is_directory=True)
    server = StaticServer(root)
    try:
        context, page = reader(server)
        for site in ("a/", "b/", "a/"):
            controlled(page, server.url + site)
            page.reload()
            page.wait_for_load_state("networkidle")
        names = page.evaluate("caches.keys()")
        assert len(names) == 2 and {name.split(":")[0] for name in names} == {"scalecore-/a/", "scalecore-/b/"}, names
        context.set_offline(True)
        for site, title in (("a/", None), ("b/", "(second)")):
            page.goto(server.url + site)
            expect(page.locator("h1").first).to_be_visible()
            if title:
                expect(page.locator("h1").first).to_contain_text(title)
        assert context.refused == []
    finally:
        server.close()


def test_a_full_browser_storage_is_said_as_such(reader, site_server):
    """Issue 46.7: a save that the browser's storage quota stops says so, with what is used and
    allowed, not "try again when the network is back"; what was saved stays."""
    context, page = reader(site_server)
    controlled(page, site_server.url)
    cdp = context.new_cdp_session(page)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": site_server.origin, "quotaSize": 8_000_000})
    page.get_by_role("button", name="Make this site available offline").click()
    dialog = page.get_by_role("dialog", name="Make this site available offline")
    expect(dialog.locator('[data-size="site"]')).to_contain_text("MB", timeout=20_000)
    dialog.get_by_role("button", name="Save for offline").click()
    status = dialog.locator(".scalecore-offline__status")
    expect(status).to_contain_text("no more room on this device", timeout=120_000)
    assert "network" not in status.text_content() and ".." not in status.text_content()
    expect(dialog.get_by_role("button", name="Save for offline")).to_be_enabled()
    assert page.evaluate("caches.keys().then(names => names.length)") == 1  # what was saved stays


def test_the_offline_guide_states_the_sizes_the_dialog_states(built_site):
    """docs/guide/offline.md gives the three choices' sizes for this site; the dialog computes
    them from offline.json (offline.js: site, runtime, stack). The guide's "about" numbers stay
    within a twentieth of what this build's dialog would say."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "guide" / "offline.md").read_text(encoding="utf-8")
    found = re.search(r"about (\d+) MB for this site\).*?about (\d+) MB in all\).*?about (\d+) MB in all\)",
                      " ".join(guide.split()))
    assert found, "the guide's three sizes"
    files = json.loads((built_site / "offline.json").read_text(encoding="utf-8"))["files"]
    site = sum(f["bytes"] for f in files.values() if not f.get("runtime") and not f.get("stack"))
    runtime = sum(f["bytes"] for f in files.values() if not f.get("stack"))
    stack = sum(f["bytes"] for f in files.values())
    for stated, measured in zip(map(int, found.groups()), (site, runtime, stack)):
        assert abs(stated - measured / 1e6) <= 0.05 * measured / 1e6, (stated, round(measured / 1e6, 1))

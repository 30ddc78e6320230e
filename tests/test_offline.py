"""Reading offline after one visit (issue 33), in Chromium with the site's service worker.

A reader visits two pages of a served site, goes offline (the browser context's offline mode),
reloads both, and opens a third that only "Make this site available offline" fetched; with the
live runtime saved too, the console runs Python offline. A new build published while the site is
cached is offered to the reader, who never sees a page of one build with a file of the other; a
cached file that was altered is refused. Every server records what it was asked for, so "nothing
reached the network" is checked on the server's side, and no request ever leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from playwright.sync_api import expect

pytest.register_assert_rewrite("browser")
from browser import PYODIDE_TIMEOUT_MS, StaticServer, module_page, page_url  # noqa: E402

from scalecore_generator.build import offline  # noqa: E402

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

        def route(route):
            if not server.allows(route.request.url):
                context.refused.append(route.request.url)
                return route.abort()
            return route.continue_()

        context.route("**/*", route)
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
    guards = page.locator(".scalecore-panel--scale-guards").first
    guards.get_by_role("button", name="Compute live").click()
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=guards.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert network(site_server, asked) == []
    assert context.refused == []


def new_build(tmp_path, site, marker: str):
    """The site as a next build publishes it: one page and the stylesheet changed, the listing and
    the worker written again by the code the build runs (scalecore_generator/build/offline.py)."""
    target = tmp_path / marker
    shutil.copytree(site, target, copy_function=os.link)
    for path, old, new in ((target / FIRST, "</h1>", f" ({marker})</h1>"),
                           (target / "assets/scalecore/scalecore.min.css", "", f"\nbody{{--scalecore-build:{marker}}}")):
        text = path.read_text(encoding="utf-8")
        path.unlink()  # a hard link: never write through it into the first build
        path.write_text(text.replace(old, new, 1) if old else text + new, encoding="utf-8")
    offline.write(target)
    return target


BUILD_OF_STYLES = "() => getComputedStyle(document.body).getPropertyValue('--scalecore-build').trim()"


def test_a_new_build_is_offered_and_no_page_mixes_two_builds(reader, built_site, tmp_path):
    folder, publish = published(tmp_path, built_site)
    server = StaticServer(folder)
    try:
        context, page = reader(server)
        controlled(page, server.url)
        wait_saved(page)
        first_title = page.locator("h1").first.text_content()
        publish(new_build(tmp_path, built_site, "second"))
        page.reload()  # the page and its styles: still the first build, from the cache
        expect(page.locator(".scalecore-update")).to_contain_text("A newer version of this site is ready",
                                                                  timeout=60_000)
        assert page.locator("h1").first.text_content() == first_title
        assert page.evaluate(BUILD_OF_STYLES) == ""
        page.goto(server.url + THIRD)  # another page before updating: the first build's too
        assert page.evaluate(BUILD_OF_STYLES) == ""
        page.goto(server.url)
        page.get_by_role("button", name="Reload to update").click()
        expect(page.locator("h1").first).to_contain_text("(second)", timeout=20_000)
        assert page.evaluate(BUILD_OF_STYLES) == "second"
        assert len(page.evaluate(CACHE_KEYS)) == 1  # the first build's cache is gone
        context.set_offline(True)
        page.goto(server.url + THIRD)  # the update kept the whole site saved
        expect(page.locator("h1").first).to_contain_text("Write your own interactive")
        assert page.evaluate(BUILD_OF_STYLES) == "second"
        assert context.refused == []
    finally:
        server.close()


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

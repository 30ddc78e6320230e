"""Serve is for writing: under ``mkdocs serve`` the page reloads by itself when its source
changes, with the site's Content-Security-Policy in force (the development server's live-reload
script is allowed by a nonce, in serve builds only), and a production build allows no nonce.

No service worker stands between an edit and the reload that shows it (issue 42): a dev build's
pages register none, and the worker a built site left on the same origin (a reader served the
built site on port 8000, then ran ``mkdocs serve`` there) steps aside on the first visit: the
pages come from the dev server, every edit shows, on this page and the next.
"""

import re
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from browser import StaticServer, free_port
from sites import build, copy_site, edit, environment
from test_kinds_tutorial import TUTORIAL

SERVE_MARKER = 'meta[name="scalecore-serve"]'
CONTROLLER = "() => navigator.serviceWorker.controller ? navigator.serviceWorker.controller.scriptURL : null"
CACHES = "() => caches.keys()"


def start_serving(folder, port: int, command: str = "mkdocs"):
    """``<command> serve`` on 127.0.0.1:port in ``folder``, once it answers: (process, url)."""
    server = subprocess.Popen([sys.executable, "-m", command, "serve", "--dev-addr", f"127.0.0.1:{port}"],
                              cwd=folder, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 300
    while True:
        try:
            with urllib.request.urlopen(url + "index.html", timeout=5) as answer:
                if answer.status == 200:
                    break
        except (OSError, ValueError):
            pass
        assert server.poll() is None and time.monotonic() < deadline, server.stdout.read()
        time.sleep(0.5)
    return server, url


def stop(server) -> None:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture
def serving(tmp_path):
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    server, url = start_serving(folder, free_port())
    yield folder, url
    stop(server)


def test_an_edit_reloads_the_page_under_the_sites_policy(visit, serving):
    folder, url = serving
    page, watch = visit(url + "index.html", bypass_csp=False)
    page.get_by_role("heading", name="My lessons", level=1).wait_for()
    policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert "'nonce-" in policy and "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";")[0]
    edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nEdited while serving.\n")
    page.get_by_text("Edited while serving.").wait_for(timeout=120_000)  # rebuilt, then reloaded by the script
    visit.close_all()  # while the server still runs: the page's checks (no CSP violation) see it whole


def test_a_failed_rebuild_is_said_on_the_open_page_until_a_build_works(visit, serving):
    """MkDocs keeps serving the last pages that built when a rebuild fails, and says so only in the
    terminal: the open page reloads to show the error at the window's foot, over the last site
    that built, and loses it once the author's fix builds (a fresh author's trap, issue 47)."""
    folder, url = serving
    page, watch = visit(url + "lessons/temperature.html", bypass_csp=False)
    page.get_by_role("heading", name="Softmax at a Temperature", level=1).wait_for()
    lesson = folder / "docs" / "lessons" / "temperature.md"
    before = len(watch.errors)
    edit(lesson, "temperature: 1.0\n", "temperature: 3.0\n")
    banner = page.get_by_role("alert").filter(has_text="The last build failed")
    banner.wait_for(timeout=120_000)  # rebuilt, failed, and the page reloaded to say so
    text = banner.inner_text()
    # the last site that built stays served: the page and its navigation (MkDocs empties the
    # folder before a rebuild, and every address answered 404: a fresh author's finding)
    assert text.startswith("The last build failed: this page is from the last build that worked, and reloads when "
                           "a build succeeds.\n"), text
    assert "scalecore: docs/lessons/temperature.md:" in text and "3.0 is not a baked temperature" in text
    assert "Fix: write one of them, or bake 3.0 too" in text
    page.get_by_role("heading", name="Softmax at a Temperature", level=1).wait_for()
    with urllib.request.urlopen(url + "index.html", timeout=10) as other:  # another page, served too
        assert other.status == 200 and b"The last build failed" in other.read()
    page.set_viewport_size({"width": 390, "height": 800})  # at the window's foot, not over the header
    header, box = page.locator(".md-header").bounding_box(), banner.bounding_box()
    assert abs(box["y"] + box["height"] - 800) < 1 and box["y"] > header["y"] + header["height"], (header, box)
    banner.locator("summary").click()  # folded to its first line
    assert banner.bounding_box()["height"] < box["height"] and banner.get_attribute("open") is None
    # at the page's end it takes its own room: the footer is not under it
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    footer, box = page.locator(".md-footer").bounding_box(), banner.bounding_box()
    assert footer["y"] + footer["height"] <= box["y"] + 1, (footer, box)
    edit(lesson, "temperature: 3.0\n", "temperature: 1.0\n")
    banner.wait_for(state="detached", timeout=120_000)  # the fix built: the page reloaded without it
    page.get_by_role("heading", name="Softmax at a Temperature", level=1).wait_for()
    # A mkdocs.yml MkDocs cannot read fails before any page: the same, at its line
    edit(folder / "mkdocs.yml", "strict: true", "strict: maybe")
    banner.wait_for(timeout=120_000)
    assert re.search(r"mkdocs\.yml:\d+: Config value 'strict': expected true or false", banner.inner_text())
    header, box = page.locator(".md-header").bounding_box(), banner.bounding_box()
    assert abs(box["y"] + box["height"] - 800) < 1 and box["y"] > header["y"] + header["height"], (header, box)
    edit(folder / "mkdocs.yml", "strict: maybe", "strict: true")
    banner.wait_for(state="detached", timeout=120_000)
    # ... and one that is no YAML at all: its line and the fix (MkDocs printed a traceback in the terminal)
    edit(folder / "mkdocs.yml", "strict: true", "strict: true\n  stray: [1")
    banner.wait_for(timeout=120_000)
    assert re.search(r"mkdocs\.yml:\d+:\d+: not valid YAML: .*Fix: compare line \d+", banner.inner_text()), banner.inner_text()
    edit(folder / "mkdocs.yml", "strict: true\n  stray: [1", "strict: true")
    banner.wait_for(state="detached", timeout=120_000)
    # A strict build that warned (MkDocs' own warning, a link to no page): the warning itself, not
    # "the warnings are in the terminal" (a fresh author's finding)
    written = lesson.read_text(encoding="utf-8")
    lesson.write_text(written + "\nSee [the notes](notes-that-are-not-there.md).\n", encoding="utf-8")
    banner.wait_for(timeout=120_000)
    text = banner.inner_text()
    assert "Aborted with 1 warnings in strict mode!" in text and "The warnings:\n" in text, text
    assert "notes-that-are-not-there.md" in text, text
    lesson.write_text(written, encoding="utf-8")
    banner.wait_for(state="detached", timeout=120_000)
    # A request in the moment the last site moves back (two renames) may answer 404.
    during = len(watch.errors)
    watch.errors[before:during] = [error for error in watch.errors[before:during] if not (
        error.startswith("HTTP 404 for ") or "the server responded with a status of 404" in error)]
    visit.close_all()


def test_an_edit_to_a_snippet_outside_docs_rebuilds_the_page_that_includes_it(visit, tmp_path):
    """MkDocs watches docs/ and mkdocs.yml only: a snippet included from another folder was edited
    and nothing rebuilt, the page kept the old text (a fresh author's finding). The files a page's
    conversion read are watched too, from the first build on."""
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    with open(folder / "mkdocs.yml", "a", encoding="utf-8") as config:
        config.write("\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [parts]\n      check_paths: true\n")
    (folder / "parts").mkdir()
    (folder / "parts" / "aside.md").write_text("An aside from another folder.\n", encoding="utf-8")
    edit(folder / "docs" / "index.md", "# My lessons\n", '# My lessons\n\n--8<-- "aside.md"\n')
    server, url = start_serving(folder, free_port())
    try:
        page, watch = visit(url + "index.html", bypass_csp=False)
        page.get_by_text("An aside from another folder.").wait_for()
        (folder / "parts" / "aside.md").write_text("An aside, edited.\n", encoding="utf-8")
        page.get_by_text("An aside, edited.").wait_for(timeout=120_000)  # rebuilt, then reloaded by the script
        visit.close_all()
    finally:
        stop(server)


def test_a_package_added_while_serving_is_watched_from_the_next_build(visit, tmp_path):
    """MkDocs calls on_serve once: the folders the first build read were watched, and a package
    added to ``packages`` while serving was read by the next build, but an edit to it rebuilt
    nothing until the server restarted (a fresh author's finding)."""
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    server, url = start_serving(folder, free_port())
    try:
        page, watch = visit(url + "index.html", bypass_csp=False)
        page.evaluate("window.__before = true")
        (folder / "helpers").mkdir()
        (folder / "helpers" / "__init__.py").write_text("G = 9.81\n", encoding="utf-8")
        edit(folder / "mkdocs.yml", "packages: [mylessons]", "packages: [mylessons, helpers]")
        page.wait_for_function("() => window.__before === undefined", timeout=120_000)  # rebuilt with it
        page.wait_for_load_state("load")
        page.wait_for_timeout(1000)
        page.evaluate("window.__before = true")
        (folder / "helpers" / "__init__.py").write_text("G = 1.62\n", encoding="utf-8")
        page.wait_for_function("() => window.__before === undefined", timeout=120_000)  # rebuilt and reloaded
        visit.close_all()
    finally:
        stop(server)


def test_no_worker_takes_a_dev_servers_pages(visit, serving):
    """Service workers allowed, as a reader's browser has them: a dev build registers none, an
    edit shows on reload and on the next page, and the header's offline dialog says why."""
    folder, url = serving
    page, watch = visit(url + "index.html", bypass_csp=False, service_workers="allow")
    page.get_by_role("heading", name="My lessons", level=1).wait_for()
    assert page.locator(SERVE_MARKER).count() == 1
    page.wait_for_timeout(1500)  # offline.js and isolate.js do their work when the page is idle
    assert page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)") == 0
    page.get_by_role("button", name="Make this site available offline").click()
    dialog = page.get_by_role("dialog", name="Make this site available offline")
    expect(dialog).to_contain_text("development server")
    dialog.get_by_role("button", name="Close").click()
    edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nSecond edit.\n")
    page.get_by_text("Second edit.").wait_for(timeout=120_000)
    page.reload()
    expect(page.get_by_text("Second edit.")).to_be_visible()
    assert page.evaluate(CONTROLLER) is None
    visit.close_all()


def test_a_built_sites_worker_steps_aside_for_mkdocs_serve_on_the_same_origin(chromium, tmp_path):
    """The reader's sequence of issue 42: the built site served on a port and read (its worker
    installs and keeps the pages), then ``mkdocs serve`` on the same port: the first visit brings
    the dev server's page, the old worker is gone with its caches, and edits show."""
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    result = build(folder)
    assert result.returncode == 0, result.describe()
    built = StaticServer(folder / "site")
    port = built.port
    context = chromium.new_context(service_workers="allow", viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(built.url + "index.html")
        page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=30_000)
        page.reload()  # the page now comes through the worker, which keeps it
        page.wait_for_function("() => caches.keys().then(k => k.length > 0)", timeout=30_000)
        built.close()
        server, url = start_serving(folder, port)
        try:
            page.goto(url + "index.html")
            # The old worker answered this navigation; the browser's check of the worker's script
            # found the dev build's, which took over, unregistered and reloaded the page.
            page.wait_for_function("() => !!document.querySelector('meta[name=\"scalecore-serve\"]')", timeout=20_000)
            page.wait_for_function("() => !navigator.serviceWorker.controller", timeout=20_000)
            page.wait_for_function("() => caches.keys().then(names => names.length === 0)", timeout=10_000)
            assert page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)") == 0
            edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nEdited after the built site.\n")
            page.get_by_text("Edited after the built site.").wait_for(timeout=120_000)
            started = time.monotonic()
            page.reload()
            expect(page.get_by_text("Edited after the built site.")).to_be_visible()
            assert time.monotonic() - started < 10
        finally:
            stop(server)
    finally:
        context.close()


def test_properdocs_serve_keeps_the_same_edit_loop(visit, tmp_path):
    pytest.importorskip("properdocs")
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    server, url = start_serving(folder, free_port(), command="properdocs")
    try:
        page, watch = visit(url + "index.html", bypass_csp=False, service_workers="allow")
        page.get_by_role("heading", name="My lessons", level=1).wait_for()
        assert page.locator(SERVE_MARKER).count() == 1
        edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nEdited under ProperDocs.\n")
        page.get_by_text("Edited under ProperDocs.").wait_for(timeout=120_000)
        assert page.evaluate(CONTROLLER) is None
        visit.close_all()
    finally:
        stop(server)


def test_a_production_build_allows_no_nonce(tmp_path):
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    result = build(folder)
    assert result.returncode == 0, result.describe()
    for page in (folder / "site").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "'nonce-" not in text, page
        assert 'name="scalecore-serve"' not in text, page


def test_every_rebuild_says_its_error_even_when_an_earlier_one_said_the_same():
    """MkDocs drops a message it logged before in the process (its DuplicateFilter): under mkdocs
    serve a fresh author's second failed rebuild with the same mistake printed only "Aborted with
    a BuildError!". Each build starts with nothing said; within a build, repeats stay dropped."""
    import logging

    from mkdocs.utils import DuplicateFilter

    from scalecore_generator.adapters.mkdocs.plugin import ScalecorePlugin

    logger = logging.getLogger("mkdocs.commands.build")
    said = DuplicateFilter()  # as mkdocs' command line adds it
    logger.addFilter(said)
    try:
        error = logging.LogRecord("mkdocs.commands.build", logging.ERROR, __file__, 1, "scalecore: x.md:3: ...", None, None)
        assert said(error) and not said(error)
        ScalecorePlugin()._count_from_here({})  # the next build starts
        assert said(error) and not said(error)
    finally:
        logger.removeFilter(said)

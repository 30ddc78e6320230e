"""The offline bundle as a reader gets it: `python -m scalecore_generator.builder.bundle SITE ZIP`, unzipped into a
folder of the reader's choosing, opened from disk (file://), then served with
`python -m http.server` for live mode.

From disk: every baked panel hydrates and switches to exactly the baked numbers (another corpus's
data arrives through a script tag); the page asks for nothing but file:// URLs; the live
controls and the console say they need http and give the command that serves *this* folder.
Served: live mode runs to a live result, with every request on the reader's own server.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import zipfile

import pytest
from playwright.sync_api import expect

pytest.register_assert_rewrite("browser")
from browser import PYODIDE_TIMEOUT_MS, REPO, baked, module_page, python_http_server, site_pages, wait_hydrated  # noqa: E402


FOLDER = "my scalecore"  # what a reader might call it: not "site", and with a space
API = "api"  # the site manifest, api/index.json (and its script twin, api/index.js)


@pytest.fixture(scope="module")
def bundle(built_site, tmp_path_factory):
    """The bundle, made as the README says, and unzipped: (zip path, folder)."""
    where = tmp_path_factory.mktemp("bundle")
    archive = where / "scalecore-site.zip"
    done = subprocess.run([sys.executable, "-m", "scalecore_generator.builder.bundle", str(built_site), str(archive)],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "http.server" in done.stdout, done.stdout
    folder = where / FOLDER
    with zipfile.ZipFile(archive) as opened:
        assert opened.testzip() is None
        names = opened.namelist()
        assert "index.html" in names and not any(name.startswith(("/", "..")) for name in names)
        opened.extractall(folder)
    return archive, folder


def _baked(folder, corpus: str, seed: int, guards: str) -> dict:
    """A combination, found through the bundle's own manifest (never a path built by hand)."""
    return baked(folder, "scale-guards", f"{corpus}/{seed}/{guards}")


def _shows(page, panel, baked: dict) -> None:
    """The panel shows these baked numbers: the heatmap's cells and the read-outs."""
    opacities = panel.locator(".scalecore-heatmap__svg .scalecore-cell__fill").evaluate_all(
        "cells => cells.map(c => +c.getAttribute('fill-opacity'))")
    expected = [math.sqrt(w) for row in baked["weights"] for w in row]
    assert len(opacities) == len(expected)
    assert all(abs(a - b) < 1e-4 for a, b in zip(opacities, expected)), "the heatmap is not the baked one"
    for key, value in baked["measures"].items():
        readout = panel.locator(f"[data-measure={key}] .scalecore-readout__value")
        if readout.count():
            assert readout.text_content().startswith(page.evaluate("v => scalecoreViews.measure(v)", value)), key


def test_the_bundle_holds_every_page(built_site, bundle):
    _, folder = bundle
    assert site_pages(folder) == site_pages(built_site)
    assert (folder / API / "index.json").is_file() and (folder / API / "index.js").is_file()


# The text a reader sees, code left out (a guide may show TeX as code), and whether it holds TeX.
RAW_TEX = r"""() => {
  const walker = document.createTreeWalker(document.querySelector('article') || document.body, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('code, pre, script, style, annotation')) continue;
    if (/\\[()\[\]]/.test(node.data)) found.push(node.data.trim().slice(0, 80));
  }
  return found;
}"""


def test_from_disk_every_formula_is_typeset_with_no_math_script(visit, built_site, bundle):
    _, folder = bundle
    formulas = 0
    for found in site_pages(folder):
        page, watch = visit((folder / found).as_uri())
        assert page.evaluate(RAW_TEX) == [], f"{found}: raw TeX shows from file://"
        formulas += page.locator(".arithmatex math").count()  # the MathML screen readers read
        scripts = [src for src in page.evaluate("Array.from(document.scripts, s => s.src)") if "katex" in src]
        assert scripts == [], f"{found}: a math script still loads: {scripts}"
        watch.check()
        page.close()
    assert formulas > 100


def test_from_disk_baked_panels_switch_to_the_baked_numbers(visit, built_site, bundle):
    _, folder = bundle
    module = module_page(built_site)
    for page_name in site_pages(folder):  # every page loads from disk, its panels hydrate
        page, watch = visit((folder / page_name).as_uri())
        wait_hydrated(page)
        assert all(url.startswith("file://") for url in watch.requests), watch.requests
        page.context.close()

    page, watch = visit((folder / module).as_uri())
    assert page.evaluate("location.protocol") == "file:"
    wait_hydrated(page)
    free = page.get_by_role("switch", name="norm", disabled=False)
    panel = page.locator(".scalecore-panel--scale-guards").filter(has=free).last
    corpus = panel.get_by_label("Corpus").input_value()
    guards = panel.get_attribute("data-scalecore-guards")
    _shows(page, panel, _baked(folder, corpus, 0, guards))

    panel.get_by_role("switch", name="norm").press("Space")
    switched = panel.get_attribute("data-scalecore-guards")
    assert switched != guards and "norm" in switched
    _shows(page, panel, _baked(folder, corpus, 0, switched))

    other = next(value for value in panel.get_by_label("Corpus").locator("option").evaluate_all(
        "options => options.map(o => o.value)") if value != corpus)
    panel.get_by_label("Corpus").select_option(other)  # its data.js, through a script tag
    page.wait_for_function("([el, c]) => el.scalecorePanel.corpus === c", arg=[panel.element_handle(), other])
    _shows(page, panel, _baked(folder, other, 0, switched))

    assert watch.requests and all(url.startswith("file://") for url in watch.requests), \
        [url for url in watch.requests if not url.startswith("file://")]


def test_from_disk_the_live_parts_say_how_to_serve_this_folder(visit, built_site, bundle):
    _, folder = bundle
    page, watch = visit((folder / module_page(built_site)).as_uri())
    wait_hydrated(page)
    command = f'python3 -m http.server -d "{FOLDER}" 8000'
    notes = []
    guards = page.locator(".scalecore-panel--scale-guards").first
    guards.get_by_role("button", name="Compute live").click()
    notes.append(guards.locator(".scalecore-note--http"))
    variance = page.locator(".scalecore-panel--variance")
    variance.get_by_role("button", name="Any d, live").click()
    notes.append(variance.locator(".scalecore-note--http"))
    notes.append(page.locator(".scalecore-panel--console .scalecore-note--http"))
    for note in notes:
        text = " ".join(note.text_content().split())
        assert "served over http" in text, text
        assert command in text, f"the note does not give the command that serves {FOLDER!r}: {text}"
        assert str(folder.parent) in text, text  # where to run it
        assert "http://127.0.0.1:8000/" + module_page(built_site) in text, text
    page.set_viewport_size({"width": 390, "height": 844})  # on a phone, the command is seen whole
    for note in notes:
        hidden = note.locator("pre, pre > code").evaluate_all("els => els.map(e => e.scrollWidth - e.clientWidth)")
        assert max(hidden) <= 1, f"the command scrolls sideways at 390 px: {hidden} px out of sight"
    assert page.locator(".scalecore-panel--console textarea").count() == 0  # no editor that cannot run
    assert all(url.startswith("file://") for url in watch.requests)


def test_served_with_http_server_live_mode_runs(visit, built_site, bundle):
    _, folder = bundle
    process, url = python_http_server(folder)
    try:
        page, watch = visit(url + module_page(built_site))
        wait_hydrated(page)
        panel = page.locator(".scalecore-panel--scale-guards").first
        panel.get_by_role("button", name="Compute live").click()
        page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(),
                               timeout=PYODIDE_TIMEOUT_MS)
        assert panel.locator(".scalecore-badge").text_content() == "live"
        assert any(request.endswith(".wasm") for request in watch.requests)
        assert all(request.startswith(url) for request in watch.requests if not request.startswith(("data:", "blob:")))
    finally:
        process.terminate()
        process.wait(timeout=10)


def _unique_word(folder, module: str) -> tuple[str, str]:
    """A word that only one section of the module page holds, found in the site's own search index:
    (the word, that section's location)."""
    docs = json.loads((folder / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    words = lambda doc: set(re.findall(r"[a-z]{9,}", re.sub(r"<[^>]+>", " ", doc["text"]).lower()))  # noqa: E731
    counts = {}
    for doc in docs:
        for word in words(doc):
            counts[word] = counts.get(word, 0) + 1
    for doc in docs:
        if doc["location"].startswith(module + "#"):
            unique = sorted(word for word in words(doc) if counts[word] == 1)
            if unique:
                return unique[0], doc["location"]
    raise AssertionError(f"no section of {module} has a word of its own")


def test_from_disk_search_finds_a_word_of_a_module_page_and_opens_its_section(visit, built_site, bundle):
    _, folder = bundle
    module = module_page(built_site)
    word, location = _unique_word(folder, module)
    page, watch = visit((folder / "index.html").as_uri())
    search = page.get_by_role("textbox", name="Search")
    expect(search).to_be_visible()  # Material hides it from disk; the page shows it again
    search.click()
    search.fill(word)
    results = page.locator(".md-search-result__item a")
    expect(results.first).to_be_visible()
    expect(page.locator(".md-search-result__meta")).to_contain_text("matching document")
    link = results.filter(has=page.locator("mark", has_text=re.compile(word, re.I))).first
    assert link.get_attribute("href") == (folder / location.split("#")[0]).as_uri() + "#" + location.split("#")[1]
    link.click()
    page.wait_for_url(re.compile(re.escape(location) + "$"))
    anchor = location.split("#")[1]
    heading = page.locator(f"[id='{anchor}']")
    expect(heading).to_be_in_viewport()
    assert all(url.startswith("file://") for url in watch.requests), watch.requests
    watch.check()


def test_from_disk_the_offline_control_says_the_copy_needs_no_network(visit, bundle):
    _, folder = bundle
    page, watch = visit((folder / "index.html").as_uri())
    page.get_by_role("button", name="Make this site available offline").click()
    dialog = page.get_by_role("dialog", name="Make this site available offline")
    expect(dialog).to_contain_text("already opens without a network")
    assert dialog.get_by_role("button", name="Save for offline").count() == 0
    watch.check()


def test_the_plain_build_carries_its_search_index_as_a_script_whose_every_result_exists(built_site):
    """site/ as `mkdocs build` writes it, no bundle: the index's script is the search plugin's index,
    listed for offline use like any file, and every location in it is a page of the site and, after
    '#', an element of that page."""
    script = (built_site / "search" / "search_index.js").read_text(encoding="utf-8")
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert json.loads(script[len("var __index = "):-2]) == index
    assert "search/search_index.js" in json.loads((built_site / "offline.json").read_text(encoding="utf-8"))["files"]
    missing = []
    for doc in index["docs"]:
        page, _, anchor = doc["location"].partition("#")
        html = built_site / (page + "index.html" if page == "" or page.endswith("/") else page)
        if not html.is_file() or (anchor and f'id="{anchor}"' not in html.read_text(encoding="utf-8")):
            missing.append(doc["location"])
    assert len(index["docs"]) > 50 and missing == []


def test_the_plain_build_searches_from_disk_and_every_result_opens_its_section(visit, built_site):
    """The built site/ folder opened from disk (no bundle): a query shows results, and each result's
    link opens an existing page from disk, at an element with the link's anchor."""
    from urllib.parse import unquote, urlsplit

    page, watch = visit((built_site / "index.html").as_uri())
    search = page.get_by_role("textbox", name="Search")
    expect(search).to_be_visible()
    search.click()
    search.fill("softmax")
    results = page.locator(".md-search-result__item a")
    expect(results.first).to_be_visible()
    expect(page.locator(".md-search-result__meta")).to_contain_text("matching documents")
    links = results.evaluate_all("links => links.map(a => a.href)")
    assert len(links) >= 5 and all(link.startswith(built_site.as_uri() + "/") for link in links), links
    results.first.click()  # as a reader does
    page.wait_for_url(links[0])
    for link in links:
        if page.url != link:
            page.goto("about:blank")  # a fresh load, as from the results of another page
            page.goto(link)
        parts = urlsplit(link)
        assert (built_site / unquote(parts.path)[len(urlsplit(built_site.as_uri()).path) + 1:]).is_file(), link
        assert page.locator("article h1").count() >= 1, link
        if parts.fragment:
            expect(page.locator(f"[id='{unquote(parts.fragment)}']")).to_have_count(1)
            expect(page.locator(f"[id='{unquote(parts.fragment)}']")).to_be_in_viewport()
    assert all(url.startswith("file://") for url in watch.requests), watch.requests
    watch.check()

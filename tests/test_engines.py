"""The same site under each engine: MkDocs (the plugin), ProperDocs (the same plugin on MkDocs'
fork) and Zensical (the adapter that builds around ``zensical build``). Each test backs a row of
the feature table in docs/guide/engines.md, which test_the_feature_table_names_its_tests keeps
honest: a row names the test that proves it.

The Zensical site is this repository's own, built once for the module with
``scalecore build --engine zensical``; the MkDocs site is the session's ``built_site``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.register_assert_rewrite("browser")
from browser import PYODIDE_TIMEOUT_MS, REPO, StaticServer, module_page, page_url, python_http_server, \
    site_pages, wait_hydrated  # noqa: E402

from scalecore_generator.builder import offline  # noqa: E402

GUIDE = REPO / "docs" / "guide" / "engines.md"
POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')


def zensical_build(config: Path, site: Path, *extra: str) -> subprocess.CompletedProcess:
    """``scalecore build --engine zensical``; skips the test where Zensical is not installed (only
    the Zensical tests: ProperDocs' run without it)."""
    pytest.importorskip("zensical", reason="the Zensical engine is not installed (build_tools/requirements.lock pins it)")
    return subprocess.run([sys.executable, "-m", "scalecore_generator", "build", "--engine", "zensical",
                           "-f", str(config), "-d", str(site), *extra],
                          cwd=config.parent, capture_output=True, text=True, env=_quiet())


def _quiet() -> dict:
    import os

    return {**os.environ, "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def zensical_site(tmp_path_factory):
    site = tmp_path_factory.mktemp("zensical") / "site"
    done = zensical_build(REPO / "mkdocs.yml", site)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return site


@pytest.fixture(scope="module")
def zensical_server(zensical_site):
    server = StaticServer(zensical_site)
    yield server
    server.close()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Built files
# ---------------------------------------------------------------------------------------------


def test_zensical_builds_every_page_mkdocs_builds(built_site, zensical_site):
    assert sorted(site_pages(zensical_site)) == sorted(site_pages(built_site))


def test_the_baked_data_and_runtime_are_the_same_bytes_under_both_engines(built_site, zensical_site):
    """Every file the manifest lists (baked points, figures' data, Pyodide, the wheels, the
    snapshot) has the sha256 the manifest gives, and the manifests are equal: the bake does not
    depend on the engine."""
    ours = json.loads((zensical_site / "api" / "index.json").read_text(encoding="utf-8"))
    theirs = json.loads((built_site / "api" / "index.json").read_text(encoding="utf-8"))
    assert ours == theirs
    listed = re.findall(r'"url":\s*"([^"]+)",\s*"sha256":\s*"([0-9a-f]{64})"', json.dumps(ours))
    assert len(listed) > 50, "the manifest lists too few files to compare"
    for url, digest in listed:  # URLs relative to the manifest, in api/
        assert _sha256(zensical_site / "api" / url) == digest, url


def test_two_zensical_builds_are_byte_identical(zensical_site, tmp_path):
    again = tmp_path / "again"
    done = zensical_build(REPO / "mkdocs.yml", again)
    assert done.returncode == 0, done.stderr[-3000:]
    first = {p.relative_to(zensical_site).as_posix(): _sha256(p) for p in zensical_site.rglob("*") if p.is_file()}
    second = {p.relative_to(again).as_posix(): _sha256(p) for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [path for path in first if first[path] != second[path]] == []


def test_every_page_has_its_content_security_policy(zensical_site):
    for page in site_pages(zensical_site) + ["404.html"]:
        html = (zensical_site / page).read_text(encoding="utf-8")
        found = POLICY.findall(html)
        assert len(found) == 1, page
        assert "default-src 'self'" in found[0] and "object-src 'none'" in found[0], page


def test_the_fallbacks_stay_out_of_the_search_index(built_site, zensical_site):
    """The panels' no-JS fallbacks (tables of baked numbers) are marked data-search-exclude:
    Zensical honours it as Material's search does, so both index the same text."""
    def text_of(index: dict, page: str) -> str:
        entries = index.get("items") or index.get("docs")
        return " ".join(entry["text"] for entry in entries if entry["location"].split("#")[0] == page)

    zensical = json.loads((zensical_site / "search.json").read_text(encoding="utf-8"))
    mkdocs = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    page = module_page(built_site)
    only_in_fallbacks = _fallback_only_phrases(built_site / page)
    assert len(only_in_fallbacks) >= 3, "the page has no fallback text of its own to look for"
    for engine, index in (("zensical", zensical), ("mkdocs", mkdocs)):
        text = " ".join(text_of(index, page).split())
        assert text, engine
        assert [phrase for phrase in only_in_fallbacks if phrase in text] == [], engine
    assert len(text_of(zensical, page)) == len(text_of(mkdocs, page))


def _fallback_only_phrases(page: Path) -> list[str]:
    """Runs of words (five or more) that the page shows only inside its panels' no-JS fallbacks
    (the elements marked data-search-exclude): an index that held a fallback would hold them."""
    from html.parser import HTMLParser

    class Split(HTMLParser):
        def __init__(self):
            super().__init__()
            self.depth, self.inside, self.outside = 0, [], []

        def handle_starttag(self, tag, attrs):
            if tag in ("area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"):
                return  # no end tag follows
            if self.depth or any(name == "data-search-exclude" for name, _ in attrs):
                self.depth += 1

        def handle_endtag(self, tag):
            if self.depth:
                self.depth -= 1

        def handle_data(self, data):
            (self.inside if self.depth else self.outside).append(data)

    split = Split()
    split.feed(page.read_text(encoding="utf-8"))
    outside = " ".join(" ".join(split.outside).split())
    phrases = []
    for chunk in split.inside:
        words = chunk.split()
        if len(words) >= 5:
            phrase = " ".join(words[:5])
            if phrase not in outside and phrase not in phrases:
                phrases.append(phrase)
    return phrases


def test_a_block_mistake_names_its_line_and_keeps_the_previous_site(tmp_path):
    from sites import copy_site

    site = copy_site(tmp_path / "site")
    out = site / "site"
    first = zensical_build(site / "mkdocs.yml", out)
    assert first.returncode == 0, first.stderr[-3000:]
    before = {p.relative_to(out).as_posix(): _sha256(p) for p in out.rglob("*") if p.is_file()}
    page = next(p for p in sorted((site / "docs").rglob("*.md")))
    page.write_text(page.read_text(encoding="utf-8") + "\n/// softmax\ncorpus: demo\n", encoding="utf-8")
    failed = zensical_build(site / "mkdocs.yml", out)
    assert failed.returncode == 1
    line = len(page.read_text(encoding="utf-8").splitlines()) - 1
    message = failed.stderr.strip().splitlines()[-1]
    assert f"docs/{page.relative_to(site / 'docs').as_posix()}:{line}:" in message, failed.stderr[-2000:]
    assert "Fix" in message or "add a line" in message
    assert "Traceback" not in failed.stderr
    after = {p.relative_to(out).as_posix(): _sha256(p) for p in out.rglob("*") if p.is_file()}
    assert after == before


def test_properdocs_builds_with_the_same_plugin(tmp_path):
    """MkDocs' community fork keeps the plugin API: the plugin runs there unchanged, and the site
    it builds is MkDocs' to the byte, but for the line that names the generator. So every row of
    the MkDocs column holds for ProperDocs too."""
    pytest.importorskip("properdocs", reason="ProperDocs is not installed (build_tools/requirements.lock pins it)")
    import os

    from sites import copy_site

    site = copy_site(tmp_path / "site")
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    built = {}
    for engine in ("mkdocs", "properdocs"):
        done = subprocess.run([sys.executable, "-m", engine, "build", "--strict", "-d", str(tmp_path / engine)],
                              cwd=site, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "scalecore: bake:" in done.stderr
        built[engine] = {p.relative_to(tmp_path / engine).as_posix(): p.read_bytes()
                         for p in (tmp_path / engine).rglob("*") if p.is_file()}
    assert built["mkdocs"].keys() == built["properdocs"].keys()
    generator = re.compile(rb'<meta name="generator" content="[^"]*">')
    # The offline listing holds every page's sha256, and the service worker the listing's: both
    # follow the generator line (scalecore_generator/builder/offline.py).
    listed = {offline.LISTING, offline.WORKER}
    differ = [path for path, data in built["mkdocs"].items()
              if path not in listed and generator.sub(b"", data) != generator.sub(b"", built["properdocs"][path])]
    assert differ == []
    assert any(b'class="scalecore-panel' in data for data in built["properdocs"].values())


# ---------------------------------------------------------------------------------------------
# In the browser
# ---------------------------------------------------------------------------------------------


def test_panels_hydrate_and_switch_to_baked_data_under_zensical(visit, zensical_server, built_site):
    page, watch = visit(zensical_server.url + page_url(module_page(built_site)))
    assert wait_hydrated(page) >= 10
    panel = page.locator(".scalecore-panel--scale-guards").first
    corpus = panel.get_by_role("combobox", name=re.compile("corpus", re.I))
    options = corpus.locator("option").evaluate_all("options => options.map(o => o.value)")
    before = panel.locator(".scalecore-heatmap__svg").inner_html()
    corpus.select_option(options[-1])
    page.wait_for_function("([el, old]) => el.querySelector('.scalecore-heatmap__svg').innerHTML !== old",
                           arg=[panel.element_handle(), before])
    watch.check()  # no error, no request to another origin, no policy violation


def test_live_mode_computes_under_zensical(visit, zensical_server, built_site):
    page, watch = visit(zensical_server.url + page_url(module_page(built_site)))
    wait_hydrated(page)
    panel = page.locator(".scalecore-panel--scale-guards").first
    panel.get_by_role("button", name="Compute live").click()
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert panel.locator(".scalecore-badge").text_content() == "live"
    watch.check()


def test_the_console_runs_python_under_zensical(visit, zensical_server, built_site):
    page, watch = visit(zensical_server.url + page_url(module_page(built_site)))
    panel = page.locator(".scalecore-panel--console").first
    panel.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'true'", arg=panel.element_handle())
    panel.locator("textarea").fill("print(6 * 7)")
    panel.locator("textarea").press("Control+Enter")
    page.wait_for_function("el => /\\b42\\b/.test(el.textContent)", arg=panel.locator("pre").first.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    watch.check()


def test_the_module_header_cards_and_mentor_work_under_zensical(visit, zensical_server, built_site):
    """The module header and its cards, and every link of every mentor answer to the question
    set, clicked (tests/test_mentor.py's click-through), land under Zensical too."""
    from test_mentor import _click_every_link, _lands

    module = module_page(built_site)
    page, watch = visit(zensical_server.url + page_url(module))
    assert page.locator(".scalecore-module").count() == 1
    cards = page.locator(".scalecore-card__link")
    assert cards.count(), "no card links"
    for i in range(cards.count()):
        href = cards.nth(i).evaluate("a => a.href")
        assert href.startswith(zensical_server.url), href
        with page.context.expect_page() as new_tab:
            cards.nth(i).click(modifiers=["Control"])
        opened = new_tab.value
        try:
            _lands(page, href, opened)
        finally:
            opened.close()
    assert _click_every_link(page, module, zensical_server.url) >= 10
    watch.check()


def test_the_offline_bundle_of_a_zensical_build_works_from_disk(visit, zensical_site, built_site, tmp_path):
    archive = tmp_path / "site.zip"
    done = subprocess.run([sys.executable, "-m", "scalecore_generator.builder.bundle", str(zensical_site), str(archive)],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(folder)
    page, watch = visit((folder / module_page(built_site)).as_uri())
    assert wait_hydrated(page) >= 10
    # Zensical's search asks for search.js when opened from disk, which it does not write (its
    # offline plugin does, and then loads a worker shim from a CDN, which the policy blocks):
    # the one error a page opened from disk may log, and its search box says it is unavailable.
    unavailable = [error for error in watch.errors if error.endswith(f"{folder.as_uri()}/search.js:0)")]
    watch.errors = [error for error in watch.errors if error not in unavailable]
    watch.check()


# ---------------------------------------------------------------------------------------------
# The table itself
# ---------------------------------------------------------------------------------------------


def test_the_feature_table_names_its_tests():
    """Each row of the engines table names the test that backs it, and each named test exists."""
    rows = [line for line in GUIDE.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith(("| Feature", "| ---"))]
    assert len(rows) >= 10
    here = Path(__file__).parent  # this module's tests, and the dev server's (test_serve.py)
    defined = {name for module in ("test_engines.py", "test_serve.py")
               for name in re.findall(r"^def (test_\w+)", (here / module).read_text(encoding="utf-8"), re.M)}
    for row in rows:
        named = re.findall(r"`(test_\w+)`", row)
        assert named, f"a row backed by no test: {row}"
        assert set(named) <= defined, f"{row}: {set(named) - defined}"
        if "not yet" in row:  # a feature that cannot work yet says why, in the row
            assert re.search(r"not yet: .{40,}", row), row


def test_zensical_internals_that_moved_stop_with_the_version_tested(monkeypatch):
    """The adapter reads Zensical's internals in one place (blocks.rendering_context): a Zensical
    that moved them stops there, naming the version tested and the fix, not inside a page."""
    pytest.importorskip("zensical", reason="the Zensical engine is not installed")
    from scalecore_generator.adapters.zensical import ZENSICAL_VERSION, blocks
    from scalecore_generator.errors import ScalecoreError

    monkeypatch.setitem(sys.modules, "zensical.extensions.context", None)  # importing it raises ImportError
    with pytest.raises(ScalecoreError, match=f"tested with {re.escape(ZENSICAL_VERSION)}. Fix: pip install "
                                             f"'zensical=={re.escape(ZENSICAL_VERSION)}'"):
        blocks.rendering_context(object())

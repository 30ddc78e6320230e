"""Every page carries a Content-Security-Policy that trusts nothing the site did not build
(issue 14, item 7; scalecore_generator/pages/csp.py), and nothing the site does violates it.

Every browser test that uses the ``visit`` fixture (tests/browser.py) fails on a
``securitypolicyviolation`` event; here the policy is read from every page, shown to block a
script the build did not write, and a reader's whole tour (every page, every panel, live mode,
the console, the mentor, a notes import, the offline bundle) reports no violation.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import time

import pytest

pytest.register_assert_rewrite("browser")
from browser import PYODIDE_TIMEOUT_MS, SCROLL_THROUGH, module_page, page_url, site_pages  # noqa: E402
from scalecore_generator.pages import csp  # noqa: E402

def until(page, expression: str, arg=None, timeout: float = 30.0):
    """Wait until ``expression`` (a function of ``arg``) is truthy, polled from here with
    page.evaluate: wait_for_function would evaluate its predicate in the page, which this page's
    policy forbids (the point of these tests)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout} s: {expression}")
        time.sleep(0.05)


META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')


def _directives(policy: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in policy.split("; ")}


def test_every_page_has_the_policy_before_any_script_with_its_inline_scripts_hashed(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 8
    for page in pages:
        html = page.read_text(encoding="utf-8")
        if "<head" not in html:
            continue  # a fragment, not a page
        found = META.findall(html)
        where = page.relative_to(built_site)
        assert len(found) == 1, f"{where}: {len(found)} policies"
        assert html.index(META.search(html).group(0)) < html.find("<script"), f"{where}: a script comes first"
        rules = _directives(found[0])
        assert rules["default-src"] == ["'self'"] and rules["object-src"] == ["'none'"]
        assert rules["base-uri"] == ["'self'"] and rules["form-action"] == ["'self'"]
        assert "'unsafe-inline'" not in rules["script-src"] and "'unsafe-eval'" not in rules["script-src"]
        assert not [s for name, sources in rules.items() for s in sources if "://" in s], f"{where}: another origin"
        for match in re.finditer(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
            attrs, body = match.groups()
            if "src=" in attrs or "application/json" in attrs:
                continue
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in rules["script-src"], f"{where}: an inline script is not allowed"


def test_a_package_mirror_is_the_only_other_origin_and_only_for_fetching():
    rules = _directives(csp.policy([], csp.origin_of("https://mirror.example.org/pyodide/")))
    assert rules["connect-src"][-1] == "https://mirror.example.org"
    assert all("mirror" not in s for name, sources in rules.items() if name != "connect-src" for s in sources)
    assert csp.origin_of("file:///x") == () and csp.origin_of("") == ()


def test_a_page_frames_nothing_unless_its_author_put_a_frame_in_it():
    page = '<html><head><meta charset="utf-8"></head><body><p>{}</p></body></html>'
    framed = [_directives(META.search(csp.add(page.format(body)))[1])["frame-src"]
              for body in ("No frame; &lt;iframe&gt; as text.", '<iframe src="demo/widget.html"></iframe>')]
    assert framed == [["'none'"], ["'self'"]]


def test_the_policy_blocks_a_script_the_build_did_not_write(visit, site_server, built_site):
    page, watch = visit(site_server.url + page_url(module_page(built_site)), bypass_csp=False)
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    blocked = page.evaluate("""() => new Promise(resolve => {
        document.addEventListener('securitypolicyviolation', e => resolve(e.violatedDirective), { once: true });
        const script = document.createElement('script');
        script.textContent = 'window.__injected = true';
        document.body.appendChild(script);
      })""")
    assert blocked.startswith("script-src") and page.evaluate("window.__injected") is None
    # the violation we provoked, as our listener and as the browser report it: nothing else
    provoked = [e for e in watch.errors if "CSP violation" in e or "Content Security Policy" in e]
    assert len(provoked) == 2, watch.errors
    watch.errors = [e for e in watch.errors if e not in provoked]


def test_a_readers_whole_tour_reports_no_violation(visit, site_server, built_site, tmp_path):
    """Every page scrolled through (every panel hydrates), then on the module page: live mode,
    the console, the mentor and a notes import. The visit fixture fails on any violation."""
    for name in site_pages(built_site):
        page, watch = visit(site_server.url + page_url(name), bypass_csp=False)
        page.evaluate(SCROLL_THROUGH)
        watch.check()
        page.context.close()
    page, watch = visit(site_server.url + page_url(module_page(built_site)), bypass_csp=False)
    page.evaluate(SCROLL_THROUGH)
    panel = page.locator(".scalecore-panel--scale-guards").first
    panel.scroll_into_view_if_needed()
    panel.get_by_role("button", name="Compute live").click()
    until(page, "el => el.dataset.scalecoreSource === 'live'", panel.element_handle(), PYODIDE_TIMEOUT_MS / 1000)
    console = page.locator(".scalecore-panel--console").first
    console.scroll_into_view_if_needed()
    editor = console.locator("textarea")
    editor.fill("print(6 * 7)")
    editor.press("Control+Enter")
    until(page, "() => /42/.test(document.querySelector('pre.scalecore-console__output').textContent)", None, PYODIDE_TIMEOUT_MS / 1000)
    box = page.get_by_role("textbox", name="Your question")
    box.fill("Why divide by the square root of d_k?")
    box.press("Control+Enter")
    until(page, "() => /Answered/.test(document.querySelector('[data-scalecore-mentor-status]').textContent)")
    notes = tmp_path / "notes.md"
    notes.write_text("Imported notes.", encoding="utf-8")
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import a .md file").click()
    chooser.value.set_files(str(notes))
    until(page, "() => document.querySelector('[data-scalecore-notes-text]').value === 'Imported notes.'")
    watch.check()


def test_from_disk_the_policy_holds_and_nothing_is_blocked(visit, built_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    page, watch = visit((site / module_page(built_site)).as_uri(), bypass_csp=False)
    page.evaluate(SCROLL_THROUGH)
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    box = page.get_by_role("textbox", name="Your question")
    box.fill("What does the scale guard do?")
    box.press("Control+Enter")
    until(page, "() => /Answered/.test(document.querySelector('[data-scalecore-mentor-status]').textContent)")
    watch.check()

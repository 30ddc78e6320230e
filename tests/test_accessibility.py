"""Accessibility of every page, checked with axe-core (self-hosted: build_tools/node_modules) and
with what a screen reader gets from the panels.

- axe-core on every page, light and dark, once the panels are hydrated and every disclosure
  (tables, self-check answers) is open: no violation of impact "serious" or "critical". Material's
  stock pages had some; they are fixed in scalecore_generator/theme/ (overrides-a11y.css, partials/search.html)
  rather than excluded. No rule is disabled.
- Every control of every panel has a role and an accessible name; the switches, selects,
  sliders and the console have the names a reader hears.
- The panels' live regions announce the changed read-outs after a switch or a slider move.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytest.register_assert_rewrite("browser")
from browser import AXE, docs_pages, module_page, page_url, panel_pages, wait_hydrated


PAGES = docs_pages()
BLOCKING = ("serious", "critical")
DISABLED_RULES: dict[str, str] = {}  # rule id -> why it cannot apply here (none so far)

AXE_RUN = """async disabled => {
  const rules = Object.fromEntries(disabled.map(id => [id, {enabled: false}]));
  const result = await axe.run(document, {resultTypes: ['violations'], rules});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary || ''})),
  }));
}"""

INTERACTIVE = ("button", "switch", "combobox", "slider", "textbox", "checkbox", "radio", "link", "spinbutton",
               "searchbox", "region")  # not "group": an open <details> is an unnamed group, its <summary> names it
UNNAMED = re.compile(rf"^\s*- ({'|'.join(INTERACTIVE)})(?: \[[^\]]*\])*:?$")


def _report(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']} <{violation['url']}>")
        for node in violation["nodes"][:8]:
            summary = " ".join(node["summary"].split())[:300]
            lines.append(f"    {node['target']}: {summary}")
        if len(violation["nodes"]) > 8:
            lines.append(f"    ... and {len(violation['nodes']) - 8} more")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def module(built_site) -> str:
    return page_url(module_page(built_site))


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page", PAGES)
def test_axe_finds_nothing_serious(visit, site_server, page, scheme):
    tab, _ = visit(site_server.url + page_url(page), color_scheme=scheme)
    wait_hydrated(tab)
    expected = {"light": "default", "dark": "slate"}[scheme]
    assert tab.evaluate("document.body.dataset.mdColorScheme") == expected
    tab.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    assert AXE.is_file(), f"{AXE} is missing: install the npm packages (bash build_tools/dev.sh test does)"
    tab.add_script_tag(path=str(AXE))
    violations = tab.evaluate(AXE_RUN, list(DISABLED_RULES))
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    if blocking:
        pytest.fail(f"axe-core on {page} ({scheme}):\n" + _report(blocking), pytrace=False)
    minor = [v for v in violations if v["impact"] not in BLOCKING]
    if minor:
        print(f"\n{page} ({scheme}), minor findings:\n" + _report(minor))


def _unnamed_controls(page) -> list[str]:
    """Every panel of the page is a named group, and the controls in it that have no name."""
    page.evaluate("document.querySelectorAll('.scalecore-panel details').forEach(d => { d.open = true; })")
    panels = page.locator(".scalecore-panel[data-scalecore-kind]")
    unnamed = []
    for index in range(panels.count()):
        panel = panels.nth(index)
        tree = panel.aria_snapshot()
        assert tree.startswith('- group "'), f"panel {panel.get_attribute('id')} is not a named group:\n{tree[:300]}"
        unnamed += [f"{panel.get_attribute('id')}: {line.strip()}" for line in tree.splitlines() if UNNAMED.match(line)]
    return unnamed


def test_every_control_of_every_panel_page_has_a_name(visit, site_server, built_site):
    pages = panel_pages(built_site)
    assert len(pages) > 1
    for found in pages:
        page, _ = visit(site_server.url + page_url(found))
        wait_hydrated(page)
        unnamed = _unnamed_controls(page)
        assert not unnamed, f"controls without an accessible name on {found}:\n  " + "\n  ".join(unnamed)
        page.close()


def test_every_panel_control_has_a_role_and_a_name(visit, site_server, module):
    page, _ = visit(site_server.url + module)
    wait_hydrated(page)
    unnamed = _unnamed_controls(page)
    assert not unnamed, "controls without an accessible name:\n  " + "\n  ".join(unnamed)

    guards = page.locator(".scalecore-panel--scale-guards").last
    for name in ("norm", "init", "scale"):
        assert guards.get_by_role("switch", name=name, exact=True).count() == 1
    assert guards.get_by_role("group", name="Guards").count() == 1
    for name in ("Corpus", "Seed"):
        assert guards.get_by_role("combobox", name=name).count() == 1
    assert guards.get_by_role("button", name="Compute live").get_attribute("aria-expanded") == "false"
    switch = guards.get_by_role("switch", name="norm")
    hint = switch.get_attribute("aria-describedby")
    assert hint and page.locator(f"#{hint}").text_content().strip(), "a guard switch says what it does"

    assert page.locator(".scalecore-panel--variance").get_by_role("slider", name="d, the width of q and k").count() == 1
    assert page.locator(".scalecore-panel--variance").get_by_role("switch", name="divide by √d").count() == 1
    softmax = page.locator(".scalecore-panel--softmax")
    assert softmax.get_by_role("slider", name="Multiply the scores by").count() == 1
    assert softmax.get_by_role("textbox", name="Scores").count() == 1

    console = page.locator(".scalecore-panel--console")
    editor = console.get_by_role("textbox", name="Python code")
    assert editor.count() == 1
    assert "Ctrl+Enter" in page.locator("#" + editor.get_attribute("aria-describedby")).text_content()
    for name in ("Run", "Stop", "Clear output"):
        assert console.get_by_role("button", name=name, exact=True).count() == 1
    assert console.get_by_role("region", name="Console output").count() == 1
    assert console.get_by_role("status").count() >= 1


def _announced(page, panel, press, what: str) -> str:
    region = panel.locator(".scalecore-live-region")
    assert region.get_attribute("aria-live") == "polite", f"{what}: the live region is not polite"
    before = region.text_content()
    press()
    try:
        page.wait_for_function("([el, before]) => el.textContent !== before && el.textContent.trim() !== ''",
                               arg=[region.element_handle(), before], timeout=5_000)
    except Exception:
        raise AssertionError(f"{what}: the live region did not announce anything (still {before!r})") from None
    return region.text_content()


def test_live_regions_announce_the_changed_readouts(visit, site_server, module):
    page, _ = visit(site_server.url + module)
    wait_hydrated(page)

    guards = page.locator(".scalecore-panel--scale-guards").last
    switch = guards.get_by_role("switch", name="norm")
    said = _announced(page, guards, lambda: (switch.focus(), page.keyboard.press("Space")), "guards switch")
    shown = guards.locator("[data-measure=score_spread] .scalecore-readout__value").text_content()
    assert guards.get_attribute("data-scalecore-guards") in said, said
    assert f"score spread {shown}" in said, f"the new score spread {shown!r} is not announced: {said!r}"

    variance = page.locator(".scalecore-panel--variance")
    slider = variance.get_by_role("slider")
    said = _announced(page, variance, lambda: (slider.focus(), page.keyboard.press("End")), "variance slider")
    raw = variance.locator("[data-measure=raw]").text_content()
    assert f"d = {variance.get_attribute('data-scalecore-d')}" in said and raw in said, said
    assert slider.get_attribute("aria-valuetext") == f"d = {variance.get_attribute('data-scalecore-d')}"

    softmax = page.locator(".scalecore-panel--softmax")
    factor = softmax.get_by_role("slider")
    said = _announced(page, softmax, lambda: (factor.focus(), page.keyboard.press("ArrowRight")), "softmax slider")
    gradient = softmax.locator("[data-measure=gradient]").text_content()
    assert f"gradient size {gradient}" in said, said
    assert factor.get_attribute("aria-valuetext") == f"times {softmax.get_attribute('data-scalecore-factor')}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_offline_dialog_passes_axe(visit, site_server, scheme):
    """'Make this site available offline' (assets/offline.js): reached with the keyboard, named,
    and clean under axe-core in both schemes, on a phone's width."""
    tab, _ = visit(site_server.url, color_scheme=scheme, service_workers="allow", viewport={"width": 390, "height": 800})
    button = tab.get_by_role("button", name="Make this site available offline")
    button.focus()
    tab.keyboard.press("Enter")
    dialog = tab.get_by_role("dialog", name="Make this site available offline")
    expect(dialog.locator('[data-size="site"]')).to_contain_text("MB")
    assert tab.evaluate("document.activeElement.closest('dialog') !== null")  # the focus moved into it
    tab.add_script_tag(path=str(AXE))
    violations = [v for v in tab.evaluate(AXE_RUN, list(DISABLED_RULES)) if v["impact"] in BLOCKING]
    assert not violations, _report(violations)
    tab.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

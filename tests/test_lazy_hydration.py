"""Panels hydrate when the reader reaches them: a page builds no DOM and runs no script for the
panels a screen or more below, and a keyboard reader who tabs onto a waiting panel gets its
controls at once (see hydrateNear in scalecore_generator/assets/panels.js).
"""

from __future__ import annotations

import re

import pytest

pytest.register_assert_rewrite("browser")
from browser import module_page, page_url, panel_pages  # noqa: E402

STATES = """() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind]'),
  p => p.getAttribute('data-scalecore-hydrated') || 'waiting')"""


def test_panels_far_below_wait_until_the_reader_comes_near(visit, site_server, built_site):
    page, watch = visit(site_server.url + page_url(module_page(built_site)), viewport={"width": 390, "height": 800})
    page.wait_for_timeout(500)
    assert set(page.evaluate(STATES)) == {"waiting"}  # the header and the text come first on a phone
    first = page.locator(".scalecore-panel[data-scalecore-kind]").first
    first.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'true'", arg=first.element_handle())
    states = page.evaluate(STATES)
    assert "true" in states and "waiting" in states, states
    last = page.locator(".scalecore-panel[data-scalecore-kind]").last
    assert last.get_attribute("data-scalecore-hydrated") is None
    assert last.locator(".scalecore-controls").is_hidden()  # no controls built for it yet
    last.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'true'", arg=last.element_handle())
    watch.check()


def test_tabbing_onto_a_waiting_panel_hydrates_it_and_moves_into_its_controls(visit, site_server, built_site):
    page, watch = visit(site_server.url + page_url(module_page(built_site)), viewport={"width": 390, "height": 800})
    page.wait_for_timeout(500)
    waiting = page.locator(".scalecore-panel[data-scalecore-waiting]").last
    panel_id = waiting.get_attribute("id")
    assert waiting.get_attribute("tabindex") == "0"
    waiting.focus()  # what Tab does when the panel is next in the order
    page.wait_for_function("id => document.getElementById(id).getAttribute('data-scalecore-hydrated') === 'true'",
                           arg=panel_id)
    page.wait_for_function("id => document.activeElement !== document.getElementById(id) &&"
                           " document.getElementById(id).contains(document.activeElement)", arg=panel_id)
    assert page.locator(f"#{panel_id}").get_attribute("tabindex") is None  # the extra Tab stop is gone
    watch.check()


def _page_with_a_waiting_figure(site) -> tuple[str, str]:
    """A page, and the id of a panel in an offscreen box (below the first screen) whose fallback
    holds a lazy baked figure, the deepest in its page of the site's such panels (the most HTML
    before it: a screen or more below, so it waits at load): found in the built site, not named."""
    panel = re.compile(r'<div class="scalecore-panel [^"]*" id="([^"]+)"')
    figure = re.compile(r'<img [^>]*loading="lazy"')
    deepest = (0, None, None)
    for page in panel_pages(site):
        html = (site / page).read_text(encoding="utf-8")
        below = html.find('<div class="scalecore-offscreen"')
        starts = [m for m in panel.finditer(html) if below >= 0 and m.start() > below]
        ends = [m.start() for m in starts[1:]] + [len(html)]
        for start, end in zip(starts, ends):
            if figure.search(html, start.end(), end) and start.start() > deepest[0]:
                deepest = (start.start(), page, start.group(1))
    if deepest[1] is None:
        pytest.fail("no page has a panel below the first screen with a lazy baked figure")
    return deepest[1], deepest[2]


FIGURES = "id => Array.from(document.getElementById(id).querySelectorAll('.scalecore-fallback img'), img => img.src)"


def test_a_panel_below_the_first_screen_downloads_no_figure_its_live_view_will_replace(visit, site_server, built_site):
    page_path, panel_id = _page_with_a_waiting_figure(built_site)
    page, watch = visit(site_server.url + page_url(page_path), viewport={"width": 390, "height": 800})
    figures = page.evaluate(FIGURES, panel_id)
    assert figures
    assert watch.settle(page), watch.still_in_flight()
    assert page.locator(f"#{panel_id}").get_attribute("data-scalecore-hydrated") is None  # it waits
    assert not set(figures) & set(watch.requests)
    panel = page.locator(f"#{panel_id}")
    panel.scroll_into_view_if_needed()
    page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'true'", arg=panel.element_handle())
    assert watch.settle(page), watch.still_in_flight()
    assert not set(figures) & set(watch.requests)  # its live view came instead
    watch.check()


def test_without_scripts_a_panel_below_the_first_screen_shows_its_baked_figure(chromium, site_server, built_site):
    page_path, panel_id = _page_with_a_waiting_figure(built_site)
    context = chromium.new_context(java_script_enabled=False, viewport={"width": 390, "height": 800}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(site_server.url + page_url(page_path))
        figure = page.locator(f"#{panel_id} .scalecore-fallback img").first
        figure.scroll_into_view_if_needed()
        figure.wait_for(state="visible")
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
    finally:
        context.close()


def test_a_page_printed_before_the_reader_reached_a_panel_prints_its_baked_figure(visit, site_server, built_site):
    page_path, panel_id = _page_with_a_waiting_figure(built_site)
    page, watch = visit(site_server.url + page_url(page_path), viewport={"width": 390, "height": 800})
    assert watch.settle(page), watch.still_in_flight()
    panel = page.locator(f"#{panel_id}")
    assert panel.get_attribute("data-scalecore-hydrated") is None  # it waits: its figure is not fetched
    page.emulate_media(media="print")
    figure = panel.locator(".scalecore-fallback img").first
    assert figure.evaluate("img => getComputedStyle(img).display") != "none"
    page.pdf()  # what printing does: the browser fetches the figure for the paper
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
    watch.check()


def test_a_panel_that_cannot_start_shows_its_baked_figure(chromium, site_server, built_site):
    page_path, panel_id = _page_with_a_waiting_figure(built_site)
    context = chromium.new_context(viewport={"width": 390, "height": 800}, service_workers="block", bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(site_server.url + page_url(page_path))
        panel = page.locator(f"#{panel_id}")
        assert panel.get_attribute("data-scalecore-hydrated") is None
        panel.evaluate("el => el.setAttribute('data-scalecore-options', '{broken')")  # before it hydrates
        panel.scroll_into_view_if_needed()
        page.wait_for_function("el => el.getAttribute('data-scalecore-hydrated') === 'error'", arg=panel.element_handle())
        assert "the figure shown is the baked one" in panel.inner_text().lower()
        figure = panel.locator(".scalecore-fallback img").first
        figure.scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
    finally:
        context.close()


# Recorded as DOMContentLoaded fires (the first of its listeners): the page's last deferred
# script, module.js, ran in this same task, just before; Material's handler comes next.
AS_THE_PAGE_IS_LOADED = """document.addEventListener('DOMContentLoaded', () => {
  window.__atLoaded = document.querySelectorAll('[data-scalecore-module][data-scalecore-ready]').length;
});"""


def test_the_module_header_sets_up_in_a_task_after_materials_page_set_up(visit, site_server, built_site):
    # Material mounts its components inside its DOMContentLoaded handler; the header's set-up
    # in that same task made it one long task, which a reader's tap waits for (panels.js sets
    # the panels up the same way, soon)
    page, watch = visit(site_server.url + page_url(module_page(built_site)), viewport={"width": 390, "height": 800})
    page.add_init_script(AS_THE_PAGE_IS_LOADED)
    page.reload()
    page.wait_for_selector("[data-scalecore-module][data-scalecore-ready='true']", state="attached")
    assert page.evaluate("window.__atLoaded") == 0
    watch.check()

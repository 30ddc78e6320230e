"""Panels hydrate when the reader reaches them: a page builds no DOM and runs no script for the
panels a screen or more below, and a keyboard reader who tabs onto a waiting panel gets its
controls at once (see hydrateNear in build_tools/assets/panels.js).
"""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("browser")
from browser import module_page, page_url  # noqa: E402

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

"""Reading the site on a phone (390 px) and on a desktop (1280 px), as issue 47 item 10 found it:
what a reader sees, measured in Chromium.

- From disk, a console says once that it needs the site served over http (it said it twice: the
  panel's own note with the command for this folder, and the fallback's shorter one).
"""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("browser")
from browser import docs_pages, page_url, wait_hydrated  # noqa: E402

PHONE = {"width": 390, "height": 900}
DESKTOP = {"width": 1280, "height": 900}
CONSOLE_PAGES = ["modules/softmax-range.html", "modules/encoder-block.html", "modules/multi-head-attention.html"]


@pytest.mark.parametrize("page", CONSOLE_PAGES[:1])
def test_from_disk_a_console_says_once_that_it_needs_http(visit, built_site, page):
    tab, watch = visit((built_site / page).as_uri())
    wait_hydrated(tab)
    consoles = tab.locator(".scalecore-panel--console")
    assert consoles.count() >= 1
    for i in range(consoles.count()):
        console = consoles.nth(i)
        console.scroll_into_view_if_needed()
        said = console.evaluate("""root => Array.from(root.querySelectorAll('p'))
            .filter(p => p.getClientRects().length && /over http/.test(p.textContent))
            .map(p => p.textContent.trim())""")
        assert len(said) == 1, f"console {i} says it needs http {len(said)} times: {said}"
        assert "python3 -m http.server -d" in console.text_content()  # the one kept names this folder


# Each row of a segmented switch (the audience switch, LayerNorm's placement, the number of
# heads) is filled by its choices, edge to edge: no empty cell beside a last choice.
SEGMENTS = """() => Array.from(document.querySelectorAll('.scalecore-segmented')).filter(s => s.getClientRects().length).map(s => {
  const box = s.getBoundingClientRect(), style = getComputedStyle(s);
  const left = box.left + parseFloat(style.borderLeftWidth), right = box.right - parseFloat(style.borderRightWidth);
  const rows = {};
  for (const label of s.children) {
    const r = label.getBoundingClientRect();
    (rows[Math.round(r.top)] = rows[Math.round(r.top)] || []).push(r);
  }
  return {choices: Array.from(s.children).map(l => l.textContent.trim()),
          gaps: Object.values(rows).map(row => [Math.min(...row.map(r => r.left)) - left, right - Math.max(...row.map(r => r.right))])};
})"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])
@pytest.mark.parametrize("page", ["modules/encoder-block.html", "modules/multi-head-attention.html"])
def test_a_segmented_switch_has_no_empty_cell(visit, site_server, page, viewport):
    tab, _ = visit(site_server.url + page_url(page), viewport=viewport)
    wait_hydrated(tab)
    found = tab.evaluate(SEGMENTS)
    if page == "modules/encoder-block.html":  # LayerNorm's none, post-LN, pre-LN: the test can fail
        assert any(len(s["choices"]) == 3 for s in found), found
    empty = [(s["choices"], gap) for s in found for gap in s["gaps"] if max(gap) > 1.5]
    assert not empty, f"{page} at {viewport['width']} px: rows with room left empty (left, right px): {empty}"


MODULES = [page for page in docs_pages() if page.startswith("modules/")]

# Every panel table's caption, its details opened: where its text ends against what its box
# shows, at the start of the box's scroll and at its end.
CAPTIONS = """async () => {
  for (const details of document.querySelectorAll('.scalecore-panel details')) details.open = true;
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const found = [];
  for (const caption of document.querySelectorAll('.scalecore-panel table caption')) {
    const box = caption.closest('.scalecore-table__scroll');
    if (!caption.getClientRects().length || !box) continue;
    caption.scrollIntoView({block: 'center'});
    const seen = () => {
      const b = box.getBoundingClientRect(), range = document.createRange();
      range.selectNodeContents(caption);
      const words = Array.from(range.getClientRects());
      return [Math.round(Math.min(...words.map(r => r.left)) - b.left), Math.round(b.right - Math.max(...words.map(r => r.right)))];
    };
    const start = seen();
    box.scrollLeft = box.scrollWidth;
    const end = seen();
    box.scrollLeft = 0;
    found.push({caption: caption.textContent.slice(0, 40), scrolls: box.scrollWidth > box.clientWidth + 1, start, end});
  }
  return found;
}"""


@pytest.mark.parametrize("page", MODULES)
def test_a_table_caption_is_read_whole_on_a_phone(visit, site_server, page):
    tab, _ = visit(site_server.url + page_url(page), viewport=PHONE)
    wait_hydrated(tab)
    found = tab.evaluate(CAPTIONS)
    if page == "modules/encoder-block.html":  # its layers' table is wider than a phone: the test can fail
        assert any(c["scrolls"] for c in found), found
    cut = [c for c in found if min(c["start"] + c["end"]) < -1]
    assert not cut, f"{page} at 390 px: captions cut by their box (px left, right of it; at the start and the end of the scroll): {cut}"


# Each caption of an encoder chart against the charts of its panel: the vertical gap to its own
# chart, and the smallest to any other chart it is level with or stacked against.
CHART_CAPTIONS = """() => Array.from(document.querySelectorAll('.scalecore-panel--encoder')).flatMap(panel => {
  const charts = Array.from(panel.querySelectorAll('figure svg.scalecore-chart')).filter(c => c.getClientRects().length);
  const gap = (a, b) => Math.max(a.top - b.bottom, b.top - a.bottom, 0);
  const beside = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0;  // columns that overlap
  return Array.from(panel.querySelectorAll('figure > figcaption')).filter(c => c.getClientRects().length).flatMap(caption => {
    const own = caption.parentElement.querySelector('svg.scalecore-chart');
    if (!own) return [];
    const r = caption.getBoundingClientRect();
    const others = charts.filter(c => c !== own).map(c => c.getBoundingClientRect()).filter(o => beside(o, r));
    return [{caption: caption.textContent.slice(0, 30), own: Math.round(gap(r, own.getBoundingClientRect())),
             other: others.length ? Math.round(Math.min(...others.map(o => gap(r, o)))) : null}];
  });
})"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])
def test_an_encoder_chart_caption_sits_by_its_own_chart(visit, site_server, viewport):
    tab, _ = visit(site_server.url + page_url("modules/encoder-block.html"), viewport=viewport)
    wait_hydrated(tab)
    found = tab.evaluate(CHART_CAPTIONS)
    assert len(found) >= 2, found
    if viewport is PHONE:  # stacked: each caption has another chart above or below it
        assert all(c["other"] is not None for c in found), found
    unclear = [c for c in found if c["other"] is not None and not c["own"] * 3 <= c["other"]]
    assert not unclear, f"captions about as near another chart as their own (px): {unclear}"

"""Reading the site on a phone (390 px) and on a desktop (1280 px), as issue 47 item 10 found it:
what a reader sees, measured in Chromium.

- From disk, a console says once that it needs the site served over http (it said it twice: the
  panel's own note with the command for this folder, and the fallback's shorter one).
- A segmented switch on a phone is rows of two choices: an odd last choice takes its row (the
  encoder's LayerNorm switch, none / post-LN / pre-LN, showed an empty grey cell).
- A panel table wider than a phone scrolls in its box; its caption wraps at the box's width and
  stays in view (the encoder's caption was cut mid-word, '...no Lay').
- An encoder chart's caption is its title, above it and close to it (below its chart it sat
  between two charts: 16 px from its own, 26 px from the next).
- A search result's snippet shows a formula as the page reads it (√d_k), not its TeX
  (\\(\\sqrt{d_k}\\)), served (Material's search) and from disk (disk-search.js); TeX a page shows
  as code stays as written.
- What is wider than a phone (a display formula, the attention maps, a table) scrolls in its box
  and says so: the edge with more beyond it fades (both edges mid-scroll), a figure or a table
  has a line above it that says it scrolls, a map's head label starts in view, and the box is a
  named Tab stop the arrow keys scroll (a formula was cut at the right with no cue; the maps
  showed 6 of 10 columns and half a label).
- An attention map drawn smaller than its natural size shows no text under 10.5 px: it hides its
  numbers and grows its words (at 1280 px the 4- and 8-head maps were drawn at 304-318 of 442 px,
  their numbers at 6.9-7.2 px, their words at 9.6-10.1), live and in the baked files the pages
  show without JavaScript; on a phone the maps keep their size and every number.
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


# A result of the site's search as the reader sees it: the words of its snippets.
def _search(tab, query: str) -> list[str]:
    from playwright.sync_api import expect

    search = tab.get_by_role("textbox", name="Search")
    expect(search).to_be_visible()
    search.click()
    search.fill("")
    search.press_sequentially(query)  # typed: Material's search answers the keys a reader presses
    results = tab.locator(".md-search-result__item")
    expect(results.first).to_be_visible(timeout=20_000)
    return results.evaluate_all("items => items.map(item => item.innerText)")


@pytest.mark.parametrize("where", ["served", "from disk"])
def test_a_search_snippet_shows_a_formula_as_text_not_tex(visit, site_server, built_site, where):
    url = site_server.url if where == "served" else (built_site / "index.html").as_uri()
    tab, _ = visit(url)
    shown = " ".join(_search(tab, "divides the scores"))
    assert "\\(" not in shown and "\\sqrt" not in shown and "\\)" not in shown, shown
    assert "√d_k" in shown and "d_k" in shown, shown  # \\sqrt{d_k} as the page shows it


def test_the_search_indexes_hold_formulas_as_text_and_tex_shown_as_code_as_written(built_site):
    """Both files the searches read (the index, and its script for pages opened from disk) hold no
    formula's TeX, except where a page shows TeX as code (the authoring guide's math section)."""
    import json
    import re

    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    script = (built_site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert json.loads(script[len("var __index = "):-2]) == index
    code = re.compile(r"<(code|pre)\b[^>]*>.*?</\1\s*>", re.S)
    raw = [doc["location"] for doc in index["docs"] if re.search(r"\\[(\[]", code.sub("", doc["text"] + doc["title"]))]
    assert raw == [], f"sections whose search text holds a formula's TeX: {raw}"
    math = next(doc for doc in index["docs"] if doc["location"] == "guide/authoring.html#math")
    assert "<code>\\(</code>" in math["text"] and "\\sqrt{d_k}" in math["text"]


def test_both_engines_indexes_are_made_readable_in_place_and_kept_otherwise(tmp_path):
    """MkDocs' index (docs) and Zensical's (items): formulas become text, TeX in code stays, and
    an index with nothing to change is not written again (the same file, the same bytes)."""
    import json

    from scalecore_generator.builder import disk_search

    site = tmp_path / "site"
    (site / "search").mkdir(parents=True)
    text = r"by \(\sqrt{d_k}\) and \[\operatorname{Var}(q \cdot k) = d_k\], written <code>\(x\)</code>"
    (site / "search.json").write_text(json.dumps({"config": {}, "items": [{"location": "a.html", "title": r"\(W_Q\)", "text": text}]}))
    (site / disk_search.SEARCH_INDEX).write_text(json.dumps({"config": {}, "docs": [{"location": "a.html", "title": "t", "text": text}]}))
    made = disk_search.files(site)
    expected = "by √d_k and Var(q · k) = d_k, written <code>\\(x\\)</code>"
    zensical = json.loads((site / "search.json").read_text(encoding="utf-8"))["items"][0]
    assert (zensical["title"], zensical["text"]) == ("W_Q", expected)
    mkdocs = json.loads((site / disk_search.SEARCH_INDEX).read_text(encoding="utf-8"))
    assert mkdocs["docs"][0]["text"] == expected
    assert json.loads(made[disk_search.SEARCH_SCRIPT].decode("utf-8")[len("var __index = "):-2]) == mkdocs
    before = (site / disk_search.SEARCH_INDEX).stat()
    assert disk_search.files(site) == made
    after = (site / disk_search.SEARCH_INDEX).stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


# Every box on the page that may scroll sideways (display formulas, figures, tables), each brought
# into view as a reader scrolls to it: does it overflow, and if so what does the reader see.
SIDEWAYS = """async () => {
  const frames = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const found = [];
  for (const box of document.querySelectorAll('div.arithmatex, .scalecore-scroll-x, .scalecore-table__scroll')) {
    if (!box.getClientRects().length) continue;
    box.scrollIntoView({block: 'center'});
    await frames(); await frames();
    if (box.scrollWidth <= box.clientWidth + 1) continue;
    const style = getComputedStyle(box), hint = box.previousElementSibling;
    const b = box.getBoundingClientRect();
    const label = box.querySelector('figcaption button') || box.querySelector('figcaption');
    const l = label && label.getBoundingClientRect();
    found.push({box: box.className, more: box.getAttribute('data-scalecore-more'), mask: style.maskImage || style.webkitMaskImage,
                tabindex: box.tabIndex, role: box.getAttribute('role'), name: box.getAttribute('aria-label'),
                hint: hint && hint.getClientRects().length ? hint.textContent : null,
                label: l ? [Math.round(l.left - b.left), Math.round(b.right - l.right)] : null});
  }
  return found;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page", ["modules/softmax-range.html", "modules/multi-head-attention.html"])
def test_what_scrolls_sideways_on_a_phone_says_so_and_takes_the_keyboard(visit, site_server, page, scheme):
    tab, _ = visit(site_server.url + page_url(page), viewport=PHONE, color_scheme=scheme)
    wait_hydrated(tab)
    found = tab.evaluate(SIDEWAYS)
    kinds = {("arithmatex" if "arithmatex" in f["box"] else "figure") for f in found}
    assert kinds == {"arithmatex", "figure"}, f"no formula or no figure wider than the phone: the test cannot fail ({found})"
    problems = []
    for f in found:
        if f["more"] != "right" or "gradient" not in (f["mask"] or ""):
            problems.append(f"{f['box']}: its cut edge does not fade ({f['more']}, {f['mask']})")
        if f["tabindex"] != 0 or f["role"] != "region" or not f["name"]:
            problems.append(f"{f['box']}: not a named Tab stop ({f['tabindex']}, {f['role']}, {f['name']})")
        if "arithmatex" not in f["box"] and "Scroll sideways" not in (f["hint"] or ""):
            problems.append(f"{f['box']}: no line says it scrolls ({f['hint']})")
        if f["label"] and min(f["label"]) < 0:
            problems.append(f"{f['box']}: its first map's label is cut (px inside the box, left and right: {f['label']})")
    assert not problems, f"{page} ({scheme}) at 390 px:\n  " + "\n  ".join(problems)
    # The keyboard: the first wide formula takes focus, the arrow key scrolls it, and at its end
    # the fade moves to the other edge.
    box = tab.locator("div.arithmatex[data-scalecore-more]").first
    box.scroll_into_view_if_needed()
    box.focus()
    assert tab.evaluate("document.activeElement.matches('div.arithmatex')")
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("el => el.scrollLeft > 0", arg=box.element_handle())
    for _ in range(40):  # 40 px a press: to its end
        if box.get_attribute("data-scalecore-more") == "left":
            break
        tab.keyboard.press("ArrowRight")
        tab.wait_for_timeout(50)
    assert box.get_attribute("data-scalecore-more") == "left", box.evaluate("e => [e.scrollLeft, e.scrollWidth, e.clientWidth]")


# Every text of every heatmap the page shows, at the size it is drawn: its font size in the map's
# units times the map's scale (rotated words too). Hidden numbers (display: none) are not shown.
MAP_TEXTS = """() => Array.from(document.querySelectorAll('svg.scalecore-heatmap__svg')).filter(s => s.getClientRects().length).map(svg => {
  const texts = Array.from(svg.querySelectorAll('text')).filter(t => t.getClientRects().length && getComputedStyle(t).display !== 'none');
  return {title: svg.querySelector('title').textContent, drawn: svg.getBoundingClientRect().width, natural: svg.viewBox.baseVal.width,
          numbers: svg.querySelectorAll('text.scalecore-cell__text').length,
          texts: texts.map(t => { const m = t.getScreenCTM();
            return {cls: t.getAttribute('class'), text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)}; })};
})"""
LEGIBLE = 10.5  # px: the smallest text a map may show (the page's small text is 12.8 at 390 px)
MAP_PAGES = ["modules/multi-head-attention.html", "modules/encoder-block.html"]


def _small_texts(maps: list[dict], least: float) -> list[str]:
    return [f"{m['title'][:40]} (drawn {m['drawn']:.0f} of {m['natural']:.0f} px): {t['cls']} {t['text'][:16]!r} "
            f"at {t['px']:.1f} px" for m in maps for t in m["texts"] if t["px"] < least - 0.01]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page", MAP_PAGES)
def test_a_map_drawn_small_shows_no_text_under_legible_size(visit, site_server, page, scheme):
    tab, _ = visit(site_server.url + page_url(page), viewport=DESKTOP, color_scheme=scheme)
    wait_hydrated(tab)
    maps = tab.evaluate(MAP_TEXTS)
    shrunk = [m for m in maps if m["drawn"] < m["natural"] * LEGIBLE / 13]  # where 13 px numbers would read under 10.5
    assert len(shrunk) >= 4, f"no heads drawn small at 1280 px: the test cannot fail ({[(m['drawn'], m['natural']) for m in maps]})"
    small = _small_texts(maps, LEGIBLE)
    assert not small, f"{page} ({scheme}) at 1280 px:\n  " + "\n  ".join(small[:12]) + f"\n  ({len(small)} in all)"
    for m in shrunk:  # what stays shown: every word, the axis title; the values are the cells' tooltips
        classes = [t["cls"] for t in m["texts"]]
        assert classes.count("scalecore-axis-label") == 2 * round(m["numbers"] ** 0.5), m["title"]
        assert any("scalecore-axis-title" in c for c in classes), m["title"]
    tooltip = tab.locator("svg.scalecore-heatmap__svg rect.scalecore-cell__fill > title").first.text_content()
    assert " \u2192 " in tooltip and ": " in tooltip, tooltip
    # The baked maps the page shows without JavaScript, each opened at the width the page draws it
    # (its media queries read that width, as they do in the <img>), measured the same way.
    still, _ = visit(site_server.url + page_url(page), viewport=DESKTOP, color_scheme=scheme, java_script_enabled=False)
    drawn = still.evaluate("""() => Array.from(document.querySelectorAll('.scalecore-scroll-x figure > img[src$=".svg"]'))
        .filter(i => i.getClientRects().length).map(i => [i.src, Math.round(i.getBoundingClientRect().width)])""")
    assert any(width < 400 for _, width in drawn), drawn
    baked = []
    for src, width in sorted(set(map(tuple, drawn))):
        figure, _ = visit(src, viewport={"width": width, "height": 900}, java_script_enabled=False)
        found = figure.evaluate(f"""() => {{ const svg = document.documentElement, k = {width} / svg.viewBox.baseVal.width;
            return Array.from(svg.querySelectorAll('text')).filter(t => getComputedStyle(t).display !== 'none')
              .map(t => ({{cls: t.getAttribute('class'), text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * k}})); }}""")
        baked.append({"title": src.rsplit("/", 1)[-1], "drawn": width, "natural": width, "texts": found})
        figure.context.close()
    small = _small_texts(baked, LEGIBLE)
    assert not small, f"{page} ({scheme}) at 1280 px without JavaScript:\n  " + "\n  ".join(small[:12])


@pytest.mark.parametrize("page", MAP_PAGES)
def test_on_a_phone_a_map_keeps_its_size_and_every_number(visit, site_server, page):
    tab, _ = visit(site_server.url + page_url(page), viewport=PHONE)
    wait_hydrated(tab)
    maps = tab.evaluate(MAP_TEXTS)
    assert len(maps) >= 4, maps
    for m in maps:
        assert abs(m["drawn"] - m["natural"]) < 0.5, f"{m['title']}: drawn {m['drawn']} of {m['natural']} px"
        shown = [t for t in m["texts"] if t["cls"].startswith("scalecore-cell__text")]
        assert len(shown) == m["numbers"] > 0, f"{m['title']}: {len(shown)} of {m['numbers']} numbers shown"
    small = _small_texts(maps, 12.8)  # the page's small text, as tests/test_figures_phone.py has it
    assert not small, f"{page} at 390 px:\n  " + "\n  ".join(small[:12])

"""Every figure of every module page is readable on a 390 px phone, light and dark, with and
without JavaScript (issue 32, item 4). Measured in Chromium, as a reader's screen shows it:

- Text size: every text of every figure (heatmap words, cell numbers, ticks, axis titles, the
  colour scale's ticks) is drawn at least as large as the page's small text, the computed size
  of a <small> in the article (Material's 80 %: 12.8 px). A text's drawn size is its computed
  font-size times the scale its SVG is shown at (the determinant of its screen transform, so a
  rotated word counts as what it is); a baked figure (<img>) is measured in its own file, times
  the size the page shows it at over its natural size.
- Colour: WCAG contrast ratios computed from the colours the browser resolved. The two ends of a
  heatmap's colour scale (an empty cell and a full one) are at least 3:1 apart, WCAG 1.4.11's
  floor for the graphical objects a figure needs to be understood; a bar against its empty track
  too. Every number on a cell is at least 4.5:1 against that cell's own blended colour, and
  every word and tick at least 4.5:1 against what is behind it (WCAG 1.4.3, text).
- Layout: the page never scrolls sideways; a heatmap is never drawn smaller than one pixel a
  unit (a dense one scrolls in its box instead, which shows a scroll bar and a fading edge).
- Menus: every choice of every menu fits in it when chosen (a native select's longest choice
  within its width; a customizable select's text within its box).
"""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("browser")
from browser import docs_pages, page_url, wait_hydrated

MODULES = [page for page in docs_pages() if page.startswith("modules/")]
PHONE = {"width": 390, "height": 900}
TEXT_CONTRAST = 4.5
GRAPHIC_CONTRAST = 3.0

COLOUR = """
const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
const lin = c => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
const lum = c => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const over = (top, alpha, under) => under.map((u, i) => alpha * top[i] + (1 - alpha) * u);
const behind = el => {  // the first opaque background from el up (an SVG file's own, or the page's)
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
  }
  return [255, 255, 255];
};
"""

# What one SVG shows, given the scale its pixels are drawn at on the page (1 for an inline SVG,
# whose own screen transform already holds it): every visible text's drawn size, the contrast of
# the colour scale's ends, of every cell's number with its cell, of every label with its
# background, and of bars with their track.
FIGURE = COLOUR + """
const measure = (svg, outer) => {
  const found = {texts: [], problems: []};
  const label = t => JSON.stringify(t.textContent.trim().slice(0, 24));
  for (const t of svg.querySelectorAll('text')) {
    if (!t.getClientRects().length || getComputedStyle(t).display === 'none' || !t.textContent.trim()) continue;
    const m = t.getScreenCTM();
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) * outer;
    found.texts.push({text: t.textContent, px, cls: t.getAttribute('class') || ''});
  }
  const fill = svg.querySelector('rect.scalecore-cell__fill:not(.scalecore-cell__fill--negative)');
  const empty = svg.querySelector('rect.scalecore-cell__bg');
  const page = behind(svg.parentElement || svg);
  if (fill && empty) {
    const full = rgb(getComputedStyle(fill).fill), none = rgb(getComputedStyle(empty).fill);
    found.ends = ratio(full, none);
    const fills = svg.querySelectorAll('rect.scalecore-cell__fill');
    const numbers = svg.querySelectorAll('text.scalecore-cell__text');
    numbers.forEach((number, i) => {
      if (!number.getClientRects().length || getComputedStyle(number).display === 'none' || !fills[i]) return;
      const cell = over(rgb(getComputedStyle(fills[i]).fill), Number(getComputedStyle(fills[i]).fillOpacity), none);
      const contrast = ratio(rgb(getComputedStyle(number).fill), cell);
      if (contrast < %(text)s) found.problems.push('number ' + label(number) + ' on its cell: ' + contrast.toFixed(2) + ':1');
    });
  }
  for (const t of svg.querySelectorAll('text:not(.scalecore-cell__text)')) {
    if (!t.getClientRects().length) continue;
    const contrast = ratio(rgb(getComputedStyle(t).fill), page);
    if (contrast < %(text)s) found.problems.push('text ' + label(t) + ' on the background: ' + contrast.toFixed(2) + ':1');
  }
  const bar = svg.querySelector('rect.scalecore-bar');
  if (bar && empty) {
    const contrast = ratio(rgb(getComputedStyle(bar).fill), rgb(getComputedStyle(empty).fill));
    if (contrast < %(graphic)s) found.problems.push('a bar on its track: ' + contrast.toFixed(2) + ':1');
  }
  return found;
};
""" % {"text": TEXT_CONTRAST, "graphic": GRAPHIC_CONTRAST}

PAGE = FIGURE + """
() => {
  const probe = document.createElement('small');
  probe.textContent = 'x';
  (document.querySelector('article.md-typeset') || document.querySelector('.md-typeset')).appendChild(probe);
  const small = parseFloat(getComputedStyle(probe).fontSize);
  probe.remove();
  const figures = [];
  for (const svg of document.querySelectorAll('.scalecore-panel svg[role=img], .scalecore-panel svg.scalecore-legend')) {
    if (!svg.getClientRects().length) continue;
    const found = measure(svg, 1);
    found.panel = svg.closest('.scalecore-panel').id;
    found.kind = svg.getAttribute('class');
    const natural = parseFloat(svg.style.getPropertyValue('--scalecore-natural'));
    if (natural) found.shrunk = svg.getBoundingClientRect().width < natural - 0.5;
    const box = svg.closest('.scalecore-scroll-x');
    if (box && box.scrollWidth > box.clientWidth + 1) {
      const style = getComputedStyle(box);
      found.scrolls = {overflow: style.overflowX, mask: style.maskImage || style.webkitMaskImage,
                       bar: style.scrollbarWidth};
    }
    figures.push(found);
  }
  return {small, figures, overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth};
}
"""

# Every choice of every menu, chosen in turn: does it fit? A native select cuts the text it shows
# when its box is narrower than that choice needs (the free width of a copy holding only that
# choice). A customizable select lays its text out as a box: it must not overflow.
MENUS = """
() => Array.from(document.querySelectorAll('.scalecore-panel select')).filter(s => s.getClientRects().length).flatMap(select => {
  const before = select.value;
  const cut = [];
  const custom = getComputedStyle(select).appearance === 'base-select';
  const needs = option => {  // a native select's free width with only this choice in it
    const copy = select.cloneNode(false);
    copy.appendChild(option.cloneNode(true));
    copy.style.cssText = 'position:absolute;visibility:hidden;width:max-content;max-width:none';
    select.parentNode.appendChild(copy);
    const width = copy.getBoundingClientRect().width;
    copy.remove();
    return width;
  };
  for (const option of select.options) {
    select.value = option.value;
    const fits = custom ? select.scrollWidth <= select.clientWidth + 1
                        : select.getBoundingClientRect().width >= needs(option) - 0.5;
    if (!fits) cut.push(option.text);
  }
  select.value = before;
  return cut.map(text => (select.labels[0] ? select.labels[0].textContent : select.id) + ': ' + JSON.stringify(text));
})
"""


def _problems(figures: list[dict], small: float) -> list[str]:
    problems = []
    for figure in figures:
        where = f"{figure.get('panel', '')} {figure.get('kind', '')}".strip()
        for text in figure["texts"]:
            if text["px"] < small - 0.05:
                problems.append(f"{where}: {text['cls'] or 'text'} {text['text'][:24]!r} is {text['px']:.1f} px (< {small})")
        if "ends" in figure and figure["ends"] < GRAPHIC_CONTRAST:
            problems.append(f"{where}: its colour scale's ends are {figure['ends']:.2f}:1 apart")
        problems += [f"{where}: {problem}" for problem in figure["problems"]]
        if figure.get("shrunk"):
            problems.append(f"{where}: a heatmap drawn smaller than one pixel a unit")
        scrolls = figure.get("scrolls")
        if scrolls and (scrolls["overflow"] not in ("auto", "scroll") or scrolls["mask"] in ("", "none")
                        or scrolls["bar"] == "none"):
            problems.append(f"{where}: scrolls sideways without showing it ({scrolls})")
    return problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page", MODULES)
def test_every_figure_reads_on_a_phone(visit, site_server, page, scheme):
    tab, _ = visit(site_server.url + page_url(page), color_scheme=scheme, viewport=PHONE)
    wait_hydrated(tab)
    assert tab.evaluate("document.body.dataset.mdColorScheme") == {"light": "default", "dark": "slate"}[scheme]
    found = tab.evaluate(PAGE)
    assert 12 <= found["small"] <= 14, f"the page's small text is {found['small']} px: not Material's 80 %?"
    problems = _problems(found["figures"], found["small"])
    assert found["overflow"] <= 0, f"the page scrolls sideways by {found['overflow']} px"
    problems += [f"a menu cuts its choice {cut}" for cut in tab.evaluate(MENUS)]
    assert not problems, f"{page} ({scheme}) at 390 px:\n  " + "\n  ".join(problems)
    if page == "modules/softmax-range.html":  # the pages measured have figures: the test can fail
        kinds = {figure["kind"] for figure in found["figures"]}
        assert {"scalecore-heatmap__svg", "scalecore-chart", "scalecore-legend"} <= kinds, kinds


def _file_figure(chromium, url: str) -> dict:
    """A baked figure measured in its own file, drawn at its natural size (its width and height
    are its viewBox's)."""
    context = chromium.new_context()
    try:
        tab = context.new_page()
        tab.goto(url)
        return tab.evaluate(FIGURE + "() => measure(document.documentElement, 1)")
    finally:
        context.close()


@pytest.mark.parametrize("page", ["modules/softmax-range.html", "modules/encoder-block.html",
                                  "modules/multi-head-attention.html"])
def test_every_baked_figure_reads_on_a_phone_without_javascript(chromium, site_server, page):
    context = chromium.new_context(java_script_enabled=False, viewport=PHONE)
    try:
        tab = context.new_page()
        tab.goto(site_server.url + page_url(page))
        images = tab.locator(".scalecore-panel img[src$='.svg']")
        assert images.count(), f"{page} has no baked figure"
        shown = []
        for index in range(images.count()):
            image = images.nth(index)
            image.scroll_into_view_if_needed()
            image.evaluate("img => img.complete && img.naturalWidth ? 0 : new Promise(done => img.onload = done)")
            shown.append(image.evaluate("""img => ({src: img.currentSrc, scale: img.getBoundingClientRect().width / img.naturalWidth,
                scrolls: (b => b && b.scrollWidth > b.clientWidth + 1 ? getComputedStyle(b).maskImage : null)(img.closest('.scalecore-scroll-x'))})"""))
        small = tab.evaluate("""() => { const s = document.createElement('small'); s.textContent = 'x';
            document.querySelector('.md-typeset').appendChild(s); return parseFloat(getComputedStyle(s).fontSize); }""")
        overflow = tab.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    finally:
        context.close()
    problems = []
    measured = {}
    for image in shown:
        if image["src"] not in measured:
            measured[image["src"]] = _file_figure(chromium, image["src"])
        figure = dict(measured[image["src"]])
        figure["texts"] = [dict(text, px=text["px"] * image["scale"]) for text in figure["texts"]]
        figure["panel"] = image["src"].rsplit("/", 1)[-1]
        problems += _problems([figure], small)
        if image["scrolls"] in ("", "none"):
            problems.append(f"{figure['panel']}: scrolls sideways without showing it")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
    assert not problems, f"{page} without JavaScript at 390 px:\n  " + "\n  ".join(problems)

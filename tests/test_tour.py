"""A tour of every page of the built site, as its readers use it: keyboard only, a phone's width,
light and dark, and the site hosted under a subpath.

For each page x {light, dark} x {1280 px, 390 px}, on 127.0.0.1:
- no console error, no uncaught error, no HTTP error, no request anywhere but the test server
  (workers' requests included; see tests/browser.py);
- every panel control is reached with Tab and operated with the keyboard alone (switches with
  Space then Enter, selects, sliders and radio groups with arrow keys, disclosures with Enter, text with typing),
  shows a visible focus ring, and changes the panel's state; nothing traps the focus;
- no horizontal scroll (document width <= viewport), before and after operating everything;
- the palette: the emulated colour scheme picks Material's matching palette, the palette toggle
  switches it, the panels' colours follow, and the choice survives a reload.

The same tour runs with the site served under /docs/softmax/ (the server 404s everything else),
and live mode runs once there. Buttons that start Python (Compute live, Run, ...) are reached
but pressed only in the live tests: a cold Pyodide start per page would make the tour slow.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

pytest.register_assert_rewrite("browser")
from browser import (PYODIDE_TIMEOUT_MS, SUBPATH, docs_pages, effective_background, module_page, page_url,
                     site_pages, wait_hydrated)


PAGES = docs_pages()
# emulated prefers-color-scheme -> (Material's scheme, the palette toggle's title, the other scheme)
SCHEMES = {"light": ("default", "Switch to dark mode", "slate"),
           "dark": ("slate", "Switch to light mode", "default")}
WIDTHS = (1280, 390)
STARTS_PYTHON = ("Compute live", "Compute", "Recompute live", "Run", "Sample live")
MAX_TAB_STOPS = 600

# A panel's visible state: its data-scalecore-* attributes, its text (not the live region's, which
# speaks later), and the attributes and values controls and figures change.
SIGNATURE = """panel => {
  const parts = [];
  for (const a of panel.attributes) {
    if (a.name.startsWith('data-scalecore-') && a.name !== 'data-scalecore-hydrated') {
      parts.push(a.name + '=' + a.value);
    }
  }
  for (const node of panel.querySelectorAll('*')) {
    if (node.closest('.scalecore-live-region')) continue;
    for (const name of ['aria-checked', 'aria-expanded', 'aria-label', 'aria-valuetext', 'fill-opacity', 'open',
                        'hidden']) {
      if (node.hasAttribute(name)) parts.push(name + '=' + node.getAttribute(name));
    }
    for (const child of node.childNodes) if (child.nodeType === 3 && child.data.trim()) parts.push(child.data);
    if ('value' in node && /^(INPUT|SELECT|TEXTAREA)$/.test(node.tagName)) parts.push('value=' + node.value);
  }
  return parts.join('\\u0001');
}"""

# What a control is called, for reports: its aria-label, its <label>, or its text.
NAME = """(el => (el.getAttribute('aria-label') || (el.labels && el.labels.length ? el.labels[0].textContent : '') ||
                el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60))"""

# The focused element, described; every element focused gets a data-tour-stop number, and panel
# controls carry the data-tour id the inventory gave them.
FOCUSED = """() => {
  const NAME = """ + NAME + """;
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const panel = el.closest('.scalecore-panel[data-scalecore-kind]');
  const style = getComputedStyle(el);
  if (!el.hasAttribute('data-tour-stop')) {
    window.__tourStops = (window.__tourStops || 0) + 1;
    el.setAttribute('data-tour-stop', String(window.__tourStops));
  }
  return {
    stop: el.getAttribute('data-tour-stop'),
    tour: el.getAttribute('data-tour') || null,
    panel: panel ? panel.id : null,
    kind: panel ? panel.dataset.scalecoreKind : null,
    tag: el.tagName.toLowerCase(),
    type: el.getAttribute('type') || '',
    role: el.getAttribute('role') || '',
    text: NAME(el),
    ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
  };
}"""

# Every control of every panel a reader can reach now: visible and enabled. Each gets data-tour.
INVENTORY = """() => {
  const NAME = """ + NAME + """;
  const selector = 'button, select, input, textarea, summary, a[href], [tabindex]:not([tabindex="-1"])';
  const found = [];
  document.querySelectorAll('.scalecore-panel[data-scalecore-kind]').forEach(panel => {
    const groups = {};  // a radio group is one control: Tab reaches its checked radio, arrows move it
    panel.querySelectorAll(selector).forEach(el => {
      if (el.disabled || el.closest('[hidden]') || !el.getClientRects().length) return;
      const radio = el.type === 'radio' && el.name;
      if (radio && groups[el.name]) { el.setAttribute('data-tour', groups[el.name]); return; }
      const id = 'c' + found.length;
      if (radio) groups[el.name] = id;
      el.setAttribute('data-tour', id);
      found.push({tour: id, panel: panel.id, tag: el.tagName.toLowerCase(), text: NAME(el)});
    });
  });
  return found;
}"""


def _signature(page, panel_id: str) -> str:
    return page.evaluate(f"id => ({SIGNATURE})(document.getElementById(id))", panel_id)


def _wait_changed(page, panel_id: str, before: str, what: str) -> str:
    try:
        page.wait_for_function(
            f"([id, before]) => {{ const p = document.getElementById(id);"
            f" return !p.querySelector('[aria-busy]') && ({SIGNATURE})(p) !== before; }}",
            arg=[panel_id, before], timeout=10_000)
    except Exception:
        raise AssertionError(f"{what}: the panel {panel_id} did not change") from None
    return _signature(page, panel_id)


# Elements that stick out past the viewport's right edge and are not clipped by a scrolling or
# hidden-overflow ancestor: the outermost ones, for the report.
PAST_THE_EDGE = """() => {
  const edge = document.documentElement.clientWidth + 1;
  const clipped = el => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible') return true;
    }
    return false;
  };
  const sticking = el => el.getBoundingClientRect().right > edge && getComputedStyle(el).position !== 'fixed';
  return Array.from(document.querySelectorAll('body *'))
    .filter(el => sticking(el) && !clipped(el) && !(el.parentElement && sticking(el.parentElement)))
    .slice(0, 8)
    .map(el => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className.trim() ?
      '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' (right edge at ' +
      Math.round(el.getBoundingClientRect().right) + ' px)');
}"""


def _no_horizontal_scroll(page, when: str) -> None:
    scroll, client = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if scroll > client:
        culprits = page.evaluate(PAST_THE_EDGE)
        pytest.fail(f"horizontal scroll {when}: the document is {scroll} px wide in a {client} px viewport; "
                    f"sticking out: {culprits}", pytrace=False)


def _operate(page, stop: dict, log: list[str]) -> None:
    """Operate the focused panel control with the keyboard and check that the panel changed."""
    panel, tag, kind = stop["panel"], stop["tag"], stop["kind"]
    what = f"{kind} panel {panel}: {tag} {stop['text']!r}"
    # The Tab that focused the control may have just scrolled the panel into view: what the page
    # measures once a box nears the viewport (module.js marks a figure wider than the screen, an
    # observer's callback and two frames later) is part of where the panel is before the keys.
    page.evaluate("() => new Promise(done => { let frames = 4;"
                  " const next = () => --frames ? requestAnimationFrame(next) : done(); requestAnimationFrame(next); })")
    before = _signature(page, panel)
    if stop["role"] == "switch":
        checked = page.evaluate("() => document.activeElement.getAttribute('aria-checked')")
        page.keyboard.press("Space")
        switched = _wait_changed(page, panel, before, what + " (Space)")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-checked')") != checked, what
        page.keyboard.press("Enter")
        after = _wait_changed(page, panel, switched, what + " (Enter)")
        assert after == before, f"{what}: Space then Enter did not bring the panel back to where it was"
        log.append(f"{what}: Space, Enter")
    elif tag == "select":
        last = page.evaluate("() => document.activeElement.selectedIndex === "
                             "document.activeElement.options.length - 1")
        value = page.evaluate("() => document.activeElement.value")
        key = "ArrowUp" if last else "ArrowDown"
        page.keyboard.press(key)
        # A customizable select (appearance: base-select, the panels' menus on a phone) opens its
        # list on an arrow key, as a listbox does: the keyboard user then moves and chooses with Enter.
        if page.evaluate("() => { const s = document.activeElement.closest('select');"
                         " return !!s && s.matches(':open'); }"):
            page.keyboard.press(key)
            page.keyboard.press("Enter")
            what += " (its list opened on the arrow key)"
        _wait_changed(page, panel, before, what)
        # the focused control now holds another value (a picker that fills the editor hands it the
        # focus, on the frame after the change)
        try:
            page.wait_for_function("v => document.activeElement.value !== v", arg=value, timeout=5_000)
        except Exception:
            raise AssertionError(f"{what}: the focused control still holds {value!r}") from None
        chosen = page.evaluate("() => document.activeElement.value")
        if kind == "scale-guards":  # the panel shows the chosen corpus or seed, not only the select
            page.wait_for_function("([id, v]) => { const s = document.getElementById(id).scalecorePanel;"
                                   " return s.corpus === v || String(s.seed) === v; }", arg=[panel, chosen])
        log.append(f"{what}: {value} -> {chosen}")
    elif tag == "input" and stop["type"] == "range":
        at_max = page.evaluate("() => { const r = document.activeElement; return +r.value >= +r.max; }")
        page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
        _wait_changed(page, panel, before, what)
        log.append(f"{what}: arrow key")
    elif tag == "input" and stop["type"] == "radio":  # a segmented choice: the arrow keys move it
        value = page.evaluate("() => document.activeElement.value")
        page.keyboard.press("ArrowRight")
        _wait_changed(page, panel, before, what)
        chosen = page.evaluate("() => document.activeElement.value")
        assert chosen != value and page.evaluate("() => document.activeElement.checked"), what
        log.append(f"{what}: {value} -> {chosen}")
    elif tag == "input" and stop["type"] in ("", "text"):  # the softmax panel's scores
        page.keyboard.press("Control+A")
        page.keyboard.type("1, 2, 5")
        page.keyboard.press("Enter")
        _wait_changed(page, panel, before, what)
        log.append(f"{what}: typed 1, 2, 5")
    elif tag == "summary":
        opened = page.evaluate("() => document.activeElement.parentElement.open")
        page.keyboard.press("Enter")
        assert page.evaluate("() => document.activeElement.parentElement.open") != opened, what
        log.append(f"{what}: Enter")
    elif tag == "textarea":
        page.keyboard.press("Control+End")
        page.keyboard.type("\n# typed from the keyboard")
        assert page.evaluate("() => document.activeElement.value").endswith("# typed from the keyboard"), what
        page.keyboard.press("Escape")  # the console's way out: Escape, then Tab leaves the editor
        log.append(f"{what}: typed, Escape")
    elif tag == "button" and stop["text"] in STARTS_PYTHON:
        log.append(f"{what}: reached (starts Python: pressed in the live tests)")
    elif tag == "button":
        expanded = page.evaluate("() => document.activeElement.getAttribute('aria-expanded')")
        page.keyboard.press("Enter")
        if expanded is not None:
            _wait_changed(page, panel, before, what)
            assert page.evaluate("() => document.activeElement.getAttribute('aria-expanded')") != expanded, what
        log.append(f"{what}: Enter")
    else:
        log.append(f"{what}: reached")


def keyboard_tour(page) -> list[str]:
    """Tab through the whole page from its top, operating every panel control on the way.
    Returns what was done; fails on a control never reached, a trap or a missing focus ring."""
    inventory = page.evaluate(INVENTORY)
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    reached, log, previous = set(), [], None
    first = None
    for _ in range(MAX_TAB_STOPS):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED)
        if stop is None:  # focus left the document: the end of the page
            break
        key = stop["stop"]
        if key == previous and stop["tag"] == "textarea":
            # A code editor keeps Tab for indenting; its documented way out (the console's help
            # line says so, as WCAG 2.1.2 asks) is Escape, then Tab.
            page.keyboard.press("Escape")
            page.keyboard.press("Tab")
            stop = page.evaluate(FOCUSED)
            if stop is None:
                break
            key = stop["stop"]
        if first is None:
            first = key
        elif key == first:  # back at the top
            break
        assert key != previous, f"the focus is stuck on {stop}"
        previous = key
        if stop["panel"] is None:
            continue
        assert stop["ring"], f"no visible focus ring on {stop}"
        if stop["tour"] and stop["tour"] not in reached:
            reached.add(stop["tour"])
            _operate(page, stop, log)
        elif not stop["tour"]:  # appeared meanwhile (a disclosure opened): reached, and named
            assert stop["text"] or stop["tag"] in ("input", "select", "textarea"), f"unnamed control {stop}"
    else:
        pytest.fail(f"more than {MAX_TAB_STOPS} Tab stops: is the focus trapped?")
    # A control that operating another one took away (8 heads' pickers, when 1 head is chosen) is not
    # missed; one that is still there, visible and enabled, must have been reached.
    present = page.evaluate("ids => ids.filter(id => { const el = document.querySelector(`[data-tour='${id}']`);"
                            " return el && !el.disabled && !el.closest('[hidden]') && el.getClientRects().length; })",
                            [control["tour"] for control in inventory])
    missed = [control for control in inventory if control["tour"] not in reached and control["tour"] in present]
    assert not missed, "panel controls the keyboard never reached:\n  " + "\n  ".join(map(str, missed))
    return log


def _colours(page) -> dict[str, str]:
    """The colours a reader sees: the page, and each panel's background, ink and heatmap cells."""
    found = {"page": effective_background(page.locator(".md-content").first)}
    for index in range(page.locator(".scalecore-panel[data-scalecore-kind]").count()):
        panel = page.locator(".scalecore-panel[data-scalecore-kind]").nth(index)
        name = panel.get_attribute("id")
        found[f"{name} background"] = effective_background(panel)
        found[f"{name} ink"] = panel.evaluate("p => getComputedStyle(p).color")
        cells = panel.locator(".scalecore-cell__bg")
        if cells.count():
            found[f"{name} empty cell"] = cells.first.evaluate("c => getComputedStyle(c).fill")
    return found


def tour(visit, url: str, scheme: str, width: int, allowed=None) -> dict:
    """The whole tour of one page; returns what it measured (for the report)."""
    expected, toggle, other = SCHEMES[scheme]
    page, watch = visit(url, allowed=allowed, color_scheme=scheme, viewport={"width": width, "height": 900})
    panels = wait_hydrated(page)
    assert page.evaluate("document.body.dataset.mdColorScheme") == expected, \
        f"prefers-color-scheme {scheme} should pick Material's {expected!r} palette"
    _no_horizontal_scroll(page, f"at {width} px after loading")

    log = keyboard_tour(page)
    _no_horizontal_scroll(page, f"at {width} px after operating every control (tables and answers open)")

    before = _colours(page)
    page.locator(f"label.md-header__button[title='{toggle}']").click()
    page.wait_for_function("s => document.body.dataset.mdColorScheme === s", arg=other)
    after = _colours(page)
    same = [name for name in before if before[name] == after[name]]
    assert not same, f"colours that did not follow the palette ({expected} -> {other}): " + \
        ", ".join(f"{name} = {before[name]}" for name in same)
    page.reload()
    wait_hydrated(page)
    assert page.evaluate("document.body.dataset.mdColorScheme") == other, "the palette choice was not kept"
    watch.check()
    return {"panels": panels, "operated": log, "requests": len(watch.requests)}


# --------------------------------------------------------------------------------------------


def test_the_tour_covers_every_built_page(built_site):
    assert site_pages(built_site) == PAGES, "the tours are parametrized by docs/*.md: a built page is missing"


@pytest.mark.parametrize("width", WIDTHS, ids=lambda w: f"{w}px")
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("page", PAGES)
def test_tour(visit, site_server, page, scheme, width):
    done = tour(visit, site_server.url + page_url(page), scheme, width)
    print(f"\n{page} {scheme} {width}px: {done['panels']} panels, {len(done['operated'])} controls operated, "
          f"{done['requests']} requests")


def test_the_subpath_server_serves_its_prefix_only(subpath_server):
    assert subpath_server.url.endswith(SUBPATH)
    with urllib.request.urlopen(subpath_server.url + "index.html") as answer:
        assert answer.status == 200
    mark = len(subpath_server.paths)
    for path in ("/index.html", "/docs/index.html", "/assets/scalecore/panels.js"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(subpath_server.origin + path)
        assert refused.value.code == 404, path
    assert len(subpath_server.outside_since(mark)) == 3


@pytest.mark.parametrize("page", PAGES)
def test_tour_under_a_subpath(visit, subpath_server, page):
    mark = len(subpath_server.paths)
    done = tour(visit, subpath_server.url + page_url(page), "light", 1280, allowed=subpath_server.allows)
    assert done["requests"] > 0
    outside = subpath_server.outside_since(mark)
    assert not outside, f"requests outside {SUBPATH}: {outside}"


def test_live_mode_under_a_subpath(visit, subpath_server, built_site):
    mark = len(subpath_server.paths)
    page, watch = visit(subpath_server.url + page_url(module_page(built_site)), allowed=subpath_server.allows)
    wait_hydrated(page)
    live = page.get_by_role("button", name="Compute live")
    panel = page.locator(".scalecore-panel--scale-guards").filter(has=live).first
    panel.get_by_role("button", name="Compute live").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("el => el.dataset.scalecoreSource === 'live'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert panel.locator(".scalecore-badge").text_content() == "live"
    assert "computed in your browser" in panel.locator(".scalecore-live__message").text_content()
    pyodide = [url for url in watch.requests if url.endswith(".wasm")]
    assert pyodide and all(url.startswith(subpath_server.url) for url in pyodide), pyodide  # the worker's, watched
    outside = subpath_server.outside_since(mark)
    assert not outside, f"requests outside {SUBPATH}: {outside}"


@pytest.mark.parametrize("missing", ["no-such-page.html", "modules/no-such-module.html", "guide/deep/no-such.html"])
def test_the_404_page_under_a_subpath_is_styled_and_its_links_land(visit, subpath_server, missing):
    # A static host answers a missing address, at any depth, with the site's 404.html: served from
    # a subpath with no site_url, it asked the host's root for its stylesheets and linked there.
    mark = len(subpath_server.paths)
    page, watch = visit(subpath_server.url + missing, allowed=subpath_server.allows)
    page.wait_for_load_state("load")
    assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky"  # styled
    assert page.evaluate("document.baseURI") == subpath_server.url
    home = page.locator(".md-header__button.md-logo")
    assert home.evaluate("a => a.href") == subpath_server.url + "index.html"
    assert page.evaluate("JSON.parse(document.getElementById('__config').textContent).base") == SUBPATH
    page.locator(".md-nav--primary a.md-nav__link[href$='corpora.html']").first.click()
    page.wait_for_url(subpath_server.url + "corpora.html")
    assert page.locator("h1").first.is_visible()
    outside = subpath_server.outside_since(mark)
    assert not outside, f"requests outside {SUBPATH}: {outside}"
    watch.errors[:] = [error for error in watch.errors if missing not in error]  # the 404 itself

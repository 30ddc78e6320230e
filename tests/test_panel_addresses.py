"""Every panel state has an address (panels.js, "addresses"), in Chromium on the real site.

A reader switches a panel (corpus, seed, a guard, heads, a slider), and the page's address says
so: reload keeps the state, Back and Forward walk the choices, a copied link opens the same view
in a fresh page, served at the root, under a subpath and from disk. An address naming what was
never baked leaves the panel at its defaults, with no error. A seed picker offers the seeds its
kind baked (the manifest's axis), not the site's.
"""

from __future__ import annotations

import json
import re
import shutil
from urllib.parse import unquote, urlsplit

import pytest

from browser import module_page, site_manifest, site_pages

pytestmark = pytest.mark.browser

# The state of one panel as the reader sees it: each named control's value (the base's own
# reading of its controls is what is under test, so this reads the DOM directly).
SEEN = """id => {
  const root = document.getElementById(id);
  const on = b => b.getAttribute('aria-checked') === 'true';
  const seen = {guards: root.getAttribute('data-scalecore-guards')};
  for (const select of root.querySelectorAll('.scalecore-controls select')) seen[select.previousSibling.textContent] = select.value;
  seen.switches = Array.from(root.querySelectorAll('[data-guard]')).filter(on).map(b => b.dataset.guard).join('+');
  return seen;
}"""


def switchable_guards_panel(page) -> str:
    """The id of a scale-guards panel whose guards a reader can switch and whose corpus and seed
    can be chosen (found by what it offers, not by its place on the page)."""
    found = page.evaluate("""() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind="scale-guards"]'))
      .filter(p => { const o = JSON.parse(p.dataset.scalecoreOptions); return !(o.locked || []).length && o.corpus.length > 1; })
      .map(p => p.id)""")
    assert found, "no scale-guards panel with switchable guards and several corpora"
    return found[0]


def hydrate(page, panel_id: str):
    """Bring the panel near the screen (panels hydrate there) and wait for it; a page that is
    still being loaded (Back to an entry of an earlier document) is waited for first."""
    page.wait_for_load_state("load")
    page.wait_for_function("id => { const p = document.getElementById(id); if (p) p.scrollIntoView({block: 'center'});"
                           " return p && p.getAttribute('data-scalecore-hydrated') === 'true'; }", arg=panel_id)
    return page.locator(f"#{panel_id}")


def seen(page, panel_id: str) -> dict:
    return page.evaluate(SEEN, panel_id)


def query(page) -> dict:
    return query_of(page.url)


def query_of(url: str) -> dict:
    """An address's query as the panels read it: "+" is a plus (guard sets), not a space."""
    parts = [part.partition("=") for part in urlsplit(url).query.split("&") if part]
    return {unquote(name): unquote(value) for name, _, value in parts}


def showing(page, panel_id: str, expected: dict, timeout: float = 15_000) -> bool:
    """Wait until the panel (hydrated again if the page was loaded afresh) shows ``expected``,
    and still does a moment later: on the first Back after a panel's choice, Material's instant
    navigation may fetch the page and swap its article in (the panel then hydrates again from
    the address), so a state read just before the swap is not yet the one the reader ends with."""
    import time

    deadline = time.monotonic() + timeout / 1000
    now = None
    while time.monotonic() < deadline:
        hydrate(page, panel_id)
        now = seen(page, panel_id)
        if now == expected:
            page.wait_for_timeout(300)
            if page.evaluate("id => document.getElementById(id).getAttribute('data-scalecore-hydrated')",
                             panel_id) == "true" and seen(page, panel_id) == expected:
                return True
        page.wait_for_timeout(100)
    raise AssertionError(f"{now} != {expected} at {page.url}")


def key_of(panel_id: str) -> str:
    return "p" + panel_id.rsplit("-", 1)[1]


def walk_and_check(page, panel_id: str) -> None:
    """Switch a panel three times (corpus, seed, a guard); the address follows; Back and Forward
    walk the three choices; reload keeps the state."""
    panel = hydrate(page, panel_id)
    start = seen(page, panel_id)
    corpus_select = panel.locator("select[data-scalecore-state=corpus]")
    corpora = corpus_select.locator("option").evaluate_all("os => os.map(o => o.value)")
    other = next(c for c in corpora if c != start["Corpus"])
    corpus_select.select_option(other)
    page.wait_for_function("(k) => location.search.includes(k + '.corpus=')", arg=key_of(panel_id))
    panel.locator("select[data-scalecore-state=seed]").select_option("3")
    page.wait_for_function("(k) => location.search.includes(k + '.seed=3')", arg=key_of(panel_id))
    panel.locator("[data-guard=norm]").click()
    page.wait_for_function("(k) => location.search.includes(k + '.guards=')", arg=key_of(panel_id))
    chosen = seen(page, panel_id)
    assert chosen["Corpus"] == other and chosen["Seed"] == "3" and "norm" in chosen["switches"]
    assert chosen["guards"] == chosen["switches"]
    key = key_of(panel_id)
    assert query(page) == {f"{key}.corpus": other, f"{key}.seed": "3", f"{key}.guards": chosen["guards"]}
    assert "+" in urlsplit(page.url).query or chosen["guards"] == "norm", "guard sets are written readably"

    page.go_back()  # before the guard
    assert showing(page, panel_id, {**chosen, "guards": start["guards"], "switches": start["switches"]})
    page.go_back()  # before the seed
    assert showing(page, panel_id, {**chosen, "guards": start["guards"], "switches": start["switches"], "Seed": start["Seed"]})
    page.go_back()  # the page as it opened
    assert showing(page, panel_id, start)
    assert key + ".corpus" not in query(page)
    page.go_forward()
    page.go_forward()
    page.go_forward()
    assert showing(page, panel_id, chosen)

    page.reload()
    hydrate(page, panel_id)
    assert seen(page, panel_id) == chosen, "reload keeps the panel's state"


def test_served_a_panel_keeps_its_state_through_reload_back_and_forward(visit, site_server, built_site):
    page, _ = visit(site_server.url + module_page(built_site))
    walk_and_check(page, switchable_guards_panel(page))


def test_under_a_subpath_a_panel_keeps_its_state(visit, subpath_server, built_site):
    page, _ = visit(subpath_server.url + module_page(built_site))
    walk_and_check(page, switchable_guards_panel(page))


def test_from_disk_a_panel_keeps_its_state(visit, built_site, tmp_path):
    site = tmp_path / "site"  # a copy: file:// reads the folder as any reader would
    shutil.copytree(built_site, site)
    page, _ = visit((site / module_page(built_site)).as_uri())
    assert page.url.startswith("file://")
    walk_and_check(page, switchable_guards_panel(page))


def copied_link(page, panel_id: str) -> str:
    """Press the panel's "Copy a link to this view"; the link, from the clipboard or, when the
    browser refuses it, from the field the panel shows selected."""
    button = page.locator(f"#{panel_id} .scalecore-copy-link__button")
    assert button.get_attribute("type") == "button" and button.inner_text() == "Copy a link to this view"
    button.click()
    page.wait_for_function("""id => {
      const root = document.getElementById(id);
      return root.hasAttribute('data-scalecore-copied') || !root.querySelector('.scalecore-copy-link__field').hidden;
    }""", arg=panel_id)
    field = page.locator(f"#{panel_id} .scalecore-copy-link__field")
    if field.is_visible():
        assert page.evaluate("() => document.activeElement.className").find("scalecore-copy-link__field") >= 0
        selected = page.evaluate("() => { const f = document.activeElement; return f.value.slice(f.selectionStart, f.selectionEnd); }")
        assert selected == field.input_value(), "the fallback selects the whole link"
        return field.input_value()
    return page.evaluate("() => navigator.clipboard.readText()")


@pytest.mark.parametrize("where", ["served", "disk"])
def test_a_copied_link_opens_the_same_view_in_a_fresh_page(visit, site_server, built_site, tmp_path, where):
    if where == "served":
        start = site_server.url + module_page(built_site)
        options = {"permissions": ["clipboard-read", "clipboard-write"]}
    else:
        site = tmp_path / "site"
        shutil.copytree(built_site, site)
        start = (site / module_page(built_site)).as_uri()
        options = {}
    page, _ = visit(start, **options)
    if where == "disk":  # a browser that refuses the clipboard: the link is shown, selected
        page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException('no', 'NotAllowedError')); }")
    panel_id = switchable_guards_panel(page)
    panel = hydrate(page, panel_id)
    panel.locator("select[data-scalecore-state=seed]").select_option("2")
    panel.locator("[data-guard=init]").click()
    page.wait_for_function("(k) => location.search.includes(k + '.guards=')", arg=key_of(panel_id))
    chosen = seen(page, panel_id)
    link = copied_link(page, panel_id)
    assert urlsplit(link).fragment == panel_id, "the link lands on the panel"
    assert link.split("#")[0] == page.url.split("#")[0]
    status = page.locator(f"#{panel_id} .scalecore-copy-link__status").inner_text()
    assert status == ("Link copied." if where == "served" else
                      "The browser did not allow copying: copy this link (Ctrl+C or \u2318C).")
    if where == "served":  # a panel showing a result computed live (its kind says so): the link says what it opens
        page.evaluate("id => { const root = document.getElementById(id); root.setAttribute('data-scalecore-source', 'live');"
                      " root.removeAttribute('data-scalecore-copied'); }", panel_id)
        assert copied_link(page, panel_id) == link
        assert page.locator(f"#{panel_id} .scalecore-copy-link__status").inner_text() == (
            "Link copied. It opens the baked view: a result computed live has no address.")
        page.evaluate("id => document.getElementById(id).setAttribute('data-scalecore-source', 'baked')", panel_id)

    fresh, _ = visit(link)
    fresh.wait_for_selector(f"#{panel_id}[data-scalecore-hydrated=true]")
    assert seen(fresh, panel_id) == chosen
    box = fresh.locator(f"#{panel_id}").bounding_box()
    assert box["y"] < 900 and box["y"] + box["height"] > 0, "the page opens on the panel"


def test_the_address_bar_copied_opens_at_the_panel_whose_state_it_holds(visit, site_server, built_site):
    """Issue 47.11: the address a reader copies from the browser's bar holds a panel's state in
    its query and no fragment: the page opens on that panel, far below the page's top, with the
    state shown, at a phone's width."""
    page, _ = visit(site_server.url + module_page(built_site))
    panel_id = switchable_guards_panel(page)
    panel = hydrate(page, panel_id)
    panel.locator("select[data-scalecore-state=seed]").select_option("2")
    page.wait_for_function("(k) => location.search.includes(k + '.seed=2')", arg=key_of(panel_id))
    chosen = seen(page, panel_id)
    address = page.url.split("#")[0]
    assert "#" not in address and "?" in address
    fresh, _ = visit(address, viewport={"width": 390, "height": 800})
    fresh.wait_for_selector(f"#{panel_id}[data-scalecore-hydrated=true]")
    assert seen(fresh, panel_id) == chosen
    fresh.wait_for_timeout(500)  # the page settles (panels above hydrate and grow)
    box = fresh.locator(f"#{panel_id}").bounding_box()
    assert fresh.evaluate("scrollY") > 800, "the panel is below the first screen"
    assert box["y"] < 800 and box["y"] + box["height"] > 0, "the page opens on the panel"


def test_unbaked_or_invalid_values_fall_back_to_the_defaults_without_an_error(visit, site_server, built_site):
    page, watch = visit(site_server.url + module_page(built_site))
    panel_id = switchable_guards_panel(page)
    hydrate(page, panel_id)
    defaults = seen(page, panel_id)
    key = key_of(panel_id)
    bad = (f"?{key}.corpus=nosuchcorpus&{key}.seed=99&{key}.guards=norm+bogus&{key}.nosuch=1"
           f"&other=kept+as+is#{panel_id}")
    page.goto(site_server.url + module_page(built_site) + bad)
    hydrate(page, panel_id)
    assert seen(page, panel_id) == defaults
    assert urlsplit(page.url).query == "other=kept+as+is", "the address keeps only what the panel shows, and others' parameters"
    assert urlsplit(page.url).fragment == panel_id, "the hash is the page's, untouched"
    # A half-valid address: the valid part is taken, the rest falls back.
    page.goto(site_server.url + module_page(built_site) + f"?{key}.seed=4&{key}.corpus=%E2%80%A6%ZZ")
    hydrate(page, panel_id)
    assert seen(page, panel_id) == {**defaults, "Seed": "4"}
    assert page.locator(f"#{panel_id} .scalecore-error").count() == 0
    # (the console-error check runs when the test ends: visit's watch)


def test_a_seed_picker_offers_only_the_seeds_its_kind_baked(visit, site_server, built_site):
    """A kind that bakes fewer seeds than the site (the manifest's axes say so): its picker
    offers those, and an address naming a seed only the site has falls back."""
    manifest = site_manifest(built_site)
    site_seeds = manifest["seeds"]
    assert len(site_seeds) > 2
    kept = [site_seeds[0], site_seeds[-1]]
    pages = [p for p in site_pages(built_site) if 'data-scalecore-kind="encoder"' in (built_site / p).read_text(encoding="utf-8")]
    page_path = pages[0]

    def fewer_seeds(route):
        response = route.fetch()
        data = response.json()
        data["kinds"]["encoder"]["axes"]["seed"] = kept
        route.fulfill(response=response, body=json.dumps(data))

    page, _ = visit("about:blank", allowed=site_server.allows)
    page.route("**/api/panels.json", fewer_seeds)
    unbaked = site_seeds[1]
    page.goto(site_server.url + page_path)
    panel_id = page.evaluate("""() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind="encoder"]'))
      .filter(p => JSON.parse(p.dataset.scalecoreOptions).show.includes('seed')).map(p => p.id)[0]""")
    assert panel_id, "an encoder panel with a seed picker"
    page.goto(site_server.url + page_path + f"?{key_of(panel_id)}.seed={unbaked}")
    panel = hydrate(page, panel_id)
    offered = panel.locator("select[data-scalecore-state=seed] option").evaluate_all("os => os.map(o => Number(o.value))")
    assert offered == kept, f"the site bakes seeds {site_seeds}, this kind {kept}"
    assert panel.locator("select[data-scalecore-state=seed]").input_value() == str(kept[0])
    assert f"{key_of(panel_id)}.seed" not in query(page)


def test_choices_that_depend_on_each_other_come_back_and_a_slider_replaces_its_entry(visit, site_server, built_site):
    """Multi-head: 8 heads, then head 6 (a head that exists only with 8) come back on reload;
    dragging a slider does not add history entries, a discrete choice does."""
    pages = [p for p in site_pages(built_site) if 'data-scalecore-kind="multihead"' in (built_site / p).read_text(encoding="utf-8")]
    page, _ = visit(site_server.url + pages[0])
    panel_id = page.evaluate("""() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind="multihead"]'))
      .filter(p => { const s = JSON.parse(p.dataset.scalecoreOptions).show; return s.includes('heads') && (s.includes('maps') || s.includes('measures')); })
      .map(p => p.id)[0]""")
    panel = hydrate(page, panel_id)
    panel.locator("[data-scalecore-state=heads] label", has=page.locator("input[value='8']")).click()
    page.wait_for_function("id => document.getElementById(id).getAttribute('data-multihead-heads') === '8'", arg=panel_id)
    panel.locator("select[data-scalecore-state=head]").select_option("6")
    page.wait_for_function("k => location.search.includes(k + '.head=6')", arg=key_of(panel_id))
    page.reload()
    hydrate(page, panel_id)
    page.wait_for_function("id => document.getElementById(id).getAttribute('data-multihead-head') === '6'", arg=panel_id)
    assert panel.get_attribute("data-multihead-heads") == "8"

    # The softmax panel's slider: replaceState while dragging.
    softmax = page.evaluate("() => (document.querySelector('.scalecore-panel[data-scalecore-kind=\"softmax\"]') || {}).id || null")
    if softmax is None:
        page.goto(site_server.url + module_page(built_site))
        softmax = page.evaluate("() => document.querySelector('.scalecore-panel[data-scalecore-kind=\"softmax\"]').id")
    hydrate(page, softmax)
    before = page.evaluate("() => history.length")
    slider = page.locator(f"#{softmax} input[type=range][data-scalecore-state=factor]")
    for value in ("2", "3.5", "6"):
        slider.fill(value)
    page.wait_for_function("k => location.search.includes(k + '.factor=6')", arg=key_of(softmax))
    assert page.evaluate("() => history.length") == before, "a slider's drag replaces the entry"
    page.reload()
    hydrate(page, softmax)
    assert page.locator(f"#{softmax}").get_attribute("data-scalecore-factor") == "6"
    assert slider.input_value() == "6"


def test_an_address_naming_a_corpus_a_seed_and_heads_shows_that_very_view(visit, site_server, built_site):
    """Corpus, seed and heads at once (a copied link, the mentor's): each choice loads its data, so the address sets
    them one after the other, each once the last has loaded. Set all at once, the corpus's load finished last, with
    the heads it started with: the Heads radio said 2 while the maps showed 8 (a fresh reader, from the mentor)."""
    page_url = "modules/multi-head-attention.html"
    page, _ = visit(site_server.url + page_url)
    panel_id = page.evaluate("""() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind="multihead"]'))
      .filter(p => { const o = JSON.parse(p.dataset.scalecoreOptions); return o.show.includes('heads') && o.show.includes('corpus')
        && o.heads !== 2; }).map(p => p.id).pop()""")
    key = key_of(panel_id)
    page.goto(site_server.url + page_url + f"?{key}.corpus=demo&{key}.seed=2&{key}.heads=2#{panel_id}")
    hydrate(page, panel_id)
    page.wait_for_function("id => document.getElementById(id).getAttribute('data-multihead-heads') === '2'", arg=panel_id)
    state = page.evaluate("""id => { const p = document.getElementById(id).scalecorePanel;
      return {corpus: p.corpus, seed: p.seed, heads: p.heads}; }""", panel_id)
    assert state == {"corpus": "demo", "seed": 2, "heads": 2}, state
    assert page.locator(f"#{panel_id} [data-scalecore-state=heads] input:checked").get_attribute("value") == "2"


def test_a_heading_anchor_still_lands_and_keeps_the_panels_state(visit, site_server, built_site):
    page, _ = visit(site_server.url + module_page(built_site))
    panel_id = switchable_guards_panel(page)
    panel = hydrate(page, panel_id)
    panel.locator("select[data-scalecore-state=seed]").select_option("1")
    page.wait_for_function("k => location.search.includes(k + '.seed=1')", arg=key_of(panel_id))
    anchor = page.locator(".md-sidebar--secondary a.md-nav__link[href*='#']").nth(1)
    target = anchor.get_attribute("href").split("#")[1]
    anchor.click()
    page.wait_for_function("t => location.hash === '#' + t", arg=target)
    assert query(page).get(f"{key_of(panel_id)}.seed") == "1"
    # Instant navigation may swap the article in after the hash changes: the heading is measured
    # once it is on screen again.
    page.locator(f"[id='{target}']").wait_for(state="visible")
    page.wait_for_function("t => { const r = document.getElementById(t).getBoundingClientRect();"
                           " return r.height > 0 && r.top >= 0 && r.top < 300; }", arg=target)
    heading = page.locator(f"[id='{target}']").bounding_box()
    assert 0 <= heading["y"] < 300, "the anchor still scrolls to its heading"
    assert re.search(r"\.seed=1", page.url)


def test_the_mentors_panel_link_carries_the_state_it_cites(visit, site_server, built_site):
    """'See it in the panel' lands on the panel, in the corpus and seed of the number it cites."""
    from test_mentor import _ask

    page, _ = visit(site_server.url + module_page(built_site))
    region = _ask(page, "What is the mean row-max on kjv at seed 3 with init+scale?")
    link = region.get_by_role("link", name="See it in the panel").first
    href = link.get_attribute("href")
    anchor = href.split("#")[1]
    key = key_of(anchor)
    cited = {name: value for name, value in query_of(href).items() if name.startswith(key + ".")}
    assert cited.get(key + ".corpus") == "kjv", href
    link.click()
    hydrate(page, anchor)
    panel = page.locator(f"#{anchor}")
    assert panel.locator("select[data-scalecore-state=corpus]").input_value() == "kjv"
    if key + ".seed" in cited and cited[key + ".seed"].isdigit():
        assert panel.locator("select[data-scalecore-state=seed]").input_value() == cited[key + ".seed"]
    box = panel.bounding_box()
    assert box["y"] < 900 and box["y"] + box["height"] > 0, "the link lands on the panel"

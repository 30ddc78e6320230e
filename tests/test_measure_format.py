"""One number format per measure (views.js, measure): a read-out writes every value of a measure
with the same three significant digits, whether or not the value happens to be whole. The step-1
panel showed "1.00" at one seed and "1" at another for its row-max, "0" beside "0.100" for its
saturated share, and "7.9 × 10⁶" beside "7.91 × 10⁶" for its score spread."""

import re

import pytest

from scalecore_generator.blocks import views

THREE_DIGITS = re.compile(r"^\u2212?(\d\.\d\d|\d\d\.\d|\d{3,5}|\d\.\d\d \u00d7 10[\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)")


def shown(value) -> str:
    markup = views.view("readouts", {"tokens": 10, "measures": [
        {"key": "m", "name": "M", "hint": "", "unit": "", "value": value, "range": [0, 1]}]})
    return re.search(r'class="scalecore-readout__value">([^<]*)<', markup)[1]


@pytest.mark.parametrize("whole, near", [(1, 0.99999), (2, 2.0000001), (12, 11.9999), (-1, -0.99999),
                                         (7.9e6, 7.9000001e6), (1e-4, 1.0000001e-4)])
def test_a_whole_value_reads_like_its_neighbours(whole, near):
    assert shown(whole) == shown(near)
    assert THREE_DIGITS.match(shown(whole)), shown(whole)


def test_zero_has_the_digits_of_the_other_values():
    assert shown(0) == "0.00" and shown(0.5) == "0.500"
    assert shown(7.9e6) == "7.90 \u00d7 10\u2076", "a large value keeps its three digits too"


def test_counts_and_large_values_keep_the_shared_format():
    assert shown(100) == "100" and shown(123456) == "1.23 \u00d7 10\u2075"
    assert views.view("number", [1, ""]) == "1", "prose numbers (counts, ticks) are unchanged"


@pytest.mark.browser
def test_the_step_1_read_outs_keep_one_format_on_every_corpus_and_seed(visit, site_server, built_site):
    """The first panel of the lesson page with corpus and seed pickers, walked through every
    corpus and seed as a reader would: each measure's read-out has three significant digits
    every time (no bare "1" or "0")."""
    from browser import module_page

    page, _ = visit(site_server.url + module_page(built_site))
    panel_id = page.evaluate("""() => Array.from(document.querySelectorAll('.scalecore-panel[data-scalecore-kind="scale-guards"]'))
      .filter(p => JSON.parse(p.dataset.scalecoreOptions).corpus.length > 1).map(p => p.id)[0]""")
    panel = page.locator(f"#{panel_id}")
    panel.scroll_into_view_if_needed()
    page.wait_for_selector(f"#{panel_id}[data-scalecore-hydrated=true]")
    corpora = panel.locator("select[data-scalecore-state=corpus] option").evaluate_all("os => os.map(o => o.value)")
    seeds = panel.locator("select[data-scalecore-state=seed] option").evaluate_all("os => os.map(o => o.value)")
    readings: dict[str, set[str]] = {}
    for corpus in corpora:
        panel.locator("select[data-scalecore-state=corpus]").select_option(corpus)
        for seed in seeds:
            panel.locator("select[data-scalecore-state=seed]").select_option(seed)
            page.wait_for_function("([id, c, s]) => document.getElementById(id).querySelector('.scalecore-caption__text')"
                                   ".textContent.includes(', seed ' + s + ',') && !document.getElementById(id)"
                                   ".querySelector('[aria-busy=true]')", arg=[panel_id, corpus, seed])
            for key, text in panel.locator(".scalecore-readout").evaluate_all(
                    "rs => rs.map(r => [r.dataset.measure, r.querySelector('.scalecore-readout__value').textContent])"):
                readings.setdefault(key, set()).add(text)
    assert len(readings) >= 4
    for key, texts in readings.items():
        bare = [t for t in texts if not THREE_DIGITS.match(t)]
        assert not bare, f"{key}: {sorted(texts)}"


@pytest.mark.parametrize("value, spec", [(4468.29, ",.2f"), (4468, ","), (-1234567.891, ",.1f"), (0.5, ".3f"),
                                         (789633, ","), (12.0, ",.0f"), (999.996, ",.2f")])
def test_the_number_formats_a_template_may_ask_for_are_written_as_python_writes_them(value, spec):
    """num(',.2f') and num(',') fell back to the site's format without a word (4468): the formats a
    page's quotes use most are written as Python's format() writes them, in every view."""
    assert views.view("number", [value, spec]) == format(value, spec)


def test_a_number_format_the_views_do_not_write_is_refused_with_the_ones_they_do():
    from scalecore_generator.blocks.base import PanelTemplates as Templates

    templates = Templates.__new__(Templates)
    templates.views = views.unbuilt()
    with pytest.raises(ValueError, match=r"num\('xyz'\): the num filter writes '' \(the site's format\), '\.Nf'"):
        templates.number(1.5, "xyz")
    assert templates.number(4468.29, ",.2f") == "4,468.29"

"""MathML output (the default ``math: mathml``): what the build gives the browser to draw.

Unit tests of scalecore_generator/pages/formulas.py's inline breaking and scalecore_generator/pages/math_font.py's cut of STIX
Two Math and its early request; the pages themselves are checked in Chromium here (the font asked
for once, from the page's head), by test_offline_bundle.py (every formula typeset, from disk) and
test_tour.py (no formula widens a phone's page).
"""

import io

import pytest
from fontTools.ttLib import TTFont

from scalecore_generator.pages import math_font, offscreen
from scalecore_generator.pages.formulas import breakable

pytest.register_assert_rewrite("browser")
from browser import module_page, page_url  # noqa: E402

SUM = ('<math><mrow><mi>a</mi><mo>=</mo><mi>b</mi></mrow><mrow><mo>=</mo><mi>c</mi>'
       '<mspace width="0.1667em"></mspace></mrow></math>')


def test_an_inline_formula_becomes_one_math_element_per_part_between_its_equals_signs():
    assert breakable(SUM) == ('<math><mrow><mi>a</mi><mo>=</mo><mi>b</mi></mrow></math>'
                              '<math><mrow><mo>=</mo><mi>c</mi><mspace width="0.1667em"></mspace></mrow></math>')


@pytest.mark.parametrize("markup", [
    "<math><mrow><mi>a</mi><mo>=</mo><mi>b</mi></mrow></math>",  # one part: nothing to break
    "<math><msub><mi>a</mi><mn>1</mn></msub></math>",  # no run of mrows at the top
    "<math><mrow><mi>a</mi></mrow><mi>b</mi></math>",
    '<span class="katex">x</span>',  # not Temml's output
])
def test_a_formula_without_parts_is_left_whole(markup):
    assert breakable(markup) == markup


def test_the_characters_include_what_the_browser_draws_without_it_being_in_the_text():
    chars = math_font.characters(['<math><msqrt><mi>x</mi></msqrt><mo>+</mo><mi>β</mi>'
                                  '<mi mathvariant="normal">h</mi><mn>2</mn></math>'])
    assert "\u221a" in chars  # the radical sign of a square root
    assert "\U0001d465" in chars and "\U0001d6fd" in chars  # mathematical italic x and beta
    assert "\u210e" not in chars  # an upright h (mathvariant normal) is drawn as h
    assert {"x", "+", "2", "h"} <= set(chars)


def test_the_annotation_of_a_formula_is_not_drawn():
    chars = math_font.characters(['<math><semantics><mi>x</mi><annotation encoding="application/x-tex">'
                                  '\\zeta</annotation></semantics></math>'])
    assert "z" not in chars and "\\" not in chars


@pytest.mark.skipif(not math_font.FONT.is_file(), reason="npm packages not installed (bash build_tools/dev.sh)")
def test_the_cut_font_draws_every_character_keeps_the_math_table_and_is_the_same_bytes_twice():
    chars = math_font.characters([SUM, "<math><mrow><mo>(</mo><mfrac><mi>q</mi><msqrt><mi>d</mi></msqrt></mfrac>"
                                       "<mo>)</mo><mi>𝔼</mi></mrow></math>"])
    font = math_font.cut(chars)
    assert font == math_font.cut(chars)
    face = TTFont(io.BytesIO(font))
    assert "MATH" in face  # the browser stretches brackets and radicals from its variants
    assert face.flavor == "woff"
    covered = face.getBestCmap()
    assert [char for char in chars if ord(char) not in covered and not char.isspace()] == []
    variants = face["MATH"].table.MathVariants
    assert variants.VertGlyphCount > 0  # the taller brackets survived the cut
    assert len(font) < 40_000  # a cut, not the 370 kB font


@pytest.mark.skipif(not math_font.FONT.is_file(), reason="npm packages not installed (bash build_tools/dev.sh)")
def test_a_damaged_cached_cut_is_cut_again_not_served(tmp_path):
    fonts = math_font.MathFont(tmp_path)
    first = fonts.font("ab=")
    (cached,) = tmp_path.glob("*.woff")
    cached.write_bytes(b"damaged")
    assert fonts.font("ab=") == first
    assert [path.read_bytes() for path in tmp_path.glob("*.woff")] == [first]


def test_the_stylesheet_points_temml_s_font_at_the_cut():
    css = math_font.stylesheet()
    assert "url('stix-two-math.woff') format('woff')" in css
    assert "STIXTwoMath.woff2" not in css and "local(" not in css


PAGE = ('<html><head><meta charset="utf-8"><link rel="stylesheet" href="main.css"></head><body><article>'
        '<h1>T</h1><p>{top}</p><h2>A</h2><div class="scalecore-offscreen"><p>{below}</p></div></article></body></html>')


def test_a_page_with_a_formula_on_its_first_screen_asks_for_the_font_before_its_stylesheets():
    page = PAGE.format(top=SUM, below="text")
    done = math_font.preloaded(page, "../assets/scalecore/math/stix-two-math.woff", offscreen.first_screen(page))
    script = done.index("<script>")
    assert script < done.index('<link rel="stylesheet"') and done.index("</head>") > script
    assert 'link.href = "../assets/scalecore/math/stix-two-math.woff"' in done
    assert 'location.protocol !== "file:"' in done  # from disk, Chromium would refuse the preload
    assert done.replace(done[script:done.index("</script>") + len("</script>\n")], "") == page


def test_a_page_whose_formulas_are_all_further_down_is_left_as_it_is():
    page = PAGE.format(top="text", below=SUM)
    assert offscreen.first_screen(page).count("<math") == 0
    assert math_font.preloaded(page, "font.woff", offscreen.first_screen(page)) == page
    plain = PAGE.format(top="text", below="text")
    assert math_font.preloaded(plain, "font.woff", "<math>") != plain  # it reads the first screen it is given


def test_served_the_module_page_asks_for_the_math_font_once_from_its_head(visit, site_server, built_site):
    """Over http the font is fetched by the page's preload (initiator: link), once: the
    stylesheet's @font-face takes the preloaded copy, so Chromium warns of no unused or
    mismatched preload. A page whose formulas all lie further down has no preload."""
    page, watch = visit(site_server.url + page_url(module_page(built_site)))
    warnings = []
    page.on("console", lambda message: message.type == "warning" and warnings.append(message.text))
    page.reload()
    page.wait_for_function("() => [...document.fonts].some(f => f.family === 'STIX2' && f.status === 'loaded')")
    page.wait_for_timeout(3500)  # Chromium reports an unused preload about 3 s after the load
    fonts = page.evaluate("performance.getEntriesByType('resource').filter(e => e.name.endsWith('.woff'))"
                          ".map(e => [e.name, e.initiatorType])")
    assert [initiator for _, initiator in fonts] == ["link"], fonts
    assert not [text for text in warnings if "preload" in text], warnings
    watch.check()
    other, other_watch = visit(site_server.url + "guide/authoring.html")  # its formulas are far down the page
    assert other.locator(".arithmatex math").count() > 0 and other.evaluate(
        "document.querySelectorAll('link[rel=preload][as=font]').length") == 0
    other_watch.check()

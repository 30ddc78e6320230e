"""The runs of blocks between headings are boxes the browser may skip while they are off screen
(scalecore_generator/pages/offscreen.py): the headings stay outside them, nothing of the page is lost, a box
far below is not rendered until the reader comes near, and its estimated height is about right.
"""

from __future__ import annotations

import re
import statistics

import pytest

pytest.register_assert_rewrite("browser")
from browser import module_page, page_url  # noqa: E402

from scalecore_generator.pages import offscreen  # noqa: E402

LONG = "<p>" + "Softmax turns scores into weights. " * 60 + "</p>\n"


def unwrapped(html: str) -> str:
    """The content without the boxes the wrapper added (each box ends just before a heading, the
    next box or the end: the wrapper never puts a box's end anywhere else)."""
    return re.sub(r'<div class="scalecore-offscreen" style="[^"]*">(.*?)</div>(?=\s*(?:<h\d|<div class="scalecore-offscreen"|$))',
                  r"\1", html, flags=re.S)


def test_the_runs_between_headings_are_boxed_and_the_headings_stay_outside():
    html = f'<h1 id="t">Title</h1>\n<p>intro</p>\n<h2 id="a">A</h2>\n{LONG}{LONG}<h2 id="b">B</h2>\n{LONG}'
    wrapped = offscreen.wrap(html)
    assert wrapped.count('class="scalecore-offscreen"') == 2
    for heading in ('<h2 id="a">A</h2>', '<h2 id="b">B</h2>'):
        before = wrapped[: wrapped.index(heading)]
        assert before.count("<div") == before.count("</div>"), f"{heading} is inside a box"
    assert unwrapped(wrapped) == html  # nothing of the page is changed or lost


def test_a_run_several_screens_long_is_cut_between_its_blocks_into_boxes_about_a_screen_high():
    """A box is rendered whole once any of it nears the viewport: one box for a long first section
    had the browser lay all of it out while the page loaded."""
    paragraphs = [LONG.replace("Softmax", f"Softmax {n}") for n in range(6)]
    html = "<h2>A</h2>\n" + "".join(paragraphs) + "<h2>B</h2>\n"
    wrapped = offscreen.wrap(html)
    boxes = re.findall(r'<div class="scalecore-offscreen" style="[^"]*">(.*?)</div>', wrapped, flags=re.S)
    assert len(boxes) == 3
    for box in boxes:
        assert offscreen.SCREEN <= offscreen.estimate(box) < 2 * offscreen.SCREEN
        assert box.count("<p>") == box.count("</p>")  # cut between blocks, never inside one
    assert unwrapped(wrapped) == html


def test_a_remainder_too_short_to_skip_joins_the_box_before_it():
    html = f"<h2>A</h2>\n{LONG}{LONG}<p>a last short paragraph</p>\n"
    wrapped = offscreen.wrap(html)
    assert wrapped.count('class="scalecore-offscreen"') == 1
    assert "a last short paragraph</p></div>" in wrapped
    assert unwrapped(wrapped) == html


def test_the_top_of_the_page_and_short_runs_are_left_as_they_are():
    html = f"{LONG}<h2>A</h2>\n<p>one short paragraph</p>\n<h2>B</h2>\n"
    assert offscreen.wrap(html) == html
    assert offscreen.wrap(LONG + LONG) == LONG + LONG  # no heading: nothing to wrap between


def test_headings_inside_blocks_do_not_split_a_run():
    nested = f'<div class="admonition"><h3>Inside</h3>{LONG}</div>\n'
    html = f"<h2>A</h2>\n{nested}{LONG}"
    wrapped = offscreen.wrap(html)
    assert wrapped.count('class="scalecore-offscreen"') == 1
    assert nested in wrapped
    assert unwrapped(wrapped) == html


def test_a_run_with_unclosed_or_void_tags_is_still_wrapped_whole():
    run = f'<p>text<br>more<img src="x.png" alt="x"></p>\n<hr>\n{LONG}<svg viewBox="0 0 1 1"><path d="M0 0"/></svg>\n'
    html = f"<h2>A</h2>\n{run}<h2>B</h2>\n"
    wrapped = offscreen.wrap(html)
    assert f'{run.rstrip()}</div>' in wrapped
    assert unwrapped(wrapped) == html


def test_the_estimate_grows_with_text_figures_table_rows_and_code():
    base = offscreen.estimate(LONG)
    assert offscreen.estimate(LONG + LONG) > base
    assert offscreen.estimate(LONG + '<svg viewBox="0 0 10 10"></svg>') > base
    assert offscreen.estimate(LONG + "<table><tr><td>1</td></tr><tr><td>2</td></tr></table>") > base
    assert offscreen.estimate(LONG + "<pre><code>a\nb\nc\n</code></pre>") > base


def test_a_closed_details_counts_as_its_summary():
    inside = "<p>" + "the answer, hidden until asked " * 40 + "</p>"
    closed = f"<details><summary>Check yourself</summary>{inside}</details>"
    opened = f"<details open><summary>Check yourself</summary>{inside}</details>"
    assert offscreen.estimate(closed) < offscreen.estimate(opened) / 4


SKIPPED = """() => Array.from(document.querySelectorAll('.scalecore-offscreen'),
  box => !box.firstElementChild.checkVisibility({contentVisibilityAuto: true}))"""


def test_a_box_far_below_is_skipped_until_the_reader_comes_near(visit, site_server, built_site):
    page, watch = visit(site_server.url + page_url(module_page(built_site)), viewport={"width": 390, "height": 800})
    page.wait_for_timeout(300)
    skipped = page.evaluate(SKIPPED)
    assert len(skipped) >= 5 and skipped[-1] and not skipped[0], skipped
    assert page.evaluate("() => document.querySelectorAll('.scalecore-offscreen h2, .scalecore-offscreen h3').length") == 0
    page.locator(".scalecore-offscreen").last.scroll_into_view_if_needed()
    page.wait_for_function(f"() => !({SKIPPED})().at(-1)")
    watch.check()


LAST_HEADING_BEFORE_A_BOX = """() => Array.from(document.querySelectorAll('article h2[id]'))
  .filter(heading => heading.nextElementSibling?.matches('.scalecore-offscreen')).at(-1).id"""


def test_a_link_to_a_heading_far_below_lands_on_it(visit, site_server, built_site):
    """The target is the last heading a box follows, so the page has room below it to bring it to
    the top: the very last heading sits near the page's end, where no browser can scroll it up
    (and the notes below it grow as they load, which moved it from 259 to 477 px in one run)."""
    url = site_server.url + page_url(module_page(built_site))
    page, watch = visit(url, viewport={"width": 390, "height": 800})
    target = page.evaluate(LAST_HEADING_BEFORE_A_BOX)
    page.goto(f"{url}#{target}")
    # The boxes near the target render and take their real heights (scroll anchoring keeps the
    # target in place meanwhile): read its place once it has not moved for 300 ms (at most 10 s:
    # a loaded machine renders later than 800 ms, the wait this test once had).
    where = lambda: page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", target)  # noqa: E731
    top, still, waited = where(), 0, 0
    while still < 3 and waited < 10_000:
        page.wait_for_timeout(100)
        waited += 100
        now = where()
        still = still + 1 if abs(now - top) < 0.5 else 0
        top = now
    header = page.evaluate("() => document.querySelector('.md-header').getBoundingClientRect().bottom")
    # within a pixel: a fresh-clone run under load put the heading 0.2 px above the header's edge
    # (sub-pixel rounding of the scroll position, as the mentor's link test allows too)
    assert header - 1 <= top < header + 100, f"#{target} is at {top}px from the top of the viewport (header ends at {header}px)"
    watch.check()


def test_a_linked_heading_comes_back_to_the_top_when_the_page_grows_after_the_load(visit, site_server, built_site):
    """The page's very last heading, linked: at load the browser can scroll it only as far as the
    page reaches. When the page grows below it afterwards (as it does when panels below hydrate
    late on a slow phone), the heading is brought to the top; once the reader scrolls, it stays
    where the reader put it."""
    url = site_server.url + page_url(module_page(built_site))
    page, watch = visit(url, viewport={"width": 390, "height": 800})
    last = page.evaluate("() => Array.from(document.querySelectorAll('article h2[id]')).at(-1).id")
    # A load with the anchor in the address (a link from elsewhere), not a jump within the loaded
    # page: that one goes through Material's instant navigation, whose fetch and swap of the page
    # raced with the growth below on a busy machine (the fresh-clone CI at ebaa41b).
    page.goto(site_server.url)
    page.goto(f"{url}#{last}")
    page.wait_for_timeout(300)
    top = lambda: page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", last)  # noqa: E731
    header = page.evaluate("() => document.querySelector('.md-header').getBoundingClientRect().bottom")
    assert top() > header + 100, "the last heading should sit too near the end to reach the top: pick another page"
    grow = "() => { const d = document.createElement('div'); d.style.height = '3000px'; document.body.append(d); }"
    page.evaluate(grow)
    page.wait_for_function("([id, h]) => { const t = document.getElementById(id).getBoundingClientRect().top;"
                           " return t >= h - 1 && t < h + 100; }", arg=[last, header], timeout=5_000)  # within a pixel, as above
    page.mouse.wheel(0, -200)  # the reader moves: the page no longer puts the heading back
    page.wait_for_timeout(200)
    moved = top()
    page.evaluate(grow)
    page.wait_for_timeout(300)
    assert abs(top() - moved) < 1
    watch.check()


def test_the_estimated_heights_are_about_right_at_phone_width(visit, site_server, built_site):
    """A wrong estimate only moves the scrollbar until the box is rendered, but a model that
    drifted (a new kind of block, a theme change) would make the table of contents jump."""
    page, watch = visit(site_server.url + page_url(module_page(built_site)), viewport={"width": 412, "height": 823})
    pairs = page.evaluate("""() => {
      const boxes = Array.from(document.querySelectorAll('.scalecore-offscreen'));
      const estimates = boxes.map(box => parseFloat(box.style.containIntrinsicBlockSize.replace('auto', '')));
      boxes.forEach(box => { box.style.contentVisibility = 'visible'; });
      return boxes.map((box, i) => [estimates[i], box.getBoundingClientRect().height]);
    }""")
    errors = [abs(estimate / real - 1) for estimate, real in pairs]
    assert statistics.median(errors) < 0.3, pairs
    watch.check()

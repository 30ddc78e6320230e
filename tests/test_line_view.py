"""The shared line chart (views.js line) as an author's kind uses it: views compared on one
scale (xMax, yMax), axes named with their units (xTitle, yTitle), whole ticks written whole.
A fresh-eyes author's projectile kind could not show that 45° flies further than 15°: each
throw filled the chart's width."""

import re

from scalecore_generator.blocks import views

THROW_15 = {"xs": [0, 10, 20.4], "ys": [0, 1.3, 0], "label": "a 15° throw"}
THROW_45 = {"xs": [0, 20, 40.8], "ys": [0, 10.2, 0], "label": "a 45° throw"}


def draw(spec: dict) -> str:
    return views.render([("line", spec)])[0]


def last_point_x(markup: str) -> float:
    """How far right of the first point (x = 0) the curve's last point is drawn."""
    points = re.search(r'<polyline class="scalecore-curve" points="([^"]+)"', markup)[1].split()
    return float(points[-1].split(",")[0]) - float(points[0].split(",")[0])


def test_a_fixed_x_axis_puts_a_shorter_throw_short_of_a_longer_one():
    short, long = (draw(dict(spec, xMax=45, yMax=12)) for spec in (THROW_15, THROW_45))
    assert abs(last_point_x(short) / last_point_x(long) - 0.5) < 0.01  # 20.4 m against 40.8 m, on one scale
    right_end = lambda markup: re.search(r'points="[^"]* ([\d.]+),[\d.]+"', markup)[1]  # noqa: E731
    assert right_end(draw(THROW_15)) == right_end(draw(THROW_45))  # without it, each fills the width


def test_an_axis_end_is_raised_when_a_value_goes_past_it():
    assert last_point_x(draw(dict(THROW_45, xMax=30))) == last_point_x(draw(THROW_45))


def test_axes_are_named_with_their_units():
    markup = draw(dict(THROW_45, xTitle="distance (m)", yTitle="height (m)"))
    assert '<text x="4" y="14" class="scalecore-axis-title">height (m)</text>' in markup
    assert re.search(r'<text [^>]*class="scalecore-axis-title">distance \(m\)</text>', markup)


def test_whole_ticks_are_written_whole_and_fractions_keep_two_decimals():
    ticks = lambda markup: re.findall(r'text-anchor="end" class="scalecore-tick">([^<]+)<', markup)  # noqa: E731
    assert ticks(draw(dict(THROW_45, yMax=20))) == ["0", "10", "20"]
    assert ticks(draw({"xs": [0, 1], "ys": [0.2, 0.5]})) == ["0.00", "0.25", "0.50"]
    # small values keep three significant digits: a pendulum's swing of 0.004 read 0.00 three times
    assert ticks(draw({"xs": [0, 1], "ys": [0.001, 0.004]})) == ["0", "0.002", "0.004"]
    assert ticks(draw({"xs": [0, 1], "ys": [0, 0.0152]})) == ["0", "0.0076", "0.0152"]


def test_the_older_name_of_the_y_axis_end_still_works():
    assert draw(dict(THROW_15, yMin=12)) == draw(dict(THROW_15, yMax=12))


def test_a_line_as_a_file_draws_its_curve_not_a_filled_shape():
    """A kind's baked figure (an <img> of the file) has the page's look: a stroked curve on grid lines."""
    [figure] = views.figures([("line", dict(THROW_45, marker=[20, 10.2]))])
    style = re.search(rb"<style>(.*?)</style>", figure)[1]
    assert b".scalecore-curve{fill:none;stroke:" in style and b".scalecore-grid{stroke:" in style


def test_curves_to_compare_share_one_chart_with_a_legend():
    """A chemistry author compared two rate constants in two charts side by side, each too small
    to read: series draws both on one scale, each in its own colour and dash, named over the plot."""
    slow = {"xs": [0, 10, 20], "ys": [1, 0.37, 0.14], "label": "k = 0.1"}
    fast = {"xs": [0, 10, 20], "ys": [1, 0.007, 0.00005], "label": "k = 0.5"}
    markup = draw({"series": [slow, fast], "label": "decay", "xTitle": "time (s)"})
    curves = re.findall(r'<polyline class="([^"]+)"', markup)
    assert curves == ["scalecore-curve", "scalecore-curve scalecore-curve--2"]
    assert re.findall(r'class="scalecore-tick">(k = [\d.]+)</text>', markup) == ["k = 0.1", "k = 0.5"]
    assert re.findall(r'<line [^>]*class="(scalecore-curve[^"]*)"', markup) == curves  # the legend's strokes
    [figure] = views.figures([("line", {"series": [slow, fast], "label": "decay"})])
    assert b".scalecore-curve--2{stroke:" in figure  # as a file too
    assert draw(dict(slow)) == draw({"series": [slow], "label": "k = 0.1"})  # one series: as one curve, no legend

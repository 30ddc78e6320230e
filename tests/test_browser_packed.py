"""The compute answer live mode sends (scalecore.browser.compute_packed): its lists of floats in one
array of doubles, the rest as JSON. Put back as live.js does, it is compute()'s answer, number for
number (the Chromium tests check the same through the worker and the page)."""

import json
import math

import pytest

from scalecore import browser


def results(case: str) -> dict:
    """A compute function for the tests (browser.compute imports it by name)."""
    if case == "own key":
        return {"$floats": [1.0, 2.0]}
    if case == "nan":
        return {"weights": [[0.5, math.nan]]}
    return {"weights": [[0.25, 0.75], [1.0, -0.0]], "tokens": ["the", "sun"], "seed": 3, "flags": [True, False],
            "mixed": [1, 2.5], "empty": [], "pair": (0.5, 1e-300), "nested": {"spread": 2.5, "row": [3.25]}}


def unpack(value, floats):
    """live.js's unpack, in Python."""
    if isinstance(value, list):
        return [unpack(item, floats) for item in value]
    if isinstance(value, dict):
        if "$floats" in value:
            start, length = value["$floats"]
            return list(floats[start:start + length])
        return {key: unpack(item, floats) for key, item in value.items()}
    return value


def test_the_packed_answer_is_the_plain_one_number_for_number():
    points = json.dumps([{"case": "plain"}, {"case": "plain"}])
    text, floats = browser.compute_packed("test_browser_packed:results", points)
    plain = browser.compute("test_browser_packed:results", points)
    assert "0.75" not in text and len(floats) == 2 * 7
    back = unpack(json.loads(text), floats)
    assert json.dumps(back) == plain  # -0.0 and 1e-300 included; ints, bools and a mix stay JSON
    assert back[0]["flags"] == [True, False] and back[0]["mixed"] == [1, 2.5]


def test_a_result_with_the_key_itself_is_sent_as_plain_json():
    points = json.dumps([{"case": "own key"}])
    text, floats = browser.compute_packed("test_browser_packed:results", points)
    assert floats is None and text == browser.compute("test_browser_packed:results", points)


def test_a_float_json_cannot_write_is_refused_as_json_refuses_it():
    points = json.dumps([{"case": "nan"}])
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        browser.compute("test_browser_packed:results", points)
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        browser.compute_packed("test_browser_packed:results", points)

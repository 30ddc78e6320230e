"""An author's compute function that fails only in live mode (a value no point was baked at): the
panel shows the exception in one line and stays usable, and the browser's console (the author's
tool) holds the whole traceback, with the author's file and line. Parameters the panel's script
names wrongly are said as such: the message lists what the script sent."""

from pathlib import Path

import pytest

from browser import PYODIDE_TIMEOUT_MS, StaticServer, wait_hydrated
from sites import build, copy_site, edit, line_of

TUTORIAL = Path(__file__).resolve().parents[1] / "scalecore_generator" / "scaffold"
MODULE = Path("mylessons") / "temperature.py"
SCRIPT = Path("kinds") / "temperature" / "panel.js"
RAISE = '    if temperature > 100:\n        raise ValueError(f"too hot: {temperature}")\n'
MISNAMED = 'if (temperature === 7) return [{ scores: points[first].scores, temprature: temperature }];'


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("live-errors") / "tutorial", source=TUTORIAL)
    edit(folder / MODULE, '    scaled = [s / temperature for s in scores]\n',
         RAISE + '    scaled = [s / temperature for s in scores]\n')
    edit(folder / SCRIPT, "            return [{ scores: points[first].scores, temperature: temperature }];\n",
         f"            {MISNAMED}\n            return [{{ scores: points[first].scores, temperature: temperature }}];\n")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    server = StaticServer(folder / "site")
    yield folder, server
    server.close()


def compute(page, panel, value: str) -> str:
    """The live form's (new) message after computing at ``value``."""
    message = panel.locator(".scalecore-live__message")
    before = message.text_content() if message.count() else ""
    panel.get_by_label("Any temperature").fill(value)
    panel.locator("form").get_by_role("button", name="Compute", exact=True).click()
    page.wait_for_function("([el, before]) => el.textContent.includes('Error') && el.textContent !== before",
                           arg=[message.element_handle(), before], timeout=PYODIDE_TIMEOUT_MS)
    return message.text_content()


def test_a_live_failure_is_one_line_on_the_page_and_its_traceback_in_the_console(site, visit):
    folder, server = site
    page, watch = visit(server.url + "lessons/temperature.html")
    warnings = []
    page.on("worker", lambda worker: worker.on(
        "console", lambda message: message.type == "warning" and warnings.append(message.text)))
    wait_hydrated(page)
    panel = page.locator(".scalecore-panel--temperature")
    panel.get_by_role("button", name="Compute live").click()

    said = compute(page, panel, "150")
    assert "ValueError: too hot: 150" in said and "Traceback" not in said, said
    [traceback] = [text for text in warnings if "too hot" in text]  # once, though computed on intent and on the click
    assert "weights raised in live mode" in traceback and '"temperature":150' in traceback, traceback
    assert f'mylessons/temperature.py", line {line_of(folder / MODULE, "too hot")}' in traceback, traceback

    # typed, then a pause: the request is computed on intent, then shown on the click; told once
    panel.get_by_label("Any temperature").fill("200")
    page.wait_for_timeout(600)
    said = compute(page, panel, "200")
    assert "ValueError: too hot: 200" in said, said
    page.wait_for_timeout(300)
    assert len([text for text in warnings if "too hot: 200" in text]) == 1, warnings

    said = compute(page, panel, "7")
    assert "unexpected keyword argument 'temprature'" in said, said
    assert said.endswith("(the panel's script sent: scores, temprature)"), said

    panel.get_by_label("Any temperature").fill("3")  # and the panel still computes
    panel.locator("form").get_by_role("button", name="Compute", exact=True).click()
    page.wait_for_function("el => el.getAttribute('data-temperature-live') === '3'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)

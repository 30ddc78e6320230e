"""A kind's scripts are served minified with a source map (issue 47.7, pages/frontend.py): the
map names the kind's file as the author knows it (``kinds/temperature/panel.js``; a built-in
kind's by the package, ``scalecore_generator/kinds/softmax/panel.js``) and holds its source, the
offline listing and the manifest leave maps out, and an error thrown by a kind's panel.js in
Chromium maps back to its line in that file (what the console of the developer tools shows). A
panel whose script fails half way is the build's panel again: its baked fallback, no dead controls."""

import json
import re
from pathlib import Path

import pytest

from browser import StaticServer
from sites import build, copy_site, edit, line_of

TUTORIAL = Path(__file__).resolve().parents[1] / "scalecore_generator" / "scaffold"
SCRIPT = Path("kinds") / "temperature" / "panel.js"
SERVED = "assets/scalecore/kinds/temperature/panel.js"
THROW = 'if (location.hash === "#boom") throw new Error("boom from the kind");'
HIDDEN = 'root.querySelector(".scalecore-fallback").hidden = true;\n'
THROW_LATE = 'if (location.hash === "#late") throw new Error("late boom from the kind");'
B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def segments(mappings: str):
    """Source map v3 mappings: (generated line, generated column, source, original line, original
    column) for every segment, lines and columns from 0."""
    found, source, line, column = [], 0, 0, 0
    for generated_line, text in enumerate(mappings.split(";")):
        generated_column = 0
        for segment in filter(None, text.split(",")):
            values, value, shift = [], 0, 0
            for char in segment:
                digit = B64[char]
                value += (digit & 31) << shift
                shift += 5
                if not digit & 32:
                    values.append(-(value >> 1) if value & 1 else value >> 1)
                    value, shift = 0, 0
            generated_column += values[0]
            if len(values) >= 4:
                source, line, column = source + values[1], line + values[2], column + values[3]
                found.append((generated_line, generated_column, source, line, column))
    return found


def original(source_map: dict, line: int, column: int) -> tuple[str, int]:
    """The source file and line (from 1) of a generated position (line from 1, column from 1)."""
    before = [s for s in segments(source_map["mappings"]) if s[0] == line - 1 and s[1] <= column - 1]
    segment = max(before, key=lambda s: s[1])
    return source_map["sources"][segment[2]], segment[3] + 1


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("maps") / "tutorial", source=TUTORIAL)
    edit(folder / SCRIPT, "    hydrate: function (root, context) {\n",
         f"    hydrate: function (root, context) {{\n      {THROW}\n")
    edit(folder / SCRIPT, HIDDEN, f"{HIDDEN}        {THROW_LATE}\n")  # after its controls are added
    result = build(folder)
    assert result.returncode == 0, result.describe()
    return folder


def test_a_kinds_script_is_served_with_its_source_map(site):
    served = (site / "site" / SERVED).read_text(encoding="utf-8")
    assert served.endswith("\n//# sourceMappingURL=panel.js.map\n")
    source_map = json.loads((site / "site" / f"{SERVED}.map").read_text(encoding="utf-8"))
    assert source_map["sources"] == ["kinds/temperature/panel.js"]
    assert source_map["sourcesContent"] == [(site / SCRIPT).read_text(encoding="utf-8")]
    built_in = json.loads((site / "site" / "assets/scalecore/kinds/softmax/panel.js.map").read_text(encoding="utf-8"))
    assert built_in["sources"] == ["scalecore_generator/kinds/softmax/panel.js"]
    for listing in ("offline.json", "api/index.json"):
        assert ".map" not in (site / "site" / listing).read_text(encoding="utf-8"), listing


def test_an_error_in_a_kinds_script_maps_to_its_file_and_line(site, visit):
    server = StaticServer(site / "site")
    try:
        page, watch = visit(server.url + "index.html")  # then the lesson, with every listener in place
        cdp = page.context.new_cdp_session(page)
        parsed = []
        cdp.on("Debugger.scriptParsed", lambda event: parsed.append(event))
        cdp.send("Debugger.enable")
        stacks = []
        page.on("console", lambda message: stacks.extend(
            arg.evaluate("value => value && value.stack || ''") for arg in message.args[1:])
            if message.type == "error" else None)
        page.goto(server.url + "lessons/temperature.html#boom")
        page.evaluate("() => document.querySelector('.scalecore-panel--temperature').scrollIntoView()")
        page.wait_for_function("() => document.querySelector('.scalecore-panel--temperature')"
                               ".getAttribute('data-scalecore-hydrated') === 'error'")
        page.wait_for_timeout(200)
        [script] = [event for event in parsed if event["url"].endswith(SERVED)]
        assert script["sourceMapURL"] == "panel.js.map"
        [at] = [re.search(r"panel\.js:(\d+):(\d+)", stack) for stack in stacks if "boom from the kind" in stack]
        source_map = json.loads((site / "site" / f"{SERVED}.map").read_text(encoding="utf-8"))
        assert original(source_map, int(at[1]), int(at[2])) == ("kinds/temperature/panel.js",
                                                                 line_of(site / SCRIPT, THROW))
        watch.errors = [error for error in watch.errors if "could not start" not in error]  # thrown on purpose
    finally:
        server.close()


def test_a_panel_whose_script_fails_half_way_shows_its_baked_fallback_again(site, visit):
    server = StaticServer(site / "site")
    try:
        page, watch = visit(server.url + "lessons/temperature.html#late")
        panel = page.locator(".scalecore-panel--temperature")
        panel.scroll_into_view_if_needed()
        page.wait_for_function("() => document.querySelector('.scalecore-panel--temperature')"
                               ".getAttribute('data-scalecore-hydrated') === 'error'")
        assert panel.locator(".scalecore-fallback").is_visible()  # the table of the baked weights
        assert panel.locator("select, button, input").count() == 0  # no picker or live form that does nothing
        assert panel.get_by_role("alert").text_content() == (
            "This panel could not start: late boom from the kind. The figure shown is the baked one.")
        watch.errors = [error for error in watch.errors if "could not start" not in error]  # thrown on purpose
    finally:
        server.close()

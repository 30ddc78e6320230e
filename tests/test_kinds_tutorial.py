"""The guide "Write your own interactive" (docs/guide/kinds.md) is true: its site, scalecore_generator/scaffold,
holds one kind of its own (kinds/temperature/) computing with its own package (mylessons/), and
nothing else in the generator knows it. Built here, it renders without JavaScript, hydrates, switches
among baked points without a request, recomputes live in Pyodide with the very function that
baked it, and is listed in api/index.json with its schema.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from browser import StaticServer, wait_hydrated, PYODIDE_TIMEOUT_MS
from sites import build, copy_site

TUTORIAL = Path(__file__).resolve().parents[1] / "scalecore_generator" / "scaffold"
REPO = TUTORIAL.parents[1]


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("tutorial") / "tutorial", source=TUTORIAL)
    result = build(folder)
    assert result.returncode == 0, result.describe()
    return folder


@pytest.fixture(scope="module")
def server(tutorial):
    served = StaticServer(tutorial / "site")
    yield served
    served.close()


def manifest(tutorial):
    return json.loads((tutorial / "site" / "api" / "index.json").read_text(encoding="utf-8"))


def reference(temperature: float) -> dict:
    """The computation in plain CPython, outside the build, for comparison."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); from mylessons.temperature import weights; "
            "print(json.dumps(weights([1.0, 2.0, 4.0], float(sys.argv[2]))))")
    done = subprocess.run([sys.executable, "-c", code, str(TUTORIAL), str(temperature)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def test_nothing_in_the_generator_names_the_tutorial_kind():
    generator = REPO / "scalecore_generator"
    for path in generator.rglob("*"):
        inside = path.relative_to(generator).parts
        if inside[0] in ("scaffold", "vendor") or path.name == "cli.py":  # the site itself; npm files; 'new' copies it
            continue
        if path.name == "mentor-embeddings.js":  # a vendored model's vocabulary (vendor/mentor-embeddings.json pins it)
            continue
        if path.is_file() and path.suffix in (".py", ".js", ".html", ".json"):
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "temperature" not in text.lower() and "mylessons" not in text, path


def test_the_kind_is_in_the_manifest_with_its_schema_and_every_point_validates(tutorial):
    kind = manifest(tutorial)["kinds"]["temperature"]
    assert kind["compute"] == "mylessons.temperature:weights"
    assert kind["axes"] == {"temperature": [0.5, 1.0, 2.0]} and kind["live_axes"] == ["temperature"]
    schema = json.loads((tutorial / "site" / "api" / kind["schema"]["url"]).read_text(encoding="utf-8"))
    assert schema == json.loads((TUTORIAL / "kinds" / "temperature" / "schema.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    for path, point in kind["points"].items():
        data = json.loads((tutorial / "site" / "api" / kind["files"][point["json"]]["url"]).read_text())
        assert not list(validator.iter_errors(data)), path
        assert data == reference(point["params"]["temperature"]), path
    assert "wheel_mylessons" in manifest(tutorial)["runtime"]


def test_without_javascript_the_fallback_shows_the_baked_weights(chromium, server):
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server.url + "lessons/temperature.html")
        table = page.locator(".scalecore-panel--temperature table.temperature-table")
        assert table.is_visible()
        weights = [f"{w:.3f}" for w in reference(1.0)["weights"]]
        assert [cell.strip() for cell in table.locator("tbody td:nth-child(2)").all_inner_texts()] == weights
        expected = f"{reference(0.5)['weights'][2]:.3f}"
        assert f"At temperature 0.5 the largest weight is {expected};" in page.locator("article").inner_text()
    finally:
        context.close()


def test_it_hydrates_switches_from_baked_data_and_recomputes_live(visit, server):
    page, watch = visit(server.url + "lessons/temperature.html")
    wait_hydrated(page)
    panel = page.locator(".scalecore-panel--temperature")
    assert panel.locator(".scalecore-fallback").is_hidden()
    assert panel.locator(".temperature-bars").get_attribute("data-temperature") == "1"
    asked = len(server.paths)
    panel.get_by_label("Temperature", exact=True).select_option(label="2")
    assert panel.locator(".temperature-bars").get_attribute("data-temperature") == "2"
    assert [p for p in server.paths[asked:] if "/api/" in p] == [], "a baked switch asked the server"
    weights = panel.locator(".temperature-bars .scalecore-bar__value").all_text_contents()
    assert weights == [f"{w:.3f}" for w in reference(2.0)["weights"]]
    # the choices read as the temperatures written in mkdocs.yml (was 0.500 | 1 | 2), and the
    # reader's choice is in the page's address, so a reload keeps it (a fresh author's finding)
    options = panel.get_by_label("Temperature", exact=True).locator("option").all_text_contents()
    assert options == ["0.5", "1", "2"], options
    page.wait_for_function("() => /[?&]p\\d+\\.temperature=2/.test(location.search)")
    page.reload()
    wait_hydrated(page)
    panel = page.locator(".scalecore-panel--temperature")
    page.wait_for_function("el => el.querySelector('.temperature-bars') && "
                           "el.querySelector('.temperature-bars').getAttribute('data-temperature') === '2'",
                           arg=panel.element_handle())

    panel.get_by_role("button", name="Compute live").click()  # opens the live form (u.liveForm)
    panel.get_by_label("Any temperature").fill("3")
    panel.locator("form").get_by_role("button", name="Compute", exact=True).click()
    page.wait_for_function("el => el.getAttribute('data-temperature-live') === '3'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    live = panel.locator(".temperature-bars .scalecore-bar__value").all_text_contents()
    assert live == [f"{w:.3f}" for w in reference(3.0)["weights"]]
    # the picker, still on 2, says the weights shown are not its own (a fresh author's finding);
    # a pick shows the baked weights again, and the note goes
    picker = panel.get_by_label("Temperature", exact=True)
    note = panel.locator(".temperature-live-note")
    assert note.is_visible() and note.inner_text() == ("Shown: temperature 3, computed live. Pick one here to show "
                                                       "its baked weights.")
    assert picker.get_attribute("aria-describedby") == note.get_attribute("id")
    picker.select_option(label="0.5")
    assert panel.locator(".temperature-bars").get_attribute("data-temperature") == "0.5" and not note.is_visible()
    assert panel.get_attribute("data-temperature-live") is None
    assert panel.get_attribute("data-scalecore-source") == "baked"  # what "Copy a link to this view" reads
    # nor does the live result's message stay, or its "Show baked data" (a fresh author's finding)
    assert panel.locator(".scalecore-live__message").text_content() == ""
    assert not panel.get_by_role("button", name="Show baked data").is_visible()
    assert any(p.endswith("mylessons-0.1.0-py3-none-any.whl") for p in server.paths), "the site's wheel was not used"

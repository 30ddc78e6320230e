"""A kind that cannot bake stops the build with the file and the fix, and loses nothing: a compute
function that raises for one point, a result that breaks its schema, a grid over the budget, a
settings section that names no kind or no setting. On the tutorial site (scalecore_generator/scaffold),
after one good build whose site and cache must survive every failure."""

import json
from pathlib import Path

import pytest

from sites import CACHE, build, copy_site, edit, line_of, stamps, tree

TUTORIAL = Path(__file__).resolve().parents[1] / "scalecore_generator" / "scaffold"


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("good") / "tutorial", source=TUTORIAL)
    result = build(folder)
    assert result.returncode == 0, result.describe()
    return folder


def broken(good, tmp_path, change) -> tuple[Path, list[str]]:
    folder = copy_site(tmp_path / "tutorial", source=good)
    before = tree(folder / "site"), tree(folder / CACHE), _file_stamps(folder / CACHE)
    change(folder)
    result = build(folder)
    assert result.returncode == 1, result.describe()
    assert "Traceback" not in result.stderr + result.stdout, result.describe()
    after = tree(folder / "site"), tree(folder / CACHE), _file_stamps(folder / CACHE)
    assert after == before, "the failure changed the site or a file of the cache"
    return folder, result.errors


def _file_stamps(folder: Path) -> dict:
    """Modification times of the cache's files (a folder's own time changes when a failed
    temporary folder is made and removed in it: nothing of the cache is lost)."""
    return {path: stamp for path, stamp in stamps(folder).items() if (folder / path).is_file()}


def test_a_compute_function_that_raises_for_one_point(good, tmp_path):
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "[0.5, 1.0, 2.0]", "[0.5, 1.0, 0.0]"))
    assert errors == [
        f"scalecore: the kind 'temperature' ({folder / 'kinds' / 'temperature' / 'kind.py'}): "
        "mylessons.temperature:weights(...) failed for the point {temperature: 0.0}: ValueError: the temperature "
        "must be above 0, got 0.0. Fix: correct the function, or leave that value out of the kind's grid."]


def test_a_result_that_breaks_its_schema(good, tmp_path):
    def change(folder):
        schema = folder / "kinds" / "temperature" / "schema.json"
        data = json.loads(schema.read_text(encoding="utf-8"))
        data["properties"]["entropy"]["maximum"] = 0.01
        schema.write_text(json.dumps(data), encoding="utf-8")

    folder, errors = broken(good, tmp_path, change)
    [error] = errors
    assert error.startswith("scalecore: the kind 'temperature': the result of mylessons.temperature:weights for the "
                            f"point {{temperature: 0.5}} does not match {folder / 'kinds' / 'temperature' / 'schema.json'} "
                            "at entropy: "), error
    assert error.endswith("is greater than the maximum of 0.01. Fix: make the function return what the schema "
                          "describes, or update the schema."), error


def test_a_grid_over_the_points_budget_names_the_block(good, tmp_path):
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "packages: [mylessons]",
                                                           "packages: [mylessons]\n      bake_budget_points: 2"))
    line = line_of(folder / "docs" / "lessons" / "temperature.md", "/// temperature")
    assert errors == [
        f"scalecore: docs/lessons/temperature.md:{line}: /// temperature would bake 3 temperature = 3 points, over the budget of 2 "
        "points per kind. Fix: bake fewer values (fewer corpora or seeds in mkdocs.yml, or the kind's own "
        "settings), or raise the plugin option bake_budget_points."]


def test_a_grid_over_the_bytes_budget_names_the_block(good, tmp_path):
    def change(folder):
        edit(folder / "mkdocs.yml", "packages: [mylessons]", "packages: [mylessons]\n      bake_budget_megabytes: 0.0001")
        edit(folder / "mkdocs.yml", "[0.5, 1.0, 2.0]", "[0.5, 1.0, 2.0, 3.0]")  # not in the cache: baked now

    folder, errors = broken(good, tmp_path, change)
    [error] = errors
    line = line_of(folder / "docs" / "lessons" / "temperature.md", "/// temperature")
    assert error.startswith(f"scalecore: docs/lessons/temperature.md:{line}: /// temperature would bake about "), error
    assert "over the budget of 0 MB per kind. Fix: bake fewer values, or raise the plugin option " \
           "bake_budget_megabytes." in error


def test_settings_for_a_kind_that_does_not_exist_or_a_setting_it_lacks(good, tmp_path):
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "temperature: {temperatures",
                                                           "temprature: {temperatures"))
    where = f"{folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'kinds:')}"
    assert errors[0].startswith(f"scalecore: {where}: option 'kinds': there is no kind named 'temprature'. Fix: did "
                                "you mean 'temperature'? the kinds are: "), errors
    other = tmp_path / "other"
    other.mkdir()
    folder, errors = broken(good, other, lambda f: edit(f / "mkdocs.yml", "{temperatures:", "{temps:"))
    assert errors == [f"scalecore: {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'kinds:')}: option "
                      "'kinds': temperature has no setting 'temps'. Fix: its settings are: temperatures."]


def test_a_grid_that_fails_is_named_with_its_kind(good, tmp_path):
    def change(folder):
        edit(folder / "kinds" / "temperature" / "kind.py", 'script_axes=(),', 'script_axes=("nope",),')

    folder, errors = broken(good, tmp_path, change)
    assert errors == [
        f"scalecore: the kind 'temperature' ({folder / 'kinds' / 'temperature' / 'kind.py'}): grid(site) failed: "
        "ValueError: script_axes ('nope',) must be the first axes of ('temperature',). Fix: correct the kind's grid()."]

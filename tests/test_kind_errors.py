"""A kind that cannot bake stops the build with the file and the fix, and loses nothing: a compute
function that raises for one point, a result that breaks its schema, a grid over the budget, a
settings section that names no kind or no setting, a template jinja2 cannot read or that does not
extend panel.html, a schema that is not JSON or not a JSON Schema, a result that is not JSON, a
view registered under another name, an option of the wrong type. On the tutorial site (scalecore_generator/scaffold),
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


def broken(good, tmp_path, change, cache_may_grow=False) -> tuple[Path, list[str]]:
    """Build after ``change``: it fails, without a traceback, and the site and every file of the
    cache are as they were. ``cache_may_grow``: a change to the site's own package makes its wheel
    again (cache/wheel/, a file derived from the source each build) before the bake fails; every
    other file of the cache must be as it was."""
    folder = copy_site(tmp_path / "tutorial", source=good)
    before = tree(folder / "site"), tree(folder / CACHE), _file_stamps(folder / CACHE)
    change(folder)
    result = build(folder)
    assert result.returncode == 1, result.describe()
    assert "Traceback" not in result.stderr + result.stdout, result.describe()
    after = tree(folder / "site"), tree(folder / CACHE), _file_stamps(folder / CACHE)
    if cache_may_grow:
        kept = lambda files: {k: v for k, v in files.items() if k in before[1] and not k.startswith("wheel/")}  # noqa: E731
        before = before[0], kept(before[1]), kept(before[2])
        after = after[0], kept(after[1]), kept(after[2])
    assert after == before, "the failure changed the site or a file of the cache"
    return folder, result.errors


def _file_stamps(folder: Path) -> dict:
    """Modification times of the cache's files (a folder's own time changes when a failed
    temporary folder is made and removed in it: nothing of the cache is lost)."""
    return {path: stamp for path, stamp in stamps(folder).items() if (folder / path).is_file()}


def test_a_compute_function_that_raises_for_one_point(good, tmp_path):
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "[0.5, 1.0, 2.0]", "[0.5, 1.0, 0.0]"))
    module = folder / "mylessons" / "temperature.py"
    assert errors == [  # the value's own line in mkdocs.yml: the setting that gave it
        f"scalecore: {module}:{line_of(module, 'raise ValueError')}: mylessons.temperature:weights(...) failed for "
        "the point {temperature: 0.0} of the kind 'temperature': ValueError: the temperature must be above 0, got "
        "0.0. Fix: correct the function there, or leave 0.0 out of the setting 'temperatures' of the kind "
        f"'temperature' in the plugin option 'kinds', {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', '[0.5, 1.0, 0.0]')}."]


def test_a_compute_function_whose_parameters_are_not_the_grids_names_its_def_and_the_grid(good, tmp_path):
    """Issue 47.6: the call fails in the generator's own frame, which names no file of the
    author's (it said builder/points.py:164): the message names the function's def, the names it
    takes and those the grid sends, and the kind's grid()."""
    module_name = Path("mylessons") / "temperature.py"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / module_name, "def weights(scores: list[float], temperature: float)",
                                                             "def weights(scores: list[float], t: float)"),
                            cache_may_grow=True)
    module, kind = folder / module_name, folder / "kinds" / "temperature" / "kind.py"
    assert errors == [
        f"scalecore: {module}:{line_of(module, 'def weights')}: mylessons.temperature:weights takes (scores, t), but the "
        f"kind 'temperature' sends (scores, temperature) for each point (its grid: {kind}:{line_of(kind, 'def grid')}). "
        "Fix: name the function's parameters as the grid's params name them, or change the params the grid gives "
        "each point."], errors


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
    # each message names the line of the key it is about (a fresh author was sent to the kinds: line)
    where = f"{folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'temprature:')}"
    assert errors[0].startswith(f"scalecore: {where}: option 'kinds': there is no kind named 'temprature'. Fix: did "
                                "you mean 'temperature'? the kinds are: "), errors
    other = tmp_path / "other"
    other.mkdir()
    folder, errors = broken(good, other, lambda f: edit(f / "mkdocs.yml", "{temperatures:", "{temperatres:"))
    assert errors == [f"scalecore: {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'temperatres:')}: option "
                      "'kinds': temperature has no setting 'temperatres'. Fix: did you mean 'temperatures'? its "
                      "settings are: temperatures."]
    third = tmp_path / "third"
    third.mkdir()
    folder, errors = broken(good, third, lambda f: edit(f / "mkdocs.yml", "{temperatures:", "{colour:"))
    assert errors == [f"scalecore: {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'colour:')}: option "
                      "'kinds': temperature has no setting 'colour'. Fix: its settings are: temperatures."]


def test_a_grid_that_fails_is_named_with_its_kind(good, tmp_path):
    def change(folder):
        edit(folder / "kinds" / "temperature" / "kind.py", 'script_axes=(),', 'script_axes=("nope",),')

    folder, errors = broken(good, tmp_path, change)
    assert errors == [
        f"scalecore: the kind 'temperature' ({folder / 'kinds' / 'temperature' / 'kind.py'}): grid(site) failed: "
        "ValueError: script_axes ('nope',) must be the first axes of ('temperature',). Fix: correct the kind's grid()."]


def test_a_template_jinja_cannot_parse_names_its_line(good, tmp_path):
    template = Path("kinds") / "temperature" / "template.html"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / template, "{% block fallback %}", "{% blok fallback %}"))
    assert errors == [f"scalecore: {folder / template}:2: Encountered unknown tag 'blok'. Fix: correct the template "
                      "at that line (jinja2 syntax)."]


def test_a_template_that_does_not_extend_the_panel_root(good, tmp_path):
    template = Path("kinds") / "temperature" / "template.html"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / template, '{% extends "panel.html" %}\n', ""))
    assert errors == [f"scalecore: {folder / template}:1: the template does not extend panel.html, so its panel has "
                      "no root for the kind's script and no shared styles. Fix: make its first line "
                      '{% extends "panel.html" %} and put the no-JS view in {% block fallback %} ... {% endblock %}.']


def test_a_schema_that_is_not_json_or_not_a_schema(good, tmp_path):
    schema = Path("kinds") / "temperature" / "schema.json"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / schema, '"object"', '"object",'))
    line = line_of(folder / schema, '"object",')
    assert len(errors) == 1 and errors[0].startswith(f"scalecore: {folder / schema}:{line}:"), errors
    assert errors[0].endswith(". Fix: correct the JSON there."), errors
    other = tmp_path / "other"
    other.mkdir()
    folder, errors = broken(good, other, lambda f: edit(f / schema, '"object"', '"objekt"'))
    assert errors == [f"scalecore: {folder / schema}: not a valid JSON Schema at type: 'objekt' is not valid under "
                      "any of the given schemas. Fix: correct that keyword (JSON Schema draft 2020-12)."]


def test_a_result_that_is_not_json_names_the_key_path(good, tmp_path):
    module = Path("mylessons") / "temperature.py"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / module, '"entropy":', '"extra": {"bad": [1.0, float("nan")]},\n        "entropy":'), cache_may_grow=True)
    assert errors == [f"scalecore: the kind 'temperature' ({folder / 'kinds' / 'temperature' / 'kind.py'}): "
                      "mylessons.temperature:weights(...) returned nan at extra.bad[1] for the point {temperature: 0.5}; "
                      "a baked point must be JSON (finite numbers, strings, booleans, None, lists and dicts with "
                      "string keys). Fix: return a JSON-ready value there."]


def test_a_view_registered_under_another_name(good, tmp_path):
    script = Path("kinds") / "temperature" / "panel.js"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / script, "S.kinds.temperature = {", "S.kinds.temprature = {"))
    assert errors == [f"scalecore: {folder / script}:{line_of(folder / script, 'S.kinds.temprature')}: registers the "
                      "view as 'temprature', but the kind is 'temperature' (its folder's name), so the panel would "
                      "never start. Fix: write S.kinds.temperature = { ... }."]


def test_an_option_or_setting_of_the_wrong_type_is_said_in_words(good, tmp_path):
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "[0.5, 1.0, 2.0]", '[0.5, "hot"]'))
    assert errors == [f"scalecore: {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'temperatures:')}: option "
                      "'kinds': temperature: setting 'temperatures': expected a number in the list, got 'hot' (text). "
                      "Fix: write temperatures: as its type says (scalecore guide options lists each kind's settings)."]
    other = tmp_path / "other"
    other.mkdir()
    page = Path("docs") / "lessons" / "temperature.md"
    folder, errors = broken(good, other, lambda f: edit(f / page, "temperature: 1.0\n", "temperature: hot\n"))
    assert errors[-1] == (f"scalecore: {page.as_posix()}:{line_of(folder / page, 'temperature: hot')}: /// "
                          "temperature: option 'temperature': expected a number, got 'hot' (text)")


def test_a_whole_number_is_a_number_where_a_float_is_wanted():
    """A fresh author wrote temperature: 3 (and temperatures: [0.5, 1, 2]): YAML reads a whole
    number as an integer, and Type(float) refused it ('write 3.0'); it is that float now. A yes/no
    value is still no number."""
    from scalecore_generator.kinds.options import ListOf, Type, ValidationError

    kept = Type(float).validate(3)
    assert kept == 3.0 and type(kept) is float
    assert ListOf(Type(float)).validate([0.5, 1, 2]) == [0.5, 1.0, 2.0]
    with pytest.raises(ValidationError, match=r"expected a number, got true \(a yes/no value"):
        Type(float).validate(True)
    assert Type(int).validate(3) == 3 and type(Type(int).validate(3)) is int


# A kind's template follows the pages' opt-in for inline scripts (pages/author_scripts.py; issue 46, item 3)

TEMPLATE_SCRIPT = "<script>document.title = 'from the template'</script>"


def _script_in_template(folder):
    edit(folder / "kinds" / "temperature" / "template.html", "{% endblock %}", TEMPLATE_SCRIPT + "\n{% endblock %}")


def test_a_script_in_a_kinds_template_stops_the_build_unless_the_page_allows_it(good, tmp_path):
    folder, errors = broken(good, tmp_path, _script_in_template)
    template = folder / "kinds" / "temperature" / "template.html"
    page = folder / "docs" / "lessons" / "temperature.md"
    assert errors == [  # and no MkDocs line "Error reading page 'x.md':" dangling above it
        f"scalecore: docs/lessons/temperature.md:{line_of(page, '/// temperature')}: an inline <script> in the panel "
        f"of kind 'temperature', written by its template (kinds/temperature/template.html:"
        f"{line_of(template, TEMPLATE_SCRIPT)}); the site's Content-Security-Policy would run it like the theme's own "
        "scripts. Fix: move the code into the kind's panel.js, or allow this page's inline scripts with the plugin "
        "option allow_inline_scripts: [lessons/temperature.md]."]


def test_an_allowed_template_script_is_listed_with_the_pages_own(good, tmp_path):
    import hashlib

    folder = copy_site(tmp_path / "tutorial", source=good)
    _script_in_template(folder)
    page = folder / "docs" / "lessons" / "temperature.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n<script>console.log('page')</script>\n", encoding="utf-8")
    edit(folder / "mkdocs.yml", "packages: [mylessons]",
         "packages: [mylessons]\n      allow_inline_scripts: [lessons/temperature.md]")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    template = folder / "kinds" / "temperature" / "template.html"
    own, templates = (hashlib.sha256(body.encode()).hexdigest()[:12]
                      for body in ("console.log('page')", "document.title = 'from the template'"))
    assert result.lines("INFO").count(
        "scalecore: docs/lessons/temperature.md: allowed 2 inline scripts (allow_inline_scripts): "
        f"line {line_of(page, 'console.log')} (sha256 {own}); "
        f"kinds/temperature/template.html:{line_of(template, TEMPLATE_SCRIPT)} (sha256 {templates})") == 1, \
        result.describe()


# A kind written against the API before kinds had option types of Scalecore's own (issue 44, item 2):
# the tutorial's kind as it was, with MkDocs' config_options.

def _old_api(folder):
    kind = folder / "kinds" / "temperature" / "kind.py"
    edit(kind, "from scalecore_generator.kinds.options import ListOf, OptionError, PanelOptions, Type\n",
         "from mkdocs.config import config_options as c\n\nfrom scalecore_generator.kinds.options import OptionError, PanelOptions\n")
    edit(kind, 'ListOf(Type(float), default=[0.25, 0.5, 1.0, 2.0, 4.0], example="[0.5, 1.0]")',
         "c.ListOfItems(c.Type(float), default=[0.25, 0.5, 1.0, 2.0, 4.0])")
    edit(kind, "temperature = Type(float, default=1.0)", "temperature = c.Type(float, default=1.0)")


def test_a_kind_of_mkdocs_config_options_builds_the_same_site_and_is_told_once(good, tmp_path):
    folder = copy_site(tmp_path / "tutorial", source=good)
    _old_api(folder)
    result = build(folder)
    assert result.returncode == 0, result.describe()
    told = [line for line in result.lines("INFO") if "config_options" in line]
    assert told == [
        f"scalecore: {folder / 'kinds' / 'temperature' / 'kind.py'}: the kind 'temperature' builds its options from "
        "MkDocs' config_options (Options.temperature: config_options.Type; Settings.temperatures: "
        "config_options.ListOfItems); kinds now have option types of Scalecore's own, which need no engine (MkDocs "
        "2.0 drops plugins). They still work, converted, for now. Fix: import them from Scalecore instead of "
        "mkdocs.config: from scalecore_generator.kinds.options import ListOf, Type (c.Type is Type, c.Choice OneOf, "
        "c.ListOfItems ListOf, c.Optional Optional; a type of the kind's own subclasses Option and raises "
        "ValidationError, both from there); scalecore guide kinds shows them."], result.describe()
    assert tree(folder / "site") == tree(good / "site")


def test_a_kind_of_mkdocs_config_options_keeps_its_messages(good, tmp_path):
    """The old types' messages, in the author's words as before (the kind changed, so its points
    are baked again before a page's mistake is found: the cache grows, unlike broken()'s)."""
    def failed(folder, file, old, new):
        _old_api(folder)
        edit(folder / file, old, new)
        result = build(folder)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.describe()
        return result.errors

    folder = copy_site(tmp_path / "settings", source=good)
    assert failed(folder, "mkdocs.yml", "[0.5, 1.0, 2.0]", '[0.5, "hot"]') == [
        f"scalecore: {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'temperatures:')}: option 'kinds': temperature: "
        "setting 'temperatures': expected a number in the list, got 'hot' (text). Fix: write temperatures: as its type "
        "says (scalecore guide options lists each kind's settings)."]
    folder = copy_site(tmp_path / "page", source=good)
    page = Path("docs") / "lessons" / "temperature.md"
    assert failed(folder, page, "temperature: 1.0\n", "temperature: hot\n")[-1] == (
        f"scalecore: {page.as_posix()}:{line_of(folder / page, 'temperature: hot')}: /// temperature: option "
        "'temperature': expected a number, got 'hot' (text)")


def test_a_compute_package_left_out_of_packages_stops_the_build(good, tmp_path):
    """A fresh author's worst trap: the bake imports the compute function from the site's folder,
    so a package left out of ``packages`` built green and live mode failed in the reader's
    browser (ModuleNotFoundError). The build stops at the kind's compute line, with the fix."""
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "packages: [mylessons]", "packages: []"))
    kind, config = folder / "kinds" / "temperature" / "kind.py", folder / "mkdocs.yml"
    assert errors == [
        f"scalecore: {kind}:{line_of(kind, 'compute =')}: the kind 'temperature' computes with "
        "mylessons.temperature:weights, but 'mylessons' is not one of the site's packages, so live mode cannot import "
        "it in the reader's browser (the build imports it from the site's folder). Fix: list it in "
        f"{config}:{line_of(config, 'packages: []')}: packages: [mylessons]"], errors


def test_a_setting_written_on_its_own_line_is_named_by_that_line(tmp_path):
    """A fresh author's typo three lines below 'kinds:' was reported at 'kinds:'."""
    from scalecore_generator.adapters.mkdocs.config import _option_line

    yml = tmp_path / "mkdocs.yml"
    yml.write_text("site_name: x\nplugins:\n  - search\n  - scalecore:\n      packages: [mine]\n      kinds:\n"
                   "        compound:\n          years: [1, 2]\n          rate: 0.05\n", encoding="utf-8")
    assert _option_line(str(yml), "kinds") == 6
    assert _option_line(str(yml), "kinds", "compound") == 7
    assert _option_line(str(yml), "kinds", "compound", "rate") == 9
    assert _option_line(str(yml), "kinds", "compound", "absent") == 7  # the deepest key found
    assert _option_line(str(yml), "kinds", "nothing", "rate") == 6


def test_a_failing_point_names_every_setting_that_gave_its_values():
    # A fresh author's pendulum failed for {length: 0.25, amplitude: 90.0}; the fix named only the
    # length's setting, when the amplitude was the cause: every value is named, with its setting.
    from scalecore_generator.builder.points import _left_out

    origins = {"0.25": "the setting 'lengths' (mkdocs.yml:20)", "90.0": "the setting 'amplitudes' (mkdocs.yml:21)"}
    assert _left_out({"length": 0.25, "amplitude": 90.0}, origins) == (
        "0.25 out of the setting 'lengths' (mkdocs.yml:20), or 90.0 out of the setting 'amplitudes' (mkdocs.yml:21)")
    assert _left_out({"length": 3.0}, origins) == "that value out of the kind's grid"

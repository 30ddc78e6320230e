"""An author's second hour (issue 47): more mistakes caught where they are made, each stopping
the build with the file, the line and the fix, no traceback, the previous site and cache kept.
On the tutorial site (scalecore_generator/scaffold), as tests/test_kind_errors.py: code the
browser cannot run, an empty axis, a name a kind's template is not given."""

from pathlib import Path

from sites import edit, line_of
from test_kind_errors import broken, good  # noqa: F401  (good is the fixture: one good build)


def test_code_the_browser_cannot_run_stops_the_build(good, tmp_path):  # noqa: F811
    module = Path("mylessons") / "temperature.py"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / module, "import math\n", "import math\nimport numpy as np\n"),
                            cache_may_grow=True)
    [error] = errors
    assert error.startswith(
        f"scalecore: {folder / module}:{line_of(folder / module, 'import numpy')}: 'import numpy as np': numpy is not "
        "available in the browser's Python (Pyodide's distribution has it, but a site serves none of those "
        "packages). The build computes with your Python, but "), error
    assert error.endswith("Fix: compute with the standard library (math, statistics, random) instead of numpy; or, "
                          "for code the browser never runs, import it inside the function that uses it at build time, "
                          "under 'if TYPE_CHECKING:', or in try/except ImportError; or set 'live: false' for the "
                          "scalecore plugin (no live mode, no console)."), error


def test_an_empty_axis_names_its_setting(good, tmp_path):  # noqa: F811
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "[0.5, 1.0, 2.0]", "[]"))
    yml = folder / "mkdocs.yml"
    assert errors == [
        f"scalecore: the kind 'temperature' ({folder / 'kinds' / 'temperature' / 'kind.py'}): grid(site) failed: "
        f"EmptyAxis: its setting 'temperatures' is empty (the plugin option 'kinds', {yml}:{line_of(yml, 'kinds:')}), "
        "so the axis 'temperature' has no values and the kind would bake nothing: give temperatures at least one "
        "value in mkdocs.yml (temperature: {temperatures: [...]}), or leave it out for its default. Fix: correct the "
        "kind's grid()."]


def test_a_name_the_template_is_not_given_names_the_templates_line(good, tmp_path):  # noqa: F811
    template = Path("kinds") / "temperature" / "template.html"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / template, "{{ point.temperature }}", "{{ pointt.temperature }}"))
    page = folder / "docs" / "lessons" / "temperature.md"
    assert errors[-1] == (
        f"scalecore: {folder / template}:{line_of(folder / template, 'pointt')}: 'pointt' is undefined (rendering "
        f"/// temperature at docs/lessons/temperature.md:{line_of(page, '/// temperature')}). Fix: use a value the "
        "template is given (its values: isolated, kind, label, manifest, manifest_script, options_json, panel_id, "
        "panel_script, point, scripts, site_root, title), or pass it from the kind's render() in kind.py: "
        "panel.render_template(options, name=value)")

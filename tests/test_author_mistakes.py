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
        f"scalecore: the kind 'temperature': its setting 'temperatures' is empty (the plugin option 'kinds', "
        f"{yml}:{line_of(yml, 'kinds:')}), "
        "so the axis 'temperature' has no values and the kind would bake nothing: give temperatures at least one "
        "value in mkdocs.yml (temperature: {temperatures: [...]}), or leave it out for its default."]


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


def test_a_theme_override_that_drops_the_scripts_names_its_file(good, tmp_path):  # noqa: F811
    def change(folder):
        (folder / "overrides").mkdir()
        (folder / "overrides" / "main.html").write_text('{% extends "base.html" %}\n\n{% block scripts %}\n'
                                                        '{% endblock %}\n', encoding="utf-8")
        edit(folder / "mkdocs.yml", "  name: material\n", "  name: material\n  custom_dir: overrides\n")

    folder, errors = broken(good, tmp_path, change)
    assert errors[-1] == (
        f"scalecore: {folder / 'overrides' / 'main.html'}:3: the pages built with it do not load "
        "assets/scalecore/views.js, assets/scalecore/panels.js, so every panel stays as its no-JS fallback, without "
        "switches or live mode (docs/index.md has panels). The site's scripts (extra_javascript, where the plugin "
        "adds them) are in Material's {% block scripts %}. Fix: keep them in an override of that block: "
        "{% block scripts %}{{ super() }} ... {% endblock %}.")


def test_a_page_with_panels_and_its_scripts_or_without_panels_is_fine():
    from scalecore_generator.pages.assets import missing_scripts

    panel = '<div class="scalecore-panel" data-scalecore-kind="softmax"></div>'
    scripts = '<script src="../assets/scalecore/views.js" defer></script><script src="../assets/scalecore/panels.js" defer>'
    assert missing_scripts(panel + scripts) == [] and missing_scripts("<p>no panel</p>") == []
    assert missing_scripts(panel + scripts.split("</script>")[0]) == ["assets/scalecore/panels.js"]

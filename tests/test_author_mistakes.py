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
        "packages); nothing in its module uses it. The build computes with your Python, but "), error
    # nothing uses it: remove it; the message names the site's compute function, no built-in one
    assert "; nothing in its module uses it. The build computes with your Python, but live mode runs " \
           "mylessons.temperature:weights there, with " in error, error
    assert error.endswith("Fix: remove the import (or put it under 'if TYPE_CHECKING:' for type hints). Or set "
                          "'live: false' for the scalecore plugin (no live mode, no console)."), error


def test_numpy_in_the_compute_function_is_to_be_replaced_not_moved(good, tmp_path):  # noqa: F811
    module = Path("mylessons") / "temperature.py"

    def change(folder):
        edit(folder / module, "import math\n", "import math\nimport numpy as np\n")
        edit(folder / module, "    total = sum(exps)\n", "    total = float(np.sum(exps))\n")

    folder, errors = broken(good, tmp_path, change, cache_may_grow=True)
    [error] = errors
    assert f"{folder / module}:{line_of(folder / module, 'import numpy')}: 'import numpy as np': numpy is not " in error
    assert (f"; weights uses np (line {line_of(folder / module, 'np.sum')}), and live mode runs that. The build "
            "computes with your Python, but live mode runs mylessons.temperature:weights there") in error, error
    assert "Fix: compute with the standard library (math, statistics, random) instead of numpy in " \
           "mylessons.temperature:weights and what it calls and imports (an import moved into the compute function, " \
           "or into a function it calls, fails in the browser all the same)" in error, error


def test_an_empty_axis_names_its_setting(good, tmp_path):  # noqa: F811
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "mkdocs.yml", "[0.5, 1.0, 2.0]", "[]"))
    yml = folder / "mkdocs.yml"
    assert errors == [
        f"scalecore: the kind 'temperature': its setting 'temperatures' is empty ({yml}:{line_of(yml, 'temperatures:')}), "
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


def test_a_key_the_baked_point_lacks_lists_the_keys_it_has(good, tmp_path):  # noqa: F811
    """A fresh author's finding: 'dict object' has no attribute 'entropyy', with the template's
    values (point among them) but not what the point holds."""
    template = Path("kinds") / "temperature" / "template.html"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / template, "{{ point.entropy | num }}",
                                                           "{{ point.entropyy | num }}"))
    page = folder / "docs" / "lessons" / "temperature.md"
    assert errors[-1] == (
        f"scalecore: {folder / template}:{line_of(folder / template, 'entropyy')}: point has no key 'entropyy' "
        f"(rendering /// temperature at docs/lessons/temperature.md:{line_of(page, '/// temperature')}). Fix: use one "
        "of the keys point has: entropy, scores, temperature, weights; or give it 'entropyy' where it is made (a baked "
        "point is what the kind's compute function returns)")


def test_an_item_past_the_end_of_a_baked_list_says_how_many_there_are(good, tmp_path):  # noqa: F811
    template = Path("kinds") / "temperature" / "template.html"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / template, "{{ point.temperature }}",
                                                           "{{ point.weights[3] }}"))
    assert errors[-1].startswith(
        f"scalecore: {folder / template}:{line_of(folder / template, 'weights[3]')}: point.weights has 3 items, so no "
        "item 3 (rendering /// temperature at docs/lessons/temperature.md:"), errors
    assert errors[-1].endswith("Fix: use an index from 0 to 2, or loop over it: {% for item in point.weights %}"), errors


def test_a_temperature_that_is_not_baked_says_where_to_add_it(good, tmp_path):  # noqa: F811
    """The tutorial kind's own check (scaffold/kinds/temperature/kind.py), as an author copies it."""
    folder, errors = broken(good, tmp_path, lambda f: edit(f / "docs" / "lessons" / "temperature.md",
                                                           "temperature: 1.0", "temperature: 3.0"))
    page, yml = folder / "docs" / "lessons" / "temperature.md", folder / "mkdocs.yml"
    assert errors[-1:] == [
        f"scalecore: docs/lessons/temperature.md:{line_of(page, 'temperature: 3.0')}: /// temperature: option "
        "'temperature': 3.0 is not a baked temperature; the baked ones are: 0.5, 1.0, 2.0 (the setting 'temperatures' "
        f"of the kind 'temperature' in the plugin option 'kinds', {yml}:{line_of(yml, 'temperatures:')}). Fix: write one of them, or bake 3.0 too: add it to the setting "
        "temperatures of the kind temperature, under the scalecore plugin's kinds in mkdocs.yml "
        "(kinds: {temperature: {temperatures: [0.5, 1.0, 2.0, 3.0]}})"]


def test_a_theme_override_that_drops_the_scripts_names_its_file(good, tmp_path):  # noqa: F811
    def change(folder):
        (folder / "overrides").mkdir()
        (folder / "overrides" / "main.html").write_text('{% extends "base.html" %}\n\n{% block scripts %}\n'
                                                        '{% endblock %}\n', encoding="utf-8")
        edit(folder / "mkdocs.yml", "  name: material\n", "  name: material\n  custom_dir: overrides\n")

    folder, errors = broken(good, tmp_path, change)
    assert errors[-1] == (
        f"scalecore: {folder / 'overrides' / 'main.html'}:3: the pages built with it do not load "
        "assets/scalecore/views.js, assets/scalecore/panels.js, assets/scalecore/addresses.js, "
        "assets/scalecore/hydration.js, so every panel stays as its no-JS fallback, without "
        "switches or live mode (docs/index.md has panels). The site's scripts (extra_javascript, where the plugin "
        "adds them) are in Material's {% block scripts %}. Fix: keep them in an override of that block: "
        "{% block scripts %}{{ super() }} ... {% endblock %}.")


def test_a_page_with_panels_and_its_scripts_or_without_panels_is_fine():
    from scalecore_generator.pages.assets import missing_scripts

    panel = '<div class="scalecore-panel" data-scalecore-kind="softmax"></div>'
    scripts = "".join(f'<script src="../assets/scalecore/{name}.js" defer></script>'
                      for name in ("views", "panels", "addresses", "hydration"))
    assert missing_scripts(panel + scripts) == [] and missing_scripts("<p>no panel</p>") == []
    assert missing_scripts(panel + scripts.split("</script>")[0]) == [
        "assets/scalecore/panels.js", "assets/scalecore/addresses.js", "assets/scalecore/hydration.js"]


def test_a_kinds_render_that_raises_names_its_line_in_kind_py_and_the_block(good, tmp_path):  # noqa: F811
    """A fresh author's KeyError in render() gave a 40-frame traceback, and the browser's banner under
    mkdocs serve said only 'year'."""
    kind, YEAR = Path("kinds") / "temperature" / "kind.py", "point['year']"
    folder, errors = broken(good, tmp_path, lambda f: edit(f / kind, "        return panel.render_template(",
                                                           "        point['year']\n        return panel.render_template("),
                            cache_may_grow=True)  # a changed kind.py is a new code version: baked again
    page = folder / "docs" / "lessons" / "temperature.md"
    assert errors[-1] == (
        f"scalecore: docs/lessons/temperature.md:{line_of(page, '/// temperature')}: /// temperature: "
        f"{folder / kind}:{line_of(folder / kind, YEAR)}: the kind's render() raised KeyError: 'year'. Fix: "
        "correct the kind's code at that line (its render() receives the block's options and the panel: scalecore "
        "guide kinds)."), errors[-1]
    assert not any("Traceback" in error for error in errors)


def test_a_link_to_a_heading_a_page_no_longer_has_names_the_closest_anchor(good, tmp_path):  # noqa: F811
    """A heading renamed: its anchor follows its words, and the link to the old one said only that
    the anchor was missing (a fresh astronomy author guessed the new one)."""
    from sites import build, copy_site

    folder = copy_site(tmp_path / "tutorial", source=good)
    lesson, home = folder / "docs" / "lessons" / "temperature.md", folder / "docs" / "index.md"
    lesson.write_text(lesson.read_text(encoding="utf-8") + "\n## Why a low temperature sharpens\n\nText.\n",
                      encoding="utf-8")
    home.write_text(home.read_text(encoding="utf-8") + "\nSee [it](lessons/temperature.md#why-low-temperature-sharpens).\n",
                    encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1, result.describe()
    assert result.lines("WARNING") == [
        f"docs/index.md:{line_of(home, 'why-low-temperature')}: Doc file 'index.md' contains a link "
        "'lessons/temperature.md#why-low-temperature-sharpens', but the doc 'lessons/temperature.md' does not contain "
        "an anchor '#why-low-temperature-sharpens'. Fix: the closest anchor there is '#why-a-low-temperature-sharpens': "
        "write 'lessons/temperature.md#why-a-low-temperature-sharpens'."], result.describe()


def test_a_link_to_no_page_names_its_line_and_the_closest_page(good, tmp_path):  # noqa: F811
    """MkDocs' own warning ("contains a link ..., but the target ... is not found") had no line and,
    for a name it cannot guess, no fix (a fresh chemistry author's '../home.md')."""
    from sites import build, copy_site

    folder = copy_site(tmp_path / "tutorial", source=good)
    lesson = folder / "docs" / "lessons" / "temperature.md"
    lesson.write_text(lesson.read_text(encoding="utf-8") + "\nBack to [the home page](../home.md).\n", encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1 and "Aborted with 1 warnings in strict mode!" in result.stdout, result.describe()
    assert result.lines("WARNING") == [
        f"docs/lessons/temperature.md:{line_of(lesson, '../home.md')}: Doc file 'lessons/temperature.md' contains a "
        "link '../home.md', but the target 'home.md' is not found among documentation files. Fix: link to a page of "
        "the site by its .md file, relative to this page, e.g. '../index.md', or create docs/home.md."]

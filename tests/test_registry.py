"""Where kinds come from, and the contract a kind folder keeps: every break is one message with
the file and the fix (scalecore_generator/kinds/registry.py)."""

import sys
import textwrap
from pathlib import Path

import pytest

from scalecore_generator.kinds.registry import BUILT_IN, KindError, discover, load_kind

TUTORIAL_KIND = Path(__file__).resolve().parents[1] / "scalecore_generator" / "scaffold" / "kinds" / "temperature"
GOOD = '''
from scalecore_generator.blocks.base import PanelOptions
from scalecore_generator.kinds.kind import Kind


class Chart(Kind):
    label = "A chart"

    def render(self, options, panel):
        return panel.render_template(options)
'''


def make_kind(folder: Path, name: str = "chart", source: str = GOOD, files=("template.html", "panel.js")) -> Path:
    kind = folder / name
    kind.mkdir(parents=True)
    if source is not None:
        (kind / "kind.py").write_text(textwrap.dedent(source), encoding="utf-8")
    for file in files:
        (kind / file).write_text("{% extends 'panel.html' %}" if file.endswith(".html") else
                                 f'globalThis.scalecore.kinds["{name}"] = {{}};\n', encoding="utf-8")
    return kind


def error(folder: Path) -> str:
    with pytest.raises(KindError) as caught:
        discover(folder)
    return str(caught.value)


def test_a_site_kind_joins_the_built_in_ones_by_its_folder_name(tmp_path):
    make_kind(tmp_path)
    kinds = discover(tmp_path)
    assert kinds["chart"].folder == tmp_path / "chart" and kinds["chart"].name == "chart"
    assert set(kinds) == {p.name for p in BUILT_IN.iterdir() if p.is_dir() and not p.name.startswith("_")} | {"chart"}


def test_a_folder_without_kind_py_or_its_template_is_named_with_the_fix(tmp_path):
    make_kind(tmp_path, source=None)
    assert error(tmp_path) == (
        f"{tmp_path / 'chart' / 'kind.py'}: missing; a kind folder holds kind.py, template.html, panel.js (and "
        "optionally schema.json and style.css). Fix: add it (scalecore guide kinds shows each file).")
    other = tmp_path / "second"
    make_kind(other, files=("panel.js",))
    assert error(other).startswith(f"{other / 'chart' / 'template.html'}: missing;")


def test_a_kind_py_without_exactly_one_kind_class(tmp_path):
    make_kind(tmp_path, source="x = 1\n")
    assert error(tmp_path) == (
        f"{tmp_path / 'chart' / 'kind.py'}: defines no subclass of scalecore_generator.kinds.kind.Kind; it must define exactly one. "
        "Fix: write one 'class MyKind(Kind):' with label, Options and render.")
    other = tmp_path / "two"
    make_kind(other, source=GOOD + "\n\nclass Other(Chart):\n    pass\n")
    assert "defines 2 subclasses (Chart, Other)" in error(other)


def test_a_kind_py_that_does_not_import_names_its_line(tmp_path):
    make_kind(tmp_path, source=GOOD + "\nraise RuntimeError('boom')\n")
    assert error(tmp_path) == (f"{tmp_path / 'chart' / 'kind.py'}:12: cannot be imported: RuntimeError: boom. "
                               "Fix: correct the kind's Python.")
    other = tmp_path / "syntax"
    make_kind(other, source="class (:\n")
    assert error(other).startswith(f"{other / 'chart' / 'kind.py'}:1: cannot be imported: SyntaxError")


@pytest.mark.parametrize("change, message", [
    ('    label = "A chart"\n', "has no label. Fix: set label"),
    ('    def render(self, options, panel):\n        return panel.render_template(options)\n',
     "does not define render(options, panel)."),
    ('    label = "A chart"\n', None),
])
def test_what_the_contract_needs(tmp_path, change, message):
    if message is None:  # a grid without a compute function, and the reverse
        make_kind(tmp_path, source=GOOD + "\n    def grid(self, site):\n        return None\n")
        assert "defines grid() but no compute. Fix: set compute = " in error(tmp_path)
        other = tmp_path / "other"
        make_kind(other, source=GOOD + '\n    compute = "mylessons.x:f"\n')
        assert "sets compute but defines no grid(site)." in error(other)
        return
    make_kind(tmp_path, source=GOOD.replace(change, ""))
    assert error(tmp_path).startswith(f"{tmp_path / 'chart' / 'kind.py'}: Chart {message}")


def test_two_kinds_with_one_name(tmp_path):
    make_kind(tmp_path, name="softmax")
    assert error(tmp_path) == (
        f"{tmp_path / 'softmax'}: a kind named 'softmax' already comes from {BUILT_IN / 'softmax'}. "
        "Fix: rename one of the two folders (the folder's name is the kind's name).")


def test_a_folder_name_that_is_no_kind_name(tmp_path):
    make_kind(tmp_path, name="My_Chart")
    assert error(tmp_path).startswith(f"{tmp_path / 'My_Chart'}: 'My_Chart' is not a kind name: kind names are "
                                      "lower-case letters, digits and '-'")


def test_a_package_ships_kinds_through_the_entry_point_group(tmp_path, monkeypatch):
    package = tmp_path / "site-packages"
    module = package / "chartkit"
    module.mkdir(parents=True)
    (module / "__init__.py").write_text("", encoding="utf-8")
    make_kind(module, name="bar-chart")
    info = package / "chartkit-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: chartkit\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[scalecore.kinds]\nchartkit = chartkit\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(package))
    kinds = discover()
    assert kinds["bar-chart"].folder == module / "bar-chart"
    sys.modules.pop("chartkit", None)


def test_the_tutorial_kind_keeps_the_contract():
    kind = load_kind(TUTORIAL_KIND)
    assert (kind.name, kind.compute) == ("temperature", "mylessons.temperature:weights")


def test_no_python_source_lives_in_the_shipped_javascript():
    """Live mode calls kinds' functions through one generic request; the worker's Python side is a
    module of the wheel (scalecore/browser.py), never code inside a JavaScript string."""
    root = Path(__file__).resolve().parents[1] / "scalecore_generator"
    scripts = [p for p in root.rglob("*.js") if "node_modules" not in p.parts]
    assert scripts
    for path in scripts:
        text = path.read_text(encoding="utf-8")
        for marker in ("runPython(", "runPythonAsync(", "from scalecore", "import scalecore\n", "def "):
            assert marker not in text, f"{path.relative_to(root)} holds Python ({marker!r})"


def test_the_kind_contract_imports_nothing_from_the_markdown_blocks():
    """Blocks depend on kinds, not the reverse: importing the contract and the registry loads no
    module of scalecore_generator.blocks (a kind written against the old paths, as GOOD above,
    still loads: blocks.base re-exports PanelOptions and OptionError)."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", "import sys, scalecore_generator.kinds.kind, "
                           "scalecore_generator.kinds.registry, scalecore_generator.kinds.options; "
                           "print(sorted(m for m in sys.modules if m.startswith('scalecore_generator.blocks')))"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_kinds_files_found_sound_by_an_earlier_build_are_not_parsed_again_until_they_change(tmp_path, monkeypatch):
    """A build keeps the stamps of the kinds' templates, scripts and schemas it found sound (its
    memo): the next build parses none of them, and a file written since is checked again."""
    import jinja2

    kind = make_kind(tmp_path)
    sound = set()
    discover(tmp_path, sound)
    template = str((kind / "template.html").resolve())
    assert any(template in stamp for stamp in sound), sound
    parsed = []
    real_parse = jinja2.Environment.parse
    monkeypatch.setattr(jinja2.Environment, "parse", lambda self, *a, **k: parsed.append(a) or real_parse(self, *a, **k))
    kept = set(sound)
    discover(tmp_path, kept)
    assert parsed == [] and kept == sound
    (kind / "template.html").write_text("{% extends 'panel.html' %}\n{% if %}", encoding="utf-8")
    with pytest.raises(KindError, match=r"template.html:2: "):
        discover(tmp_path, set(sound))
    assert len(parsed) == 1


# A kind written against the API before Scalecore had option types of its own (issue 44, item 2)

OLD_API = '''
from mkdocs.config import config_options as c
from mkdocs.config.base import ValidationError

from scalecore_generator.kinds.kind import Kind, KindSettings
from scalecore_generator.kinds.options import PanelOptions


class Even(c.Type):
    def __init__(self, default=None):
        super().__init__(int, default=default)

    def run_validation(self, value):
        if not isinstance(value, int) or value % 2:
            raise ValidationError(f"{value!r} is not even")
        return value


class Chart(Kind):
    label = "A chart"

    class Settings(KindSettings):
        sizes = c.ListOfItems(c.Type(int), default=[1, 2])

    class Options(PanelOptions):
        factor = c.Type(float, default=1.0)
        colour = c.Choice(("red", "blue"), default="red")
        name = c.Type(str)
        width = c.Optional(Even())

    def render(self, options, panel):
        return panel.render_template(options)
'''


def test_a_kind_of_mkdocs_config_options_still_loads_validates_as_before_and_is_told_once(tmp_path):
    from scalecore_generator.kinds.options import in_words
    from scalecore_generator.kinds.registry import engine_notices

    make_kind(tmp_path, source=OLD_API)
    kind = discover(tmp_path)["chart"]

    def first_error(group, values):
        options = group()
        options.load_dict(values)
        failed, _ = options.validate()
        return (failed[0][0], in_words(failed[0][1], values.get(failed[0][0]))) if failed else options

    assert first_error(kind.Options, {"factor": "hot", "name": "x"}) == ("factor", "expected a number, got 'hot' (text)")
    assert first_error(kind.Options, {"colour": "green", "name": "x"}) == (
        "colour", "Expected one of: ('red', 'blue') but received: 'green'")
    assert first_error(kind.Options, {"name": "x", "width": 3}) == ("width", "3 is not even")
    assert first_error(kind.Options, {})[0] == "name"
    assert [key for key, option in kind.Options._schema if option.required] == ["name"]
    assert first_error(kind.Settings, {"sizes": [1, "x"]}) == ("sizes", "expected an integer in the list, got 'x' (text)")
    values = first_error(kind.Options, {"name": "x", "width": 4})
    assert dict(values) == {"title": None, "factor": 1.0, "colour": "red", "name": "x", "width": 4}
    assert values.width == 4 and first_error(kind.Settings, {})["sizes"] == [1, 2]

    source = tmp_path / "chart" / "kind.py"
    assert engine_notices({"chart": kind}) == [
        f"{source}: the kind 'chart' builds its options from MkDocs' config_options (Options.factor: "
        "config_options.Type; Options.colour: config_options.Choice; Options.name: config_options.Type; "
        "Options.width: config_options.Optional; Settings.sizes: config_options.ListOfItems); kinds now have option "
        "types of Scalecore's own, which need no engine (MkDocs 2.0 drops plugins). They still work, converted, for "
        "now. Fix: import them from Scalecore instead of mkdocs.config: from scalecore_generator.kinds.options import "
        "ListOf, OneOf, Optional, Type (c.Type is Type, c.Choice OneOf, c.ListOfItems ListOf, c.Optional Optional; a "
        "type of the kind's own subclasses Option and raises ValidationError, both from there); scalecore guide kinds "
        "shows them."]
    assert engine_notices({"chart": kind}) == [], "said once"
    assert engine_notices(discover()) == [], "the built-in kinds use Scalecore's own types"

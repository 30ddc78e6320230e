"""Where kinds come from, and the check that each folder keeps the contract (scalecore_generator/kinds/kind.py).

Three sources, in this order: the built-in kinds (folders in scalecore_generator/kinds/), the site's own
(``kinds_dir`` beside mkdocs.yml, default ``kinds/``), and Python packages that declare an entry
point in the group ``scalecore.kinds`` whose value is a module: every kind folder beside that
module's file is loaded. A kind's name is its folder's name. Nothing here, or anywhere else in
the plugin, lists the kinds.
"""

import importlib.util
import inspect
import json
import re
import sys
from importlib.metadata import entry_points
from pathlib import Path

from scalecore_generator.kinds.kind import Kind
from scalecore_generator.errors import ScalecoreError

BUILT_IN = Path(__file__).resolve().parent  # the built-in kinds: folders beside this module
ENTRY_POINT_GROUP = "scalecore.kinds"
REQUIRED = ("kind.py", "template.html", "panel.js")
NAME = re.compile(r"[a-z][a-z0-9-]*")


class KindError(ScalecoreError):
    """A kind folder that breaks the contract: ``str()`` names the file and the fix."""


def kind_folders(folder: Path) -> list[Path]:
    """The kind folders directly under ``folder`` (any sub-folder holding a kind.py, or meant to)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def discover(site_kinds: Path | None = None, sound: set | None = None) -> dict[str, type[Kind]]:
    """Every available kind, by name. Raises KindError for a folder that breaks the contract.
    ``sound``: the stamps of the templates, scripts and schemas found sound, which a build keeps
    across builds (its memo), so a warm build parses no kind's template again; this process's
    own by default. A build's set is left holding exactly the stamps of today's files."""
    given, sound = sound, (_checked if sound is None else sound)
    checked = set()
    folders = kind_folders(BUILT_IN)
    if site_kinds is not None:
        folders += kind_folders(site_kinds)
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            module = entry.load()
        except Exception as error:  # an installed package's bug, named with its entry point
            raise KindError(f"the entry point {entry.name} = {entry.value} (group {ENTRY_POINT_GROUP}) cannot be "
                            f"imported: {type(error).__name__}: {error}. Fix: repair or uninstall that package.") from None
        folders += kind_folders(Path(module.__file__).resolve().parent)
    kinds: dict[str, type[Kind]] = {}
    for folder in folders:
        kind = load_kind(folder, sound, checked)
        if kind.name in kinds:
            raise KindError(f"{folder}: a kind named {kind.name!r} already comes from {kinds[kind.name].folder}. "
                            "Fix: rename one of the two folders (the folder's name is the kind's name).")
        kinds[kind.name] = kind
    if given is not None:
        given.intersection_update(checked)
    return dict(sorted(kinds.items()))


def load_kind(folder: Path, sound: set | None = None, checked: set | None = None) -> type[Kind]:
    """Import ``folder/kind.py`` and return its Kind subclass, checked against the contract
    (``sound``: see discover; ``checked`` gains the stamps of the files this found sound)."""
    sound = _checked if sound is None else sound
    checked = set() if checked is None else checked
    name = folder.name
    if not NAME.fullmatch(name):
        raise KindError(f"{folder}: {name!r} is not a kind name: kind names are lower-case letters, digits and "
                        "'-', starting with a letter (authors write them after '///'). Fix: rename the folder.")
    for required in REQUIRED:
        if not (folder / required).is_file():
            raise KindError(f"{folder / required}: missing; a kind folder holds {', '.join(REQUIRED)} (and optionally "
                            "schema.json and style.css). Fix: add it (scalecore guide kinds shows each file).")
    checked.add(_check_template(folder / "template.html", sound))
    checked.add(_check_script(folder / "panel.js", name, sound))
    if (folder / "schema.json").is_file():
        checked.add(_check_schema(folder / "schema.json", sound))
    module = _import(folder)
    found = [value for value in vars(module).values()
             if inspect.isclass(value) and issubclass(value, Kind) and value is not Kind
             and value.__module__ == module.__name__]
    if len(found) != 1:
        what = "no subclass" if not found else f"{len(found)} subclasses ({', '.join(c.__name__ for c in found)})"
        raise KindError(f"{folder / 'kind.py'}: defines {what} of scalecore_generator.kinds.kind.Kind; it must define exactly one. "
                        "Fix: write one 'class MyKind(Kind):' with label, Options and render.")
    kind = found[0]
    problems = _contract_problems(kind)
    if problems:
        raise KindError(f"{folder / 'kind.py'}: {kind.__name__} {problems[0]}")
    kind.name, kind.folder = name, folder
    return kind


def _stamp(path: Path, check: str) -> str:
    """The file as it is now, for one check: its real path, inode, size, and modification and
    change times (a write always changes the change time: see foundation/cache/digests.py)."""
    stat = path.stat()
    return json.dumps([check, str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns])


_checked: set[str] = set()  # the stamps of the files found sound, when no build keeps them


def _check_template(path: Path, sound: set) -> str:
    """A template that jinja2 cannot parse, or one that does not extend panel.html (no panel root,
    so no script, no shared styles), is found here with its line, not in a 70-line traceback while
    a page renders, nor as a panel that silently never hydrates."""
    stamp = _stamp(path, "template")
    if stamp in sound:
        return stamp
    import jinja2

    try:
        tree = jinja2.Environment().parse(path.read_text(encoding="utf-8"), name=path.name, filename=str(path))
    except jinja2.TemplateSyntaxError as error:
        raise KindError(f"{path}:{error.lineno}: {error.message.rstrip('.')}. Fix: correct the template at that line "
                        "(jinja2 syntax).") from None
    except UnicodeDecodeError as error:
        raise KindError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start}). Fix: save it as UTF-8.") from None
    extends = [node for node in tree.body if isinstance(node, jinja2.nodes.Extends)]
    if not extends or getattr(extends[0].template, "value", None) != "panel.html":
        raise KindError(f"{path}:1: the template does not extend panel.html, so its panel has no root for the "
                        "kind's script and no shared styles. Fix: make its first line {% extends \"panel.html\" %} "
                        "and put the no-JS view in {% block fallback %} ... {% endblock %}.")
    sound.add(stamp)
    return stamp


# Where a panel.js registers its view: ``S.kinds.name = {``, ``S.kinds["name"] = {``, or
# ``S.kinds[KIND] = {`` with ``var KIND = "name"`` (a constant of the script).
REGISTERS = re.compile(r"""\.kinds(?:\.(?P<dotted>[A-Za-z_$][\w$]*)|\[\s*(?:(?P<q>["'])(?P<quoted>[^"']+)(?P=q)|"""
                       r"""(?P<constant>[A-Za-z_$][\w$]*))\s*\])\s*=(?!=)""")


def _check_script(path: Path, name: str, sound: set) -> str:
    """panel.js registers the view under its folder's name: the panel base looks it up by that
    name, and a view registered under another never runs (only a line in the reader's console
    would say so)."""
    stamp = _stamp(path, f"script of {name}")
    if stamp in sound:
        return stamp
    text = path.read_text(encoding="utf-8", errors="replace")
    def registered(match) -> str:
        if match["constant"]:
            value = re.search(rf"""(?:var|let|const)\s+{re.escape(match["constant"])}\s*=\s*(["'])([^"']+)\1""", text)
            return value[2] if value else match["constant"]
        return match["dotted"] or match["quoted"]

    found = [(registered(m), text.count("\n", 0, m.start()) + 1) for m in REGISTERS.finditer(text)]
    if name not in [registered for registered, _ in found]:
        spelled = name if re.fullmatch(r"[A-Za-z_$][\w$]*", name) else None
        how = f"S.kinds.{spelled} = {{ ... }}" if spelled else f'S.kinds["{name}"] = {{ ... }}'
        if found:
            other, line = found[0]
            raise KindError(f"{path}:{line}: registers the view as {other!r}, but the kind is {name!r} (its folder's "
                            f"name), so the panel would never start. Fix: write {how}.")
        raise KindError(f"{path}: does not register a view for the kind {name!r}, so the panel would never start. "
                        f"Fix: assign it on the panel base: {how} (scalecore guide kinds shows it).")
    sound.add(stamp)
    return stamp


def _check_schema(path: Path, sound: set) -> str:
    """schema.json is JSON: a mistake named with its line and column before anything is baked.
    Whether it is a valid JSON Schema is checked by the bake (schema_problem), when it bakes the
    kind: that check reads the whole meta-schema, which a warm build, baking nothing, should not
    pay."""
    stamp = _stamp(path, "schema")
    if stamp in sound:
        return stamp

    try:
        json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise KindError(f"{path}:{error.lineno}:{error.colno}: {error.msg}. Fix: correct the JSON there.") from None
    except UnicodeDecodeError as error:
        raise KindError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start}). Fix: save it as UTF-8.") from None
    sound.add(stamp)
    return stamp


def schema_problem(path: Path, schema: dict) -> str | None:
    """What makes ``schema`` (read from ``path``) no valid JSON Schema, as a message with the fix."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        at = "/".join(str(part) for part in error.absolute_path) or "(the top)"
        return (f"{path}: not a valid JSON Schema at {at}: {error.message}. Fix: correct that keyword "
                "(JSON Schema draft 2020-12).")
    return None


_stamps: dict[str, tuple] = {}  # module name -> (mtime, size) of the kind.py it was run from
_package_stamps: dict[Path, tuple] = {}  # a site package's folder -> its .py files' (path, mtime, size)


def forget_edited_packages(packages: list[Path]) -> list[str]:
    """Drop from ``sys.modules`` every module of a site package whose files changed since the last
    build in this process (``mkdocs serve`` rebuilds in the same process): the bake imports the
    compute function by name, and Python would hand back the module as first imported, so an
    edited function was baked with its old code under its new cache key. A package edited drops
    all its modules (one module holds the others' old functions), and the kinds are imported again
    (a kind.py may import from it). Returns the packages dropped."""
    dropped = []
    for folder in packages:
        stamp = tuple((str(path), stat.st_mtime_ns, stat.st_size) for path, stat in
                      ((path, path.stat()) for path in sorted(folder.rglob("*.py")) if "__pycache__" not in path.parts))
        before = _package_stamps.get(folder)
        _package_stamps[folder] = stamp
        if before is None or before == stamp:
            continue
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if name == folder.name or name.startswith(folder.name + ".") or (
                    file and Path(file).resolve().is_relative_to(folder)):
                del sys.modules[name]
        dropped.append(folder.name)
    if dropped:
        _stamps.clear()
        importlib.invalidate_caches()
    return dropped


def _import(folder: Path):
    """The kind.py of ``folder`` as a module: imported once, and again when the file changed
    (``mkdocs serve`` rebuilds in the same process after an edit)."""
    module_name = "scalecore_kind_" + re.sub(r"\W", "_", str(folder.resolve()))
    try:
        stat = (folder / "kind.py").stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = None
    if module_name in sys.modules and _stamps.get(module_name) == stamp:
        return sys.modules[module_name]
    _stamps[module_name] = stamp
    spec = importlib.util.spec_from_file_location(module_name, folder / "kind.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # pickling for the bake's worker processes needs it
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        line = _error_line(error, folder / "kind.py")
        raise KindError(f"{folder / 'kind.py'}{line}: cannot be imported: {type(error).__name__}: {error}. "
                        "Fix: correct the kind's Python.") from None
    return module


def _error_line(error: BaseException, path: Path) -> str:
    if isinstance(error, SyntaxError) and error.lineno:
        return f":{error.lineno}"
    tb = error.__traceback__
    line = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename) == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f":{line}" if line else ""


def _contract_problems(kind: type[Kind]) -> list[str]:
    from scalecore_generator.kinds.options import PanelOptions
    from scalecore_generator.kinds.kind import KindSettings

    problems = []
    if not isinstance(getattr(kind, "label", None), str) or not kind.label:
        problems.append("has no label. Fix: set label = \"...\", the panel's accessible name.")
    if not (inspect.isclass(kind.Options) and issubclass(kind.Options, PanelOptions)):
        problems.append("has an Options that is not a subclass of PanelOptions. Fix: class Options(PanelOptions): ...")
    if not (inspect.isclass(kind.Settings) and issubclass(kind.Settings, KindSettings)):
        problems.append("has a Settings that is not a subclass of KindSettings. Fix: class Settings(KindSettings): ...")
    if kind.render is Kind.render:
        problems.append("does not define render(options, panel). Fix: return panel.render_template(options, ...).")
    overrides_grid = kind.grid is not Kind.grid
    if overrides_grid and not (isinstance(kind.compute, str) and re.fullmatch(r"[\w.]+:\w+", kind.compute)):
        problems.append("defines grid() but no compute. Fix: set compute = \"package.module:function\", an "
                        "importable function of a package that ships in the browser wheel.")
    if kind.compute is not None and not overrides_grid:
        problems.append("sets compute but defines no grid(site). Fix: return the Grid of points to bake.")
    needs = kind.needs if isinstance(kind.needs, (set, frozenset, tuple, list)) else None
    unknown = sorted(set(needs) - Kind.NEEDS) if needs is not None else None
    if unknown is None or unknown:
        problems.append(f"needs {unknown[0]!r}, which no site provides. Fix: set needs to a subset of "
                        f"{sorted(Kind.NEEDS)} (frozenset(), the default, needs nothing)." if unknown else
                        f"has needs = {kind.needs!r}, not a set. Fix: needs = frozenset({{\"corpora\"}}) or leave it out.")
    return problems


_told: set[str] = set()  # the kind.py files whose old option types were named, once a process


def engine_notices(kinds: dict[str, type[Kind]]) -> list[str]:
    """For each kind whose ``Options`` or ``Settings`` still hold an engine's config options (MkDocs'
    ``config_options``, the API before Scalecore had its own), what changed and what to import
    instead; once per kind.py in a process (``mkdocs serve`` rebuilds say it once)."""
    notices = []
    for kind in kinds.values():
        held = [(group.__name__, key, dict(group._schema)[key]) for group in (kind.Options, kind.Settings)
                for key in group.engine_options]
        old = [f"{group}.{key}: {option.old_name()}" for group, key, option in held]
        source = str(kind.folder / "kind.py")
        if not old or source in _told:
            continue
        _told.add(source)
        new = sorted({option.new_name() for _, _, option in held})
        notices.append(
            f"{source}: the kind {kind.name!r} builds its options from MkDocs' config_options ({'; '.join(old)}); "
            "kinds now have option types of Scalecore's own, which need no engine (MkDocs 2.0 drops plugins). "
            "They still work, converted, for now. Fix: import them from Scalecore instead of mkdocs.config: "
            f"from scalecore_generator.kinds.options import {', '.join(new)} (c.Type is Type, c.Choice OneOf, "
            "c.ListOfItems ListOf, c.Optional Optional; a type of the kind's own subclasses Option and raises "
            "ValidationError, both from there); scalecore guide kinds shows them.")
    return notices


def compute_function(kind: type[Kind]):
    """The kind's compute function, imported (a KindError if it cannot be)."""
    module_name, _, function = kind.compute.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, function)
    except (ImportError, AttributeError) as error:
        raise KindError(f"{kind.folder / 'kind.py'}: compute = {kind.compute!r} cannot be imported ({error}). "
                        "Fix: name a function of an importable module, as 'package.module:function'; a site's "
                        "own package goes in the plugin option 'packages'.") from None

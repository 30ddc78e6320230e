"""One group of a kind's points: the unit the bake plans and its executors run.

What a group's cache entry depends on (``code_version``: the kind's folder, the compute
function's module and the modules of its package it imports), how its points are computed in the
process that runs the group (``bake_points``: the kind's compute function on each point, every
result checked to be JSON and to match the kind's schema), and the data scripts that carry a
group to pages opened from file://. Shared by the local processes (builder/bake.py) and a Dask
cluster's workers (builder/cluster.py), which import this module and not each other.
"""

import ast
import hashlib
import importlib.util
import json
import math
import traceback
from dataclasses import dataclass
from pathlib import Path

from scalecore_generator.blocks import views
from scalecore_generator.builder import progress
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.foundation import cache
from scalecore_generator.kinds.kind import Kind

EMBEDDINGS = "api/embeddings"


class BakeError(ScalecoreError):
    """A kind whose points cannot be baked: ``str()`` names the kind, the point and the fix."""


def dumps(data) -> str:
    """Compact, stable JSON; floats keep their repr, so every value round-trips exactly."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def data_script(key: str, data) -> str:
    """The same data as a classic script: works from file://, where fetch() is refused."""
    return encoded_data_script(key, dumps(data))


def encoded_data_script(key: str, text: str) -> str:
    """data_script(key, data) from ``text``, which is dumps(data)."""
    return f"(globalThis.scalecoreData=globalThis.scalecoreData||{{}})[{json.dumps(key)}]={text};\n"


def data_key(kind: str, group: str) -> str:
    """The key of a group's data in ``globalThis.scalecoreData``: ``<kind>/<group>`` or ``<kind>``."""
    return f"{kind}/{group}" if group else kind


# ------------------------------------------------------------------------------ what a kind is made of


def _module_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def _imports(source: bytes) -> list[str]:
    """Every module an absolute import in ``source`` names (``from a import b`` names a and a.b)."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def module_closure(module: str, memo: "cache.Memo | None" = None, digest=None) -> list[Path]:
    """The source files of ``module`` and of every module of the same top-level package it
    imports, directly or not: what a compute function's results can depend on. ``memo`` keeps
    each source's imports under its sha256 (parsing the core was most of a warm bake's time);
    ``digest(path)``: a file's sha256 (the build's ledger: no source is read when unchanged)."""
    memo = memo or cache.Memo(None, None)
    top = module.split(".")[0]
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name)
        if path is None:
            continue
        seen[name] = path
        key = digest(path) if digest is not None else hashlib.sha256(path.read_bytes()).hexdigest()
        imported = memo.get(key, lambda path=path: _imports(path.read_bytes()))
        todo += [other for other in imported if other.split(".")[0] == top]
    return [seen[name] for name in sorted(seen)]


def code_version(kind: type[Kind], memo: "cache.Memo | None" = None, digest=None) -> str:
    """A hash of the code that shapes a kind's baked files: its Python and schema (its template
    and browser view do not), its compute closure, the bake and the shared views that draw the
    figures. With the build's ledger (``digest``) and memo, kept under the sources' own sha256:
    a warm build reads none of them (a cluster's worker, with neither, hashes them to the same value)."""
    here = Path(__file__).parent
    sources = sorted(p for p in kind.folder.rglob("*")
                     if p.suffix == ".py" or p.name == "schema.json" if "__pycache__" not in p.parts)
    sources += module_closure(kind.compute.partition(":")[0], memo, digest) + [here / "bake.py", Path(views.__file__),
                                                                              views.VIEWS]

    def hashed() -> str:
        digest = hashlib.sha256()
        for path in sources:
            digest.update(str(path.name).encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()

    if memo is None or digest is None:
        return hashed()
    key = hashlib.sha256(json.dumps([[str(path), digest(path)] for path in sources]).encode()).hexdigest()
    return memo.get(f"version {key}", hashed)


# ------------------------------------------------------------------------------ the worker


def bake_group(job: dict) -> str:
    """Compute one group's points into its cache entry (runs in a local worker process, which
    shares this machine's disk: the kind's folder, the site files it reads and the cache)."""
    inputs = job["inputs"]
    with cache.writing(Path(job["target"])) as folder:
        bake_points(folder, Path(job["folder"]), job,
                    lambda site_path: Path(inputs[site_path]).read_text(encoding="utf-8"))
    return job["target"]


def bake_points(folder: Path, kind_folder: Path, job: dict, read) -> None:
    """Write the files of one group's points into ``folder``: each point's JSON, its figures and
    the group's ``data.js``. ``read(site_path)``: the text of a site file the computation reads
    (where it lives is the caller's business: a local file, or data sent to a cluster's worker)."""
    from scalecore_generator.kinds.registry import compute_function, load_kind
    from scalecore import sitedata

    kind = load_kind(kind_folder)
    function = compute_function(kind)
    sitedata.use(read)
    validator = _validator(kind)
    instance = kind()
    together, wanted = {}, []  # inner path -> the point's JSON text, encoded once
    for point, params, inner in job["points"]:
        result, text = _compute(kind, function, point, params, job.get("origins", {}))
        if validator is not None:
            _check_schema(kind, validator, point, result)
        together[inner] = text
        progress.point_done()
        (folder / f"{inner}.json").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"{inner}.json").write_text(text, encoding="utf-8")
        beside = Path(inner).parent
        wanted += [(folder / beside / name, call) for name, call in instance.figures(result, point).items()]
    for (path, _), data in zip(wanted, views.figures([call for _, call in wanted])):
        path.write_bytes(data)
    # dumps({inner: result, ...}) from the texts already encoded: the same bytes
    body = "{" + ",".join(f"{dumps(inner)}:{text}" for inner, text in together.items()) + "}"
    (folder / "data.js").write_text(encoded_data_script(job["data_key"], body), encoding="utf-8")


def _compute(kind, function, point, params, origins=None):
    try:
        result = function(**params)
    except Exception as error:
        mismatch = _signature_mismatch(kind, function, params) if isinstance(error, TypeError) else None
        if mismatch:
            raise BakeError(mismatch) from None
        raise BakeError(f"{_raised_at(error)}: {kind.compute}(...) failed for the point {_shown(point)} of the kind "
                        f"{kind.name!r}: {type(error).__name__}: {error}. Fix: correct the function there, or leave "
                        f"{_left_out(point, origins or {})}.") from None
    try:
        return result, dumps(result)
    except (TypeError, ValueError):  # found again, with its key path, only when it fails
        problem = _not_json(result) or "a value json cannot encode"
        raise BakeError(f"the kind {kind.name!r} ({kind.folder / 'kind.py'}): {kind.compute}(...) returned {problem} "
                        f"for the point {_shown(point)}; a baked point must be JSON (finite numbers, strings, "
                        "booleans, None, lists and dicts with string keys). Fix: return a JSON-ready value there.") from None


def _left_out(point: dict, origins: dict[str, str]) -> str:
    """What to leave out of which setting: each of the point's values the site's settings gave,
    with its line ("2.0 out of the setting 'factors' of the kind 'k' ..., mkdocs.yml:18"), else the
    grid. Every one is named: which of them made the function fail is the author's to read (the
    first alone sent a fresh author to a length when the amplitude was the cause)."""
    found = []
    for value in point.values():
        try:
            where = origins.get(dumps(value))
        except (TypeError, ValueError):
            continue
        if where:
            found.append(f"{value} out of {where}")
    return ", or ".join(found) if found else "that value out of the kind's grid"


def _signature_mismatch(kind, function, params: dict) -> str | None:
    """The message for a compute function whose parameters are not the names the kind's grid sends
    (the call fails in the generator's frame, which names no file of the author's), or None."""
    import inspect

    try:
        signature = inspect.signature(function)
        signature.bind(**params)
        return None
    except TypeError:
        pass
    except ValueError:  # no signature to read (a builtin): the call's own error says it
        return None

    def where(code) -> str:
        code = inspect.unwrap(code)  # a kind's grid() comes wrapped (kinds/kind.py checks its axes)
        try:
            return f"{inspect.getsourcefile(code)}:{inspect.getsourcelines(code)[1]}"
        except (OSError, TypeError):
            return "?"

    takes = ", ".join(signature.parameters)
    return (f"{where(function)}: {kind.compute} takes ({takes}), but the kind {kind.name!r} sends ({', '.join(params)}) "
            f"for each point (its grid: {where(kind.grid)}). Fix: name the function's parameters as the grid's params "
            "name them, or change the params the grid gives each point.")


def _raised_at(error: BaseException) -> str:
    """``file:line`` of the innermost frame of the author's code (not the standard library's, not
    the generator's) that the exception passed through: where to look first."""
    frames = traceback.extract_tb(error.__traceback__)
    here = str(Path(__file__).resolve().parents[1])
    stdlib = str(Path(json.__file__).resolve().parent)
    own = [f for f in frames if not f.filename.startswith((here, stdlib))] or frames
    return f"{own[-1].filename}:{own[-1].lineno}"


def _not_json(value, path: str = "") -> str | None:
    """What in ``value`` is not JSON, with its key path ('NaN at weights[2]'), or None."""
    where = f" at {path}" if path else ""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, (int, float)):
        return None if math.isfinite(value) else f"{value!r}{where}"
    if isinstance(value, (list, tuple)):
        return next((found for i, item in enumerate(value) if (found := _not_json(item, f"{path}[{i}]"))), None)
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"the key {key!r} (a {type(key).__name__}, not a string){where}"
            found = _not_json(item, f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    return f"a {type(value).__name__} ({value!r:.60}){where}"


def _validator(kind):
    path = kind.folder / "schema.json"
    if not path.is_file():
        return None
    from scalecore_generator.kinds.registry import schema_problem

    schema = json.loads(path.read_text(encoding="utf-8"))
    problem = schema_problem(path, schema)
    if problem:
        raise BakeError(problem)
    return _fast_validator_class()(schema)


# A baked point is mostly numbers in arrays (matrices of scores and weights), and jsonschema checks
# each number through its whole machinery: that was a fifth of a cold bake. An ``items`` whose
# subschema only bounds a number is checked here in one pass instead; an array that does not
# pass plainly goes to jsonschema's own ``items``, so every error message is jsonschema's.
_NUMBER_KEYWORDS = {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "description", "title",
                    "$comment"}
_NUMBER_TYPES = {"number": (float, int), "integer": (int,)}


def _plainly_valid(items: dict, instance: list) -> bool:
    """True when every element is a number (bool is not) within the bounds of ``items``."""
    types = _NUMBER_TYPES[items["type"]]
    if not all(type(value) in types for value in instance):
        return False
    low, high = items.get("minimum"), items.get("maximum")
    above, below = items.get("exclusiveMinimum"), items.get("exclusiveMaximum")
    return ((low is None or all(value >= low for value in instance))
            and (high is None or all(value <= high for value in instance))
            and (above is None or all(value > above for value in instance))
            and (below is None or all(value < below for value in instance)))


# An array of such arrays (a matrix: rows of numbers) is checked in the same pass: its subschema
# may only add bounds on each row's length.
_ROW_KEYWORDS = {"type", "items", "minItems", "maxItems", "description", "title", "$comment"}


def _plain_numbers(subschema) -> bool:
    """True when ``subschema`` only bounds a number (what _plainly_valid checks)."""
    return (isinstance(subschema, dict) and subschema.get("type") in _NUMBER_TYPES and set(subschema) <= _NUMBER_KEYWORDS
            and all(type(subschema.get(key, 0)) in (int, float) for key in _NUMBER_KEYWORDS - {
                "type", "description", "title", "$comment"}))


def _plain_rows(subschema) -> bool:
    """True when ``subschema`` is an array of plain numbers with at most bounds on its length."""
    return (isinstance(subschema, dict) and subschema.get("type") == "array" and set(subschema) <= _ROW_KEYWORDS
            and _plain_numbers(subschema.get("items"))
            and all(type(subschema.get(key, 0)) is int for key in ("minItems", "maxItems")))


def _rows_plainly_valid(subschema: dict, instance: list) -> bool:
    low, high, items = subschema.get("minItems", 0), subschema.get("maxItems"), subschema["items"]
    return all(type(row) is list and len(row) >= low and (high is None or len(row) <= high)
               and _plainly_valid(items, row) for row in instance)


def _fast_validator_class():
    import jsonschema

    base = jsonschema.Draft202012Validator
    items_keyword = base.VALIDATORS["items"]

    def items(validator, subschema, instance, schema):
        if type(instance) is list and "prefixItems" not in schema and (
                (_plain_numbers(subschema) and _plainly_valid(subschema, instance))
                or (_plain_rows(subschema) and _rows_plainly_valid(subschema, instance))):
            return
        yield from items_keyword(validator, subschema, instance, schema)

    return jsonschema.validators.extend(base, {"items": items})


def _check_schema(kind, validator, point, result):
    error = next(iter(sorted(validator.iter_errors(result), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "(the top)"
        raise BakeError(f"the kind {kind.name!r}: the result of {kind.compute} for the point {_shown(point)} does not "
                        f"match {kind.folder / 'schema.json'} at {where}: {error.message}. Fix: make the function "
                        "return what the schema describes, or update the schema.")


def _shown(point: dict) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in point.items()) + "}" if point else "(its only point)"


@dataclass(frozen=True)
class Cluster:
    """A Dask scheduler that bakes the groups (the plugin option ``bake_scheduler``); see
    scalecore_generator/builder/cluster.py for what its workers are sent."""

    # tcp://host:8786 or tls://host:8786 (Dask's own config gives TLS its certificates); or
    # "module:function", a function returning a distributed.Client or a Dask cluster object (a
    # dask-jobqueue, dask-kubernetes or Coiled cluster); or, from Python, a Client itself
    address: object
    packages: tuple[Path, ...] = ()  # the site's own packages (the option ``packages``)
    where: str = "mkdocs.yml"  # file:line of the option, for messages
    connect_timeout: float = 10.0  # seconds to reach the scheduler
    workers_timeout: float = 30.0  # seconds to wait for a worker, at the start and after all were lost
    retries: int = 3  # times a group lost with its workers is sent again
    root: Path | None = None  # the site's folder, where a ``module:function`` is imported from

"""The bake: every point of every kind's grid, computed once at build time and cached by content.

A kind's points are baked in *groups*, the points that travel in one ``data.js`` (see
scalecore_generator/kinds/kind.py): a group is one cache entry (scalecore_generator/build/cache/
entries.py) holding each point's JSON, its figures and the ``data.js`` (the same data for pages
opened from file://, where fetch is blocked but a classic script tag still loads). An entry's key hashes only what shapes its files:
the kind's folder, the compute function's module and the modules of its package it imports, the
group's parameters and the content of the site files it reads (a corpus's embedding table). So a
new core module re-bakes nothing, and a changed corpus re-bakes only its own groups.

Before anything is computed the build counts each kind's points; after the first group it
projects the bytes. Above the budget it stops, naming the block that asked for the kind. Groups
run in parallel, one process per core; the workers die with the build. With the plugin option
``bake_scheduler`` the same groups run on a Dask cluster instead (scalecore_generator/build/cluster.py).
"""

import ast
import hashlib
import importlib.util
import json
import math
import os
import shutil
import time
import traceback
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from scalecore_generator.build import cache
from scalecore_generator.pages import views
from scalecore_generator.kinds.kind import Grid, Kind, Site
from scalecore_generator.build.processes import die_with_parent
from scalecore_generator.errors import ScalecoreError

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
        result, text = _compute(kind, function, point, params)
        if validator is not None:
            _check_schema(kind, validator, point, result)
        together[inner] = text
        (folder / f"{inner}.json").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"{inner}.json").write_text(text, encoding="utf-8")
        beside = Path(inner).parent
        wanted += [(folder / beside / name, call) for name, call in instance.figures(result, point).items()]
    for (path, _), data in zip(wanted, views.figures([call for _, call in wanted])):
        path.write_bytes(data)
    # dumps({inner: result, ...}) from the texts already encoded: the same bytes
    body = "{" + ",".join(f"{dumps(inner)}:{text}" for inner, text in together.items()) + "}"
    (folder / "data.js").write_text(encoded_data_script(job["data_key"], body), encoding="utf-8")


def _compute(kind, function, point, params):
    try:
        result = function(**params)
    except Exception as error:
        raise BakeError(f"{_raised_at(error)}: {kind.compute}(...) failed for the point {_shown(point)} of the kind "
                        f"{kind.name!r}: {type(error).__name__}: {error}. Fix: correct the function there, or leave "
                        "that value out of the kind's grid.") from None
    try:
        return result, dumps(result)
    except (TypeError, ValueError):  # found again, with its key path, only when it fails
        problem = _not_json(result) or "a value json cannot encode"
        raise BakeError(f"the kind {kind.name!r} ({kind.folder / 'kind.py'}): {kind.compute}(...) returned {problem} "
                        f"for the point {_shown(point)}; a baked point must be JSON (finite numbers, strings, "
                        "booleans, None, lists and dicts with string keys). Fix: return a JSON-ready value there.") from None


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


# ------------------------------------------------------------------------------ the build's side


@dataclass
class KindBake:
    """One kind's baked grid: its files and, for the manifest, every point and group."""

    grid: Grid
    files: dict[str, Path] = field(default_factory=dict)  # site path -> file in the cache
    points: dict[str, dict] = field(default_factory=dict)  # path -> {point, params, json, figures}
    groups: dict[str, str] = field(default_factory=dict)  # group -> site path of its data.js
    entries: dict[str, Path] = field(default_factory=dict)  # site folder of a group -> its cache entry
    computed: int = 0
    listed: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)  # entries found intact -> their files
    # each file's sha256, as its entry's record gives it (checked when found, written when baked)
    digests: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Cluster:
    """A Dask scheduler that bakes the groups (the plugin option ``bake_scheduler``); see
    scalecore_generator/build/cluster.py for what its workers are sent."""

    address: str  # e.g. tcp://host:8786
    packages: tuple[Path, ...] = ()  # the site's own packages (the option ``packages``)
    where: str = "mkdocs.yml"  # file:line of the option, for messages


@dataclass(frozen=True)
class Budget:
    points: int  # most points one kind may bake
    megabytes: float  # most bytes one kind may bake (projected from its first group)


def bake_kinds(kinds: dict[str, type[Kind]], sites: dict[str, Site], inputs: dict[str, Path],
               cache_dir: Path, workers: int, budget: Budget, used_at: dict[str, str], log,
               imports: "cache.Memo | None" = None, cluster: "Cluster | None" = None,
               digest=cache.sha256_file, use: "cache.SharedUse | None" = None) -> dict[str, KindBake]:
    """Every point of every kind that bakes, from the cache or computed now, in parallel.

    ``sites``: each kind's view of the site (with its own settings); ``inputs``: the site files a
    computation may read (site path -> file); ``used_at``: kind -> "page:line" of a block that uses
    it (for the budget's message); ``imports``: the memo of what each module imports;
    ``cluster``: the Dask cluster that bakes the groups instead of local processes; ``digest``:
    a file's sha256 (the build's digest ledger: build/cache/digests.py), read now by default;
    ``use``: the build's use of the cache, which notes every entry it takes or bakes.
    """
    started = time.monotonic()
    root = Path(cache_dir) / "bake"
    root.mkdir(parents=True, exist_ok=True)
    cache.remove_abandoned(root)
    baked, jobs, kinds_by_name = {}, [], dict(kinds)
    input_hashes = {path: digest(file) for path, file in inputs.items()}
    for name, kind in kinds.items():
        try:
            grid = kind().grid(sites[name])
        except Exception as error:  # a kind's own code: named, never a traceback
            raise BakeError(f"the kind {name!r} ({kind.folder / 'kind.py'}): grid(site) failed: {type(error).__name__}: "
                            f"{error}. Fix: correct the kind's grid().") from None
        if grid is None:
            continue
        _check_count(name, grid, budget, used_at)
        bake, kind_jobs = _plan(kind, grid, sites[name], inputs, input_hashes, root, log, imports, digest, use)
        baked[name] = bake
        jobs += [(name, job) for job in kind_jobs]
    total = sum(len(b.groups) for b in baked.values())
    kinds = f"{len(baked)} kind" + ("s" if len(baked) != 1 else "")
    log.info(f"bake: {total} groups of {sum(b.grid.size for b in baked.values())} points in {kinds}; "
             f"{total - len(jobs)} from the cache, {len(jobs)} to compute")
    _run(jobs, baked, workers, budget, used_at, started, log, cluster, kinds_by_name)
    for name, bake in baked.items():
        for folder, target in bake.entries.items():  # an entry found intact listed its files when checked
            recorded = bake.listed.pop(folder, None)
            if recorded is None:
                recorded = json.loads((target / cache.RECORD).read_text(encoding="utf-8"))["files"]
            for file, sha256 in sorted(recorded.items()):
                bake.files[f"{folder}/{file}"] = target / file
                bake.digests[os.path.join(target, file)] = sha256
        bake.computed = sum(1 for kind, _ in jobs if kind == name)
    return baked


def _check_count(name: str, grid: Grid, budget: Budget, used_at: dict) -> None:
    if grid.size <= budget.points:
        return
    sizes = " x ".join(f"{len(values)} {axis}" for axis, values in grid.axes.items())
    raise BakeError(f"{used_at.get(name, 'mkdocs.yml')}: /// {name} would bake {sizes} = {grid.size:,} points, over the "
                    f"budget of {budget.points:,} points per kind. Fix: bake fewer values (fewer corpora or seeds in "
                    "mkdocs.yml, or the kind's own settings), or raise the plugin option bake_budget_points.")


def _check_bytes(name: str, bake: KindBake, first: Path, points: int, budget: Budget, used_at: dict) -> None:
    size = sum(p.stat().st_size for p in first.rglob("*") if p.is_file())
    projected = size / max(points, 1) * bake.grid.size / 1e6
    if projected > budget.megabytes:
        raise BakeError(f"{used_at.get(name, 'mkdocs.yml')}: /// {name} would bake about {projected:,.0f} MB "
                        f"({bake.grid.size:,} points of about {size / max(points, 1) / 1e3:,.0f} kB), over the budget "
                        f"of {budget.megabytes:,.0f} MB per kind. Fix: bake fewer values, or raise the plugin option "
                        "bake_budget_megabytes.")


def _plan(kind, grid, site, inputs, input_hashes, root, log, imports=None,
          digest=cache.sha256_file, use=None) -> tuple[KindBake, list[dict]]:
    """Each group's cache entry: found and intact, or a job that bakes it."""
    code = code_version(kind, imports, digest)
    bake, groups, instance = KindBake(grid), {}, kind()
    for point in grid.points():
        groups.setdefault(grid.group(point), []).append(point)
    jobs = []
    for group, points in groups.items():
        params = [grid.params(point) for point in points]
        reads = sorted({path for point in points for path in instance.inputs(point, site)})
        missing = [path for path in reads if path not in inputs]
        if missing:
            raise BakeError(f"the kind {kind.name!r} reads {missing[0]}, which this site does not have. "
                            "Fix: list only points whose inputs exist (a configured corpus).")
        key = hashlib.sha256("\0".join([code, dumps(params), *(f"{p}={input_hashes[p]}" for p in reads)]).encode())
        target = root / f"{kind.name}-{key.hexdigest()[:32]}"
        folder = f"api/{kind.name}/{group}".rstrip("/")
        for point, point_params in zip(points, params):
            inner = grid.inner(point)
            bake.points[grid.path(point)] = {"point": point, "params": point_params, "json": f"{folder}/{inner}.json"}
        bake.groups[group] = f"{folder}/data.js"
        bake.entries[folder] = target
        if use is not None:
            use.note(target)  # this build uses it, found or baked now (in a worker process)
        found = cache.intact_files(target, log, digest)
        if found is not None:
            bake.listed[folder] = found
        else:
            jobs.append(dict(folder=str(kind.folder), target=str(target), data_key=data_key(kind.name, group), code=code,
                             inputs={path: str(inputs[path]) for path in reads},
                             points=[(point, p, grid.inner(point)) for point, p in zip(points, params)]))
    return bake, jobs


class LocalProcesses:
    """The default executor of the bake: one process per worker on this machine, which die with
    the build. A group's worker writes its cache entry itself (it shares the disk)."""

    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor  # a cold bake's: its import is multiprocessing's

        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent, initargs=(os.getpid(),))

    def submit(self, job: dict) -> Future:
        return self.pool.submit(bake_group, job)

    def collect(self, job: dict, future: Future) -> None:
        future.result()  # a worker's BakeError goes on from here

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _executor(jobs: list, workers: int, cluster, kinds: dict, log):
    """Where the groups run: a Dask cluster when the site names one, else local processes (none
    at all, the groups baked in this process, for one worker or one group)."""
    if cluster is not None:
        from scalecore_generator.build.cluster import DaskCluster

        return DaskCluster(cluster, {name: kinds[name] for name in dict.fromkeys(name for name, _ in jobs)}, log)
    if workers == 1 or len(jobs) == 1:
        return None
    return LocalProcesses(workers)


def _run(jobs, baked, workers, budget, used_at, started, log, cluster=None, kinds=None):
    """Bake every job, in parallel: each kind's first group is sent first, and the bytes budget is
    checked as soon as it is done (a kind over budget stops the build and leaves nothing in the
    cache), while the other groups go on meanwhile on the other workers. The groups go through a
    concurrent.futures-style executor: local processes, or a Dask cluster (``cluster``)."""
    if not jobs:
        return
    firsts = {name: job for name, job in reversed(jobs)}
    ordered = list(firsts.items()) + [(name, job) for name, job in jobs if job is not firsts[name]]
    executor = _executor(ordered, workers, cluster, kinds or {}, log)
    if executor is None:
        outcomes = ((name, job, _done_now(job)) for name, job in ordered)
    else:
        futures = {executor.submit(job): (name, job) for name, job in ordered}
        outcomes = ((*futures[future], future) for future in as_completed(futures))
    done = 0
    pending = [name for name, _ in ordered]
    heartbeat = _Heartbeat(lambda: f"bake: {done}/{len(jobs)} groups, {time.monotonic() - started:.0f} s; still "
                                   f"computing {_counted(pending)}", log)
    try:
        for name, job, future in outcomes:
            if executor is None:
                future.result()  # a BakeError goes on from here
            else:
                executor.collect(job, future)
            done += 1
            pending.remove(name)
            heartbeat.beat()
            if job is firsts[name]:
                try:
                    _check_bytes(name, baked[name], Path(job["target"]), len(job["points"]), budget, used_at)
                except BakeError:
                    if executor is not None:
                        executor.shutdown()
                    for other, written in jobs:  # over budget: the cache keeps nothing of this kind
                        if other == name:
                            shutil.rmtree(written["target"], ignore_errors=True)
                    raise
            log.info(f"bake: {done}/{len(jobs)} groups, {time.monotonic() - started:.1f} s")
    finally:
        heartbeat.stop()
        if executor is not None:
            executor.shutdown()


def _counted(names: list[str]) -> str:
    counts = {name: names.count(name) for name in dict.fromkeys(names)}
    return ", ".join(f"{count} group{'s' * (count != 1)} of {name!r}" for name, count in counts.items())


class _Heartbeat:
    """A line every ``EVERY_S`` seconds while no group finishes: a slow compute function (seconds a
    point) would otherwise leave the author looking at a silent build, not knowing which kind is
    working. ``say()`` gives the line."""

    EVERY_S = 10.0

    def __init__(self, say, log):
        import threading

        self.say, self.log = say, log
        self.last = time.monotonic()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="scalecore-bake-heartbeat", daemon=True)
        self.thread.start()

    def beat(self) -> None:
        self.last = time.monotonic()

    def _run(self) -> None:
        while not self.stopped.wait(min(1.0, self.EVERY_S / 3)):
            if time.monotonic() - self.last >= self.EVERY_S:
                self.log.info(self.say())
                self.last = time.monotonic()

    def stop(self) -> None:
        self.stopped.set()


def learn_tables(jobs: list[tuple], workers: int) -> None:
    """Learn the embedding tables missing from the cache, one corpus per worker: each is a large
    eigendecomposition (a second or more), and the bake waits for all of them. ``jobs``: the
    arguments of :func:`scalecore.embeddings.cached_embeddings`, which writes each table into
    the cache (atomically) for the build to read."""
    from scalecore.embeddings import cached_embeddings

    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            cached_embeddings(*job)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), initializer=_table_worker,
                             initargs=(os.getpid(),)) as pool:
        for done in as_completed([pool.submit(cached_embeddings, *job) for job in jobs]):
            done.result()


def _table_worker(parent: int) -> None:
    """One BLAS thread per worker: the workers already use every core, and OpenBLAS's threads,
    spinning on a busy machine, made one eigendecomposition take ten times as long."""
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = "1"
    die_with_parent(parent)


def _done_now(job):
    """A finished future for a job baked in this process (one worker, or one job)."""
    future = Future()
    try:
        future.set_result(bake_group(job))
    except BaseException as error:
        future.set_exception(error)
    return future

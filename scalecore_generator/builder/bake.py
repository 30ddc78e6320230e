"""The bake: every point of every kind's grid, computed once at build time and cached by content.

A kind's points are baked in *groups*, the points that travel in one ``data.js`` (see
scalecore_generator/kinds/kind.py): a group is one cache entry (scalecore_generator/foundation/cache/
entries.py) holding each point's JSON, its figures and the ``data.js`` (the same data for pages
opened from file://, where fetch is blocked but a classic script tag still loads). An entry's key hashes only what shapes its files:
the kind's folder, the compute function's module and the modules of its package it imports, the
group's parameters and the content of the site files it reads (a corpus's embedding table). So a
new core module re-bakes nothing, and a changed corpus re-bakes only its own groups.

Before anything is computed the build counts each kind's points; after the first group it
projects the bytes. Above the budget it stops, naming the block that asked for the kind. Groups
run in parallel, one process per core; the workers die with the build. With the plugin option
``bake_scheduler`` the same groups run on a Dask cluster instead (scalecore_generator/builder/cluster.py).
"""

import hashlib
import json
import os
import shutil
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from scalecore_generator.builder.points import BakeError, Cluster, bake_group, code_version, data_key, dumps
from scalecore_generator.builder.progress import BakeProgress, count_in_worker, points_counter
from scalecore_generator.foundation import cache
from scalecore_generator.foundation.processes import die_with_parent
from scalecore_generator.kinds.kind import EmptyAxis, Grid, Kind, Site

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
    a file's sha256 (the build's digest ledger: foundation/cache/digests.py), read now by default;
    ``use``: the build's use of the cache, which notes every entry it takes or bakes.
    """
    root = Path(cache_dir) / "bake"
    root.mkdir(parents=True, exist_ok=True)
    cache.remove_abandoned(root)
    baked, jobs, kinds_by_name = {}, [], dict(kinds)
    input_hashes = {path: digest(file) for path, file in inputs.items()}
    for name, kind in kinds.items():
        try:
            grid = kind().grid(sites[name])
        except EmptyAxis as error:  # the setting that left an axis empty, named with its line
            raise BakeError(f"the kind {name!r}: {error}.") from None
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
    log.info(f"bake: {total} group{'' if total == 1 else 's'} of {sum(b.grid.size for b in baked.values())} points in {kinds}; "
             f"{total - len(jobs)} from the cache, {len(jobs)} to compute")
    _run(jobs, baked, workers, budget, used_at, log, cluster, kinds_by_name)
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
    origins = _origins(kind.name, site)  # where the kind's setting values are written, for a failing job's message
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
                             inputs={path: str(inputs[path]) for path in reads}, origins=origins,
                             points=[(point, p, grid.inner(point)) for point, p in zip(points, params)]))
    return bake, jobs


def _origins(kind: str, site) -> dict[str, str]:
    """Where each value of the kind's own settings is written (its setting's line in mkdocs.yml),
    by the value as JSON: a compute function that fails for one point names the line to change."""
    origins = {}
    for setting, value in (site.options or {}).items():
        where = site.option_at("kinds", kind, setting)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            try:
                origins.setdefault(dumps(item), where.strip(" ()"))
            except (TypeError, ValueError):
                continue
    return {value: where for value, where in origins.items() if where}


class LocalProcesses:
    """The default executor of the bake: one process per worker on this machine, which die with
    the build. A group's worker writes its cache entry itself (it shares the disk)."""

    def __init__(self, workers: int, counter=None):
        from concurrent.futures import ProcessPoolExecutor  # a cold bake's: its import is multiprocessing's

        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=_bake_worker, initargs=(os.getpid(), counter))

    def submit(self, job: dict) -> Future:
        return self.pool.submit(bake_group, job)

    def collect(self, job: dict, future: Future) -> None:
        future.result()  # a worker's BakeError goes on from here

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _executor(jobs: list, workers: int, cluster, kinds: dict, log, counter=None):
    """Where the groups run: a Dask cluster when the site names one, else local processes (none
    at all, the groups baked in this process, for one worker or one group)."""
    if cluster is not None:
        from scalecore_generator.builder.cluster import DaskCluster

        return DaskCluster(cluster, {name: kinds[name] for name in dict.fromkeys(name for name, _ in jobs)}, log)
    if workers == 1 or len(jobs) == 1:
        return None
    return LocalProcesses(workers, counter)


def _run(jobs, baked, workers, budget, used_at, log, cluster=None, kinds=None):
    """Bake every job, in parallel: each kind's first group is sent first, and the bytes budget is
    checked as soon as it is done (a kind over budget stops the build and leaves nothing in the
    cache), while the other groups go on meanwhile on the other workers. The groups go through a
    concurrent.futures-style executor: local processes, or a Dask cluster (``cluster``)."""
    if not jobs:
        return
    firsts = {name: job for name, job in reversed(jobs)}
    ordered = list(firsts.items()) + [(name, job) for name, job in jobs if job is not firsts[name]]
    counter = points_counter()
    executor = _executor(ordered, workers, cluster, kinds or {}, log, counter)
    if executor is None:
        count_in_worker(counter)  # the groups are baked in this process
        outcomes = ((name, job, _done_now(job)) for name, job in ordered)
    else:
        futures = {executor.submit(job): (name, job) for name, job in ordered}
        outcomes = ((*futures[future], future) for future in as_completed(futures))
    pending = [name for name, _ in ordered]
    progress = BakeProgress(sum(len(job["points"]) for _, job in jobs), len(jobs), log, counter)
    progress.computing(_counted(pending))
    try:
        for name, job, future in outcomes:
            if executor is None:
                future.result()  # a BakeError goes on from here
            else:
                executor.collect(job, future)
            pending.remove(name)
            progress.group_landed(len(job["points"]), _counted(pending))
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
    finally:
        progress.stop()
        count_in_worker(None)
        if executor is not None:
            executor.shutdown()


def _counted(names: list[str]) -> str:
    counts = {name: names.count(name) for name in dict.fromkeys(names)}
    return ", ".join(f"{count} group{'s' * (count != 1)} of {name!r}" for name, count in counts.items())


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


def _bake_worker(parent: int, counter) -> None:
    """A local worker: it dies with the build, and adds each point it computes to ``counter``."""
    die_with_parent(parent)
    count_in_worker(counter)


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

"""What live mode ships with a site: Pyodide and the site's wheels (runtime/pyodide.py), the
memory snapshot that starts Python in a fraction of the time (runtime/snapshot.py), and the
console's full scientific stack (runtime/fullstack.py). Each function takes the running
``SiteBuild`` and adds to the runtime's entries what the manifest will list."""

from __future__ import annotations

from pathlib import Path

from scalecore_generator.errors import BuildError
from scalecore_generator.foundation import said
from scalecore_generator.runtime import fullstack, snapshot
from scalecore_generator.runtime import pyodide as runtime


def runtime_of(build) -> runtime.Runtime:
    """Pyodide's files, the wheels and their lock (runtime/pyodide.py), the wheels' digests
    from the build's ledger."""
    check_shipped(build)
    return runtime.collect(build.root, build.cache, build.packages, build.settings.package_mirror or None,
                           digest=build.digests.of, memo=build.memos["wheels"], computes=live_computes(build))

def live_computes(build) -> list[str]:
    """The compute functions live mode runs (``package.module:function``): those of the kinds
    the pages use. What the browser's Python must be able to import starts from them."""
    used_at, quoted = build.used_by_pages
    return sorted({build.kinds[name].compute for name in set(used_at) | set(quoted)
                   if name in build.kinds and getattr(build.kinds[name], "compute", None)})

def add_full_stack(build, live: runtime.Runtime) -> None:
    """The console's full scientific stack (runtime/fullstack.py), in the runtime's entries."""
    try:
        stack = fullstack.collect(build.cache, build.digests)
    except fullstack.FullStackError as error:
        raise BuildError(f"{build.settings.where('console_full_stack')}: {error}") from None
    live.files.update(stack.files)
    live.manifest.update(stack.manifest)
    live.details.update(stack.details)

def start_snapshot(build):
    """Pyodide's memory snapshot (runtime/snapshot.py), started in a thread before the bake (it
    waits on Chromium in another process): the site's wheels, and the module of every compute
    function of the kinds the pages use (those the manifest will list) imported. None when
    the site ships none."""
    build.early_runtime = None
    settings = build.settings
    if not (settings.live and settings.live_snapshot):
        return None
    import concurrent.futures

    computes = live_computes(build)
    live = build.early_runtime = runtime_of(build)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="scalecore-snapshot")
    job = pool.submit(snapshot.make, runtime.pyodide_folder(build.root), live.wheels(),
                      snapshot.compute_modules(computes), build.cache, build.log,
                      cached_only=build.command == "serve", use=build.cache_use, digest=build.digests.of)
    pool.shutdown(wait=False)
    return job


def add_snapshot(build, live: runtime.Runtime, job) -> None:
    """The snapshot's entry in the runtime; without it the worker loads Python normally."""
    try:
        made = job.result()
    except snapshot.SnapshotError as error:
        if build.command == "serve":  # by design: said once a serve, with nothing to change
            said.once(build.log.info, "live: mkdocs serve makes no memory snapshot of its own: it uses the one the "
                                      "last mkdocs build of the same inputs left in the cache, and there is none yet, "
                                      "so live mode starts Python the normal way here")
            return
        say = build.log.info if isinstance(error, snapshot.SnapshotUnavailable) else build.log.warning
        say(f"live: no memory snapshot ({error}); live mode will start Python the normal way. "
            "To build without trying, set 'live_snapshot: false' for the scalecore plugin.")
        return
    live.files[snapshot.SITE_PATH] = made.path
    live.manifest[snapshot.MANIFEST_KEY] = snapshot.SITE_PATH
    live.details[snapshot.MANIFEST_KEY] = {"key": made.key, "imports": list(made.imports), "bytes": made.raw_bytes}


def check_shipped(build) -> None:
    """Each compute function live mode runs is in a package the site ships to the browser (the
    core, or one of the option packages): the bake imports it from the site's folder, so a
    package left out of ``packages`` built green and failed in the reader's browser with
    ModuleNotFoundError."""
    shipped = {"scalecore", *(Path(package).name for package in build.packages)}
    used_at, quoted = build.used_by_pages
    for name in sorted(set(used_at) | set(quoted)):
        kind = build.kinds.get(name)
        compute = getattr(kind, "compute", None) if kind is not None else None
        top = compute.partition(":")[0].split(".")[0] if compute else None
        if top is None or top in shipped:
            continue
        where = _compute_line(kind)
        listed = ", ".join(sorted(shipped - {"scalecore"}))
        raise BuildError(f"{where}: the kind {name!r} computes with {compute}, but {top!r} is not one of the "
                         f"site's packages, so live mode cannot import it in the reader's browser (the build "
                         f"imports it from the site's folder). Fix: list it in {build.settings.where('packages')}: "
                         f"packages: [{listed + ', ' if listed else ''}{top}]")


def _compute_line(kind) -> str:
    """The kind's ``compute = ...`` line, as messages name it (kind.py:line), else its file."""
    source = Path(kind.folder) / "kind.py"
    try:
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip().startswith("compute"):
                return f"{source}:{number}"
    except OSError:
        pass
    return str(source)

"""The bake on local processes against a Dask cluster, in one run: ``.venv/bin/python -m benchmarks.bake``.

The repository's site is built once to warm everything but the bake (the embedding tables, the
wheel, the templates); then its baked groups are removed from the cache before each measured
build, so each bakes the whole grid again and nothing else: with ``workers: 1``, with
``workers: 2``, and with ``bake_scheduler`` naming a ``LocalCluster`` of two worker processes
(one thread each, no dashboard, on 127.0.0.1) started by this benchmark. The time is the
plugin's own log line for the bake; for the cluster it includes connecting, sending the kinds'
code and tables, and writing the files sent back. The sites are compared byte for byte. Beside
each time: the CPU seconds of the build, its processes and (for the cluster) the cluster's
worker processes, and the load average when it ended; on a shared machine the wall times move
with the others' work, the CPU seconds much less.
``live: false``: the memory snapshot, made in Chromium while the bake runs, would share the
cores with it. Prints numbers; asserts nothing.
"""

import os
import platform
import shutil
import tempfile
from pathlib import Path

from benchmarks.build import (ROOT, build_env, plugin_entry, read_config, seed_bytecode, verbose_build,
                              verbose_build_cpu, write_config)


def tree(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file()}


def cluster_cpu(cluster) -> float:
    """CPU seconds the cluster's worker processes have used so far (they are not the build's
    children, so the build's own count leaves them out)."""
    import psutil
    from distributed import Client

    with Client(cluster.scheduler_address, set_as_default=False) as client:
        pids = client.run(os.getpid).values()
    return sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids)


def main() -> None:
    from distributed import LocalCluster

    import dask

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}; dask {dask.__version__}")
    config = read_config()
    index, options = plugin_entry(config)
    with tempfile.TemporaryDirectory(prefix="scalecore-bench-bake-") as folder:
        work = Path(folder)
        for name in ("docs", "scalecore", "scalecore_generator", "tests"):
            (work / name).symlink_to(ROOT / name, target_is_directory=True)
        cache = work / "cache"

        def variant(name: str, **more) -> Path:
            changed = dict(config, plugins=list(config["plugins"]))
            changed["plugins"][index] = {"scalecore": dict(options, cache_dir=str(cache), live=False, **more)}
            return write_config(changed, work / f"{name}.yml")

        seed_bytecode(Path(build_env(variant("warm-up", workers=2))["PYTHONPYCACHEPREFIX"]))
        print("warming the cache (tables, templates) ...", flush=True)
        verbose_build(variant("warm-up", workers=2), work / "site-warm-up")
        results = {}
        with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                          host="127.0.0.1") as cluster:
            for name, more in (("workers: 1", dict(workers=1)), ("workers: 2", dict(workers=2)),
                               ("Dask LocalCluster, 2 workers", dict(bake_scheduler=cluster.scheduler_address))):
                shutil.rmtree(cache / "bake", ignore_errors=True)
                slug = name.split(",")[0].replace(": ", "-").replace(" ", "-").lower()
                workers_before = cluster_cpu(cluster)
                whole, bake, cpu = verbose_build_cpu(variant(slug, **more), work / f"site-{slug}")
                cpu += cluster_cpu(cluster) - workers_before
                results[name] = (bake, whole, tree(work / f"site-{slug}"), cpu, os.getloadavg()[0])
        sites = [result[2] for result in results.values()]
        same = all(site == sites[0] for site in sites)

    print("\nbake of the whole grid on a cold bake cache (the plugin's own timing; whole build beside it):")
    for name, (bake, whole, _, cpu, load) in results.items():
        print(f"  {name:30} {bake:7.2f} s   (whole build {whole:.2f} s, CPU {cpu:.2f} s; load average {load:.1f})")
    one, two, dask_two = (results[name][0] for name in results)
    print(f"\n  workers: 1 / workers: 2            {one / two:6.2f} x")
    print(f"  workers: 1 / Dask, 2 workers       {one / dask_two:6.2f} x")
    print(f"  Dask, 2 workers / workers: 2       {dask_two / two:6.2f}   (the same two cores, through the cluster)")
    cpus = [result[3] for result in results.values()]
    print(f"  CPU seconds, Dask / workers: 2     {cpus[2] / cpus[1]:6.2f}   (what the cluster adds to the work)")
    print(f"\n  the three sites byte-identical: {'yes' if same else 'NO'} ({len(sites[0])} files)")


if __name__ == "__main__":
    main()

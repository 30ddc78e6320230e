"""What the console's full stack costs a build, measured in one run:
``.venv/bin/python -m benchmarks.fullstack_build``.

The repository's site (console_full_stack on) built four ways, each against a plain
mkdocs-material build of the same pages (benchmarks/build.py: plugin removed, author blocks
stripped; the median of ``--repeat`` builds):

- cold, the user cache empty: a new site cache and a new user cache (SCALECORE_USER_CACHE), so
  the build trims the standard library and makes the full stack's gzip parts
  (runtime/fullstack.py), besides baking, learning tables and making the memory snapshot;
- cold, the user cache filled: a new site cache, the user cache the first build filled: what a
  second site or a fresh clone on the same machine pays;
- warm into the same folder: the first build's cache and site again, nothing changed (the
  median of ``--repeat``);
- warm into a new output folder: the same cache, ``-d`` a folder that does not exist yet (the
  parts are copied, not linked, from the user cache).

Prints numbers and the parts made (files and bytes in the user cache); asserts nothing.
Nothing is written in the repository or in the machine's own user cache: everything lives in a
temporary folder.
"""

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from benchmarks.build import (ROOT, _quiet_build, build_env, plain_docs, plugin_entry, read_config,
                              seed_bytecode, versions, write_config)


def _user_cache_files(folder: Path) -> tuple[int, int]:
    files = [path for path in folder.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of the warm and plain builds (median)")
    arguments = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; {versions()}")
    config = read_config()
    index, options = plugin_entry(config)
    if not options.get("console_full_stack"):
        raise SystemExit("mkdocs.yml does not turn console_full_stack on")

    with tempfile.TemporaryDirectory(prefix="scalecore-fullstack-bench-") as folder:
        work = Path(folder)
        for name in ("docs", "scalecore", "scalecore_generator", "tests"):
            (work / name).symlink_to(ROOT / name, target_is_directory=True)

        def ours(name: str) -> Path:
            changed = dict(config, plugins=list(config["plugins"]))
            changed["plugins"][index] = {"scalecore": dict(options, cache_dir=str(work / f"cache-{name}"))}
            return write_config(changed, work / f"{name}.yml")

        plain = dict(config, plugins=[p for i, p in enumerate(config["plugins"]) if i != index],
                     docs_dir=str(plain_docs(ROOT / "docs", work / "plain-docs")), strict=False)
        plain_file = write_config(plain, work / "plain.yml")
        first, second = ours("first"), ours("second")
        seed_bytecode(Path(build_env(first)["PYTHONPYCACHEPREFIX"]))
        user_cache = work / "user-cache"
        os.environ["SCALECORE_USER_CACHE"] = str(user_cache)  # build_env passes it on to each build

        print("building ...", flush=True)
        cold_empty, cold_empty_cpu, _ = _quiet_build(first, work / "site-first")
        made = _user_cache_files(user_cache)
        cold_filled, cold_filled_cpu, _ = _quiet_build(second, work / "site-second")
        after = _user_cache_files(user_cache)
        rounds = [(_quiet_build(first, work / "site-first"), _quiet_build(plain_file, work / "site-plain"))
                  for _ in range(arguments.repeat)]
        new_folders = [_quiet_build(first, work / f"site-new-{i}") for i in range(arguments.repeat)]

    median = statistics.median
    warm, warm_cpu = median(r[0][0] for r in rounds), median(r[0][1] for r in rounds)
    plain_time, plain_cpu = median(r[1][0] for r in rounds), median(r[1][1] for r in rounds)
    new, new_cpu = median(b[0] for b in new_folders), median(b[1] for b in new_folders)
    print(f"\nthe user cache after the first cold build: {made[0]} files, {made[1] / 1e6:.1f} MB; after the second: "
          f"{after[0]} files, {after[1] / 1e6:.1f} MB ({'no new parts' if after == made else 'CHANGED'})")
    print(f"\n  plain mkdocs-material build           {plain_time:7.2f} s   (median of {arguments.repeat}; CPU {plain_cpu:.2f} s)")
    rows = [("cold, user cache empty", cold_empty, cold_empty_cpu, "one build"),
            ("cold, user cache filled", cold_filled, cold_filled_cpu, "one build"),
            ("warm, the same folder", warm, warm_cpu, f"median of {arguments.repeat}"),
            ("warm, a new output folder", new, new_cpu, f"median of {arguments.repeat}")]
    for label, seconds, cpu, how in rows:
        print(f"  scalecore, {label:27} {seconds:7.2f} s   ({how}; CPU {cpu:.2f} s)   "
              f"/ plain {seconds / plain_time:6.2f}  (CPU {cpu / plain_cpu:.2f})")


if __name__ == "__main__":
    main()

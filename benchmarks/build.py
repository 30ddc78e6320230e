"""Site build benchmarks, measured in one run: ``.venv/bin/python -m benchmarks.build``.

- a cold build (empty cache: embeddings learned, the grid and lessons baked, wheel built,
  Pyodide's memory snapshot made in Chromium), and the same without the snapshot
  (``live_snapshot: false``): what the snapshot adds to a cold build, and what the bake alone costs,
- a warm build (the same cache, nothing changed, into the site the build before published, as an
  author rebuilds), and where its time goes, stage by stage (benchmarks/stages.py),
- a plain mkdocs-material build of the same pages: the scalecore plugin removed and the author
  blocks (``/// kind`` ... ``///``) stripped from the markdown,

printed as times and as the ratios warm/plain and cold/plain; then the bake's parallel speed-up:
a second cold build with ``workers: 1`` against the first (``workers: 0``, one per core), from the
bake's own log line. Prints numbers; asserts nothing (no thresholds: see the README).

Nothing is written in the repository: each build gets its own mkdocs.yml in a temporary folder
that links to the repository's docs/, scalecore/ and scalecore_generator/, its own cache folder and
its own site folder.
"""

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


class _TaggedLoader(yaml.SafeLoader):
    """Reads mkdocs.yml without constructing custom tags (!ENV, !!python/name:...)."""


class _Tagged:
    def __init__(self, tag, node):
        self.tag, self.node = tag, node


class _TaggedDumper(yaml.SafeDumper):
    """Writes the tags read by _TaggedLoader back unchanged."""


def _construct_tagged(loader, suffix, node):
    return _Tagged(node.tag, node)


def _represent_tagged(dumper, value):
    return value.node


_TaggedLoader.add_multi_constructor("", _construct_tagged)
_TaggedDumper.add_representer(_Tagged, _represent_tagged)


def read_config() -> dict:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_TaggedLoader)


def write_config(config: dict, path: Path) -> Path:
    path.write_text(yaml.dump(config, Dumper=_TaggedDumper, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def plugin_entry(config: dict) -> tuple[int, dict]:
    for index, entry in enumerate(config.get("plugins", [])):
        if isinstance(entry, dict) and "scalecore" in entry:
            return index, entry["scalecore"] or {}
    raise SystemExit("mkdocs.yml does not use the scalecore plugin")


def strip_blocks(markdown: str) -> str:
    """The page without its author blocks (found by the plugin's own scanner) and with every
    ``{{ baked: ... }}`` quote replaced by a number, as a plain Material page would have it."""
    from scalecore_generator.blocks.scanner import scan
    from scalecore_generator.pages.quotes import QUOTE
    from scalecore_generator.kinds.registry import discover

    lines = [segment for segment in scan(markdown, list(discover())) if isinstance(segment, str)]
    return QUOTE.sub("0.5", "\n".join(lines))


def plain_docs(source: Path, target: Path) -> Path:
    for path in sorted(source.rglob("*")):
        destination = target / path.relative_to(source)
        if path.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
        elif path.suffix == ".md":
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text(strip_blocks(path.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)
    return target


def build_env(config_file: Path) -> dict:
    """The environment of a measured build: a user's, with Python's bytecode cache on. Where
    PYTHONDONTWRITEBYTECODE is set (as on the machines here), every build would compile the
    repository's modules again (about 50 of them), which no user's warm rebuild pays; the
    bytecode goes into the run's temporary folder, beside the config file, never into the
    repository, seeded with what the installed packages already have (seed_bytecode). Both
    variants share it."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return dict(env, NO_MKDOCS_2_WARNING="1", SOURCE_DATE_EPOCH="1700000000",
                PYTHONPYCACHEPREFIX=str(config_file.parent / "pycache"))


def seed_bytecode(prefix: Path) -> int:
    """Put the compiled modules the standard library and the installed packages already have
    (Python's installer and pip compile them) where the builds' Python looks for them, and
    return how many. Under PYTHONPYCACHEPREFIX Python reads bytecode from the prefix only, never
    from the __pycache__ folders beside the sources, so with an empty prefix the cold build
    compiled every module it imported (importing mkdocs, Material's search, numpy, jsonschema,
    Pygments' lexers and fontTools alone compiled 553 modules: 2.2 s against 0.5 s), which no
    user's first build pays. The repository's own modules are not seeded: a user's first build
    compiles those too."""
    import sysconfig

    tag = sys.implementation.cache_tag
    folders = {Path(sysconfig.get_path(name)) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    seeded = 0
    for folder in sorted(f for f in folders if f.is_dir()):
        for cache_dir, _, names in os.walk(folder):
            if Path(cache_dir).name != "__pycache__":
                continue
            for name in names:
                stem, _, rest = name.partition(".")
                source = Path(cache_dir).parent / f"{stem}.py"
                target = prefix / source.parent.relative_to(source.anchor) / f"{stem}.{tag}.pyc"
                if rest != f"{tag}.pyc" or not source.is_file() or target.exists():  # folders can nest
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(Path(cache_dir) / name, target)
                except OSError:
                    shutil.copyfile(Path(cache_dir) / name, target)
                seeded += 1
    return seeded


def timed_build(config_file: Path, site_dir: Path) -> tuple[float, str]:
    """Seconds of ``mkdocs build`` (a fresh process, as a user runs it) and its log."""
    seconds, _, log = _quiet_build(config_file, site_dir)
    return seconds, log


def _quiet_build(config_file: Path, site_dir: Path) -> tuple[float, float, str]:
    """(seconds, CPU seconds of the build and every process it started, log) of ``mkdocs build``."""
    env = build_env(config_file)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config_file), "-d", str(site_dir)],
                          cwd=config_file.parent, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"build failed ({config_file.name}):\n{done.stdout}\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, done.stderr


def verbose_build(config_file: Path, site_dir: Path) -> tuple[float, float]:
    """A build at INFO level: (whole build seconds, bake seconds from the plugin's log line)."""
    seconds, bake, _ = verbose_build_cpu(config_file, site_dir)
    return seconds, bake


def verbose_build_cpu(config_file: Path, site_dir: Path) -> tuple[float, float, float]:
    """verbose_build's two figures and the CPU seconds of the build and every process it started
    (a busy shared machine weighs less on them than on the wall time)."""
    env = build_env(config_file)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config_file), "-d", str(site_dir)],
                          cwd=config_file.parent, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"build failed ({config_file.name}):\n{done.stdout}\n{done.stderr}")
    bake = re.search(r"scalecore: bake: \d+ points ready in ([0-9.]+) s", done.stderr)
    if not bake:
        raise SystemExit(f"no bake line in the log of {config_file.name}:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, float(bake.group(1)), cpu


def serve_both(work: Path) -> Path:
    """Build the site twice into ``work/serve``: ``site/`` with the plugin (the repository's warm
    cache) and ``plain/`` as plain mkdocs-material (plugin removed, blocks stripped). Returns the
    folder to serve; the browser benchmarks compare the same page in both."""
    config = read_config()
    index, _ = plugin_entry(config)
    for name in ("docs", "scalecore", "scalecore_generator", "tests"):
        (work / name).symlink_to(ROOT / name, target_is_directory=True)
    ours = dict(config, plugins=list(config["plugins"]))
    ours["plugins"][index] = {"scalecore": dict(config["plugins"][index]["scalecore"] or {},
                                                cache_dir=str(ROOT / ".cache" / "scalecore"))}
    plain = dict(config, plugins=[p for i, p in enumerate(config["plugins"]) if i != index],
                 docs_dir=str(plain_docs(ROOT / "docs", work / "plain-docs")), strict=False)
    timed_build(write_config(ours, work / "ours.yml"), work / "serve" / "site")
    timed_build(write_config(plain, work / "plain.yml"), work / "serve" / "plain")
    return work / "serve"


def stage_times(config_file: Path, site_dir: Path) -> dict:
    """One warm build with each stage timed (benchmarks/stages.py, a fresh process)."""
    done = subprocess.run([sys.executable, "-m", "benchmarks.stages", "-f", str(config_file), "-d", str(site_dir)],
                          cwd=ROOT, env=build_env(config_file), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the timed build failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def versions() -> str:
    from importlib.metadata import version

    return ", ".join(f"{name} {version(name)}" for name in ("mkdocs", "mkdocs-material", "numpy"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of the warm and plain builds (median)")
    arguments = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()} on {platform.system()} "
          f"{platform.machine()}; {versions()}")
    config = read_config()
    index, options = plugin_entry(config)
    print(f"site: {ROOT / 'mkdocs.yml'}: corpora {options.get('corpora') or 'all'}, seeds {options.get('seeds')}, "
          f"live {options.get('live', True)}")

    with tempfile.TemporaryDirectory(prefix="scalecore-bench-") as folder:
        work = Path(folder)
        for name in ("docs", "scalecore", "scalecore_generator", "tests"):
            (work / name).symlink_to(ROOT / name, target_is_directory=True)

        def scalecore_config(name: str, workers: int, **more) -> Path:
            changed = dict(config, plugins=list(config["plugins"]))
            cache = str(work / f"cache-{name}")
            changed["plugins"][index] = {"scalecore": dict(options, workers=workers, cache_dir=cache, **more)}
            return write_config(changed, work / f"{name}.yml")

        plain = dict(config, plugins=[p for i, p in enumerate(config["plugins"]) if i != index],
                     docs_dir=str(plain_docs(ROOT / "docs", work / "plain-docs")), strict=False)
        plain_file = write_config(plain, work / "plain.yml")

        parallel = scalecore_config("parallel", workers=0)
        serial = scalecore_config("serial", workers=1)
        no_snapshot = scalecore_config("no-snapshot", workers=0, live_snapshot=False)

        seeded = seed_bytecode(Path(build_env(parallel)["PYTHONPYCACHEPREFIX"]))
        print(f"bytecode: {seeded} compiled modules of the standard library and the installed packages reused, "
              "as a user's Python has them (the repository's own are compiled by the cold build)")
        print("\nbuilding ...", flush=True)
        cold, bake_parallel, cold_cpu = verbose_build_cpu(parallel, work / "site")
        # Warm and plain builds alternate, so that a busy spell of the (shared) machine weighs on
        # both alike; the CPU time of each build is less sensitive to other work than its wall time.
        # Each rebuilds the site its last build published, as an author's next build does.
        rounds = [(_quiet_build(parallel, work / "site"), _quiet_build(plain_file, work / "site-plain"))
                  for i in range(arguments.repeat)]
        warm, plain_time = (statistics.median(r[0][0] for r in rounds), statistics.median(r[1][0] for r in rounds))
        warm_cpu, plain_cpu = (statistics.median(r[0][1] for r in rounds), statistics.median(r[1][1] for r in rounds))
        stages = stage_times(parallel, work / "site")
        cold_serial, bake_serial = verbose_build(serial, work / "site-serial")
        cold_bare, _, cold_bare_cpu = verbose_build_cpu(no_snapshot, work / "site-no-snapshot")

    print(f"\n  plain mkdocs-material build   {plain_time:7.2f} s   (median of {arguments.repeat}; CPU {plain_cpu:.2f} s)")
    print(f"  scalecore, warm cache         {warm:7.2f} s   (median of {arguments.repeat}; CPU {warm_cpu:.2f} s)")
    print(f"  scalecore, cold cache         {cold:7.2f} s   (workers: 0, one per core; CPU {cold_cpu:.2f} s)")
    print(f"  the same, without snapshot    {cold_bare:7.2f} s   (live_snapshot: false; CPU {cold_bare_cpu:.2f} s)")
    print(f"\n  warm / plain   {warm / plain_time:6.2f}   (CPU time: {warm_cpu / plain_cpu:.2f})")
    print(f"  cold / plain   {cold / plain_time:6.2f}   (CPU time: {cold_cpu / plain_cpu:.2f}; "
          f"without the snapshot {cold_bare / plain_time:.2f})")
    print(f"\n  what Scalecore adds to a warm rebuild: {warm - plain_time:.2f} s (CPU {warm_cpu - plain_cpu:.2f} s)")
    print(f"\n  one more warm build, stage by stage ({stages['whole']:.2f} s in all; importing the generator "
          f"{stages['import']:.2f} s; a stage's time includes the stages it calls):")
    for label, stage in sorted(stages["stages"].items(), key=lambda item: -item[1]["seconds"])[:16]:
        print(f"    {stage['seconds'] * 1000:7.1f} ms  {label} (x{stage['calls']})")
    print("\nbake on a cold cache (the plugin's own timing of the grid):")
    print(f"  workers: 1          {bake_serial:7.2f} s   (whole build {cold_serial:.2f} s)")
    print(f"  workers: 0 ({os.cpu_count()} cores) {bake_parallel:7.2f} s   (whole build {cold:.2f} s)")
    print(f"  parallel speed-up  {bake_serial / bake_parallel:6.2f} x  (whole build {cold_serial / cold:.2f} x)")


if __name__ == "__main__":
    main()

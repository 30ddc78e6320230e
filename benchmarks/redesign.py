"""Before and after a redesign, measured in one run: ``.venv/bin/python -m benchmarks.redesign [REV]``.

Builds the site of an earlier commit (default: the last one before the kinds redesign) and of
the working tree, each with its own code, its own empty cache and the same plain mkdocs-material
baseline of its own pages, and prints for both: the cold and warm build times, their ratios to
the plain build, and the bytes the module page loads in headless Chromium before any live use.
The earlier tree is taken with ``git archive`` into a temporary folder; its npm packages are the
working tree's. The earlier tree may need packages the current pins dropped (matplotlib drew
the figures before the shared views): install them in the virtualenv for this run.
Prints numbers; asserts nothing.
"""

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.browser import ARGS, PAGE, page_weight, serve
from benchmarks.build import ROOT, plain_docs, plugin_entry, read_config, timed_build, verbose_build, write_config

BEFORE = "d1ede80"  # the last commit before "Kinds: an interactive is one folder"
REPEAT = 3


def tree_at(revision: str, target: Path) -> Path:
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    (target / "build_tools" / "node_modules").symlink_to(ROOT / "build_tools" / "node_modules")
    return target


def measure(source: Path, work: Path, serving: Path) -> dict:
    """Cold, warm and plain builds of the site in ``source`` (its own code: the builds run in a
    folder whose build_tools/ and scalecore/ are that tree's)."""
    work.mkdir(parents=True)
    for name in ("docs", "corpora", "build_tools", "scalecore", "tests"):
        (work / name).symlink_to(source / name, target_is_directory=True)
    config = yaml_config(source)
    index, options = plugin_entry(config)
    ours = dict(config, plugins=list(config["plugins"]))
    ours["plugins"][index] = {"scalecore": dict(options, cache_dir=str(work / "cache"))}
    plain = dict(config, plugins=[p for i, p in enumerate(config["plugins"]) if i != index],
                 docs_dir=str(plain_docs(source / "docs", work / "plain-docs")), strict=False)
    ours_file, plain_file = write_config(ours, work / "ours.yml"), write_config(plain, work / "plain.yml")
    cold, _ = verbose_build(ours_file, serving / "site") if _reports_points(source) else (
        timed_build(ours_file, serving / "site")[0], None)
    warm = statistics.median(timed_build(ours_file, work / f"warm-{i}")[0] for i in range(REPEAT))
    plain_time = statistics.median(timed_build(plain_file, work / f"plain-{i}")[0] for i in range(REPEAT))
    timed_build(plain_file, serving / "plain")
    return dict(cold=cold, warm=warm, plain=plain_time)


def _reports_points(source: Path) -> bool:
    return "points ready in" in (source / "build_tools" / "plugin.py").read_text(encoding="utf-8")


def yaml_config(source: Path) -> dict:
    import yaml

    from benchmarks.build import _TaggedLoader

    return yaml.load((source / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_TaggedLoader)


def main() -> None:
    from playwright.sync_api import sync_playwright

    revision = sys.argv[1] if len(sys.argv) > 1 else BEFORE
    print(f"machine: {os.cpu_count()} cores; before = {revision}, after = the working tree; "
          f"warm and plain: medians of {REPEAT}")
    results = {}
    with tempfile.TemporaryDirectory(prefix="scalecore-redesign-") as folder:
        work = Path(folder)
        trees = {"before": tree_at(revision, work / "before-tree"), "after": ROOT}
        for name, source in trees.items():
            print(f"building {name} ...", flush=True)
            results[name] = measure(source, work / f"{name}-work", work / f"{name}-serve")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for name in trees:
                server, base = serve(work / f"{name}-serve")
                try:
                    results[name]["weight"], results[name]["pyodide"] = page_weight(browser, base + "site/" + PAGE)
                    results[name]["plain_weight"], _ = page_weight(browser, base + "plain/" + PAGE)
                finally:
                    server.shutdown()
            browser.close()
    print(f"\n{'':8}{'cold':>9}{'warm':>9}{'plain':>9}{'cold/plain':>12}{'warm/plain':>12}{'page kB':>10}"
          f"{'plain kB':>10}{'weight ratio':>14}")
    for name, r in results.items():
        print(f"{name:8}{r['cold']:8.2f}s{r['warm']:8.2f}s{r['plain']:8.2f}s{r['cold'] / r['plain']:12.2f}"
              f"{r['warm'] / r['plain']:12.2f}{r['weight'] / 1e3:10.0f}{r['plain_weight'] / 1e3:10.0f}"
              f"{r['weight'] / r['plain_weight']:14.2f}")
    print(f"\nPyodide bytes before live use: before {results['before']['pyodide']}, after {results['after']['pyodide']}")


if __name__ == "__main__":
    main()

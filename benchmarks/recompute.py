"""Live recompute, kind by kind (issue 48): ``.venv/bin/python -m benchmarks.recompute``.

What a reader waits for after pressing Recompute live, for the three kinds that compute live on
the module pages, with the share of each step:

- in CPython and under the project's Pyodide in Node: the kind's compute function on its whole
  request, as the worker calls it (``scalecore.browser.compute``, JSON in and out), the same
  request again and a new seed each time (medians of 15);
- in headless Chromium, on the repository's site built into a temporary folder (warm cache): the
  panel's own form, clicked; the first compute (which starts Pyodide, from the build's memory
  snapshot) is not counted, then 5 of the same request (what benchmarks/browser.py measures),
  then 5 with a new seed each (what a reader who changes the seed or the sentence waits for),
  medians, each split into the request (sent to answered, the page's clock), the worker's own
  time on it (Python and its JSON text), the page parsing that JSON, and the rest of click to
  shown (the panel's repaint). ``--pause MS`` waits that long after each answer before the next
  click, as a reader does (the worker warms up in idle time after a short compute: worker.js);
  back to back, a click can wait for a warm-up run under way (request minus worker).

The requests: scale-guards 8 guard sets of one head (modules/softmax-range.html), multihead 8
guard sets of 4 heads (modules/multi-head-attention.html), encoder 3 LayerNorm placements x 6
layers of 4 heads (modules/encoder-block.html), each on the page's first live panel and corpus.
Prints numbers; asserts nothing (no thresholds: see the README).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.browser import ARGS, open_live_form, serve
from benchmarks.build import ROOT, plugin_entry, read_config, timed_build, write_config

SENTENCE = "the old man looked at the light of the sun"
# kind, page, what one request computes, and the request's points (Python side) for a corpus
KINDS = (
    ("scale-guards", "modules/softmax-range.html", "8 guard sets of one head"),
    ("multihead", "modules/multi-head-attention.html", "8 guard sets of 4 heads"),
    ("encoder", "modules/encoder-block.html", "3 LayerNorm placements x 6 layers of 4 heads"),
)
# Run in both runtimes: ``site`` is a built site's folder, ``CORPUS`` a corpus it has.
PYTHON = """
import json, statistics, time
from scalecore import browser, sitedata
from scalecore.guards import all_guard_sets
sitedata.use(lambda path: open(site + "/" + path, encoding="utf-8").read())
GUARDS = [str(g) for g in all_guard_sets()]
SENTENCE = "the old man looked at the light of the sun"
REQUESTS = {
    "scale-guards": ("scalecore.experiment:combination", lambda seed: [dict(corpus=CORPUS, seed=seed, guards=g,
                     sentence=SENTENCE, d_k=16, vocabulary_size=2000) for g in GUARDS]),
    "multihead": ("scalecore.multihead:combination", lambda seed: [dict(corpus=CORPUS, seed=seed, heads=4, guards=g,
                  sentence=SENTENCE) for g in GUARDS]),
    "encoder": ("scalecore.encoder:block", lambda seed: [dict(corpus=CORPUS, seed=seed, norm=n, heads=4, layers=6,
                sentence=SENTENCE) for n in ("none", "post", "pre")]),
}
def ms(kind, seed):
    function, points = REQUESTS[kind]
    text = json.dumps(points(seed))
    started = time.perf_counter()
    browser.compute(function, text)
    return (time.perf_counter() - started) * 1000
result = {}
for kind in REQUESTS:
    ms(kind, 0)  # reads the table
    result[kind] = {"same": statistics.median([ms(kind, 0) for _ in range(15)]),
                    "fresh": statistics.median([ms(kind, seed) for seed in range(1000, 1015)])}
"""


def python_times(site: Path, corpus: str, root: Path, node: bool) -> tuple[dict, dict | str]:
    """Median ms of each kind's request in CPython and under Pyodide in Node (or why not there),
    with the core in ``root``."""
    from scalecore_generator.runtime.wheel import build_wheel
    from tests.pyodide_node import missing_runtime, run_in_pyodide

    code = f"site = {str(site)!r}\nCORPUS = {corpus!r}\n" + PYTHON + "\nprint(json.dumps(result))"
    done = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(root)), cwd=root,
                          capture_output=True, text=True, check=True)
    cpython = json.loads(done.stdout.strip().splitlines()[-1])
    reason = "not run (--no-node)" if not node else missing_runtime()
    if reason:
        return cpython, reason
    with tempfile.TemporaryDirectory(prefix="scalecore-recompute-") as folder:
        wheel = build_wheel(root / "scalecore", Path(folder))
        code = f"site = '/mnt/site'\nCORPUS = {corpus!r}\n" + PYTHON
        return cpython, run_in_pyodide(code, wheel, mount=site, timeout=600)["result"]


def _children(pid_of_browser: int) -> list[int]:
    """The processes descending from the browser process (its renderers among them)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = [], [pid_of_browser]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def worker_cpu_ns(pid_of_browser: int | None) -> tuple[int, int]:
    """CPU time and run-queue wait, in ns, of every dedicated worker thread of the browser's
    renderers so far (Linux schedstat): the worker's own work, whatever else the machine runs."""
    if pid_of_browser is None:
        return 0, 0
    run = wait = 0
    for pid in _children(pid_of_browser):
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                if (task / "comm").read_text().strip() == "DedicatedWorker":
                    fields = (task / "schedstat").read_text().split()
                    run, wait = run + int(fields[0]), wait + int(fields[1])
            except (OSError, ValueError, IndexError):
                pass
    return run, wait


def browser_pid(nonce: str) -> int | None:
    """The browser process launched with ``nonce`` among its switches (None off Linux)."""
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if nonce.encode() in (entry / "cmdline").read_bytes():
                return int(entry.name)
        except OSError:
            pass
    return None


SPLIT = """() => ({shown: scalecoreTimings.lastRecomputeMs, request: scalecoreTimings.lastRecomputePythonMs,
  worker: (scalecoreTimings.lastCall || {}).workerMs, parse: (scalecoreTimings.lastCall || {}).parseMs})"""


def in_chromium(browser, url: str, kind: str, recomputes: int, pause: int, pid: int | None) -> dict:
    """The first compute, then ``recomputes`` of the same request and as many with new seeds."""
    context, page, panel = open_live_form(browser, url, kind)
    form = panel.locator(".scalecore-live__form")
    run = form.locator("button[type=submit]")
    seed = form.locator("input[type=number]").first  # the seed comes before d_k

    def once() -> dict:
        page.wait_for_timeout(pause)  # a reader reads the numbers, or types a seed, before the next
        page.evaluate("delete scalecoreTimings.lastRecomputeMs")
        cpu, waited = worker_cpu_ns(pid)
        run.click()
        page.wait_for_function("() => scalecoreTimings.lastRecomputeMs !== undefined", timeout=180000)
        split = page.evaluate(SPLIT)
        cpu_after, waited_after = worker_cpu_ns(pid)
        return dict(split, cpu=(cpu_after - cpu) / 1e6, queued=(waited_after - waited) / 1e6)

    # scale-guards computes once when its form opens; the others at the first click
    once()
    same = [once() for _ in range(recomputes)]
    fresh = []
    for number in range(recomputes):
        seed.fill(str(100 + number))
        fresh.append(once())
    context.close()
    return {"same": same, "fresh": fresh}


def median_split(runs: list[dict]) -> dict:
    split = {key: statistics.median(run[key] for run in runs)
             for key in ("shown", "request", "worker", "parse", "cpu", "queued")}
    split["repaint"] = statistics.median(run["shown"] - run["request"] for run in runs)
    split["each"] = [run["shown"] for run in runs]
    return split


def build_site(work: Path, root: Path) -> Path:
    """The repository's site, built with the repository's warm cache, into ``work/serve/site``,
    with the core and the generator in ``root``."""
    config = read_config()
    index, _ = plugin_entry(config)
    for name in ("docs", "tests"):
        (work / name).symlink_to(ROOT / name, target_is_directory=True)
    for name in ("scalecore", "scalecore_generator"):
        (work / name).symlink_to(root / name, target_is_directory=True)
    ours = dict(config, plugins=list(config["plugins"]))
    ours["plugins"][index] = {"scalecore": dict(config["plugins"][index]["scalecore"] or {},
                                                cache_dir=str(ROOT / ".cache" / "scalecore"))}
    seconds, _ = timed_build(write_config(ours, work / "ours.yml"), work / "serve" / "site")
    print(f"site built in {seconds:.1f} s")
    return work / "serve"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recomputes", type=int, default=5, help="recomputes of each request (median)")
    parser.add_argument("--runs", type=int, default=1, help="fresh browser contexts per kind (median of their medians)")
    parser.add_argument("--pause", type=int, default=0,
                        help="ms between one answer and the next click (0: back to back, as benchmarks/browser.py)")
    parser.add_argument("--no-node", action="store_true", help="skip Pyodide in Node")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="a folder with another commit's scalecore and scalecore_generator (git archive; the "
                             "generator's vendor/node_modules linked from the repository's) to measure instead: "
                             "a before and an after in one sitting")
    parser.add_argument("--kinds", nargs="+", default=[kind for kind, _, _ in KINDS], help="the kinds to measure in Chromium")
    arguments = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, Chromium /usr/bin/chromium, "
          f"load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="scalecore-bench-") as folder:
        root = arguments.root.resolve()
        if root != ROOT:
            print(f"core and generator from {root}")
        served = build_site(Path(folder), root)
        site = served / "site"
        corpus = json.loads((site / "api" / "index.json").read_text(encoding="utf-8"))["corpora"][0]["name"]
        cpython, node = python_times(site, corpus, root, not arguments.no_node)
        server, base = serve(served)
        chromium = {}
        try:
            with sync_playwright() as playwright:
                nonce = f"--scalecore-benchmark={os.getpid()}-{time.time_ns()}"  # finds the browser's processes
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS + [nonce])
                pid = browser_pid(nonce)
                for kind, page, _ in KINDS:
                    if kind not in arguments.kinds:
                        continue
                    runs = [in_chromium(browser, base + "site/" + page, kind, arguments.recomputes, arguments.pause, pid)
                            for _ in range(arguments.runs)]
                    chromium[kind] = {which: median_split([r for run in runs for r in run[which]])
                                      for which in ("same", "fresh")}
                browser.close()
        finally:
            server.shutdown()
    print(f"\nthe compute function on its whole request, JSON in and out (medians of 15; corpus {corpus}):")
    for kind, _, what in KINDS:
        line = f"  {kind:12s} CPython  same {cpython[kind]['same']:6.1f} ms  new seed {cpython[kind]['fresh']:6.1f} ms"
        if isinstance(node, dict):
            line += (f"   Pyodide in Node  same {node[kind]['same']:6.1f} ms  new seed {node[kind]['fresh']:6.1f} ms"
                     f"  ({node[kind]['fresh'] / cpython[kind]['fresh']:.1f}x)")
        print(line + f"   ({what})")
    if not isinstance(node, dict):
        print(f"  Pyodide in Node: {node}")
    print(f"\nin Chromium, click to shown (medians of {arguments.recomputes} x {arguments.runs} after the first compute, "
          f"{'back to back' if not arguments.pause else f'{arguments.pause} ms after the last answer'}; "
          "request: sent to answered; worker: its own time, Python and JSON text; parse: the page's JSON.parse; "
          "repaint: shown minus request; worker CPU: the worker thread's CPU time from click to shown, and the "
          "time it waited for a core meanwhile, Linux schedstat):")
    for kind, page, what in KINDS:
        if kind not in chromium:
            continue
        for which, label in (("same", "same request"), ("fresh", "new seed")):
            s = chromium[kind][which]
            print(f"  {kind:12s} {label:12s} {s['shown']:6.1f} ms   request {s['request']:6.1f}  worker {s['worker']:6.1f}  "
                  f"parse {s['parse']:4.1f}  repaint {s['repaint']:5.1f}  worker CPU {s['cpu']:6.1f} (waited {s['queued']:5.1f})"
                  f"   (each: {', '.join(f'{x:.0f}' for x in s['each'])})")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

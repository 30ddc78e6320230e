"""Core benchmarks, measured in one run: ``.venv/bin/python -m benchmarks.core``.

- one evaluation of all 8 guard sets on the shared sentence, pure Python (the browser path)
  against numpy (the test suite's independent implementation), as a ratio;
- learning the embedding table of each corpus (counts + SVD), and its time per million tokens;
- the live recompute: the scale-guards kind's compute function on all 8 guard sets, called as the
  browser's worker calls it (scalecore.browser.compute, JSON in and out), in CPython and under
  the project's Pyodide in Node: the same request again (what Recompute live sends) and a new
  seed each time (what a reader who changes the seed waits for). In the page, the worker's
  messages and the repaint come on top (benchmarks/browser.py measures the whole).
Prints numbers; asserts nothing (no thresholds: see the README).
"""

import json
import os
import platform
import tempfile
import time
from pathlib import Path

from scalecore.corpus import SHARED_SENTENCE, SHIPPED, load_corpora
from scalecore.embeddings import learn_embeddings
from scalecore.experiment import Settings, position_aware_input, run_all, sentence_tokens
from scalecore.guards import all_guard_sets
from tests.test_attention import numpy_head

GUARD_SETS = [str(guards) for guards in all_guard_sets()]
# Run in both runtimes: ``site`` is a folder holding api/embeddings/kjv.json.
RECOMPUTE = """
import json, statistics, time
from scalecore import browser, sitedata
from scalecore.corpus import SHARED_SENTENCE
sitedata.use(lambda path: open(site + "/" + path, encoding="utf-8").read())
def points(seed):
    return json.dumps([dict(corpus="kjv", seed=seed, guards=guards, sentence=SHARED_SENTENCE, d_k=16,
                            vocabulary_size=2000) for guards in GUARD_SETS])
def ms(seed):
    started = time.perf_counter()
    browser.compute("scalecore.experiment:combination", points(seed))
    return (time.perf_counter() - started) * 1000
ms(0)  # reads the table
result = {"same": statistics.median([ms(0) for _ in range(21)]),
          "fresh": statistics.median([ms(seed) for seed in range(1000, 1021)])}
"""


def recompute(table) -> tuple[dict, dict | str]:
    """Median ms of the live compute of all 8 guard sets, in CPython and under Pyodide in Node
    (or why Pyodide could not run here)."""
    from scalecore_generator.runtime.wheel import build_wheel
    from tests.pyodide_node import missing_runtime, run_in_pyodide

    with tempfile.TemporaryDirectory(prefix="scalecore-recompute-") as folder:
        site = Path(folder) / "site"
        (site / "api" / "embeddings").mkdir(parents=True)
        (site / "api" / "embeddings" / "kjv.json").write_text(json.dumps(table.to_json()), encoding="utf-8")
        here = {"site": str(site), "GUARD_SETS": GUARD_SETS}
        exec(RECOMPUTE, here)
        reason = missing_runtime()
        if reason:
            return here["result"], reason
        wheel = build_wheel(Path(__file__).resolve().parents[1] / "scalecore", Path(folder) / "wheel")
        code = f"site = '/mnt/site'\nGUARD_SETS = {GUARD_SETS!r}\n" + RECOMPUTE
        return here["result"], run_in_pyodide(code, wheel, mount=site)["result"]


def best_of(repeats: int, action) -> float:
    """The fastest of ``repeats`` runs, in seconds: the least disturbed measurement."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.machine()}")
    settings = Settings()
    corpora = load_corpora(SHIPPED, ["demo", "wordnet", "kjv"])
    tokens = sentence_tokens(SHARED_SENTENCE)
    print("\nlearning embeddings (raw counts, d_model 32, top 2000 words):")
    tables = {}
    for name, corpus in corpora.items():
        seconds = best_of(3, lambda: tables.__setitem__(name, learn_embeddings(corpus, settings.d_model)))
        per_million = seconds / max(corpus.token_count, 1) * 1e6
        print(f"  {name:8} {corpus.token_count:>8} tokens  {seconds * 1000:8.1f} ms  ({per_million:.2f} s per million tokens)")
    table = tables["kjv"]
    x = position_aware_input(table, tokens)
    python = best_of(20, lambda: run_all(table, tokens, 0, settings.d_k))
    vectorised = best_of(20, lambda: [numpy_head(x, g, 0, settings.d_k) for g in all_guard_sets()])
    print(f"\n8 guard sets on the shared sentence ({len(tokens)} tokens, d_model {settings.d_model}, d_k {settings.d_k}):")
    print(f"  pure Python {python * 1000:.2f} ms, numpy {vectorised * 1000:.2f} ms, ratio python/numpy {python / vectorised:.2f}")
    cpython, pyodide = recompute(table)
    print("\nlive recompute of all 8 guard sets (the compute function, JSON in and out; medians of 21):")
    print(f"  CPython            same request {cpython['same']:6.1f} ms   new seed {cpython['fresh']:6.1f} ms")
    if isinstance(pyodide, str):
        print(f"  Pyodide in Node    not run: {pyodide}")
    else:
        print(f"  Pyodide in Node    same request {pyodide['same']:6.1f} ms   new seed {pyodide['fresh']:6.1f} ms"
              f"   (Pyodide / CPython {pyodide['same'] / cpython['same']:.1f}x)")


if __name__ == "__main__":
    main()

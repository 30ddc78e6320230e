"""Core benchmarks, measured in one run: ``.venv/bin/python -m benchmarks.core``.

- one evaluation of all 8 guard sets on the shared sentence, pure Python (the browser path)
  against numpy (the test suite's independent implementation), as a ratio;
- learning the embedding table of each corpus (counts + SVD), and its time per million tokens.
Prints numbers; asserts nothing (no thresholds: see the README).
"""

import os
import platform
import time

from scalecore.corpus import SHARED_SENTENCE, load_corpora
from scalecore.embeddings import learn_embeddings
from scalecore.experiment import Settings, position_aware_input, run_all, sentence_tokens
from scalecore.guards import all_guard_sets
from tests.test_attention import numpy_head


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
    corpora = load_corpora("corpora", ["demo", "wordnet", "kjv"])
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


if __name__ == "__main__":
    main()

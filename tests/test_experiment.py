"""The lesson's claims, checked on the real corpora (raw-count embeddings, the shared sentence)."""

import pytest

from scalecore.corpus import SHARED_SENTENCE, SHIPPED, load_corpora
from scalecore.embeddings import cached_embeddings
from scalecore.experiment import Settings, position_aware_input, report, run, run_all, sentence_tokens
from scalecore.guards import GuardSet

CORPORA = ("demo", "wordnet", "kjv")  # smallest to largest
SEEDS = range(5)


@pytest.fixture(scope="module")
def tables(real_tables):
    corpora = load_corpora(SHIPPED, list(CORPORA))
    return {name: cached_embeddings(corpus, Settings().d_model, real_tables) for name, corpus in corpora.items()}


def mean_over_seeds(table, guards, measure):
    tokens = sentence_tokens(SHARED_SENTENCE)
    values = [getattr(run(table, tokens, seed, GuardSet.parse(guards), Settings().d_k).measures, measure)
              for seed in SEEDS]
    return sum(values) / len(values)


def test_the_corpora_grow_in_the_expected_order(tables):
    sizes = [len(load_corpora(SHIPPED, [name])[name].sentences) for name in CORPORA]
    assert sizes == sorted(sizes) and sizes[2] > 3 * sizes[1]


def test_with_init_and_scale_but_no_norm_row_max_climbs_with_the_corpus(tables):
    row_max = [mean_over_seeds(tables[name], "init+scale", "mean_row_max") for name in CORPORA]
    spread = [mean_over_seeds(tables[name], "init+scale", "input_spread") for name in CORPORA]
    # measured: row-max 0.19 -> 0.96 -> 0.9999; input spread 0.94 -> 232 -> 4412 (seeds 0..4)
    assert row_max[0] < 0.4 < 0.9 < row_max[1] < row_max[2]
    assert spread[0] < spread[1] < spread[2]


def test_with_all_three_guards_row_max_stays_low_everywhere(tables):
    for name in CORPORA:
        assert mean_over_seeds(tables[name], "norm+init+scale", "mean_row_max") < 0.3


def test_scale_alone_cannot_rescue_the_raw_sum_of_a_large_corpus(tables):
    assert mean_over_seeds(tables["kjv"], "scale", "saturated_share") == 1.0
    assert mean_over_seeds(tables["kjv"], "norm+init", "saturated_share") == 0.0


def test_the_input_is_the_embedding_plus_the_positional_encoding(tables):
    table = tables["demo"]
    x = position_aware_input(table, ["the", "old"])
    assert x[0][1] == table.lookup(["the"])[0][1] + 1.0  # cos(0) at position 0
    with pytest.raises(ValueError, match="not in the 'demo' vocabulary .*: zebra"):
        position_aware_input(table, ["the", "zebra"])


def test_all_guard_sets_share_one_input_and_the_report_keeps_the_contract(tables):
    tokens = sentence_tokens(SHARED_SENTENCE)
    results = run_all(tables["demo"], tokens, 0, 16)
    assert list(results) == ["none", "norm", "init", "scale", "norm+init", "norm+scale", "init+scale", "norm+init+scale"]
    shown = report(results["norm+scale"], tokens, tables["demo"])
    assert set(shown) == {"tokens", "x", "x_norm", "w_q", "w_k", "scores", "weights", "measures", "settings"}
    assert shown["x_norm"] is not None and report(results["init"], tokens, tables["demo"])["x_norm"] is None

"""Multi-head attention against the single head and an independent numpy implementation, written here."""

import json
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scalecore import attention, multihead, sitedata
from scalecore.embeddings import EmbeddingTable
from scalecore.experiment import position_aware_input
from scalecore.guards import GuardSet, all_guard_sets
from scalecore.projections import draw_projections, standard_matrix


def divisors(n):
    return [h for h in range(1, n + 1) if n % h == 0]


def numpy_layer_norm(x):
    return (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)


def numpy_multihead(x, guards, seed, heads):
    """Every intermediate of h heads, recomputed with numpy from the drawn weights."""
    x = np.asarray(x, dtype=np.float64)
    d_model = x.shape[1]
    d_k = d_model // heads
    seen = numpy_layer_norm(x) if guards.norm else x
    w = multihead.draw_weights(seed, d_model, guards.init)  # same draws: we test the maths
    q, k, v = (seen @ np.array(m) for m in (w.w_q, w.w_k, w.w_v))
    raw, scores, weights, outputs = [], [], [], []
    for i in range(heads):
        cut = slice(i * d_k, (i + 1) * d_k)
        r = q[:, cut] @ k[:, cut].T
        s = r / np.sqrt(d_k) if guards.scale else r
        e = np.exp(s - s.max(axis=1, keepdims=True))
        a = e / e.sum(axis=1, keepdims=True)
        raw.append(r), scores.append(s), weights.append(a), outputs.append(a @ v[:, cut])
    concat = np.hstack(outputs)
    return dict(seen=seen, v=v, raw=raw, scores=scores, weights=weights, concat=concat,
                output=concat @ np.array(w.w_o))


def close(actual, expected, tol=1e-9):
    """Equal to ``tol``, relative to the largest entry where the values are large."""
    expected = np.asarray(expected, dtype=np.float64)
    assert np.shape(actual) == expected.shape
    size = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    return np.allclose(np.asarray(actual, dtype=np.float64), expected, rtol=tol, atol=tol * size)


@st.composite
def inputs(draw, widths=(1, 2, 3, 4, 6, 8)):
    """(x, heads): T in 1..5 tokens of a width d_model, and heads dividing it."""
    d_model = draw(st.sampled_from(widths))
    tokens = draw(st.integers(1, 5))
    x = draw(st.lists(st.lists(st.floats(-30, 30), min_size=d_model, max_size=d_model),
                      min_size=tokens, max_size=tokens))
    return x, draw(st.sampled_from(divisors(d_model)))


seeds = st.integers(0, 2**32)
guard_sets = st.sampled_from(all_guard_sets())


@settings(max_examples=40, deadline=None)
@given(inputs(), guard_sets, seeds)
def test_one_head_is_the_single_head_of_the_attention_module(case, guards, seed):
    x, _ = case
    d_model = len(x[0])
    result, _ = multihead.attend(x, guards, seed, 1)
    single = attention.attend(x, guards, seed, d_model)
    (head,) = result.heads
    assert result.d_k == d_model
    assert close(head.scores, single.scores, 1e-12)
    assert close(head.weights, single.weights, 1e-12)
    assert close(head.output, single.output, 1e-12)
    assert result.head_input == single.head_input


@settings(max_examples=40, deadline=None)
@given(inputs(), guard_sets, seeds)
def test_every_head_has_rows_of_weights_that_sum_to_one_and_the_shapes_hold(case, guards, seed):
    x, heads = case
    tokens, d_model = len(x), len(x[0])
    result, weights = multihead.attend(x, guards, seed, heads)
    assert result.d_k == d_model // heads
    assert len(result.heads) == heads
    for head in result.heads:
        assert np.shape(head.weights) == np.shape(head.scores) == (tokens, tokens)
        assert np.shape(head.output) == (tokens, result.d_k)
        for row in head.weights:
            assert min(row) >= 0.0
            assert math.isclose(sum(row), 1.0, abs_tol=1e-12)
    assert np.shape(result.concat) == np.shape(result.output) == (tokens, d_model)
    for m in (weights.w_q, weights.w_k, weights.w_v, weights.w_o):
        assert np.shape(m) == (d_model, d_model)


@settings(max_examples=40, deadline=None)
@given(inputs(), guard_sets, seeds)
def test_head_i_scores_its_own_slice_of_the_queries_and_keys(case, guards, seed):
    x, heads = case
    result, _ = multihead.attend(x, guards, seed, heads)
    expected = numpy_multihead(x, guards, seed, heads)
    assert close(result.head_input, expected["seen"])
    for head, scores, weights in zip(result.heads, expected["scores"], expected["weights"]):
        assert close(head.scores, scores)
        assert np.allclose(head.weights, weights, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(inputs(), guard_sets, seeds)
def test_the_output_is_the_concatenated_heads_times_w_o(case, guards, seed):
    x, heads = case
    result, _ = multihead.attend(x, guards, seed, heads)
    expected = numpy_multihead(x, guards, seed, heads)
    size = max(1.0, float(np.abs(expected["v"]).max()))  # the outputs mix the values
    for head, output in zip(result.heads, np.hsplit(expected["concat"], heads)):
        assert np.allclose(head.output, output, rtol=1e-9, atol=1e-9 * size)
    assert np.allclose(result.concat, expected["concat"], rtol=1e-9, atol=1e-9 * size)
    assert np.allclose(result.output, expected["output"], rtol=1e-9, atol=1e-9 * size * len(x[0]))


@settings(max_examples=40, deadline=None)
@given(inputs(), st.booleans(), st.booleans(), seeds)
def test_the_raw_spread_is_the_spread_before_the_division_by_sqrt_d_k(case, norm, init, seed):
    x, heads = case
    plain, _ = multihead.attend(x, GuardSet(norm=norm, init=init), seed, heads)
    scaled, _ = multihead.attend(x, GuardSet(norm=norm, init=init, scale=True), seed, heads)
    expected = numpy_multihead(x, GuardSet(norm=norm, init=init), seed, heads)
    d_k = scaled.d_k
    for p, s, raw in zip(plain.heads, scaled.heads, expected["raw"]):
        size = max(1.0, float(np.abs(raw).max()))
        assert math.isclose(p.raw_spread, float(raw.std(axis=1).mean()), rel_tol=1e-9, abs_tol=1e-9 * size)
        assert math.isclose(s.raw_spread, p.raw_spread, rel_tol=1e-9, abs_tol=1e-9 * size)
        assert math.isclose(s.raw_spread / math.sqrt(d_k), s.measures.score_spread, rel_tol=1e-12, abs_tol=1e-300)
        assert math.isclose(p.raw_spread, p.measures.score_spread, rel_tol=1e-12, abs_tol=1e-300)


@given(st.integers(1, 50), st.sampled_from([1, 2, 6, 12, 24, 32, 60]))
def test_the_cost_does_not_depend_on_the_number_of_heads(tokens, d_model):
    costs = [multihead.cost(tokens, d_model, h) for h in divisors(d_model)]
    assert {c["total"] for c in costs} == {4 * tokens * d_model**2 + 2 * tokens**2 * d_model}
    for c in costs:
        assert set(c) == {"projections", "scores", "mixing", "output", "total"}
        assert c["total"] == c["projections"] + c["scores"] + c["mixing"] + c["output"]
        assert c["scores"] == c["mixing"] == tokens * tokens * d_model


@pytest.mark.parametrize("d_model, heads, accepted", [
    (32, 3, "1, 2, 4, 8, 16, 32"),
    (32, 0, "1, 2, 4, 8, 16, 32"),
    (32, 64, "1, 2, 4, 8, 16, 32"),
    (12, 5, "1, 2, 3, 4, 6, 12"),
    (12, -2, "1, 2, 3, 4, 6, 12"),
    (7, 2, "1, 7"),
    (8, 2.0, "1, 2, 4, 8"),
    (8, True, "1, 2, 4, 8"),
])
def test_head_width_rejects_heads_that_do_not_divide_d_model_and_lists_the_divisors(d_model, heads, accepted):
    with pytest.raises(ValueError) as error:
        multihead.head_width(d_model, heads)
    assert str(error.value) == f"{heads!r} heads do not split d_model = {d_model}: use one of {accepted}"


def test_head_width_is_d_model_over_heads():
    assert [multihead.head_width(24, h) for h in divisors(24)] == [24, 12, 8, 6, 4, 3, 2, 1]


def test_attend_rejects_bad_heads_before_drawing():
    with pytest.raises(ValueError, match="3 heads do not split d_model = 8: use one of 1, 2, 4, 8"):
        multihead.attend([[1.0] * 8], GuardSet(), 0, 3)


@pytest.mark.parametrize("x", [[], [[]]])
def test_no_tokens_is_a_plain_error(x):
    with pytest.raises(ValueError):
        multihead.attend(x, GuardSet(init=True, scale=True), 0, 1)


@given(seeds, st.sampled_from([1, 2, 4, 8]), st.booleans())
@settings(max_examples=20, deadline=None)
def test_w_o_is_drawn_after_w_q_w_k_w_v(seed, d_model, guarded):
    weights = multihead.draw_weights(seed, d_model, guarded)
    single = draw_projections(seed, d_model, d_model, guarded)
    assert (weights.w_q, weights.w_k, weights.w_v) == (single.w_q, single.w_k, single.w_v)
    assert weights.std == single.std == (1 / math.sqrt(d_model) if guarded else 1.0)
    rng = random.Random(seed)
    for _ in range(3):
        standard_matrix(rng, d_model, d_model)
    fourth = [[rng.gauss(0.0, 1.0) * weights.std for _ in range(d_model)] for _ in range(d_model)]
    assert weights.w_o == fourth


def test_the_weights_are_fresh_lists_every_time():
    a = multihead.draw_weights(3, 4, True)
    a.w_o[0][0] = 1e9
    assert multihead.draw_weights(3, 4, True).w_o[0][0] != 1e9


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True])
def test_a_bad_seed_is_a_plain_error(seed):
    with pytest.raises(ValueError, match="non-negative integer"):
        multihead.draw_weights(seed, 4, True)


def test_the_report_keeps_every_intermediate():
    x = [[0.5, -1.0, 2.0, 0.1], [1.5, 0.3, -0.7, 0.9], [0.0, 2.0, 1.0, -1.0]]
    guards = GuardSet(norm=True, init=True, scale=True)
    result, weights = multihead.attend(x, guards, 4, 2)
    data = json.loads(json.dumps(multihead.report(result, weights, ["a", "b", "c"], x, guards)))
    assert list(data) == ["tokens", "x", "head_input", "heads", "d_k", "w_q", "w_k", "w_v", "w_o", "weights",
                          "output", "guards"]
    assert data["tokens"] == ["a", "b", "c"] and data["x"] == x
    assert data["heads"] == 2 and data["d_k"] == 2 and data["guards"] == "norm+init+scale"
    assert close(data["head_input"], numpy_layer_norm(np.array(x)), 1e-12)
    assert np.shape(data["weights"]) == (2, 3, 3) and np.shape(data["output"]) == (3, 4)


# combination: the baked point, read through sitedata from a tiny table written here

WORDS = ("the", "old", "man", "looked", "at", "sun")
D_MODEL = 8


@pytest.fixture
def tiny_site():
    rng = random.Random(11)
    vectors = tuple(tuple(rng.uniform(-3.0, 3.0) for _ in range(D_MODEL)) for _ in WORDS)
    table = EmbeddingTable("tiny", "raw", D_MODEL, WORDS, vectors)
    text = json.dumps(table.to_json())
    previous = sitedata._reader
    sitedata.use({"api/embeddings/tiny.json": text}.__getitem__)
    yield EmbeddingTable.from_json(json.loads(text))  # the float32-rounded table the site serves
    sitedata.use(previous)


@pytest.mark.parametrize("heads", [1, 2, 4, 8])
def test_the_combination_holds_every_head_and_its_summary(tiny_site, heads):
    sentence = "The old man looked at the sun"
    point = multihead.combination("tiny", 3, heads, "init+scale", sentence)
    assert set(point) == {"schema", "corpus", "seed", "heads", "guards", "sentence", "tokens", "d_model", "d_k",
                          "per_head", "summary", "shapes", "cost", "init_std"}
    assert point["schema"] == "scalecore/multihead-combination/2"
    tokens = ["the", "old", "man", "looked", "at", "the", "sun"]
    d_k = D_MODEL // heads
    assert (point["corpus"], point["seed"], point["heads"], point["guards"]) == ("tiny", 3, heads, "init+scale")
    assert (point["tokens"], point["d_model"], point["d_k"]) == (tokens, D_MODEL, d_k)
    result, weights = multihead.attend(position_aware_input(tiny_site, tokens), GuardSet(init=True, scale=True),
                                       3, heads, tokens)
    assert len(point["per_head"]) == heads
    for shown, head in zip(point["per_head"], result.heads):
        assert set(shown) == {"weights", "measures", "spread"}
        assert shown["weights"] == head.weights
        assert shown["measures"] == head.measures.as_dict()
        assert shown["spread"]["unscaled"] == head.raw_spread
        assert math.isclose(shown["spread"]["sqrt_d_k"], head.measures.score_spread, rel_tol=1e-12)
        assert math.isclose(shown["spread"]["sqrt_d_model"], head.raw_spread / math.sqrt(D_MODEL))
    row_max = [shown["measures"]["mean_row_max"] for shown in point["per_head"]]
    summary = point["summary"]
    assert set(summary) == {"mean_row_max", "lowest_row_max", "highest_row_max", "saturated_heads", "gradient",
                            "agreement"}
    assert math.isclose(summary["mean_row_max"], sum(row_max) / heads, rel_tol=1e-12)
    assert (summary["lowest_row_max"], summary["highest_row_max"]) == (min(row_max), max(row_max))
    assert summary["saturated_heads"] == sum(1 for r in row_max if r > 0.9)
    favourites = [[row.index(max(row)) for row in shown["weights"]] for shown in point["per_head"]]
    pairs = [(a, b) for i, a in enumerate(favourites) for b in favourites[i + 1:]]
    agreeing = sum(x == y for a, b in pairs for x, y in zip(a, b))
    assert summary["agreement"] == (agreeing / (len(pairs) * len(tokens)) if pairs else 1.0)
    T = len(tokens)
    assert point["shapes"] == {"x": [T, D_MODEL], "q_i": [T, d_k], "scores_i": [T, T], "concat": [T, D_MODEL],
                               "w_o": [D_MODEL, D_MODEL], "output": [T, D_MODEL]}
    assert point["cost"] == multihead.cost(T, D_MODEL, heads)
    assert point["init_std"] == weights.std == 1 / math.sqrt(D_MODEL)
    json.dumps(point)  # baked as JSON


def test_the_combination_names_an_unknown_word(tiny_site):
    with pytest.raises(ValueError, match=r"not in the tiny vocabulary \(6 words\): zebra, unicorn$"):
        multihead.combination("tiny", 0, 2, "init+scale", "the zebra looked at the unicorn")


def test_the_combination_rejects_heads_that_do_not_divide_d_model(tiny_site):
    with pytest.raises(ValueError, match="3 heads do not split d_model = 8: use one of 1, 2, 4, 8"):
        multihead.combination("tiny", 0, 3, "init+scale", "the old man")

"""The pure-Python head against an independent numpy implementation, written here."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scalecore.attention import attend
from scalecore.backward import upstream
from scalecore.guards import GuardSet, all_guard_sets
from scalecore.projections import draw_projections


def numpy_head(x, guards, seed, d_k, words=None):
    x = np.asarray(x, dtype=np.float64)
    d_model = x.shape[1]
    if guards.norm:
        x = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    p = draw_projections(seed, d_model, d_k, guards.init)  # same draws: we test the maths
    q, k, v = x @ np.array(p.w_q), x @ np.array(p.w_k), x @ np.array(p.w_v)
    s = q @ k.T
    if guards.scale:
        s = s / np.sqrt(d_k)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    jac = [np.linalg.norm(np.diag(r) - np.outer(r, r)) for r in a]
    ent = [-(r[r > 0] * np.log(r[r > 0])).sum() for r in a]
    words = list(range(len(a))) if words is None else words
    kinds = sorted(set(words), key=words.index)
    onehot = np.array([[1.0 if w == kind else 0.0 for kind in kinds] for w in words])  # (T, W)
    per_word = a @ onehot  # each row's weights, summed over the tokens of one word
    g = np.array(upstream(seed, len(a), d_k))  # the same draw: we test the maths
    d_a = g @ v.T
    d_s = np.stack([(np.diag(r) - np.outer(r, r)) @ d for r, d in zip(a, d_a)])
    d_raw = d_s / np.sqrt(d_k) if guards.scale else d_s
    measures = dict(
        input_spread=x.std(), input_rms=np.sqrt((x ** 2).mean()), score_spread=s.std(axis=1).mean(),
        mean_row_max=a.max(axis=1).mean(), word_row_max=per_word.max(axis=1).mean(),
        mean_entropy=np.mean(ent), gradient=np.mean(jac), saturated_share=(a.max(axis=1) > 0.9).mean(),
        word_saturated_share=(per_word.max(axis=1) > 0.9).mean(),
        query_gradient=np.linalg.norm(x.T @ (d_raw @ k)), value_gradient=np.linalg.norm(x.T @ (a.T @ g)),
    )
    return s, a, a @ v, measures


matrices = st.integers(1, 6).flatmap(
    lambda t: st.integers(2, 8).flatmap(
        lambda d: st.lists(st.lists(st.floats(-30, 30), min_size=d, max_size=d), min_size=t, max_size=t)
    )
)


@settings(max_examples=60, deadline=None)
@given(matrices, st.sampled_from(all_guard_sets()), st.integers(0, 2**32), st.integers(1, 6), st.data())
def test_agrees_with_numpy_to_1e_9(x, guards, seed, d_k, data):
    words = data.draw(st.none() | st.lists(st.sampled_from("abc"), min_size=len(x), max_size=len(x)))
    result = attend(x, guards, seed, d_k, words)
    scores, weights, output, measures = numpy_head(x, guards, seed, d_k, words)
    assert set(result.measures.as_dict()) == set(measures)
    scale = max(1.0, float(np.abs(scores).max()))
    assert np.allclose(result.scores, scores, rtol=1e-9, atol=1e-9 * scale)
    assert np.allclose(result.weights, weights, rtol=0, atol=1e-9)
    assert np.allclose(result.output, output, rtol=1e-9, atol=1e-9 * scale)
    for name, value in result.measures.as_dict().items():
        assert math.isclose(value, measures[name], rel_tol=1e-9, abs_tol=1e-9), name


def test_the_scale_guard_divides_scores_by_sqrt_d_k():
    x = [[0.5, -1.0, 2.0, 0.1], [1.5, 0.3, -0.7, 0.9]]
    plain = attend(x, GuardSet(), 0, 9).scores
    scaled = attend(x, GuardSet(scale=True), 0, 9).scores
    for a, b in zip(plain[0] + plain[1], scaled[0] + scaled[1]):
        assert math.isclose(b, a / 3.0)


def test_the_norm_guard_feeds_the_head_unit_scale_rows():
    x = [[100.0, -300.0, 250.0, 7.0], [1e4, 2e4, -5e3, 0.0]]
    result = attend(x, GuardSet(norm=True), 0, 4)
    assert result.x_norm is not None and result.head_input is result.x_norm
    assert math.isclose(result.measures.input_spread, 1.0, rel_tol=1e-6)
    assert attend(x, GuardSet(), 0, 4).x_norm is None


def test_large_input_saturates_and_the_gradient_vanishes():
    small = [[0.1 * (i - j) for j in range(8)] for i in range(5)]
    large = [[1000 * v for v in row] for row in small]
    guards = GuardSet(init=True, scale=True)
    calm, saturated = attend(small, guards, 1, 8).measures, attend(large, guards, 1, 8).measures
    assert calm.mean_row_max < 0.5 < 0.99 < saturated.mean_row_max
    assert saturated.gradient < calm.gradient / 100
    assert saturated.saturated_share == 1.0


def test_every_weight_row_sums_to_one():
    result = attend([[1.0, 2.0], [3.0, -1.0], [0.0, 0.5]], GuardSet(init=True), 5, 3)
    assert all(math.isclose(sum(row), 1.0) for row in result.weights)


def test_what_the_guard_sets_share_is_not_changed_by_a_reader():
    """The eight guard sets of one input share their projections and raw scores (computed once);
    a result a reader edits does not leak into the next head computed from the same input."""
    x = [[1.0, 2.0], [3.0, -1.0], [0.0, 0.5]]
    first = attend(x, GuardSet(), 2, 3)
    expected = [row[:] for row in first.scores]
    first.scores[0][0] = 1e9
    again = attend(x, GuardSet(), 2, 3)
    assert again.scores == expected
    assert attend(x, GuardSet(scale=True), 2, 3).scores == [[s * (1.0 / math.sqrt(3)) for s in row] for row in expected]


def test_no_tokens_is_a_plain_error():
    with pytest.raises(ValueError, match="at least one token"):
        attend([], GuardSet(), 0, 4)

"""The head's backward pass against finite differences of the loss it differentiates."""

import math

import pytest

from scalecore.attention import attend
from hypothesis import given, settings
from hypothesis import strategies as st

from scalecore.backward import backward, size, through_softmax, upstream
from scalecore.guards import GuardSet, all_guard_sets
from scalecore.matrices import matmul, transpose
from scalecore.softmax import softmax, softmax_jacobian, softmax_rows

X = [[0.3, -1.2, 0.8, 0.1], [1.1, 0.4, -0.6, 0.9], [-0.5, 0.7, 0.2, -1.3]]


def loss(x, w_q, w_k, w_v, scaled, grad_out):
    """L = sum(G * A V): what the backward pass differentiates."""
    scores = matmul(matmul(x, w_q), transpose(matmul(x, w_k)))
    if scaled:
        scores = [[s / math.sqrt(len(w_q[0])) for s in row] for row in scores]
    out = matmul(softmax_rows(scores), matmul(x, w_v))
    return math.fsum(g * o for gr, orow in zip(grad_out, out) for g, o in zip(gr, orow))


@pytest.mark.parametrize("scaled", [False, True])
def test_the_gradients_match_finite_differences(scaled):
    result = attend(X, GuardSet(init=True, scale=scaled), 3, 2)
    p = result.projections
    g = upstream(3, len(X), 2)
    grads = backward(X, result.queries, result.keys, result.values, result.weights, scaled, g)
    for name, analytic in (("w_q", grads.w_q), ("w_k", grads.w_k), ("w_v", grads.w_v)):
        for i in range(len(X[0])):
            for j in range(2):
                def at(step):
                    ws = {n: [row[:] for row in getattr(p, n)] for n in ("w_q", "w_k", "w_v")}
                    ws[name][i][j] += step
                    return loss(X, ws["w_q"], ws["w_k"], ws["w_v"], scaled, g)
                numeric = (at(1e-6) - at(-1e-6)) / 2e-6
                assert math.isclose(analytic[i][j], numeric, rel_tol=1e-5, abs_tol=1e-7), (name, i, j)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(all_guard_sets()), st.integers(0, 2**32), st.integers(1, 4), st.floats(1e-3, 1e4))
def test_the_head_reports_the_sizes_of_the_whole_backward_pass(guards, seed, d_k, factor):
    """attend takes only the two roads the measures need, through triangular factors of the same
    sizes (gradient_sizes): the numbers of the whole backward pass computed from scratch, to
    rounding. (Below about 1e-150 the entries' squares are subnormal and neither is accurate.)"""
    x = [[factor * v for v in row] for row in X]
    result = attend(x, guards, seed, d_k)
    grads = backward(result.head_input, result.queries, result.keys, result.values, result.weights,
                     guards.scale, upstream(seed, len(x), d_k))
    assert math.isclose(result.measures.query_gradient, size(grads.w_q), rel_tol=1e-12, abs_tol=1e-150)
    assert math.isclose(result.measures.value_gradient, size(grads.w_v), rel_tol=1e-12, abs_tol=1e-150)


def test_saturation_silences_the_scores_but_not_the_values():
    """Deep saturation: the scores and W_Q get ~0, while W_V's gradient grows with the input."""
    calm = attend(X, GuardSet(init=True, scale=True), 0, 2).measures
    big = [[1e4 * v for v in row] for row in X]
    deep = attend(big, GuardSet(init=True, scale=True), 0, 2).measures
    assert deep.mean_row_max > 0.999
    assert deep.query_gradient < 1e-6 * calm.query_gradient
    assert deep.value_gradient > 1e3 * calm.value_gradient


def test_the_upstream_gradient_is_one_fixed_stream_per_seed():
    assert upstream(4, 3, 2) == upstream(4, 3, 2) != upstream(5, 3, 2)
    assert size([[3.0, 4.0]]) == 5.0
    for guards in all_guard_sets():  # every guard set reports both sizes
        m = attend(X, guards, 1, 2).measures
        assert m.query_gradient >= 0 and m.value_gradient >= 0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(-8, 8), st.floats(-5, 5)), min_size=1, max_size=10))
def test_the_gradient_through_softmax_is_the_jacobian_applied(pairs):
    """through_softmax is J g, written so that a saturated row loses no precision."""
    p = softmax([s for s, _ in pairs])
    g = [v for _, v in pairs]
    expected = [math.fsum(j * v for j, v in zip(row, g)) for row in softmax_jacobian(p)]
    for got, want in zip(through_softmax(p, g), expected):
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def test_a_saturated_row_keeps_its_gradient_accurate():
    """p_top = 1 - 1e-13: the naive g_top - p.g has lost three digits; ours has the exact value
    p_top * p_other * (g_top - g_other)."""
    p = softmax([0.0, -30.0])
    got = through_softmax(p, [1.0, 0.0])[0]
    assert math.isclose(got, p[0] * p[1], rel_tol=1e-14)

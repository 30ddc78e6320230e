import math

from hypothesis import given
from hypothesis import strategies as st

from scalecore.softmax import entropy, jacobian_norm, softmax, softmax_jacobian

scores = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=12)


@given(scores)
def test_weights_are_positive_and_sum_to_one(row):
    weights = softmax(row)
    assert all(0.0 <= w <= 1.0 for w in weights)
    assert math.isclose(sum(weights), 1.0, rel_tol=1e-12)


@given(st.lists(st.floats(-50, 50), min_size=1, max_size=12), st.floats(-1e3, 1e3))
def test_adding_a_constant_to_every_score_changes_nothing(row, constant):
    shifted = softmax([s + constant for s in row])
    for a, b in zip(softmax(row), shifted):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def test_huge_scores_do_not_overflow():
    assert softmax([1e308, 0.0]) == [1.0, 0.0]


def test_the_textbook_examples():
    assert [round(w, 4) for w in softmax([1, 2, 3])] == [0.09, 0.2447, 0.6652]
    assert softmax([1, 5, 10])[2] > 0.99


@given(st.lists(st.floats(-5, 5), min_size=2, max_size=6), st.integers(0, 5))
def test_jacobian_matches_finite_differences(row, j):
    j %= len(row)
    h = 1e-6
    up = softmax([s + (h if k == j else 0.0) for k, s in enumerate(row)])
    down = softmax([s - (h if k == j else 0.0) for k, s in enumerate(row)])
    jacobian = softmax_jacobian(softmax(row))
    for i in range(len(row)):
        assert math.isclose(jacobian[i][j], (up[i] - down[i]) / (2 * h), abs_tol=1e-6)


@given(st.lists(st.floats(-800, 800), min_size=1, max_size=12))
def test_the_jacobian_norm_is_exactly_that_of_the_whole_matrix(row):
    """jacobian_norm sums the squares without the matrix, each off-diagonal one doubled: the very
    number (==, not close) the squared entries of softmax_jacobian give, tiny weights included."""
    weights = softmax(row)
    whole = math.sqrt(math.fsum(v * v for line in softmax_jacobian(weights) for v in line))
    assert jacobian_norm(weights) == whole


def test_saturated_rows_pass_almost_no_gradient():
    assert jacobian_norm(softmax([1, 2, 3])) > 0.3
    assert jacobian_norm(softmax([0, 0, 40])) < 1e-15
    assert jacobian_norm(softmax([1, 5, 10])) < jacobian_norm(softmax([1, 2, 3])) / 10


def test_entropy_runs_from_log_t_to_zero():
    assert math.isclose(entropy([0.25] * 4), math.log(4))
    assert entropy([0.0, 1.0, 0.0]) == 0.0


def test_bad_scores_are_a_plain_value_error():
    for bad in ([], [float("nan")], [float("inf"), 1.0]):
        try:
            softmax(bad)
        except ValueError as error:
            assert "softmax needs" in str(error)
        else:
            raise AssertionError(f"softmax({bad}) did not fail")

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from scalecore.measures import measure, per_word
from scalecore.softmax import jacobian_norm, softmax


def test_even_attention_has_the_largest_entropy_and_smallest_row_max():
    even = [[0.25] * 4 for _ in range(4)]
    m = measure([[1.0, -1.0]], [[0.0] * 4] * 4, even)
    assert m.mean_row_max == 0.25
    assert math.isclose(m.mean_entropy, math.log(4))
    assert m.saturated_share == 0.0
    assert m.input_spread == 1.0 and m.score_spread == 0.0


def test_one_hot_rows_are_saturated_and_pass_no_gradient():
    one_hot = [[1.0, 0.0], [0.0, 1.0]]
    m = measure([[1.0, 2.0]], [[50.0, 0.0], [0.0, 50.0]], one_hot)
    assert m.mean_row_max == 1.0 and m.saturated_share == 1.0
    assert m.gradient == 0.0 and m.mean_entropy == 0.0


def test_saturated_share_counts_rows_above_point_nine():
    rows = [[0.95, 0.05], [0.5, 0.5], [0.91, 0.09], [0.9, 0.1]]
    assert measure([[0.0]], [[0.0]], rows).saturated_share == 0.5


def test_score_spread_ignores_a_shift_of_a_whole_row_as_softmax_does():
    """Two rows far apart but each flat: softmax gives even weights, and the spread is 0."""
    scores = [[0.0, 0.0, 0.0], [1000.0, 1000.0, 1000.0]]
    m = measure([[0.0]], scores, [softmax(row) for row in scores])
    assert m.score_spread == 0.0 and m.mean_row_max == 1 / 3


def test_input_rms_counts_the_mean_that_the_spread_leaves_out():
    m = measure([[3.0, 3.0], [3.0, 3.0]], [[0.0]], [[1.0]])
    assert m.input_spread == 0.0 and m.input_rms == 3.0


def test_a_row_split_over_a_repeated_word_is_saturated_on_that_word():
    """The kjv case: 0.96 spread over the three 'the', the rest thin."""
    tokens = ["the", "old", "the", "sun", "the"]
    row = [0.32, 0.02, 0.32, 0.02, 0.32]
    m = measure([[0.0]], [[0.0]], [row], tokens)
    assert m.mean_row_max == 0.32 and m.saturated_share == 0.0
    assert math.isclose(m.word_row_max, 0.96) and m.word_saturated_share == 1.0
    assert per_word(row, tokens) == [0.96, 0.02, 0.02]


rows = st.integers(1, 7).flatmap(lambda t: st.lists(
    st.lists(st.floats(-20, 20), min_size=t, max_size=t), min_size=1, max_size=4))


@settings(max_examples=80, deadline=None)
@given(rows, st.data())
def test_word_measures_equal_the_token_ones_when_no_word_repeats(scores, data):
    weights = [softmax(row) for row in scores]
    distinct = data.draw(st.lists(st.text(min_size=1, max_size=3), min_size=len(weights[0]),
                                  max_size=len(weights[0]), unique=True))
    m = measure([[0.0]], scores, weights, distinct)
    assert m.word_row_max == m.mean_row_max and m.word_saturated_share == m.saturated_share


@settings(max_examples=80, deadline=None)
@given(rows, st.data())
def test_adding_up_repeated_words_never_lowers_the_row_max(scores, data):
    weights = [softmax(row) for row in scores]
    tokens = data.draw(st.lists(st.sampled_from("ab"), min_size=len(weights[0]), max_size=len(weights[0])))
    m = measure([[0.0]], scores, weights, tokens)
    assert m.word_row_max >= m.mean_row_max - 1e-12
    assert m.word_saturated_share >= m.saturated_share
    for row in weights:
        assert math.isclose(math.fsum(per_word(row, tokens)), 1.0, rel_tol=1e-12)


def test_the_gradient_measure_is_not_monotone_in_how_even_a_row_is():
    """Its range is [0, 1/2]: 0 one-hot, sqrt(T-1)/T even over T, 1/2 at an even two-way split."""
    assert jacobian_norm([1.0, 0.0, 0.0]) == 0.0
    assert math.isclose(jacobian_norm([0.1] * 10), math.sqrt(9) / 10)
    assert math.isclose(jacobian_norm([0.5, 0.5] + [0.0] * 8), 0.5)
    assert jacobian_norm([0.5, 0.5] + [0.0] * 8) > jacobian_norm([0.1] * 10)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=12))
def test_the_gradient_measure_stays_within_zero_and_one_half(scores):
    assert 0.0 <= jacobian_norm(softmax(scores)) <= 0.5 + 1e-12

import math

from scalecore.measures import measure


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

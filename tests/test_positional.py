import math

import pytest

from scalecore.positional import positional_encoding


def test_first_position_is_sin_zero_and_cos_zero():
    assert positional_encoding(1, 6)[0] == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]


def test_pairs_share_a_frequency_that_falls_with_the_index():
    pe = positional_encoding(3, 4)
    assert pe[1][0] == math.sin(1.0) and pe[1][1] == math.cos(1.0)
    assert math.isclose(pe[2][2], math.sin(2 / 100.0))


def test_every_entry_lies_in_minus_one_to_one():
    assert all(-1.0 <= v <= 1.0 for row in positional_encoding(50, 32) for v in row)


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError):
        positional_encoding(3, 0)

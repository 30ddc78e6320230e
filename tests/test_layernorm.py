import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from scalecore.layernorm import layer_norm
from scalecore.matrices import mean, std

rows = st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=2, max_size=40)


@given(st.lists(rows, min_size=1, max_size=4))
def test_every_row_has_mean_zero_and_unit_variance(x):
    for row in x:
        assume(std(row) > 1e-1)  # eps only matters for (near-)constant rows
    for row in layer_norm(x):
        assert abs(mean(row)) < 1e-9
        assert math.isclose(std(row) ** 2, 1.0, rel_tol=1e-3)


@given(rows, st.floats(1e-3, 1e6))
def test_the_scale_of_the_input_does_not_matter(row, factor):
    assume(std(row) > 1.0 and std(row) * factor > 1.0)  # both well above eps
    a, b = layer_norm([row])[0], layer_norm([[v * factor for v in row]])[0]
    for u, v in zip(a, b):
        assert math.isclose(u, v, rel_tol=1e-3, abs_tol=1e-3)


def test_a_constant_row_becomes_zeros_not_nan():
    assert layer_norm([[3.0, 3.0, 3.0]]) == [[0.0, 0.0, 0.0]]


def test_eps_must_be_positive():
    with pytest.raises(ValueError, match="eps must be positive"):
        layer_norm([[1.0, 2.0]], eps=0)

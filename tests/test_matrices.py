"""The little linear algebra of scalecore.matrices, against numpy."""

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scalecore.matrices import matmul, sumprod, triangular_factor, triangular_matmul

shapes = st.tuples(st.integers(1, 12), st.integers(1, 12))


def matrix(data, rows, columns, bound=1e4):
    return data.draw(st.lists(st.lists(st.floats(-bound, bound), min_size=columns, max_size=columns),
                              min_size=rows, max_size=rows))


@settings(max_examples=80, deadline=None)
@given(shapes, st.integers(1, 6), st.data())
def test_the_triangular_factor_keeps_the_sizes_of_products(shape, width, data):
    """m = Q R with Q's columns orthonormal: R is upper triangular, R^T R = m^T m, and
    ||m b|| = ||R b|| for any b (what the backward pass's gradient sizes rely on)."""
    rows, columns = shape
    m, b = matrix(data, rows, columns), matrix(data, columns, width)
    r = np.array(triangular_factor(m))
    assert r.shape == (min(rows, columns), columns)
    assert np.all(np.tril(r, -1) == 0.0)
    a = np.array(m)
    scale = max(1.0, np.abs(a).max()) ** 2
    assert np.allclose(r.T @ r, a.T @ a, rtol=1e-9, atol=1e-12 * scale)
    assert np.isclose(np.linalg.norm(r @ np.array(b)), np.linalg.norm(a @ np.array(b)),
                      rtol=1e-9, atol=1e-12 * np.sqrt(scale) * max(1.0, np.abs(np.array(b)).max()))


@settings(max_examples=60, deadline=None)
@given(shapes, st.data())
def test_the_triangular_product_is_the_product(shape, data):
    """Skipping the zeros below R's diagonal gives exactly (==) the full product."""
    rows, columns = shape
    r = triangular_factor(matrix(data, rows + columns, rows))  # upper triangular, (rows, rows)
    m = matrix(data, rows, columns)
    assert triangular_matmul(r, m) == matmul(r, m)


@settings(max_examples=80, deadline=None)
@given(shapes, st.integers(1, 6), st.data())
def test_the_product_is_within_an_ulp_of_each_term_of_the_exact_one(shape, width, data):
    """Each entry of a @ b is the exact dot product (in fractions) up to an ulp of its largest term per term: what
    CPython 3.11 (fsum of the rounded products) and Python 3.12+, Pyodide's (math.sumprod, the products exact) both
    give, so that a live recompute and the baked point agree far inside the parity test's 1e-9."""
    rows, columns = shape
    a, b = matrix(data, rows, columns), matrix(data, columns, width)
    got = matmul(a, b)
    for i, row in enumerate(a):
        for j, column in enumerate(zip(*b)):
            exact = sum(Fraction(x) * Fraction(y) for x, y in zip(row, column))
            largest = max(abs(x * y) for x, y in zip(row, column))
            assert abs(Fraction(got[i][j]) - exact) <= len(row) * Fraction(math.ulp(largest)) + Fraction(math.ulp(float(exact)))
            assert got[i][j] == sumprod(row, list(column))

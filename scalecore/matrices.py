"""The little linear algebra attention needs, in plain Python lists.

A matrix is a list of rows, each a list of floats: ``m[i][j]`` is row ``i``, column ``j``.
Written by hand, not borrowed from numpy, because this code must also run in the browser under
Pyodide, where numpy is not shipped. The sizes here are tiny (a sentence of ~10 tokens, d_model
of a few dozen), so clarity wins over speed.
"""

import math
from operator import mul

Vector = list[float]
Matrix = list[list[float]]


def shape(m: Matrix) -> tuple[int, int]:
    """(rows, columns) of a matrix."""
    return len(m), (len(m[0]) if m else 0)


def transpose(m: Matrix) -> Matrix:
    """Rows become columns: ``transpose(m)[j][i] == m[i][j]``."""
    return [list(column) for column in zip(*m)]


def dot(u: Vector, v: Vector) -> float:
    """The dot product u . v = sum_i u_i v_i."""
    return math.fsum(map(mul, u, v))  # exactly rounded: the same in CPython and Pyodide


def matmul(a: Matrix, b: Matrix) -> Matrix:
    """The matrix product a @ b, shape (n, k) @ (k, m) -> (n, m)."""
    if shape(a)[1] != shape(b)[0]:
        raise ValueError(f"cannot multiply a {shape(a)} matrix by a {shape(b)} matrix")
    columns = list(zip(*b))
    # dot(row, column) written out: the same exactly rounded sum, without a call per entry
    return [[math.fsum(map(mul, row, column)) for column in columns] for row in a]


def add(a: Matrix, b: Matrix) -> Matrix:
    """Element-wise a + b of two matrices of the same shape."""
    if shape(a) != shape(b):
        raise ValueError(f"cannot add a {shape(a)} matrix to a {shape(b)} matrix")
    return [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


def scale(m: Matrix, factor: float) -> Matrix:
    """Every entry multiplied by ``factor``."""
    return [[x * factor for x in row] for row in m]


def flatten(m: Matrix) -> Vector:
    """All entries, row by row."""
    return [x for row in m for x in row]


def mean(values: Vector) -> float:
    """The arithmetic mean (exactly rounded sum, so CPython and Pyodide agree)."""
    if not values:
        raise ValueError("the mean of no values is undefined")
    return math.fsum(values) / len(values)


def std(values: Vector) -> float:
    """The population standard deviation: how far entries typically sit from their mean."""
    mu = mean(values)
    return math.sqrt(math.fsum([(x - mu) ** 2 for x in values]) / len(values))

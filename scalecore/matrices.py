"""The little linear algebra attention needs, in plain Python lists.

A matrix is a list of rows, each a list of floats: ``m[i][j]`` is row ``i``, column ``j``.
Written by hand, not borrowed from numpy, because this code must also run in the browser under
Pyodide, where numpy is not shipped. The sizes here are tiny (a sentence of ~10 tokens, d_model
of a few dozen), so clarity wins over speed.
"""

import math
from operator import mul

try:
    from math import sumprod  # Python 3.12+ (Pyodide's): the products and their sum in extended precision, in C
except ImportError:  # Python 3.11
    def sumprod(p, q):
        """The sum of p_i q_i, each product rounded, then summed exactly (math.fsum): within an ulp
        of Python 3.12's math.sumprod, which is twice as fast (a fifth of a live recompute)."""
        return math.fsum(map(mul, p, q))

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
    return sumprod(u, v)  # accurately rounded: CPython and Pyodide agree within an ulp


def matmul(a: Matrix, b: Matrix) -> Matrix:
    """The matrix product a @ b, shape (n, k) @ (k, m) -> (n, m)."""
    if shape(a)[1] != shape(b)[0]:
        raise ValueError(f"cannot multiply a {shape(a)} matrix by a {shape(b)} matrix")
    columns = list(zip(*b))
    # dot(row, column) written out, without a call per entry
    return [[sumprod(row, column) for column in columns] for row in a]


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


def triangular_factor(m: Matrix) -> Matrix:
    """R of m = Q R: Q's columns orthonormal, R upper triangular, shape (min(n, k), k) for an
    (n, k) matrix m, by Householder reflections.

    What it is for: Q keeps lengths, so ||m b||_F = ||R b||_F for every b. When m is tall (the
    transposed input X^T of the backward pass is (d_model, T)), the size of a product m b comes
    from the small R at a fraction of the work. Reflections, not the Gram matrix m^T m: forming
    m^T m would square how badly rounding can hurt a small product of large factors.
    """
    columns = [list(column) for column in zip(*m)]
    rows, width = len(m), len(columns)
    for j in range(min(rows, width)):
        x = columns[j][j:]  # the part of column j the reflection folds onto the diagonal
        largest = max(map(abs, x))
        if largest == 0.0:
            continue  # already zero below the diagonal
        x = [v / largest for v in x]  # the same direction, without squares that underflow
        length = math.sqrt(math.fsum([v * v for v in x]))
        # H = I - 2 v v^T / (v . v) maps x to -sign(x_0) |x| e_0; the sign avoids cancellation
        v = [x[0] + math.copysign(length, x[0]), *x[1:]]
        vv = math.fsum([t * t for t in v])
        for column in columns[j:]:
            part = column[j:]
            f = 2.0 * math.fsum(map(mul, v, part)) / vv
            column[j:] = [c - f * t for c, t in zip(part, v)]
    return [[column[i] if i <= k else 0.0 for k, column in enumerate(columns)] for i in range(min(rows, width))]


def triangular_matmul(r: Matrix, m: Matrix) -> Matrix:
    """r @ m for an upper-triangular r (such as triangular_factor's R), without multiplying by the
    zeros below its diagonal: row i of r starts at column i. The same numbers as matmul (the
    products skipped are zeros, which add nothing to an exact sum), with about half the work."""
    if shape(r)[1] != shape(m)[0]:
        raise ValueError(f"cannot multiply a {shape(r)} matrix by a {shape(m)} matrix")
    columns = list(zip(*m))
    product = []
    for i, row in enumerate(r):
        tail = row[i:]  # sliced once per row, not once per entry
        product.append([sumprod(tail, column[i:]) for column in columns])
    return product

"""The projections W_Q, W_K, W_V, drawn at random, and the ``init`` guard.

A query is q = x W_Q. If x has d_model entries of variance v and W_Q's entries have variance s^2,
each entry of q is a sum of d_model products, so its variance is d_model * v * s^2. Drawing W at
s = 1/sqrt(d_model) makes that v again: unit-scale input gives unit-scale queries and keys. Drawn
at s = 1 instead, q is sqrt(d_model) times larger, and q . k d_model times larger.

The draws come from ``random.Random(seed)`` (the standard library's Mersenne Twister), never the
global generator and never numpy, so the same seed gives the same matrices in CPython and in
Pyodide. The ``init`` guard only rescales: with or without it, the underlying N(0, 1) draws are
the same numbers, so comparing the two isolates the effect of the scale.
"""

import math
import random
from dataclasses import dataclass
from functools import lru_cache

from scalecore.matrices import Matrix


@dataclass(frozen=True)
class Projections:
    """The three matrices of one head, each of shape (d_model, d_k)."""

    w_q: Matrix
    w_k: Matrix
    w_v: Matrix
    std: float  # the standard deviation they were drawn at


def init_std(d_model: int, guarded: bool) -> float:
    """1/sqrt(d_model) with the ``init`` guard, 1 without."""
    return 1.0 / math.sqrt(d_model) if guarded else 1.0


def draw_projections(seed: int, d_model: int, d_k: int, guarded: bool) -> Projections:
    """W_Q, then W_K, then W_V, each filled row by row from one generator seeded with ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a seed is a non-negative integer, got {seed!r}")
    if d_model < 1 or d_k < 1:
        raise ValueError(f"d_model and d_k must be at least 1, got {d_model} and {d_k}")
    std = init_std(d_model, guarded)
    w_q, w_k, w_v = ([[z * std for z in row] for row in matrix] for matrix in _standard_draws(seed, d_model, d_k))
    return Projections(w_q=w_q, w_k=w_k, w_v=w_v, std=std)


def standard_matrix(rng: random.Random, rows: int, columns: int) -> tuple:
    """A (rows, columns) matrix of N(0, 1) draws from ``rng``, filled row by row.

    Every random matrix of the core is drawn this way, in a fixed order from one generator per
    seed, so a model that adds matrices after the first ones (an output projection, a second
    layer) leaves the first ones exactly as a smaller model drew them."""
    values = standard_normals(rng, rows * columns)
    return tuple(tuple(values[row * columns:(row + 1) * columns]) for row in range(rows))


def standard_normals(rng: random.Random, count: int) -> list[float]:
    """``count`` N(0, 1) draws: the very numbers ``count`` calls of ``rng.gauss(0.0, 1.0)`` give,
    drawn as gauss draws them (Box-Muller: two normals from two uniforms, the angle then the
    radius, the second normal kept in ``rng.gauss_next`` for the next call) in one loop without
    a method call per number: the calls were most of a new seed's draws in Pyodide, and the
    encoder's six layers draw tens of thousands."""
    values: list[float] = []
    if count <= 0:
        return values
    append = values.append
    if rng.gauss_next is not None:  # the second normal of a pair an earlier draw began
        append(0.0 + rng.gauss_next)  # gauss returns mu + z * sigma: -0.0 becomes 0.0 as there
        rng.gauss_next = None
    uniform, cos, sin, log, sqrt, tau = rng.random, math.cos, math.sin, math.log, math.sqrt, math.tau
    for _ in range((count - len(values)) // 2):
        angle = uniform() * tau
        radius = sqrt(-2.0 * log(1.0 - uniform()))
        append(0.0 + cos(angle) * radius)
        append(0.0 + sin(angle) * radius)
    if len(values) < count:  # an odd count: this pair's second normal waits for the next call
        angle = uniform() * tau
        radius = sqrt(-2.0 * log(1.0 - uniform()))
        append(0.0 + cos(angle) * radius)
        rng.gauss_next = sin(angle) * radius
    return values


@lru_cache(maxsize=64)
def _standard_draws(seed: int, d_model: int, d_k: int) -> tuple:
    """The N(0, 1) draws of W_Q, W_K, W_V for a seed. Remembered, because drawing them costs more
    than the attention itself, and every guard set of a seed uses the very same numbers."""
    rng = random.Random(seed)
    return tuple(standard_matrix(rng, d_model, d_k) for _ in range(3))

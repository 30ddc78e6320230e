"""Softmax: turning a row of scores into attention weights, and why big scores stop learning.

softmax(s)_i = exp(s_i) / sum_j exp(s_j)

The weights are positive and sum to 1. Only differences between scores matter: adding the same
constant to every score changes nothing. That is what makes the computation safe: subtracting the
row's maximum first keeps every exp() at or below 1, so huge scores cannot overflow.

The catch is saturation. When one score is far above the rest, its weight is ~1 and the others ~0,
and the Jacobian J = diag(p) - p p^T, which carries the gradient back to the scores, goes to zero:
the head stops learning. Keeping scores in range is what the three guards are for.
"""

import math
from itertools import chain, combinations, repeat, starmap
from operator import mul

from scalecore.matrices import Matrix, Vector


def softmax(scores: Vector) -> Vector:
    """Weights that sum to 1, computed stably (shifted by the maximum before exp)."""
    if not scores:
        raise ValueError("softmax needs at least one score")
    if not all(map(math.isfinite, scores)):
        raise ValueError("softmax needs finite scores (no inf or nan)")
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = math.fsum(exps)
    return [e / total for e in exps]


def softmax_rows(scores: Matrix) -> Matrix:
    """Softmax applied to each row: every query spreads its attention over the keys."""
    return [softmax(row) for row in scores]


def softmax_jacobian(weights: Vector) -> Matrix:
    """d softmax_i / d score_j = p_i (delta_ij - p_j), from the weights p themselves.

    On the diagonal p_i (1 - p_i): largest at p_i = 1/2, zero when p_i is 0 or 1.
    """
    return [
        [p_i * ((1.0 if i == j else 0.0) - p_j) for j, p_j in enumerate(weights)]
        for i, p_i in enumerate(weights)
    ]


def jacobian_norm(weights: Vector) -> float:
    """Frobenius norm of the softmax Jacobian: how much gradient can flow back to the scores.

    The entries p_i (delta_ij - p_j) of softmax_jacobian, squared and summed exactly, without
    building the matrix (the measures take it for every row of every head): p_i (1 - p_i) on the
    diagonal, and off it -p_i p_j, once above the diagonal and once below, so

        ||J||^2 = sum_i (p_i (1 - p_i))^2 + 2 sum_{i<j} (p_i p_j)^2

    (the doubling is exact, and so is fsum: the result is the very number the whole matrix gives)."""
    diagonal = [p * (1.0 - p) for p in weights]
    off = list(starmap(mul, combinations(weights, 2)))  # p_i p_j for i < j, paired in C, not in a Python loop
    return math.sqrt(math.fsum(chain(map(mul, diagonal, diagonal), map(mul, map(mul, off, off), repeat(2.0)))))


def entropy(weights: Vector) -> float:
    """Shannon entropy in nats: log(T) for even attention over T tokens, 0 for a one-hot row."""
    return -math.fsum([p * math.log(p) for p in weights if p > 0.0])


def saturation_lesson(examples: list[list[float]], factors: list[float], base: list[float]) -> dict:
    """The worked examples of the saturation lesson, and a sweep of ``base`` multiplied by each
    factor: the weights go one-hot and the gradient that reaches the scores goes to 0."""
    rows = []
    for scores in examples:
        weights = softmax(scores)
        rows.append({"scores": scores, "weights": weights, "jacobian": softmax_jacobian(weights),
                     "gradient": jacobian_norm(weights)})
    sweep = []
    for factor in factors:
        weights = softmax([factor * s for s in base])
        sweep.append({"factor": factor, "weights": weights, "gradient": jacobian_norm(weights)})
    return {"schema": "scalecore/softmax/1", "examples": rows, "sweep": sweep}

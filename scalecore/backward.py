"""What a saturated head can still learn: one head's backward pass.

Training sends a gradient G = dL/d(out) into the head's output out = A V, and the chain rule
carries it back along two roads:

    through the values:   dL/dW_V = X^T A^T G                      (no softmax on this road)
    through the softmax:  dL/dA   = G V^T                          (T, T)
                          dL/dS_i = J_i dL/dA_i, row by row        J_i = diag(a_i) - a_i a_i^T
                          divided by sqrt(d_k) with the ``scale`` guard
                          dL/dQ   = dL/dS K,   dL/dK = (dL/dS)^T Q
                          dL/dW_Q = X^T dL/dQ, dL/dW_K = X^T dL/dK

(X is what the head saw: LayerNorm(X) with the ``norm`` guard.) Saturation makes every J_i
vanish, so the *scores* get almost no gradient. That is all it silences. W_V never meets the
Jacobian and keeps learning. W_Q and W_K get the vanishing J multiplied by X and by the keys or
queries: with a large input that product can still be large, and it goes to 0 only when the
saturation is deep enough to beat the input's size.

Nothing here is trained, so there is no loss: G is a random draw, one fixed stream per seed
(``Random("upstream <seed>")``, separate from the projections' stream), the same in CPython and
Pyodide. The sizes of the resulting gradients are what the measures report.

Each step is its own function, so a caller can take only the roads it needs: the measures need
the sizes of dL/dW_Q and dL/dW_V, not dL/dW_K (which mirrors dL/dW_Q), and the eight guard sets
of one input share G and, pairwise, V and G V^T (see scalecore.attention).
"""

import math
import random
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from operator import mul, sub

from scalecore.matrices import Matrix, matmul, scale, transpose, triangular_matmul
from scalecore.projections import standard_matrix


@dataclass(frozen=True)
class Gradients:
    scores: Matrix  # dL/dS, (T, T): the gradient that reaches the scores softmax received
    w_q: Matrix  # dL/dW_Q, (d_model, d_k)
    w_k: Matrix  # dL/dW_K, (d_model, d_k)
    w_v: Matrix  # dL/dW_V, (d_model, d_k)


def upstream(seed: int, tokens: int, d_k: int) -> Matrix:
    """The gradient arriving at the head's output, (T, d_k), drawn from N(0, 1) for ``seed``."""
    return [list(row) for row in _upstream_draws(seed, tokens, d_k)]


@lru_cache(maxsize=32)
def _upstream_draws(seed: int, tokens: int, d_k: int) -> tuple:
    """Remembered: all eight guard sets of a recompute receive the very same G."""
    return standard_matrix(random.Random(f"upstream {seed}"), tokens, d_k)


def through_softmax(p: list[float], g: list[float]) -> list[float]:
    """J g for the softmax Jacobian J = diag(p) - p p^T of one row: (J g)_i = p_i (g_i - p . g).

    Written as p_i * sum_j p_j (g_i - g_j) (the same, since the p_j sum to 1) because a saturated
    row has p_top = 1 - epsilon, and g_top - p . g would subtract two nearly equal numbers: the
    rounding of p_top, not the maths, would decide the result (and differ between runtimes)."""
    # p_j * (g_i - g_j) for every j, mapped in C rather than looped in Python: the same products
    return [p_i * math.fsum(map(mul, p, map(sub, repeat(g_i), g))) for p_i, g_i in zip(p, g)]


def score_gradient(weights: Matrix, grad_weights: Matrix) -> Matrix:
    """dL/dS = J_i dL/dA_i for every row i: what reaches the scores through each row's softmax."""
    return [through_softmax(a, row) for a, row in zip(weights, grad_weights)]


def query_gradient(seen_t: Matrix, grad_raw: Matrix, keys: Matrix) -> Matrix:
    """dL/dW_Q = X^T (dL/dS K), from X^T (``seen_t``) and the scores' gradient before the scale.

    (The measures need only its size: see gradient_sizes.)"""
    return matmul(seen_t, matmul(grad_raw, keys))


def key_gradient(seen_t: Matrix, grad_raw: Matrix, queries: Matrix) -> Matrix:
    """dL/dW_K = X^T ((dL/dS)^T Q): the keys sit on the other side of q . k."""
    return matmul(seen_t, matmul(transpose(grad_raw), queries))


def value_gradient(seen_t: Matrix, weights: Matrix, grad_out: Matrix) -> Matrix:
    """dL/dW_V = X^T (A^T G): the road that never meets the softmax Jacobian."""
    return matmul(seen_t, matmul(transpose(weights), grad_out))


def backward(seen: Matrix, queries: Matrix, keys: Matrix, values: Matrix, weights: Matrix,
             scaled: bool, grad_out: Matrix) -> Gradients:
    """The gradients of L = sum(G * out) with respect to the scores and the three projections."""
    d_k = len(keys[0])
    grad_weights = matmul(grad_out, transpose(values))  # dL/dA = G V^T
    grad_scores = score_gradient(weights, grad_weights)
    grad_raw = scale(grad_scores, 1.0 / math.sqrt(d_k)) if scaled else grad_scores
    seen_t = transpose(seen)
    return Gradients(
        scores=grad_scores,
        w_q=query_gradient(seen_t, grad_raw, keys),
        w_k=key_gradient(seen_t, grad_raw, queries),
        w_v=value_gradient(seen_t, weights, grad_out),
    )


def gradient_sizes(seen_t_r: Matrix, grad_raw: Matrix, keys: Matrix, weights: Matrix,
                   grad_out_r: Matrix) -> tuple[float, float]:
    """||dL/dW_Q|| and ||dL/dW_V||, what the measures report, without the (d_model, d_k) gradients.

    A matrix Q with orthonormal columns keeps lengths: ||Q M|| = ||M||. So with X^T = Q R
    (``seen_t_r`` is R, from scalecore.matrices.triangular_factor) and G = R'^T Q'^T
    (``grad_out_r`` is R'^T, the factor of G^T transposed):

        ||X^T (dL/dS K)|| = ||R (dL/dS K)||      ||X^T A^T G|| = ||R A^T R'^T||

    with (T, T) factors in place of the (d_model, T) X^T and the (T, d_k) G: the same sizes (to
    rounding) for about a third of the work. K keeps its place: dL/dS K can be far smaller than
    dL/dS and K (the rows of dL/dS sum to 0), and only that product, computed first and exactly
    summed, keeps its small size accurate."""
    query = triangular_matmul(seen_t_r, matmul(grad_raw, keys))
    value = triangular_matmul(seen_t_r, matmul(transpose(weights), grad_out_r))
    return size(query), size(value)


def size(m: Matrix) -> float:
    """The Frobenius norm: the square root of the sum of squared entries."""
    return math.sqrt(math.fsum([v * v for row in m for v in row]))

"""One attention head, step by step, with the three guards as switches.

Given a sentence of T tokens, each a d_model-vector (rows of X, shape (T, d_model)):

    X       <- LayerNorm(X)                    if the ``norm`` guard is on
    Q = X W_Q,  K = X W_K,  V = X W_V          (T, d_k); W drawn at 1/sqrt(d_model) if ``init``
    S = Q K^T                                  (T, T): S[i][j] = q_i . k_j, how well token i's
                                               query matches token j's key
    S <- S / sqrt(d_k)                         if ``scale``
    A = softmax(S), row by row                 (T, T): row i is where token i looks
    out = A V                                  (T, d_k): each token's new, context-aware vector

Why the guards: q_i . k_j is a sum of d_k products. If q and k have unit-variance entries, the sum
has variance d_k (so dividing by sqrt(d_k) brings it back to 1). If X or W are large, q and k
are large too, the scores spread far apart, softmax puts all weight on one token, and its
gradient vanishes. Every step below keeps its intermediate, so a reader can inspect each one; the
backward pass (scalecore.backward) shows what such a head can and cannot still learn.
"""

import math
from dataclasses import dataclass, replace

from scalecore.backward import backward, size, upstream
from scalecore.guards import GuardSet
from scalecore.layernorm import layer_norm
from scalecore.matrices import Matrix, matmul, scale, shape, transpose
from scalecore.measures import Measures, measure
from scalecore.projections import Projections, draw_projections
from scalecore.softmax import softmax_rows


@dataclass(frozen=True)
class HeadResult:
    """Every intermediate of one forward pass, in the order it was computed."""

    guards: GuardSet
    seed: int
    d_model: int
    d_k: int
    x: Matrix  # the input as given (T, d_model)
    x_norm: Matrix | None  # after LayerNorm, or None without the norm guard
    projections: Projections
    queries: Matrix  # (T, d_k)
    keys: Matrix  # (T, d_k)
    scores: Matrix  # (T, T), after division by sqrt(d_k) when the scale guard is on
    weights: Matrix  # (T, T), rows sum to 1
    measures: Measures

    @property
    def head_input(self) -> Matrix:
        """What the projections actually see: X, or LayerNorm(X) with the norm guard."""
        return self.x if self.x_norm is None else self.x_norm

    @property
    def values(self) -> Matrix:
        """V = X W_V, (T, d_k): what each token hands on when attended to."""
        return matmul(self.head_input, self.projections.w_v)

    @property
    def output(self) -> Matrix:
        """A V, (T, d_k): each token's new, context-aware vector, a weighted mix of the values.
        Computed on request: no measure needs it, and the lesson recomputes heads live."""
        return matmul(self.weights, self.values)


_projected: dict = {}  # recent (input, norm, init, seed, d_k) -> their LayerNorm, projections, Q and K


def _project(x: Matrix, norm: bool, init: bool, seed: int, d_k: int):
    """X (or LayerNorm(X)) through W_Q and W_K. The ``scale`` guard changes neither, so a guard set
    and its twin without ``scale`` share them: remembered for the last few inputs (live mode
    recomputes all eight guard sets of one input at once). The numbers are the same either way."""
    key = (tuple(map(tuple, x)), norm, init, seed, d_k)
    if key not in _projected:
        if len(_projected) >= 16:
            _projected.clear()
        x_norm = layer_norm(x) if norm else None
        seen = x if x_norm is None else x_norm
        projections = draw_projections(seed, len(x[0]), d_k, guarded=init)
        _projected[key] = (x_norm, projections, matmul(seen, projections.w_q), matmul(seen, projections.w_k))
    return _projected[key]


def attend(x: Matrix, guards: GuardSet, seed: int, d_k: int, words: list[str] | None = None) -> HeadResult:
    """Run one head on the input ``x`` with the projections drawn from ``seed``; ``words`` (the
    sentence's tokens), when given, lets the measures count a repeated word once."""
    tokens, d_model = shape(x)
    if tokens == 0:
        raise ValueError("attention needs at least one token")
    x_norm, projections, queries, keys = _project(x, guards.norm, guards.init, seed, d_k)
    seen = x if x_norm is None else x_norm
    scores = matmul(queries, transpose(keys))  # (T, T)
    if guards.scale:
        scores = scale(scores, 1.0 / math.sqrt(d_k))
    weights = softmax_rows(scores)  # (T, T)
    values = matmul(seen, projections.w_v)
    learned = backward(seen, queries, keys, values, weights, guards.scale, upstream(seed, tokens, d_k))
    measures = replace(measure(seen, scores, weights, words), query_gradient=size(learned.w_q),
                       value_gradient=size(learned.w_v))
    return HeadResult(
        guards=guards,
        seed=seed,
        d_model=d_model,
        d_k=d_k,
        x=x,
        x_norm=x_norm,
        projections=projections,
        queries=queries,
        keys=keys,
        scores=scores,
        weights=weights,
        measures=measures,
    )

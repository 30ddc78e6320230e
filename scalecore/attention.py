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
from dataclasses import dataclass
from functools import lru_cache

from scalecore.backward import gradient_sizes, score_gradient, upstream
from scalecore.guards import GuardSet
from scalecore.layernorm import layer_norm
from scalecore.matrices import Matrix, matmul, scale, shape, transpose, triangular_factor
from scalecore.measures import Measures, attention_measures, input_measures
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


@dataclass(frozen=True)
class Unscaled:
    """Everything a head computes from its input before the ``scale`` guard has a say: a guard set
    and its twin without ``scale`` share all of it, so live mode (all eight guard sets of one
    input at once) computes it four times, not eight."""

    x_norm: Matrix | None  # LayerNorm(X), or None without the norm guard
    input_measures: dict  # the measures of what the projections see (scalecore.measures.input_measures)
    projections: Projections
    queries: Matrix  # Q = X W_Q, (T, d_k)
    keys: Matrix  # K = X W_K, (T, d_k)
    values: Matrix  # V = X W_V, (T, d_k)
    raw_scores: Matrix  # Q K^T, (T, T), before any division by sqrt(d_k)
    grad_out: Matrix  # G, the upstream gradient of the seed (scalecore.backward.upstream), (T, d_k)
    grad_weights: Matrix  # dL/dA = G V^T, (T, T): the weights' gradient, whatever the weights are
    # Smaller stand-ins for two factors of the backward pass, giving products of the same sizes
    # (see scalecore.backward.gradient_sizes): R of X^T = Q R, and R'^T of G^T = Q' R'.
    seen_t_r: Matrix  # (min(T, d_model), T) in place of X^T (X: what the projections see)
    grad_out_r: Matrix  # (T, min(T, d_k)) in place of G


_unscaled: dict = {}  # recent (input, norm, init, seed, d_k) -> Unscaled
_seen: dict = {}  # recent (input, norm) -> LayerNorm(X) or None, its input measures, R of its X^T


def unscaled(x: Matrix, norm: bool, init: bool, seed: int, d_k: int) -> Unscaled:
    """The part of a head the ``scale`` guard does not change (see Unscaled), remembered for the
    last few inputs; what depends on the input and ``norm`` alone is shared by both ``init``s, and
    G's stand-in by all eight guard sets.

    The ``init`` guard only rescales the same N(0, 1) draws by s = 1/sqrt(d_model), and every
    product below is linear in each W: with it, Q, K and V are s times the unguarded ones, the
    scores s^2 times, the weights' gradient G V^T s times. So the guarded head is the unguarded
    one rescaled, not multiplied out again (the bake and live mode both take this road, so they
    agree to the last bit; the two roads themselves differ by rounding only)."""
    rows = tuple(map(tuple, x))
    key = (rows, norm, init, seed, d_k)
    if key not in _unscaled:
        if len(_unscaled) >= 16:
            _unscaled.clear()
            _seen.clear()
        if init:
            _unscaled[key] = _rescaled(unscaled(x, norm, False, seed, d_k), seed, len(x[0]), d_k)
            return _unscaled[key]
        if (rows, norm) not in _seen:
            x_norm = layer_norm(x) if norm else None
            seen = x if x_norm is None else x_norm
            _seen[rows, norm] = (x_norm, input_measures(seen), triangular_factor(transpose(seen)))
        x_norm, measured, seen_t_r = _seen[rows, norm]
        seen = x if x_norm is None else x_norm
        projections = draw_projections(seed, len(x[0]), d_k, guarded=init)
        queries, keys, values = (matmul(seen, w) for w in (projections.w_q, projections.w_k, projections.w_v))
        grad_out = upstream(seed, len(x), d_k)
        _unscaled[key] = Unscaled(
            x_norm=x_norm,
            input_measures=measured,
            projections=projections,
            queries=queries,
            keys=keys,
            values=values,
            raw_scores=matmul(queries, transpose(keys)),  # S[i][j] = q_i . k_j
            grad_out=grad_out,
            grad_weights=matmul(grad_out, transpose(values)),  # dL/dA = G V^T
            seen_t_r=seen_t_r,
            grad_out_r=_upstream_factor(seed, len(x), d_k),
        )
    return _unscaled[key]


def _rescaled(drawn: Unscaled, seed: int, d_model: int, d_k: int) -> Unscaled:
    """The head with the ``init`` guard, from the same head without it (see unscaled)."""
    projections = draw_projections(seed, d_model, d_k, guarded=True)
    s = projections.std
    return Unscaled(
        x_norm=drawn.x_norm,
        input_measures=drawn.input_measures,
        projections=projections,
        queries=scale(drawn.queries, s),
        keys=scale(drawn.keys, s),
        values=scale(drawn.values, s),
        raw_scores=scale(drawn.raw_scores, s * s),
        grad_out=drawn.grad_out,
        grad_weights=scale(drawn.grad_weights, s),
        seen_t_r=drawn.seen_t_r,
        grad_out_r=drawn.grad_out_r,
    )


@lru_cache(maxsize=32)
def _upstream_factor(seed: int, tokens: int, d_k: int) -> Matrix:
    """R'^T of G^T = Q' R' for the seed's upstream gradient G (see Unscaled): one per seed."""
    return transpose(triangular_factor(transpose(upstream(seed, tokens, d_k))))


def attend(x: Matrix, guards: GuardSet, seed: int, d_k: int, words: list[str] | None = None) -> HeadResult:
    """Run one head on the input ``x`` with the projections drawn from ``seed``; ``words`` (the
    sentence's tokens), when given, lets the measures count a repeated word once."""
    tokens, d_model = shape(x)
    if tokens == 0:
        raise ValueError("attention needs at least one token")
    head = unscaled(x, guards.norm, guards.init, seed, d_k)
    if guards.scale:
        scores = scale(head.raw_scores, 1.0 / math.sqrt(d_k))  # (T, T)
    else:
        scores = [row[:] for row in head.raw_scores]  # a copy: the shared one stays as it was
    weights = softmax_rows(scores)  # (T, T)
    # The backward pass (scalecore.backward), along the two roads the measures report: W_Q, whose
    # gradient passes through the softmax, and W_V, whose gradient does not; only their sizes.
    grad_scores = score_gradient(weights, head.grad_weights)  # dL/dS
    grad_raw = scale(grad_scores, 1.0 / math.sqrt(d_k)) if guards.scale else grad_scores
    query_size, value_size = gradient_sizes(head.seen_t_r, grad_raw, head.keys, weights, head.grad_out_r)
    measures = Measures(**head.input_measures, **attention_measures(scores, weights, words),
                        query_gradient=query_size, value_gradient=value_size)
    return HeadResult(
        guards=guards,
        seed=seed,
        d_model=d_model,
        d_k=d_k,
        x=x,
        x_norm=head.x_norm,
        projections=head.projections,
        queries=head.queries,
        keys=head.keys,
        scores=scores,
        weights=weights,
        measures=measures,
    )

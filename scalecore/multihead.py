"""Multi-head attention: the width of the model split among h heads that look independently.

One head with d_k = d_model sees one pattern: every token gets one row of weights. Multi-head
attention gives the same width to h smaller heads instead, each with its own row of weights:

    X_seen = LayerNorm(X) if the ``norm`` guard is on, else X          (T, d_model)
    Q = X_seen W_Q,  K = X_seen W_K,  V = X_seen W_V                   (T, d_model) each
    head i (i = 1, ..., h) owns the columns (i-1)*d_k ... i*d_k - 1 (counted from 0), with d_k = d_model / h:
        S_i = Q_i K_i^T, divided by sqrt(d_k) if ``scale``            (T, T)
        A_i = softmax(S_i), row by row                                 (T, T)
        O_i = A_i V_i                                                  (T, d_k)
    output = concat(O_1, ..., O_h) W_O                                 (T, d_model)

Why each head divides by sqrt(d_k), its own width: a score of head i is a sum of d_k products,
so with unit-scale queries and keys its variance is d_k, whatever h is. Dividing by sqrt(d_model)
instead would shrink every score by a further sqrt(h), and wide-split heads would attend almost
evenly for no reason.

Why h heads cost what one wide head costs: the projections and W_O are the same d_model x d_model
matrices either way, and the h score matrices of width d_k take h * T * T * d_k = T * T * d_model
multiply-adds, as the one of width d_model does (see :func:`cost`).

The weights are drawn from ``random.Random(seed)`` in the order W_Q, W_K, W_V, W_O (see
:func:`scalecore.projections.standard_matrix`), so one head here (h = 1) is exactly the single
head of :mod:`scalecore.attention` with d_k = d_model, drawn from the same seed.
"""

import math
import random
from array import array
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from scalecore.guards import GuardSet
from scalecore.layernorm import layer_norm
from scalecore.matrices import Matrix, flatten, matmul, scale, shape, transpose
from scalecore.measures import SATURATION, Measures, attention_measures, input_measures
from scalecore.projections import init_std, standard_matrix
from scalecore.softmax import softmax_rows


@dataclass(frozen=True)
class Weights:
    """The four matrices of a multi-head layer, each (d_model, d_model)."""

    w_q: Matrix
    w_k: Matrix
    w_v: Matrix
    w_o: Matrix  # mixes the concatenated heads back into the model's width
    std: float  # the standard deviation they were drawn at


@dataclass(frozen=True)
class Head:
    """One head's share of the work. What is not needed for the next step (the measures, the
    output) is worked out when first asked for: the multi-head lesson reads the measures and
    never the output, the encoder the output and only three measures (scalecore.encoder)."""

    scores: Matrix  # (T, T), divided by sqrt(d_k) when the scale guard is on
    weights: Matrix  # (T, T), rows sum to 1
    values: Matrix  # V_i, (T, d_k): what the weights mix
    divisor: float  # what the scores were divided by: sqrt(d_k) with the scale guard, else 1
    seen: dict = field(repr=False)  # the measures of the input, which every head shares
    words: list[str] | None = field(default=None, repr=False)  # the tokens, to count a repeated word once

    @cached_property
    def measures(self) -> Measures:
        return Measures(**self.seen, **attention_measures(self.scores, self.weights, self.words))

    @cached_property
    def raw_spread(self) -> float:
        """The spread within a row of Q_i K_i^T, before any division."""
        return self.measures.score_spread * self.divisor

    @cached_property
    def output(self) -> Matrix:
        """A_i V_i, (T, d_k)."""
        return matmul(self.weights, self.values)


@dataclass(frozen=True)
class MultiHeadResult:
    head_input: Matrix  # what the projections see: X, or LayerNorm(X) with the norm guard
    d_k: int
    heads: list[Head]
    w_o: Matrix  # mixes the concatenated heads back into the model's width, (d_model, d_model)

    @cached_property
    def concat(self) -> Matrix:
        """The heads' outputs side by side, (T, d_model)."""
        return [[x for head in self.heads for x in head.output[t]] for t in range(len(self.head_input))]

    @cached_property
    def output(self) -> Matrix:
        """concat W_O, (T, d_model): the layer's output (worked out when first asked for)."""
        return matmul(self.concat, self.w_o)


def head_width(d_model: int, heads: int) -> int:
    """d_k = d_model / h; the heads must share the width exactly."""
    if d_model < 1:
        raise ValueError(f"attention needs token vectors of width at least 1, got {d_model}")
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1 or d_model % heads:
        accepted = ", ".join(str(h) for h in range(1, d_model + 1) if d_model % h == 0)
        raise ValueError(f"{heads!r} heads do not split d_model = {d_model}: use one of {accepted}")
    return d_model // heads


def columns(m: Matrix, start: int, stop: int) -> Matrix:
    """The columns start ... stop - 1 of ``m``: one head's slice of Q, K or V."""
    return [row[start:stop] for row in m]


def draw_weights(seed: int, d_model: int, guarded: bool) -> Weights:
    """W_Q, W_K, W_V, W_O from one generator seeded with ``seed``, at 1/sqrt(d_model) if guarded."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a seed is a non-negative integer, got {seed!r}")
    std = init_std(d_model, guarded)
    w_q, w_k, w_v, w_o = ([list(row) for row in m] for m in _scaled_draws(seed, d_model, std))  # fresh lists
    return Weights(w_q=w_q, w_k=w_k, w_v=w_v, w_o=w_o, std=std)


@lru_cache(maxsize=16)
def _standard_draws(seed: int, d_model: int) -> tuple:
    rng = random.Random(seed)
    return tuple(standard_matrix(rng, d_model, d_model) for _ in range(4))


@lru_cache(maxsize=16)
def _scaled_draws(seed: int, d_model: int, std: float) -> tuple:
    """The draws times ``std``, remembered: the 8 guard sets of a recompute need two scalings."""
    return tuple(tuple(tuple(z * std for z in row) for row in m) for m in _standard_draws(seed, d_model))


def mix(seen: Matrix, weights: Weights, heads: int, scaled: bool, words: list[str] | None = None) -> MultiHeadResult:
    """The layer on an input as it is (no LayerNorm here): the encoder decides where that goes.
    ``words`` (the sentence's tokens) lets the measures count a repeated word once."""
    tokens, d_model = shape(seen)
    if tokens == 0:
        raise ValueError("attention needs at least one token")
    d_k = head_width(d_model, heads)
    values, raws, seen_measures = _projected(seen, weights, heads, d_k)
    done = []
    for i in range(heads):
        v = columns(values, i * d_k, (i + 1) * d_k)
        raw = [list(row) for row in raws[i]]  # (T, T), a copy: the memo's stays as it was
        scores = scale(raw, 1.0 / math.sqrt(d_k)) if scaled else raw
        done.append(Head(scores=scores, weights=softmax_rows(scores), values=v,
                         divisor=math.sqrt(d_k) if scaled else 1.0, seen=seen_measures, words=words))
    return MultiHeadResult(head_input=seen, d_k=d_k, heads=done, w_o=weights.w_o)


_PROJECTED: dict[bytes, tuple] = {}  # the last few inputs' V and raw scores (see _projected)
_PROJECTED_SIZE = 8


def _projected(seen: Matrix, weights: Weights, heads: int, d_k: int) -> tuple[Matrix, list[Matrix], dict]:
    """V = seen W_V and each head's raw scores Q_i K_i^T: what ``mix`` computes before the scale
    guard is applied, with the measures of the input every head sees. The lesson's guard sets
    come in pairs that differ only in ``scale`` (the same input, the same weights), so the last
    few are kept under the exact bits of their inputs (-0.0 is not 0.0 there) and computed once
    for both: the same numbers, half the work."""
    key = b"".join([heads.to_bytes(4, "little"), len(seen).to_bytes(4, "little"),
                    *(array("d", flatten(m)).tobytes() for m in (seen, weights.w_q, weights.w_k, weights.w_v))])
    found = _PROJECTED.get(key)
    if found is None:
        queries, keys, values = (matmul(seen, w) for w in (weights.w_q, weights.w_k, weights.w_v))
        raws = []
        for i in range(heads):
            cut = (i * d_k, (i + 1) * d_k)
            q, k = columns(queries, *cut), columns(keys, *cut)
            raws.append(tuple(tuple(row) for row in matmul(q, transpose(k))))
        found = tuple(tuple(row) for row in values), tuple(raws), input_measures(seen)
        if len(_PROJECTED) >= _PROJECTED_SIZE:
            del _PROJECTED[next(iter(_PROJECTED))]  # the oldest
        _PROJECTED[key] = found
    return [list(row) for row in found[0]], list(found[1]), dict(found[2])


def attend(x: Matrix, guards: GuardSet, seed: int, heads: int,
           words: list[str] | None = None) -> tuple[MultiHeadResult, Weights]:
    """h heads on ``x`` under a guard set, with the weights drawn from ``seed``."""
    tokens, d_model = shape(x)
    if tokens == 0:
        raise ValueError("attention needs at least one token")
    head_width(d_model, heads)
    weights = draw_weights(seed, d_model, guarded=guards.init)
    seen = layer_norm(x) if guards.norm else x
    return mix(seen, weights, heads, scaled=guards.scale, words=words), weights


def favourites(weights: Matrix) -> list[int]:
    """For each token, the token it gives the most attention (the first, on a tie)."""
    return [row.index(max(row)) for row in weights]


def agreement(heads_weights: list[Matrix]) -> float:
    """How often two heads pick the same favourite for a token: the share of (token, pair of
    heads) that agree. 1 for a single head; near 1/T for heads that look at unrelated words."""
    picks = [favourites(w) for w in heads_weights]
    pairs = [(a, b) for i, a in enumerate(picks) for b in picks[i + 1:]]
    if not pairs:
        return 1.0
    return sum(x == y for a, b in pairs for x, y in zip(a, b)) / (len(pairs) * len(picks[0]))


def cost(tokens: int, d_model: int, heads: int) -> dict[str, int]:
    """Multiply-adds of one layer, stage by stage: the total does not depend on h."""
    d_k = head_width(d_model, heads)
    stages = {
        "projections": 3 * tokens * d_model * d_model,  # Q, K, V
        "scores": heads * tokens * tokens * d_k,  # each head's Q_i K_i^T
        "mixing": heads * tokens * tokens * d_k,  # each head's A_i V_i
        "output": tokens * d_model * d_model,  # concat W_O
    }
    return dict(stages, total=sum(stages.values()))


def combination(corpus: str, seed: int, heads: int, guards: str, sentence: str) -> dict:
    """One baked point of the multi-head lesson: every head's weights and measures, the score
    spread under each divisor, the shapes and the cost. Recomputed live by the same function."""
    from scalecore import sitedata
    from scalecore.experiment import position_aware_input, sentence_tokens

    table = sitedata.embeddings(corpus)
    tokens = sentence_tokens(sentence)
    unknown = table.unknown_words(tokens)
    if unknown:
        raise ValueError(f"not in the {corpus} vocabulary ({len(table.vocabulary)} words): {', '.join(unknown)}")
    guard_set = GuardSet.parse(guards)
    result, weights = attend(position_aware_input(table, tokens), guard_set, int(seed), int(heads), tokens)
    d_model, d_k = table.d_model, result.d_k
    per_head = [{
        "weights": head.weights,
        "measures": head.measures.as_dict(),
        "spread": {"unscaled": head.raw_spread, "sqrt_d_k": head.raw_spread / math.sqrt(d_k),
                   "sqrt_d_model": head.raw_spread / math.sqrt(d_model)},
    } for head in result.heads]
    row_max = [head.measures.mean_row_max for head in result.heads]
    T = len(tokens)
    return {
        "schema": "scalecore/multihead-combination/2",
        "corpus": corpus,
        "seed": int(seed),
        "heads": int(heads),
        "guards": str(guard_set),
        "sentence": sentence,
        "tokens": tokens,
        "d_model": d_model,
        "d_k": d_k,
        "per_head": per_head,
        "summary": {
            "mean_row_max": sum(row_max) / len(row_max),
            "lowest_row_max": min(row_max),
            "highest_row_max": max(row_max),
            "saturated_heads": sum(1 for value in row_max if value > SATURATION),  # heads near one-hot
            "gradient": sum(h.measures.gradient for h in result.heads) / len(result.heads),
            "agreement": agreement([head.weights for head in result.heads]),
        },
        "shapes": {"x": [T, d_model], "q_i": [T, d_k], "scores_i": [T, T], "concat": [T, d_model],
                   "w_o": [d_model, d_model], "output": [T, d_model]},
        "cost": cost(T, d_model, int(heads)),
        "init_std": weights.std,
    }


def report(result: MultiHeadResult, weights: Weights, tokens: list[str], x: Matrix, guards: GuardSet) -> dict:
    """Every intermediate as JSON-ready data: the CLI's ``multihead --json``."""
    return {
        "tokens": list(tokens),
        "x": x,
        "head_input": result.head_input,
        "heads": len(result.heads),
        "d_k": result.d_k,
        "w_q": weights.w_q,
        "w_k": weights.w_k,
        "w_v": weights.w_v,
        "w_o": weights.w_o,
        "weights": [head.weights for head in result.heads],
        "output": result.output,
        "guards": str(guards),
    }

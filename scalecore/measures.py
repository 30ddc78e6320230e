"""The numbers a reader watches while flipping the guards.

Each answers one question about the head:

- ``input_spread``:  how large are the entries of what the head sees? The standard deviation of
                     the entries of its input: X, or LayerNorm(X) when the ``norm`` guard is on.
- ``input_rms``:     the same input's root mean square, sqrt(E[x^2]). The projections' variance
                     argument needs E[x^2], not the variance: X does not have mean 0.
- ``score_spread``:  how far apart are the scores *of a row*? The standard deviation of each row
                     of scores, averaged over the rows. Softmax ignores a shift of a whole row, so
                     only the spread within a row decides how sharp its weights are.
- ``mean_row_max``:  how much of its attention does a token give its favourite token? 1/T is
                     even, 1 is all.
- ``word_row_max``:  the same per word: the weights of repeated tokens (the three *the*) added up
                     first. A row that splits 0.96 evenly over three *the* has a row-max of 0.32
                     but a word row-max of 0.96: it is saturated on one word.
- ``mean_entropy``:  the spread of attention in nats: log(T) is even, 0 is one-hot.
- ``gradient``:      the Frobenius norm of the softmax Jacobian J = diag(p) - p p^T, averaged over
                     rows: how much gradient can reach the scores. It lies in [0, 1/2]: 0 for a
                     one-hot row, sqrt(T - 1)/T for even attention (0.30 for T = 10), 1/2 for an
                     even split between two tokens. So it is *not* "bigger is better": read it as
                     "near 0 means the scores get no gradient".
- ``saturated_share``, ``word_saturated_share``: the share of rows whose largest weight (per
                     token, per word) exceeds 0.9.

A head's backward pass adds ``query_gradient`` and ``value_gradient`` (see scalecore.backward).
"""

import math
from dataclasses import dataclass

from scalecore.matrices import Matrix, Vector, flatten, mean, std
from scalecore.softmax import entropy, jacobian_norm

SATURATION = 0.9  # a row counts as saturated when one weight takes more than this


@dataclass(frozen=True)
class Measures:
    input_spread: float
    input_rms: float
    score_spread: float
    mean_row_max: float
    word_row_max: float
    mean_entropy: float
    gradient: float
    saturated_share: float
    word_saturated_share: float
    query_gradient: float | None = None  # ||dL/dW_Q||, when the head's backward pass was run
    value_gradient: float | None = None  # ||dL/dW_V||, likewise

    def as_dict(self) -> dict[str, float]:
        # vars(), not dataclasses.asdict: every field is a float, and Python 3.11's asdict
        # deep-copies each one (Pyodide's Python 3.14 returns floats as they are).
        return {name: value for name, value in vars(self).items() if value is not None}


def per_word(row: Vector, tokens: list[str] | None) -> Vector:
    """A row of weights with the weights of identical tokens added up, one entry per word type in
    order of first appearance. Without tokens every position is its own word."""
    return per_word_rows([row], tokens)[0]


def per_word_rows(rows: Matrix, tokens: list[str] | None) -> Matrix:
    """per_word of each row. Which positions hold the same word depends on the tokens alone, so it
    is worked out once for all the rows."""
    if tokens is None:
        return [list(row) for row in rows]
    positions: dict[str, list[int]] = {}
    for position, token in enumerate(tokens):
        positions.setdefault(token, []).append(position)
    groups = list(positions.values())
    for row in rows:
        if len(tokens) != len(row):
            raise ValueError(f"{len(tokens)} tokens for a row of {len(row)} weights")
    # a word seen once keeps its weight as it is (the sum of one weight is that weight)
    return [[row[group[0]] if len(group) == 1 else math.fsum([row[i] for i in group]) for group in groups]
            for row in rows]


def row_spread(scores: Matrix) -> float:
    """The standard deviation within each row of scores, averaged over the rows."""
    return mean([std(row) for row in scores])


def root_mean_square(x: Matrix) -> float:
    """sqrt(E[x^2]) over the entries: the typical size of an entry, its mean included."""
    return math.sqrt(mean([v * v for v in flatten(x)]))


def share_saturated(rows: Matrix) -> float:
    return mean([1.0 if max(row) > SATURATION else 0.0 for row in rows])


def mean_row_max(weights: Matrix) -> float:
    """The weight each token gives its favourite token, averaged over the tokens."""
    return mean([max(row) for row in weights])


def mean_gradient(weights: Matrix) -> float:
    """The size of each row's softmax Jacobian, averaged over the rows."""
    return mean([jacobian_norm(row) for row in weights])


def measure(x: Matrix, scores: Matrix, weights: Matrix, tokens: list[str] | None = None) -> Measures:
    """All measures of one head, from what it saw, its (final) scores and its weights. ``tokens``
    names the columns, so that repeated words can be counted as one."""
    return Measures(**input_measures(x), **attention_measures(scores, weights, tokens))


def input_measures(x: Matrix) -> dict[str, float]:
    """The measures of what the head sees, before it does anything with it: every guard set that
    sees the same input shares them."""
    return dict(input_spread=std(flatten(x)), input_rms=root_mean_square(x))


def attention_measures(scores: Matrix, weights: Matrix, tokens: list[str] | None = None) -> dict[str, float]:
    """The measures of where the head looks, from its (final) scores and its weights."""
    words = per_word_rows(weights, tokens)
    return dict(
        score_spread=row_spread(scores),
        mean_row_max=mean_row_max(weights),
        word_row_max=mean_row_max(words),
        mean_entropy=mean([entropy(row) for row in weights]),
        gradient=mean_gradient(weights),
        saturated_share=share_saturated(weights),
        word_saturated_share=share_saturated(words),
    )

"""The numbers a reader watches while flipping the guards.

Each answers one question about the head:

- ``input_spread``:  how large are the entries of the input X the head sees? (std)
- ``score_spread``:  how far apart are the scores softmax receives? (std)
- ``mean_row_max``:  how much of its attention does a token give its favourite? 1/T is even, 1 is all.
- ``mean_entropy``:  the same from the other side, in nats: log(T) is even, 0 is one-hot.
- ``gradient``:      the size of the softmax Jacobian, averaged over rows: near 0 means saturated
                     rows pass (almost) no gradient back, so the scores cannot learn.
- ``saturated_share``: the share of rows whose largest weight exceeds 0.9.
"""

from dataclasses import asdict, dataclass

from scalecore.matrices import Matrix, flatten, mean, std
from scalecore.softmax import entropy, jacobian_norm

SATURATION = 0.9  # a row counts as saturated when one weight takes more than this


@dataclass(frozen=True)
class Measures:
    input_spread: float
    score_spread: float
    mean_row_max: float
    mean_entropy: float
    gradient: float
    saturated_share: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def measure(x: Matrix, scores: Matrix, weights: Matrix) -> Measures:
    """All measures of one head, from its input, its (final) scores and its weights."""
    return Measures(
        input_spread=std(flatten(x)),
        score_spread=std(flatten(scores)),
        mean_row_max=mean([max(row) for row in weights]),
        mean_entropy=mean([entropy(row) for row in weights]),
        gradient=mean([jacobian_norm(row) for row in weights]),
        saturated_share=mean([1.0 if max(row) > SATURATION else 0.0 for row in weights]),
    )

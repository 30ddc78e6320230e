"""Layer normalisation, the ``norm`` guard.

Each token vector x is shifted and rescaled to mean 0 and variance 1:

    LayerNorm(x) = (x - mean(x)) / sqrt(var(x) + eps)

Here without the learned gain and bias (they start at 1 and 0 in a real model anyway). Whatever
the scale of the embeddings, large or small, the head then sees unit-scale input: this is why
BERT normalises its embeddings before the first layer.
"""

import math

from scalecore.matrices import Matrix, Vector, mean

EPS = 1e-5  # keeps the division finite for a constant vector; the usual default


def layer_norm_vector(x: Vector, eps: float = EPS) -> Vector:
    """One vector to mean 0, variance ~1 (population variance, as in the usual definition)."""
    mu = mean(x)
    variance = math.fsum([(v - mu) ** 2 for v in x]) / len(x)
    denominator = math.sqrt(variance + eps)
    return [(v - mu) / denominator for v in x]


def layer_norm(x: Matrix, eps: float = EPS) -> Matrix:
    """Every row (token) normalised on its own: tokens do not share statistics."""
    if eps <= 0:
        raise ValueError(f"eps must be positive, got {eps}")
    return [layer_norm_vector(row, eps) for row in x]

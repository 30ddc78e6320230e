"""Softmax with a temperature: p_i = exp(s_i / T) / sum_j exp(s_j / T).

A low temperature sharpens the weights towards the largest score (one-hot as T -> 0); a high
one flattens them towards even attention (1/n each as T -> infinity). Dividing scores by
sqrt(d_k) is exactly a temperature of sqrt(d_k).
"""

import math


def weights(scores: list[float], temperature: float) -> dict:
    """The weights of ``scores`` at ``temperature``, and their entropy in nats."""
    if not temperature > 0:
        raise ValueError(f"the temperature must be above 0, got {temperature!r}")
    scaled = [s / temperature for s in scores]
    top = max(scaled)
    exps = [math.exp(s - top) for s in scaled]  # minus the max: no overflow, same weights
    total = sum(exps)
    p = [e / total for e in exps]
    return {
        "scores": list(scores),
        "temperature": temperature,
        "weights": p,
        "entropy": -sum(w * math.log(w) for w in p if w > 0),
    }

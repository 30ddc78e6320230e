"""Why scores grow with d_k: the variance of a dot product, sampled.

Take q and k with d independent entries, each of mean 0 and variance 1. Each product q_i k_i has
mean 0 and variance 1, and a sum of d independent terms has variance d:

    Var(q . k) = d        so        Var(q . k / sqrt(d)) = 1

At d = 3 scores stay within a few units; at d = 1000 their typical size is ~32, and softmax of
such scores is nearly one-hot. Dividing by sqrt(d) undoes the growth exactly.
"""

import math
import random

from scalecore.matrices import dot, mean, std


def dot_product_samples(d: int, count: int, seed: int, scaled: bool = False) -> list[float]:
    """``count`` samples of q . k for q, k ~ N(0, I_d), divided by sqrt(d) when ``scaled``."""
    if d < 1 or count < 1:
        raise ValueError(f"need d >= 1 and count >= 1, got d={d}, count={count}")
    # q and k are 2d draws of rng.gauss(0.0, 1.0), q first: the same numbers, drawn here as gauss
    # draws them (Box-Muller, two normals from two uniforms: the angle, then the radius) without a
    # method call per number, which was most of a cold bake's time.
    uniform = random.Random(seed).random
    factor = 1.0 / math.sqrt(d) if scaled else 1.0
    cos, sin, log, sqrt, tau = math.cos, math.sin, math.log, math.sqrt, math.tau
    samples = []
    for _ in range(count):
        normals = []
        for _ in range(d):
            angle = uniform() * tau
            radius = sqrt(-2.0 * log(1.0 - uniform()))
            normals.append(0.0 + cos(angle) * radius)  # gauss returns mu + z * sigma
            normals.append(0.0 + sin(angle) * radius)
        samples.append(dot(normals[:d], normals[d:]) * factor)
    return samples


def summary(samples: list[float]) -> dict[str, float]:
    """Mean, variance and standard deviation of the samples (population), and the standard error
    of that variance as an estimate: sqrt((m4 - variance^2) / n), with m4 the samples' fourth
    central moment. It says how far a sample of this size may fall: for d = 1000 and 4,000 samples
    theory gives sqrt((2 d^2 + 6 d) / 4000), about 22.4, and the bake's estimate is about 23, so a
    sampled variance of 1,061 where theory says 1,000 is 2.6 of these standard errors high (2.7 of
    theory's), an unlucky seed (by the exact law of q . k, about one seed in 270 lands that high),
    not a biased sampler (over 300 seeds the sampled variances average 1,000)."""
    spread = std(samples)
    centre = mean(samples)
    variance = spread * spread
    fourth = math.fsum((value - centre) ** 4 for value in samples) / len(samples)
    error = math.sqrt(max(0.0, fourth - variance * variance) / len(samples))
    return {"mean": centre, "variance": variance, "std": spread, "variance_error": error}


def histogram(samples: list[float], bins: int, low: float, high: float) -> list[int]:
    """Counts in ``bins`` equal bins over [low, high]; values outside fall in the end bins."""
    if bins < 1 or not high > low:
        raise ValueError(f"need bins >= 1 and high > low, got {bins}, [{low}, {high}]")
    counts = [0] * bins
    width = (high - low) / bins
    for value in samples:
        index = min(bins - 1, max(0, math.floor((value - low) / width)))
        counts[index] += 1
    return counts


def lesson(dims: list[int], samples: int, seed: int = 0, bins: int = 40) -> dict:
    """q . k sampled for each d, raw and divided by sqrt(d), summarised with histograms.

    The raw histogram spans +-4 sqrt(d) (its own scale, to show the shape); the scaled one a
    fixed +-4, so the reader sees both the growth and its cure. The variance panel bakes this
    for its dimensions and computes it live, with the same function, for any other d.
    """
    rows = []
    for d in dims:
        d = int(d)
        raw = dot_product_samples(d, int(samples), int(seed))
        scaled = [value / d ** 0.5 for value in raw]
        reach = 4.0 * d ** 0.5
        rows.append({
            "d": d,
            "raw": dict(summary(raw), low=-reach, high=reach, counts=histogram(raw, bins, -reach, reach)),
            "scaled": dict(summary(scaled), low=-4.0, high=4.0, counts=histogram(scaled, bins, -4.0, 4.0)),
        })
    return {"schema": "scalecore/variance/1", "samples": int(samples), "seed": int(seed), "bins": int(bins),
            "dims": rows}

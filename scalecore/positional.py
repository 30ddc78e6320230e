"""Sinusoidal positional encoding (Vaswani et al., 2017, section 3.5).

Attention by itself ignores word order, so each position gets a fixed vector added to its word's
embedding:

    PE[pos, 2i]   = sin(pos / 10000^(2i / d_model))
    PE[pos, 2i+1] = cos(pos / 10000^(2i / d_model))

Every entry lies in [-1, 1]. That fixed, small scale is the point of the first lesson: the word
embeddings it is added to have no such bound, and with raw co-occurrence counts they dwarf it.
"""

import math
from functools import lru_cache

from scalecore.matrices import Matrix


def positional_encoding(length: int, d_model: int) -> Matrix:
    """The (length, d_model) matrix of sinusoids, one row per position."""
    if length < 0 or d_model < 1:
        raise ValueError(f"need length >= 0 and d_model >= 1, got {length} and {d_model}")
    return [list(row) for row in _rows(length, d_model)]


@lru_cache(maxsize=32)
def _rows(length: int, d_model: int) -> tuple:
    """Remembered: every guard set, seed and head of a recompute adds the very same sinusoids."""
    return tuple(tuple(_entry(pos, i, d_model) for i in range(d_model)) for pos in range(length))


def _entry(pos: int, i: int, d_model: int) -> float:
    frequency = 1.0 / 10000.0 ** ((i - i % 2) / d_model)  # pairs (2k, 2k+1) share a frequency
    angle = pos * frequency
    return math.sin(angle) if i % 2 == 0 else math.cos(angle)

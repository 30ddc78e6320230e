"""The three guards that keep attention's softmax in its working range, as data.

A guard set is written the same way everywhere (Python, JSON, URLs, lesson text): the names of
the active guards in the fixed order ``norm``, ``init``, ``scale`` joined by ``+``, or ``none``.

- ``norm``:  LayerNorm the head's input, so every token vector has mean 0 and variance 1,
             however large the embeddings were learned.
- ``init``:  draw the projections W_Q, W_K, W_V at standard deviation 1/sqrt(d_model), so a
             unit-scale input gives unit-scale queries and keys.
- ``scale``: divide the scores by sqrt(d_k), so the variance of q . k stays 1 whatever d_k.
"""

from dataclasses import dataclass
from itertools import product

GUARD_NAMES = ("norm", "init", "scale")
NO_GUARDS = "none"


@dataclass(frozen=True)
class GuardSet:
    """Which guards are on. Frozen and hashable, so it can key a cache or a dict of results."""

    norm: bool = False  # LayerNorm (no gain, no bias) of the input X
    init: bool = False  # projections ~ N(0, 1/d_model) instead of N(0, 1)
    scale: bool = False  # scores / sqrt(d_k)

    @classmethod
    def parse(cls, text: str) -> "GuardSet":
        """Read ``none``, ``scale``, ``init+scale``, ``norm+init+scale``... (any order, no repeats)."""
        if not isinstance(text, str):
            raise ValueError(f"a guard set is a string such as 'init+scale', not {text!r}")
        cleaned = text.strip().lower()
        if cleaned == NO_GUARDS:
            return cls()
        names = cleaned.split("+")
        unknown = [name for name in names if name not in GUARD_NAMES]
        if unknown:
            raise ValueError(
                f"unknown guard {unknown[0]!r} in {text!r}: "
                f"valid guards are {', '.join(GUARD_NAMES)} (joined by '+'), or '{NO_GUARDS}'"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"guard set {text!r} names a guard twice")
        return cls(**{name: True for name in names})

    @property
    def active(self) -> tuple[str, ...]:
        """The names of the guards that are on, in canonical order."""
        return tuple(name for name in GUARD_NAMES if getattr(self, name))

    def __str__(self) -> str:
        return "+".join(self.active) or NO_GUARDS


def all_guard_sets() -> tuple[GuardSet, ...]:
    """The 8 guard sets, from ``none`` to ``norm+init+scale``, fewest guards first."""
    sets = [GuardSet(*flags) for flags in product((False, True), repeat=len(GUARD_NAMES))]
    return tuple(sorted(sets, key=lambda g: (len(g.active), [GUARD_NAMES.index(n) for n in g.active])))

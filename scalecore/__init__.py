"""Scalecore: one attention head, three guards, and the measures that show why they matter.

The browser path (everything except :mod:`scalecore.embeddings` learning) is standard-library
Python, so the very same code runs at build time in CPython and live in the page under Pyodide.
"""

__version__ = "0.1.0"

from scalecore.guards import GUARD_NAMES, GuardSet, all_guard_sets
from scalecore.softmax import softmax, softmax_jacobian, softmax_rows

__all__ = [
    "GUARD_NAMES",
    "GuardSet",
    "all_guard_sets",
    "softmax",
    "softmax_jacobian",
    "softmax_rows",
    "__version__",
]

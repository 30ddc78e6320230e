"""Scalecore: one attention head, three guards, and the measures that show why they matter.

The browser path (everything except :mod:`scalecore.embeddings` learning) is standard-library
Python, so the very same code runs at build time in CPython and live in the page under Pyodide.
"""

__version__ = "0.1.0"

from scalecore.guards import GUARD_NAMES, GuardSet, all_guard_sets
from scalecore.softmax import softmax, softmax_jacobian, softmax_rows




def __getattr__(name: str):
    """``scalecore.load_table``, imported on first use (scalecore/tables.py). Lazily and by name:
    the bake keys each kind's files by the modules its compute function imports, and no compute
    function uses load_table, whose terminal path reaches the command line and numpy."""
    if name == "load_table":
        import importlib

        return importlib.import_module("scalecore.tables").load_table
    raise AttributeError(f"module 'scalecore' has no attribute {name!r}")

__all__ = [
    "load_table",
    "GUARD_NAMES",
    "GuardSet",
    "all_guard_sets",
    "softmax",
    "softmax_jacobian",
    "softmax_rows",
    "__version__",
]

"""Scalecore: one attention head, three guards, and the measures that show why they matter.

The browser path (everything except :mod:`scalecore.embeddings` learning) is standard-library
Python, so the very same code runs at build time in CPython and live in the page under Pyodide.
"""

__version__ = "0.1.0"

from scalecore.guards import GUARD_NAMES, GuardSet, all_guard_sets
from scalecore.softmax import softmax, softmax_jacobian, softmax_rows



def load_table(corpus: str):
    """The embedding table of a corpus, by name: ``load_table("demo")``.

    In the browser (the site's console), the table the site was built with, read from the site
    and checked against its manifest. In a terminal, the same table learned from the corpora
    shipped with this package (or ``$SCALECORE_CORPORA``), with the site's default settings, kept
    in the user's cache: learning needs numpy, which the browser path never imports. So the
    lesson's starter code runs as written in either place.
    """
    import sys

    if sys.platform == "emscripten":
        from scalecore.browser import load_table as from_the_site

        return from_the_site(corpus)
    from scalecore.cli import default_cache
    from scalecore.corpus import VOCABULARY_SIZE, default_root, load_corpora
    from scalecore.embeddings import cached_embeddings
    from scalecore.experiment import Settings

    settings = Settings()
    found = load_corpora(default_root(), [corpus])[corpus]
    return cached_embeddings(found, settings.d_model, default_cache(), settings.recipe, VOCABULARY_SIZE)


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

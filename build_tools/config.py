"""The plugin's options, validated by MkDocs' config_options: a bad value names the key and what
is accepted, before anything is built."""

from mkdocs.config import base
from mkdocs.config import config_options as c

from scalecore.corpus import SHARED_SENTENCE, VOCABULARY_SIZE
from scalecore.embeddings import DEFAULT_RECIPE, RECIPES
from scalecore.experiment import Settings

_defaults = Settings()


class Bounded(c.Type):
    """An integer within [low, high]: sizes and seeds must be sane before a long bake starts."""

    def __init__(self, low: int, high: int, default=None):
        super().__init__(int, default=default)
        self.low, self.high = low, high

    def run_validation(self, value):
        value = super().run_validation(value)
        if isinstance(value, bool) or not self.low <= value <= self.high:
            raise c.ValidationError(f"expected an integer from {self.low} to {self.high}, got {value!r}")
        return value


class ScalecoreConfig(base.Config):
    enabled = c.Type(bool, default=True)
    # Folder of corpora (one sub-folder each), relative to mkdocs.yml.
    corpora_dir = c.Type(str, default="corpora")
    # Which corpora to bake, in display order; empty means every corpus in corpora_dir.
    corpora = c.ListOfItems(c.Type(str), default=[])
    # Seeds of the projections to bake; readers pick among them (live mode takes any seed).
    seeds = c.ListOfItems(Bounded(0, 2**32 - 1), default=[0, 1, 2, 3, 4])
    d_model = Bounded(2, 256, default=_defaults.d_model)
    d_k = Bounded(1, 256, default=_defaults.d_k)
    # The sentence every corpus shares: every word must be in every corpus's vocabulary.
    sentence = c.Type(str, default=SHARED_SENTENCE)
    recipe = c.Choice(RECIPES, default=DEFAULT_RECIPE)
    vocabulary_size = Bounded(8, 20000, default=VOCABULARY_SIZE)
    # Learned tables and baked files, keyed by a hash of their inputs and of the code.
    cache_dir = c.Type(str, default=".cache/scalecore")
    # Processes for the bake; 0 means one per core.
    workers = Bounded(0, 64, default=0)
    # The variance lesson: dimensions of q and k to sample, and samples per dimension.
    variance_dims = c.ListOfItems(Bounded(1, 4096), default=[3, 10, 30, 100, 300, 1000])
    variance_samples = Bounded(100, 100000, default=4000)
    # Ship the self-hosted Pyodide and the core wheel for live mode and the console.
    live = c.Type(bool, default=True)

"""Word embeddings learned from counts, and the table the browser loads.

The recipe (Deerwester et al.'s LSA, in its simplest form):

1. Keep the ``vocabulary_size`` most frequent words.
2. Count how often each word appears within ``window`` tokens of each other word: a symmetric
   (V, V) co-occurrence matrix C.
3. Optionally reweight C (the ``recipe``): ``raw`` keeps the counts, ``sqrt`` and ``log1p``
   compress them, ``ppmi`` keeps only how much more often two words meet than chance predicts.
4. Factor it with a truncated SVD, C ~ U_k S_k V_k^T, and take E = U_k S_k: row w is word w's
   d_model-dimensional vector (k = d_model).

With ``raw`` counts, S_k holds the largest singular values of a count matrix, and counts grow
with the corpus: a corpus ten times larger gives vectors roughly ten times longer. That is the
failure the first lesson reproduces, and the reason the other recipes exist.

Learning needs numpy and happens at build time only; numpy is imported inside the functions that
need it, so ``import scalecore`` and the whole attention path work without it (as in Pyodide).
The :class:`EmbeddingTable` itself is plain Python.
"""

import base64
import hashlib
import json
import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scalecore.corpus import VOCABULARY_SIZE, Corpus
from scalecore.matrices import Matrix

RECIPES = ("raw", "sqrt", "log1p", "ppmi")
DEFAULT_RECIPE = "raw"  # on purpose: raw counts show how scale grows with the corpus
WINDOW = 2  # context words on each side
LEARNING_VERSION = "1"  # bump when the learning code changes what it produces: invalidates caches
TABLE_FORMAT = "scalecore-embeddings/1"


@dataclass(frozen=True)
class EmbeddingTable:
    """A vocabulary and one vector per word. Values are float32-exact, so the compact export
    (little-endian float32, base64) round-trips bit for bit and every runtime reads the same
    numbers."""

    corpus: str
    recipe: str
    d_model: int
    vocabulary: tuple[str, ...]
    vectors: tuple[tuple[float, ...], ...]

    def index(self) -> dict[str, int]:
        """Word -> row, built once per table (live mode looks words up at every recompute)."""
        found = self.__dict__.get("_index")
        if found is None:
            found = {word: i for i, word in enumerate(self.vocabulary)}
            object.__setattr__(self, "_index", found)  # a cache, not part of the table's value
        return found

    def unknown_words(self, tokens: list[str]) -> list[str]:
        """The tokens that have no vector, in order of first appearance."""
        known = self.index()
        return list(dict.fromkeys(token for token in tokens if token not in known))

    def lookup(self, tokens: list[str]) -> Matrix:
        """The (T, d_model) matrix of the tokens' vectors; a ValueError names unknown words."""
        unknown = self.unknown_words(tokens)
        if unknown:
            raise ValueError(
                f"not in the {self.corpus!r} vocabulary ({len(self.vocabulary)} words): "
                + ", ".join(unknown)
            )
        where = self.index()
        return [list(self.vectors[where[token]]) for token in tokens]

    def to_json(self) -> dict:
        """The compact, browser-loadable form: vectors as base64 little-endian float32."""
        flat = [value for vector in self.vectors for value in vector]
        packed = struct.pack(f"<{len(flat)}f", *flat)
        return {
            "format": TABLE_FORMAT,
            "corpus": self.corpus,
            "recipe": self.recipe,
            "d_model": self.d_model,
            "vocabulary": list(self.vocabulary),
            "vectors": base64.b64encode(packed).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: dict) -> "EmbeddingTable":
        if data.get("format") != TABLE_FORMAT:
            raise ValueError(f"not an embedding table of format {TABLE_FORMAT}: {data.get('format')!r}")
        d_model, vocabulary = data["d_model"], tuple(data["vocabulary"])
        flat = struct.unpack(f"<{len(vocabulary) * d_model}f", base64.b64decode(data["vectors"]))
        vectors = tuple(tuple(flat[i * d_model : (i + 1) * d_model]) for i in range(len(vocabulary)))
        return cls(data["corpus"], data["recipe"], d_model, vocabulary, vectors)


def check_recipe(recipe: str) -> str:
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}: choose one of {', '.join(RECIPES)}")
    return recipe


def learn_embeddings(
    corpus: Corpus,
    d_model: int,
    recipe: str = DEFAULT_RECIPE,
    vocabulary_size: int = VOCABULARY_SIZE,
    window: int = WINDOW,
) -> EmbeddingTable:
    """Count, reweight, factor: the table for one corpus (needs numpy)."""
    check_recipe(recipe)
    if d_model < 1 or vocabulary_size < 1 or window < 1:
        raise ValueError("d_model, vocabulary_size and window must be at least 1")
    import numpy as np  # build time only

    vocabulary = corpus.vocabulary(vocabulary_size)
    counts = cooccurrence_counts(corpus.sentences, vocabulary, window)
    vectors = truncated_svd_embedding(reweight(counts, recipe), d_model)
    vectors = vectors.astype(np.float32).astype(np.float64)  # the table's canonical precision
    return EmbeddingTable(
        corpus=corpus.name,
        recipe=recipe,
        d_model=d_model,
        vocabulary=tuple(vocabulary),
        vectors=tuple(tuple(float(v) for v in row) for row in vectors),
    )


def cooccurrence_counts(sentences, vocabulary, window: int):
    """C[a, b] = how often word b occurs within ``window`` tokens of word a, within a sentence."""
    import numpy as np

    where = {word: i for i, word in enumerate(vocabulary)}
    size = len(vocabulary)
    # One long stream of word ids, sentences separated by ``window`` gaps (-1), so no window
    # reaches across a sentence boundary; out-of-vocabulary words are gaps too.
    stream = []
    for sentence in sentences:
        stream.extend(where.get(token, -1) for token in sentence)
        stream.extend([-1] * window)
    ids = np.asarray(stream, dtype=np.int64)
    counts = np.zeros(size * size, dtype=np.float64)
    for offset in range(1, window + 1):
        left, right = ids[:-offset], ids[offset:]
        both = (left >= 0) & (right >= 0)
        pairs = left[both] * size + right[both]
        counts += np.bincount(pairs, minlength=size * size)
    counts = counts.reshape(size, size)
    return counts + counts.T  # b after a, and a after b


def reweight(counts, recipe: str):
    """Apply the recipe to the count matrix."""
    import numpy as np

    if recipe == "raw":
        return counts
    if recipe == "sqrt":
        return np.sqrt(counts)
    if recipe == "log1p":
        return np.log1p(counts)
    total = counts.sum()  # ppmi: max(0, log P(a, b) / (P(a) P(b)))
    rows = counts.sum(axis=1, keepdims=True)
    columns = counts.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(counts * total / (rows * columns))
    return np.where(np.isfinite(pmi) & (pmi > 0), pmi, 0.0)


def truncated_svd_embedding(matrix, k: int):
    """E = U_k S_k: the k largest singular directions of a symmetric matrix, scaled.

    The co-occurrence matrix is symmetric (a window counts both ways), so its SVD comes from the
    eigendecomposition M = Q diag(lam) Q^T: singular values are |lam|, left singular vectors the
    columns of Q. Exact, not randomized: about a second for 2,000 words, and deterministic.
    Each column's sign is fixed so that its largest entry is positive (an SVD is only defined up
    to sign). Fewer than k words give zero columns at the end, so every table has k columns.
    """
    import numpy as np

    if not np.array_equal(matrix, matrix.T):
        raise ValueError("truncated_svd_embedding expects a symmetric matrix")
    size = matrix.shape[0]
    rank = min(k, size)
    eigenvalues, eigenvectors = np.linalg.eigh(matrix)
    order = np.argsort(-np.abs(eigenvalues), kind="stable")[:rank]
    embedding = eigenvectors[:, order] * np.abs(eigenvalues[order])
    signs = np.sign(embedding[np.abs(embedding).argmax(axis=0), np.arange(rank)])
    embedding = embedding * np.where(signs == 0, 1.0, signs)
    if rank < k:
        embedding = np.hstack([embedding, np.zeros((size, k - rank))])
    return embedding


def cache_key(corpus: Corpus, d_model: int, recipe: str, vocabulary_size: int, window: int) -> str:
    """A hash of everything the table depends on: the corpus bytes, the settings, the code."""
    parts = [corpus.digest, recipe, str(d_model), str(vocabulary_size), str(window), LEARNING_VERSION]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def table_path(corpus: Corpus, d_model: int, cache_dir: str | os.PathLike, recipe: str = DEFAULT_RECIPE,
               vocabulary_size: int = VOCABULARY_SIZE, window: int = WINDOW) -> Path:
    """Where :func:`cached_embeddings` keeps the table of these settings."""
    key = cache_key(corpus, d_model, recipe, vocabulary_size, window)
    return Path(cache_dir) / "embeddings" / f"{corpus.name}-{key[:24]}.json"


def cached_embeddings(
    corpus: Corpus,
    d_model: int,
    cache_dir: str | os.PathLike,
    recipe: str = DEFAULT_RECIPE,
    vocabulary_size: int = VOCABULARY_SIZE,
    window: int = WINDOW,
    on_damage=None,
) -> EmbeddingTable:
    """The table from the cache, or learned and stored there.

    The file is written atomically (a killed build never leaves half of it) and carries the
    sha256 of its own content, checked on every read: a changed digit is a damaged entry, which
    is relearned (and reported to ``on_damage(message)`` when given), never used.
    """
    check_recipe(recipe)
    path = table_path(corpus, d_model, cache_dir, recipe, vocabulary_size, window)
    if path.exists():
        table = _read_checked(path)
        if table is not None:
            return table
        if on_damage is not None:
            on_damage(f"the cached embedding table {path.name} is damaged; it will be learned again.")
    table = learn_embeddings(corpus, d_model, recipe, vocabulary_size, window)
    body = json.dumps(table.to_json(), sort_keys=True)
    _write_atomically(path, json.dumps({"sha256": hashlib.sha256(body.encode()).hexdigest(), "table": table.to_json()},
                                      sort_keys=True))
    return table


def _read_checked(path: Path) -> "EmbeddingTable | None":
    try:
        wrapper = json.loads(path.read_text(encoding="utf-8"))
        body = json.dumps(wrapper["table"], sort_keys=True)
        if hashlib.sha256(body.encode()).hexdigest() != wrapper["sha256"]:
            return None
        return EmbeddingTable.from_json(wrapper["table"])
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


def _write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path`` and rename it into place. The core's own: it
    keeps its learned tables in a cache of its own (``python -m scalecore --cache``,
    ``load_table`` in a terminal), and the core imports nothing from the generator; the build's
    files use scalecore_generator/foundation/disk.py's ``write_atomically``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

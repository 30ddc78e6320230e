"""Corpora: plain-text folders turned into sentences of lower-case word tokens.

Everything Scalecore shows starts from a corpus. The embeddings are learned from raw
co-occurrence counts *on purpose*, so their scale grows with the size of the corpus; to make
that visible the project ships corpora of very different sizes (a hand-written demo of eight
sentences, about 10,000 WordNet glosses, the ~30,000-verse King James Version) and one
:data:`SHARED_SENTENCE` that every lesson feeds through attention in every corpus.

This module only reads text and metadata. It uses the standard library alone, so that the
same code runs at build time (CPython) and in the browser (Pyodide), and gives the same
tokens in both.

Adding a corpus
===============
A corpus is a folder ``corpora/<name>/`` (the name is the folder name: lower-case letters,
digits and ``-`` only, e.g. ``my-letters``; it appears in URLs and in the lesson text). It holds
two files:

``text.txt``
    UTF-8 text (a leading byte-order mark is tolerated). **One sentence per line** is the
    recommended format. A line break always ends a sentence; in addition a line is split
    after sentence-final ``.``, ``!`` or ``?`` (possibly followed by closing quotes or
    brackets) when whitespace and then something other than a lower-case letter follow, so
    ``"It rained. We stayed in."`` is two sentences while ``"e.g. the cat"`` stays one.
    Lines may not exceed 100,000 characters (longer lines are nearly always a file that lost
    its line breaks). See :func:`tokenise` for what counts as a word.

``corpus.toml``
    Metadata, read with :mod:`tomllib`::

        title = "Letters home"                       # str, shown in the lessons
        source = "Letters written by ..."            # str, where the text comes from
        licence = "CC BY 4.0; see LICENSE"           # str, under what terms we may ship it
        extraction = "python build_tools/extract_corpora.py kjv"
                                                     # str, the exact command that regenerates
                                                     # text.txt, or how it was made by hand
        description = "..."                          # optional str

        [counts]                                     # what the loader computes from text.txt
                                                     # (optional, but every shipped corpus has it)
        sentences = 8
        tokens = 61
        vocabulary = 41

    Every key is checked (an unknown key is an error, so that a typo such as ``license`` does
    not silently drop the licence). ``[counts]`` may be left out of a hand-written corpus; when
    it is there (the extraction script always writes it) all three numbers must be given and
    must equal what the loader computes: they record what the text was when the metadata was
    written, so a mismatch means one of the two changed without the other. The error message
    gives the correct numbers to paste.

Put the licence text or notice beside them (for example ``LICENSE``) when the source asks for it.

Errors
======
Every problem with a corpus raises :class:`CorpusError`, whose message names the file, the line
(or byte offset) and what to do, e.g.::

    corpora/letters/corpus.toml:3: key 'title' must be a string, not an integer (42). Fix: ...

Callers (the MkDocs plugin, the tests, a console user) can print ``str(error)`` as is; no
traceback is needed to find the problem.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from scalecore.corpus_files import MAX_LINE_LENGTH, METADATA_FILE, TEXT_FILE, CorpusError, check_counts, \
    read_metadata, read_text
from scalecore.tokens import split_sentences, tokenise

__all__ = [
    "SHARED_SENTENCE",
    "VOCABULARY_SIZE",
    "MAX_LINE_LENGTH",
    "CorpusError",
    "Corpus",
    "tokenise",
    "split_sentences",
    "is_valid_name",
    "find_corpora",
    "load_corpus",
    "load_corpora",
    "default_root",
    "missing_shared_words",
]

#: The sentence every corpus shares. The lessons compare attention on the *same* tokens across
#: corpora, so each of its words must be in the top-:data:`VOCABULARY_SIZE` vocabulary of every
#: corpus (an embedding exists only for those words); :func:`missing_shared_words` checks this.
SHARED_SENTENCE = "the old man looked at the light of the sun"

#: How many of the most frequent words of a corpus get an embedding by default.
VOCABULARY_SIZE = 2000

_NAME = re.compile(r"[a-z0-9-]+")


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """One loaded corpus: its metadata and its tokenised sentences.

    ``digest`` is the sha256 (hex) of the bytes of ``text.txt`` followed by the bytes of
    ``corpus.toml``: anything computed from the corpus (embeddings, baked panels) can be cached
    under it and is invalidated by any edit to either file.
    """

    name: str
    title: str
    source: str
    licence: str
    extraction: str
    description: str
    sentences: tuple[tuple[str, ...], ...] = field(repr=False)
    digest: str
    path: str

    @functools.cached_property
    def token_count(self) -> int:
        """Number of word tokens in all sentences."""
        return sum(len(sentence) for sentence in self.sentences)

    @functools.cached_property
    def _ranking(self) -> tuple[str, ...]:
        counts = Counter(word for sentence in self.sentences for word in sentence)
        return tuple(sorted(counts, key=lambda word: (-counts[word], word)))

    def vocabulary(self, size: int | None = VOCABULARY_SIZE) -> tuple[str, ...]:
        """The ``size`` most frequent words, most frequent first (``None``: every word).

        Words with equal counts are ordered alphabetically (by code point), so the vocabulary,
        and every embedding row built on it, is the same on every machine and every run.
        """
        if size is None:
            return self._ranking
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"vocabulary size must be a positive integer or None, not {size!r}")
        return self._ranking[:size]

    def counts(self) -> dict[str, int]:
        """``sentences``, ``tokens`` and ``vocabulary`` (distinct words), as in ``[counts]``."""
        return {
            "sentences": len(self.sentences),
            "tokens": self.token_count,
            "vocabulary": len(self._ranking),
        }


def is_valid_name(name: str) -> bool:
    """True if ``name`` is a valid corpus name: lower-case letters, digits and ``-`` only."""
    return bool(_NAME.fullmatch(name))


def _suggest_name(name: str) -> str:
    suggestion = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return suggestion or "my-corpus"


def _check_name(folder: pathlib.Path) -> str:
    name = folder.name or folder.resolve().name
    if not is_valid_name(name):
        raise CorpusError(
            folder,
            None,
            f"the folder name {name!r} is not a valid corpus name: corpus names use lower-case "
            "letters, digits and '-' only (they appear in URLs).",
            f"rename the folder, for example to {_suggest_name(name)!r}.",
        )
    return name


def load_corpus(folder: str | os.PathLike) -> Corpus:
    """Load and check one corpus folder (see the module docstring for its format).

    Raises :class:`CorpusError` naming the file, line and fix for any problem: missing folder
    or files, bad folder name, invalid TOML, missing or mistyped keys, text that is empty, not
    UTF-8, has an absurdly long line or no word at all, or ``[counts]`` that disagree with the
    text.
    """
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        problem = "is not a folder." if folder.exists() else "corpus folder not found."
        raise CorpusError(
            folder,
            None,
            problem,
            f"check the path, or create the folder with a {TEXT_FILE} and a {METADATA_FILE}.",
        )
    name = _check_name(folder)
    metadata_path = folder / METADATA_FILE
    text_path = folder / TEXT_FILE
    if not metadata_path.is_file():
        raise CorpusError(
            metadata_path,
            None,
            f"missing: every corpus folder needs a {METADATA_FILE} beside its {TEXT_FILE}.",
            "create it with the keys title, source, licence and extraction (the format is "
            "described in scalecore/corpus.py).",
        )
    if not text_path.is_file():
        raise CorpusError(
            text_path,
            None,
            f"missing: every corpus folder needs a {TEXT_FILE} (UTF-8, one sentence per line).",
            f"put the corpus text in {text_path}.",
        )

    metadata_bytes = metadata_path.read_bytes()
    text_bytes = text_path.read_bytes()
    metadata, metadata_text = read_metadata(metadata_path, metadata_bytes)
    sentences = read_text(text_path, text_bytes)

    corpus = Corpus(
        name=name,
        title=metadata["title"],
        source=metadata["source"],
        licence=metadata["licence"],
        extraction=metadata["extraction"],
        description=metadata.get("description", ""),
        sentences=sentences,
        digest=hashlib.sha256(text_bytes + metadata_bytes).hexdigest(),
        path=str(folder),
    )
    check_counts(metadata_path, metadata, metadata_text, corpus.counts())
    return corpus


def find_corpora(root: str | os.PathLike) -> dict[str, pathlib.Path]:
    """The corpus folders under ``root``, as ``{name: folder}`` sorted by name.

    A corpus folder is a sub-folder holding a ``corpus.toml`` or a ``text.txt`` (either one is
    enough to be found, so that a forgotten file is reported by :func:`load_corpus` instead of
    the corpus silently vanishing). Other files and folders, and hidden folders (``.name``), are
    ignored. A corpus folder with an invalid name is a :class:`CorpusError`.
    """
    root = pathlib.Path(root)
    if not root.is_dir():
        raise CorpusError(
            root,
            None,
            "corpora folder not found.",
            "check the path, or set SCALECORE_CORPORA to the folder that holds the corpora.",
        )
    found = {}
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        if not ((folder / METADATA_FILE).exists() or (folder / TEXT_FILE).exists()):
            continue
        found[_check_name(folder)] = folder
    return dict(sorted(found.items()))


def load_corpora(
    root: str | os.PathLike, names: Iterable[str] | str | None = None
) -> dict[str, Corpus]:
    """Load the corpora under ``root``: all of them (sorted by name), or ``names`` in that order.

    An unknown name is a :class:`CorpusError` listing the available ones; so is a root without
    any corpus when all are asked for.
    """
    available = find_corpora(root)
    if names is None:
        if not available:
            raise CorpusError(
                root,
                None,
                "no corpus found (no sub-folder holds a corpus.toml or text.txt).",
                "add a folder <name>/ with a text.txt and a corpus.toml, or point "
                "SCALECORE_CORPORA at the folder that holds the corpora.",
            )
        wanted = list(available)
    else:
        wanted = [names] if isinstance(names, str) else list(dict.fromkeys(names))
    for name in wanted:
        if name not in available:
            listing = ", ".join(available) if available else "(none)"
            raise CorpusError(
                root,
                None,
                f"no corpus named {name!r}.",
                f"use one of the corpora in this folder: {listing}.",
            )
    return {name: load_corpus(available[name]) for name in wanted}


#: The corpora that ship with the package (demo, wordnet, kjv): every site may use them by name.
SHIPPED = pathlib.Path(__file__).resolve().parent / "corpora"


def default_root() -> pathlib.Path:
    """Where corpora live: ``$SCALECORE_CORPORA`` if set, else ``./corpora`` if it exists,
    else the corpora shipped with this package (:data:`SHIPPED`).

    The environment variable lets a build or a test point at another set of corpora without
    changing the code; ``./corpora`` makes running from the project root just work.
    """
    configured = os.environ.get("SCALECORE_CORPORA")
    if configured:
        return pathlib.Path(configured)
    here = pathlib.Path("corpora")
    if here.is_dir():
        return here
    return SHIPPED


def missing_shared_words(
    corpora: Mapping[str, Corpus],
    sentence: str = SHARED_SENTENCE,
    size: int | None = VOCABULARY_SIZE,
) -> dict[str, list[str]]:
    """Which words of ``sentence`` are outside each corpus's top-``size`` vocabulary.

    Returns ``{corpus name: [missing words in sentence order]}`` for the corpora that miss at
    least one word (an empty dict means the sentence works everywhere). The build turns a
    non-empty result into an error, because a word without an embedding cannot be shown.
    """
    words = list(dict.fromkeys(word for s in tokenise(sentence) for word in s))
    if not words:
        raise ValueError(f"the shared sentence {sentence!r} has no words")
    missing = {}
    for name, corpus in corpora.items():
        vocabulary = set(corpus.vocabulary(size))
        absent = [word for word in words if word not in vocabulary]
        if absent:
            missing[name] = absent
    return missing

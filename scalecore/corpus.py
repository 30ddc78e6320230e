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

import difflib
import functools
import hashlib
import os
import pathlib
import re
import sys
import tomllib
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

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

#: Longest line accepted in ``text.txt`` (characters). Real sentences are far shorter; a longer
#: line is almost always a text without line breaks or a binary file renamed to ``.txt``.
MAX_LINE_LENGTH = 100_000

TEXT_FILE = "text.txt"
METADATA_FILE = "corpus.toml"

_NAME = re.compile(r"[a-z0-9-]+")
# Control characters other than tab and line ends: in a text they are damage, not words.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_REQUIRED_KEYS = ("title", "source", "licence", "extraction")
_OPTIONAL_KEYS = ("description",)
_COUNT_KEYS = ("sentences", "tokens", "vocabulary")
_ALL_KEYS = _REQUIRED_KEYS + _OPTIONAL_KEYS + ("counts",)


class CorpusError(ValueError):
    """A corpus (or the corpora folder) cannot be used; the message says where and how to fix it.

    Attributes:
        path: the file or folder at fault, as the caller spelled it.
        line: 1-based line number in ``path``, or ``None`` when no single line is at fault.
        problem: what is wrong (a sentence ending with a full stop).
        fix: what to do about it.

    ``str(error)`` is ``"{path}:{line}: {problem} Fix: {fix}"`` (without ``:{line}`` when
    ``line`` is ``None``), the ``file:line:`` shape that editors and terminals make clickable.
    """

    def __init__(self, path: str | os.PathLike, line: int | None, problem: str, fix: str):
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.fix = fix
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem} Fix: {fix}")

    def __reduce__(self):
        # Keep the error picklable (multiprocessing builds, pytest-xdist): ValueError's default
        # would call __init__ with the formatted message only.
        return (type(self), (self.path, self.line, self.problem, self.fix))


# --------------------------------------------------------------------------------------------
# Tokenising
# --------------------------------------------------------------------------------------------

# A sentence ends at one or more of . ! ? (with closing quotes or brackets after it), followed
# by whitespace; the caller then checks that the next character is not a lower-case letter.
_SENTENCE_END = re.compile(r"[.!?]+[\"'\u2019\u201d)\]}\u00bb]*\s+(?=\S)")

# Apostrophes and hyphens that may join two runs of letters into one word, and what they become.
_JOINERS = {"\u2019": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-"}

# ASCII text (all the shipped corpora) takes this fast path; it gives exactly what the Unicode
# path gives on ASCII input.
_ASCII_WORD = re.compile(r"[a-z]+(?:['-][a-z]+)*")


@functools.lru_cache(maxsize=1)
def _unicode_word() -> re.Pattern[str]:
    """The word pattern for non-ASCII text: Unicode letters, with combining marks inside words.

    ``re`` has no Unicode-category classes, so the classes are built once from
    :mod:`unicodedata` (about a quarter of a second, only when a non-ASCII text is seen).
    Marks are needed for scripts whose letters carry combining vowel signs; digits of any
    script (categories N*) are not letters.
    """
    letters: list[tuple[int, int]] = []
    marks: list[tuple[int, int]] = []
    for code in range(sys.maxunicode + 1):
        major = unicodedata.category(chr(code))[0]
        target = letters if major == "L" else marks if major == "M" else None
        if target is None:
            continue
        if target and target[-1][1] == code - 1:
            target[-1] = (target[-1][0], code)
        else:
            target.append((code, code))

    def char_class(ranges: list[tuple[int, int]]) -> str:
        return "".join(
            re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
            for a, b in ranges
        )

    letter, mark = char_class(letters), char_class(marks)
    run = f"[{letter}][{letter}{mark}]*"
    return re.compile(f"{run}(?:['-]{run})*")


def split_sentences(text: str) -> list[str]:
    """Split raw text into raw sentence strings (stripped, blank ones dropped).

    A line break always ends a sentence. Inside a line, a sentence ends after ``.``, ``!`` or
    ``?`` (any run of them, plus closing quotes or brackets) followed by whitespace, unless the
    next character is a lower-case letter: that keeps abbreviations such as ``e.g. the`` or
    ``etc. and`` inside their sentence, while ``It rained. We stayed in.`` splits in two.
    Sentences may contain no word at all (``"1984."``); :func:`tokenise` drops those.

    Each returned string splits into just itself again, which is how the extraction script can
    write one sentence per line that the loader reads back unchanged.
    """
    sentences = []
    for line in text.splitlines():
        start = 0
        for end in _SENTENCE_END.finditer(line):
            if line[end.end()].islower():
                continue
            sentences.append(line[start : end.end()])
            start = end.end()
        sentences.append(line[start:])
    return [s.strip() for s in sentences if s and not s.isspace()]


def _words(sentence: str, pattern: re.Pattern[str]) -> list[str]:
    lowered = sentence.lower()
    if not lowered.isascii():
        for joiner, plain in _JOINERS.items():
            lowered = lowered.replace(joiner, plain)
    return pattern.findall(lowered)


def tokenise(text: str) -> list[list[str]]:
    """Turn text into sentences of lower-case word tokens.

    Sentences are found by :func:`split_sentences`. Within a sentence:

    * a **word** is a run of letters (any script: Unicode letter categories, with combining
      marks allowed after the first letter), lower-cased with :meth:`str.lower`;
    * an **apostrophe** or **hyphen** between two letters stays inside the word, so ``don't``,
      ``lord's``, ``o'clock``, ``self-contained`` and ``beth-el`` are single tokens; the
      typographic apostrophe ``’`` and the Unicode hyphens ``‐`` ``‑`` become ASCII ``'``
      and ``-``. Anywhere else (``'quoted'``, ``fathers'``, ``--``, ``pro- and anti-``) they
      are punctuation;
    * **digits** and all other **punctuation** are dropped: they separate words and never
      become tokens (``mp3`` gives ``mp``);
    * sentences left without any word are dropped.

    Text is not Unicode-normalised: write it in NFC (what editors produce) so that a letter
    with an accent is one character.

    >>> tokenise("The cat's toy-box. It's 3 o'clock!\\n\\n42")
    [['the', "cat's", 'toy-box'], ["it's", "o'clock"]]
    """
    pattern = _ASCII_WORD if text.isascii() else _unicode_word()
    sentences = []
    for raw in split_sentences(text):
        words = _words(raw, pattern)
        if words:
            sentences.append(words)
    return sentences


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


def _decode(path: pathlib.Path, data: bytes) -> str:
    """Decode UTF-8 (tolerating a byte-order mark), naming the first bad byte and its line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        offset = error.start
        line = data.count(b"\n", 0, offset) + 1
        raise CorpusError(
            path,
            None,
            f"byte {offset} is not UTF-8 (line {line}).",
            f"the file holds 0x{data[offset]:02X} there (bytes are counted from 0); re-save the "
            "file as UTF-8, for example with: iconv -f windows-1252 -t utf-8 (check which "
            "encoding it really uses first).",
        ) from None
    return text.removeprefix("\ufeff")


def _key_line(toml_text: str, key: str, table: str | None = None) -> int | None:
    """Best-effort line number of ``key = ...`` (inside ``[table]`` if given) for messages."""
    current = None
    key_re = re.compile(rf"\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=")
    header_re = re.compile(r"\s*\[\s*([^\]\s]+)\s*\]")
    for number, line in enumerate(toml_text.splitlines(), start=1):
        header = header_re.match(line)
        if header:
            current = header.group(1)
            if table is not None and key == "" and current == table:
                return number
            continue
        if current == table and key and key_re.match(line):
            return number
    return None


def _type_name(value: object) -> str:
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }
    return names.get(type(value), f"a {type(value).__name__}")


def _read_metadata(path: pathlib.Path, data: bytes) -> tuple[dict, str]:
    """Parse and check ``corpus.toml`` (its bytes); return the table and its text.

    ``[counts]`` is only type-checked here; :func:`_check_counts` compares it with the text.
    """
    text = _decode(path, data)
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = getattr(error, "msg", None) or str(error)
        line = getattr(error, "lineno", None)
        column = getattr(error, "colno", None)
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if found:  # Python < 3.14: the position is only in the message
            line, column = int(found.group(1)), int(found.group(2))
            message = message[: found.start()]
        message = re.sub(r"\s*\(at end of document\)$", "", message)
        where = f" (column {column})" if column else " (at the end of the file)"
        raise CorpusError(
            path,
            line,
            f"invalid TOML: {message}{where}.",
            'correct the syntax there; text values need double quotes, e.g. title = "My corpus".',
        ) from None

    for key in table:
        if key not in _ALL_KEYS:
            close = difflib.get_close_matches(key, _ALL_KEYS, n=1)
            hint = f"Did you mean {close[0]!r}? " if close else ""
            raise CorpusError(
                path,
                _key_line(text, key),
                f"unknown key {key!r}.",
                f"{hint}The keys are: title, source, licence, extraction, description "
                "(optional) and the [counts] table.",
            )
    for key in _REQUIRED_KEYS + _OPTIONAL_KEYS:
        if key not in table:
            if key in _OPTIONAL_KEYS:
                continue
            raise CorpusError(
                path,
                None,
                f"missing key {key!r} (a string).",
                f'add a line such as: {key} = "..."',
            )
        value = table[key]
        if not isinstance(value, str):
            raise CorpusError(
                path,
                _key_line(text, key),
                f"key {key!r} must be a string, not {_type_name(value)} ({value!r}).",
                f'write the value in double quotes, e.g. {key} = "...".',
            )
        if key in _REQUIRED_KEYS and not value.strip():
            raise CorpusError(
                path,
                _key_line(text, key),
                f"key {key!r} is empty.",
                f"say what the {key} is; every shipped corpus documents it.",
            )

    counts = table.get("counts", {})
    if not isinstance(counts, dict):
        raise CorpusError(
            path,
            _key_line(text, "counts"),
            f"key 'counts' must be a table, not {_type_name(counts)}.",
            "write it as a table: a line [counts] followed by lines sentences = ..., "
            "tokens = ... and vocabulary = ...",
        )
    for key in counts:
        if key not in _COUNT_KEYS:
            close = difflib.get_close_matches(key, _COUNT_KEYS, n=1)
            hint = f"Did you mean {close[0]!r}? " if close else ""
            raise CorpusError(
                path,
                _key_line(text, key, "counts"),
                f"unknown key 'counts.{key}'.",
                f"{hint}[counts] holds sentences, tokens and vocabulary.",
            )
    for key, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            kind = "a negative integer" if type(value) is int else _type_name(value)
            raise CorpusError(
                path,
                _key_line(text, key, "counts"),
                f"key 'counts.{key}' must be a non-negative integer, not {kind} ({value!r}).",
                f"write a whole number without quotes, e.g. {key} = 123.",
            )
    return table, text


def _read_text(path: pathlib.Path, data: bytes) -> tuple[tuple[str, ...], ...]:
    """Check and tokenise ``text.txt`` (given as bytes, which the digest also uses)."""
    text = _decode(path, data)
    if not text.strip():
        raise CorpusError(
            path,
            None,
            "the text is empty.",
            "write the corpus text in this file, one sentence per line.",
        )
    control = _CONTROL.search(text)
    if control:
        number = text.count("\n", 0, control.start()) + 1
        column = control.start() - (text.rfind("\n", 0, control.start()) + 1) + 1
        code = ord(control[0])
        raise CorpusError(
            path,
            number,
            f"line {number}, column {column} holds the control character U+{code:04X}"
            f"{' (NUL)' if code == 0 else ''}, which is not text: it would split the word around it.",
            "remove it (for example: tr -d '\\000-\\010\\013\\014\\016-\\037' < text.txt > clean.txt); "
            "a file full of them is not a text file.",
        )
    if len(text) > MAX_LINE_LENGTH:  # cheap test first: only a long text can hold a long line
        for number, line in enumerate(text.split("\n"), start=1):
            if len(line) > MAX_LINE_LENGTH:
                raise CorpusError(
                    path,
                    number,
                    f"line {number} is {len(line):,} characters long (the limit is "
                    f"{MAX_LINE_LENGTH:,}).",
                    "put one sentence per line; a line this long usually means the text lost "
                    "its line breaks (or the file is not text).",
                )
    sentences = tuple(tuple(words) for words in tokenise(text))
    if not sentences:
        raise CorpusError(
            path,
            None,
            "the text has no usable sentence: no line contains a word made of letters.",
            "write sentences of words, one per line; digits and punctuation are ignored.",
        )
    return sentences


def _check_counts(
    path: pathlib.Path, metadata: dict, metadata_text: str, actual: Mapping[str, int]
) -> None:
    """If ``[counts]`` is given, require all three numbers and that they equal the text's.

    Checked after the text is read, so that the message can give the numbers to write.
    """

    def show(counts: Mapping[str, int], keys: Iterable[str] = _COUNT_KEYS) -> str:
        return ", ".join(f"{key} = {counts[key]}" for key in keys)

    if "counts" not in metadata:  # optional: nothing recorded, nothing to compare
        return
    recorded = metadata["counts"]
    absent = [key for key in _COUNT_KEYS if key not in recorded]
    if absent:
        names = ", ".join(f"'counts.{key}'" for key in absent)
        raise CorpusError(
            path,
            _key_line(metadata_text, "", "counts"),
            f"missing key{'s' if len(absent) > 1 else ''} {names} (an integer).",
            f"add under [counts]: {show(actual, absent)}.",
        )
    if any(recorded[key] != actual[key] for key in _COUNT_KEYS):
        rerun = metadata["extraction"]
        hint = f" (or rerun: {rerun})" if rerun.startswith("python ") else ""
        raise CorpusError(
            path,
            _key_line(metadata_text, "", "counts"),
            f"[counts] say {show(recorded)}, but {TEXT_FILE} has {show(actual)}.",
            f"if {TEXT_FILE} changed on purpose, set [counts] to {show(actual)}{hint}.",
        )


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
    metadata, metadata_text = _read_metadata(metadata_path, metadata_bytes)
    sentences = _read_text(text_path, text_bytes)

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
    _check_counts(metadata_path, metadata, metadata_text, corpus.counts())
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

"""A corpus folder's two files, read and checked: ``corpus.toml`` (its metadata) and ``text.txt``
(its sentences), each mistake a :class:`CorpusError` naming the file, the line and the fix.
scalecore/corpus.py describes the format and loads a corpus with these."""

from __future__ import annotations

import difflib
import os
import pathlib
import re
import tomllib
from typing import Iterable, Mapping

from scalecore.tokens import tokenise

#: Longest line accepted in ``text.txt`` (characters). Real sentences are far shorter; a longer
#: line is almost always a text without line breaks or a binary file renamed to ``.txt``.
MAX_LINE_LENGTH = 100_000

TEXT_FILE = "text.txt"
METADATA_FILE = "corpus.toml"

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


def read_metadata(path: pathlib.Path, data: bytes) -> tuple[dict, str]:
    """Parse and check ``corpus.toml`` (its bytes); return the table and its text.

    ``[counts]`` is only type-checked here; :func:`check_counts` compares it with the text.
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


def read_text(path: pathlib.Path, data: bytes) -> tuple[tuple[str, ...], ...]:
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


def check_counts(
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

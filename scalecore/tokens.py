"""From text to words: where a sentence ends, and what a word is.

Every corpus is read this way (scalecore/corpus.py), and so is the shared sentence the lessons
compare corpora on: lower-cased words of letters, an apostrophe or a hyphen joining two runs of
letters into one word ("don't", "well-known"), digits and other punctuation dropped. Plain
standard library: the same code runs in the reader's browser.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

__all__ = ["split_sentences", "tokenise"]


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

"""A passage's text: formulas found in it (TeX between \\( \\) or \\[ \\]), read as plain text, and
the text cut into segments (strings and formulas) and sentences. Standard library only."""

from __future__ import annotations

import re

MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\u201c\"'])")
ABBREVIATIONS = ("al.", "e.g.", "i.e.", "etc.", "cf.", "vs.", "Fig.", "Eq.", "no.")
NESTED = (  # the TeX constructs with a braced argument, rewritten from the inside out
    (r"\\(?:operatorname|text|mathrm|texttt|mathbf|mathit|mathbb)\s*\{([^{}]*)\}", r"\1"),
    (r"\\underbrace\s*\{([^{}]*)\}_\{([^{}]*)\}", r"\1 [\2]"),
    (r"\\sqrt\s*\{([\w\\]*)\}", r"√\1"), (r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)"),
    (r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)"),  # \dfrac, \tfrac: a fraction too
    (r"_\{(\w*)\}", r"_\1"), (r"\^\{(-?\w*)\}", r"^\1"),
    (r"_\{([^{}\\]*)\}", r"_(\1)"), (r"\^\{([^{}\\]*)\}", r"^(\1)"),
)
SYMBOLS = (
    (r"\\(left|right|big|Big|,|;|!|quad|qquad)", " "),
    (r"\^\\top", "ᵀ"), (r"\\top", "ᵀ"), (r"\\cdot", "·"), (r"\\times", "×"), (r"\\approx", "≈"),
    (r"\\sum", "Σ"), (r"\\mathbb\{E\}", "E"), (r"\\sigma", "σ"), (r"\\mu", "μ"), (r"\\varepsilon", "ε"),
    (r"\\delta", "δ"), (r"\\div", "÷"), (r"\\to", "→"), (r"\\ldots|\\dots", "…"), (r"\\odot", "⊙"),
    (r"\\lVert|\\rVert", "‖"), (r"\\partial", "∂"), (r"\\in\b", "∈"), (r"\\le\b", "≤"), (r"\\ge\b", "≥"),
    (r"\^\\circ", "°"), (r"\\circ\b", "∘"), (r"\\infty", "∞"),
    (r"\\(cos|sin|tan|tanh|log|ln|exp|max|min|arg)\b\s*(?=[A-Za-z\\])", r"\1 "),  # cos theta, not costheta
    (r"[{}]", ""), (r"\\", ""), (r"\s+", " "),
)


def tex_to_text(tex: str) -> str:
    """A formula as plain text a reader can read in a quote: \\sqrt{d_k} -> √d_k, \\frac{a}{b}
    -> a/b, \\operatorname{Var} -> Var. Quotes are shown as text (never as HTML), and a few rules
    cover the formulas of these lessons; anything else keeps its TeX, which is still legible."""
    text = tex
    for _ in range(4):  # innermost braces first: \\sqrt{d_{\\text{model}}} takes three rounds
        before = text
        for pattern, replacement in NESTED:
            text = re.sub(pattern, replacement, text)
        if text == before:
            break
    for pattern, replacement in SYMBOLS:
        text = re.sub(pattern, replacement, text)
    return text.strip()


def readable(text: str) -> str:
    """The text of a passage: its formulas as plain text, its white space collapsed."""
    text = MATH.sub(lambda m: tex_to_text(m.group(1) or m.group(2)), text)
    return re.sub(r"\s+", " ", text).strip()


def segments(raw: str) -> list:
    """A block's text as a list of strings and formulas ({"tex", "display"}), white space collapsed."""
    out: list = []
    at = 0
    for match in MATH.finditer(raw):
        out.append(raw[at:match.start()])
        out.append({"tex": (match.group(1) or match.group(2)).strip(), "display": match.group(2) is not None})
        at = match.end()
    out.append(raw[at:])
    cleaned = [re.sub(r"\s+", " ", part) if isinstance(part, str) else part for part in out]
    if cleaned and isinstance(cleaned[0], str):
        cleaned[0] = cleaned[0].lstrip()
    if cleaned and isinstance(cleaned[-1], str):
        cleaned[-1] = cleaned[-1].rstrip()
    return [part for part in cleaned if part != ""]


def flat(parts: list) -> str:
    """Segments as the plain text the search indexes and a benchmark reads."""
    text = "".join(part if isinstance(part, str) else tex_to_text(part["tex"]) for part in parts)
    return re.sub(r"\s+", " ", text).strip()


def sentences(parts: list) -> list[list]:
    """Segments cut into sentences: after . ! or ? and a space before a capital (not after
    "et al." and the like), and after a displayed formula that the text does not continue."""
    out: list[list] = [[]]
    for part in parts:
        if not isinstance(part, str):
            out[-1].append(part)
            continue
        if out[-1] and not isinstance(out[-1][-1], str) and out[-1][-1]["display"] and re.match(r"\s*[A-Z]", part):
            out.append([])
        at = 0
        for match in SENTENCE_END.finditer(part):
            before = part[:match.start()]
            if before.endswith(ABBREVIATIONS):
                continue
            out[-1].append(part[at:match.start()])
            out.append([])
            at = match.end()
        out[-1].append(part[at:])
    cleaned = []
    for sentence in out:
        sentence = [p for p in sentence if p != ""]
        if sentence and isinstance(sentence[0], str):
            sentence[0] = sentence[0].lstrip()
        if sentence and isinstance(sentence[-1], str):
            sentence[-1] = sentence[-1].rstrip()
        sentence = [p for p in sentence if p != ""]
        if sentence:
            cleaned.append(sentence)
    return cleaned



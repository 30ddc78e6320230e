"""Numbers in prose come from the bake: ``{{ baked: <kind>/<point path>/<key> | .3f }}``.

Authors never type a measured number: they quote it by its path in the baked data, and the build
replaces the quote with the value, so text and panels cannot disagree, and a changed corpus
changes the text. A path starts with a kind's name and goes on as that kind lays out its points
(its ``quotes``: by default the points by their path, then the keys of the point's JSON); two
more trees hold the site's own facts:

    <kind>/...                                          a baked value of any kind the site uses
    corpus/<corpus>/<sentences|tokens|vocabulary>
    settings/<d_model|d_k|sqrt_d_k|vocabulary_size|tokens|seeds|...>

The format after ``|`` is a Python format spec (``.3f``, ``.2g``, ``,``); the default is ``.3g``.
"""

import re
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.kinds.options import closest

QUOTE = re.compile(r"\{\{\s*baked:\s*(?P<path>[^|}]+?)\s*(?:\|\s*(?P<format>[^}]*?)\s*)?\}\}")
DEFAULT_FORMAT = ".3g"


class QuoteError(ScalecoreError):
    """A quote that does not resolve: reported with the page and line."""


def namespace(kinds: dict, corpora: dict, settings: dict) -> dict:
    """The tree quotes walk: each kind's quote tree under its name, and the site's facts."""
    return {**kinds, "corpus": corpora, "settings": settings}


class LazyNamespace(dict):
    """The same tree, with each kind's quote tree made only when something reads it (making one
    reads every baked point of the kind), and what is read of it remembered across builds.

    ``kinds``: name -> (key, make): ``make()`` returns the kind's tree, ``key`` is a hash of
    everything that tree depends on (its cache entries, its settings). ``memo`` (a
    scalecore_generator.foundation.cache.Memo) keeps each quoted value, and each value derived from a whole tree
    (``derived``), under that key: a warm build with the same entries makes no tree at all.
    """

    def __init__(self, kinds: dict, corpora: dict, settings: dict, memo=None, derived_memo=None):
        super().__init__({**{name: None for name in kinds}, "corpus": corpora, "settings": settings})
        # quoted values in ``memo``; values derived from whole trees (the mentor's facts, large)
        # in ``derived_memo`` (``memo`` when not given), which a build that needs none never reads
        self._kinds, self._memo = dict(kinds), memo
        self._derived_memo = derived_memo if derived_memo is not None else memo

    def __getitem__(self, name):
        value = super().__getitem__(name)
        if value is None and name in self._kinds:
            value = self._kinds[name][1]()
            super().__setitem__(name, value)
        return value

    def get(self, name, default=None):
        return self[name] if name in self else default

    def values(self):
        return [self[name] for name in self]

    def items(self):
        return [(name, self[name]) for name in self]

    def _remembered(self, memo, kind: str, what: str, make):
        if memo is None or kind not in self._kinds:
            return make()
        return memo.get(f"{self._kinds[kind][0]}/{what}", make)

    def value(self, path: str):
        """``resolve(self, path)``, from the memo when a build with the same entries quoted it."""
        return self._remembered(self._memo, path.split("/")[0], f"quote/{path}", lambda: resolve(self, path))

    def key(self, kind: str) -> str | None:
        """The hash of everything ``kind``'s tree depends on; None for a part made of plain values."""
        return self._kinds[kind][0] if kind in self._kinds else None

    def derived(self, kind: str, what: str, make):
        """``make()`` (which reads ``self[kind]``), from the memo when known."""
        return self._remembered(self._derived_memo, kind, what, make)


def resolve(tree, path: str):
    node = tree
    walked = []
    for part in path.split("/"):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            here = "/".join(walked) or "the top"
            options = [str(option) for option in node] if isinstance(node, dict) else (
                [str(i) for i in range(len(node))] if isinstance(node, list) else [])
            accepted = f"; accepted here: {', '.join(options)}" if options else ""
            raise QuoteError(f"no value {part!r} under {here}{accepted}. Fix: {_step_fix(part, options, walked)}")
        walked.append(part)
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        parts = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else None
        raise QuoteError(f"{path!r} is not a number (it holds more: add one of {', '.join(map(str, parts))}). Fix: "
                         f"quote {path}/{next(iter(parts))}, or another of them" if parts else f"{path!r} is not a number")
    return node


def _step_fix(part: str, options: list[str], walked: list[str]) -> str:
    """What to write instead of a step of a quote's path that names nothing: at the top, one of the
    parts; deeper, the value it means (30 for a baked 30.0: the same number), else a close one."""
    if not walked:
        return f"quote a path that starts with one of {', '.join(options)} (scalecore guide authoring lists them)"
    meant = next((option for option in options if _same_number(part, option)), None) or closest(part, options)
    return f"write {meant!r} there" if meant else "write one of the accepted values there"


def _same_number(part: str, option: str) -> bool:
    try:
        return part != option and float(part) == float(option)
    except ValueError:
        return False


CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


def expand_quotes(markdown: str, tree: dict, page: str, line_offset: int = 0) -> str:
    """Replace every quote by its formatted value; a bad one is an error naming page and line.

    Quotes inside fenced code and inline code are left as written, so a guide can show them.
    """
    from scalecore_generator.foundation.text import fenced_lines

    if "{{" not in markdown:  # most pages quote nothing: no line to look at
        return markdown
    lines = markdown.split("\n")
    for number, (text, fenced) in enumerate(zip(lines, fenced_lines(markdown))):
        if not fenced and "{{" in text:
            lines[number] = _expand_line(text, tree, page, number + 1 + line_offset)
    return "\n".join(lines)


def _expand_line(text: str, tree: dict, page: str, line: int) -> str:
    spans = [match.span() for match in CODE_SPAN.finditer(text)]

    def replace(match):
        if any(start <= match.start() < end for start, end in spans):
            return match[0]
        path, spec = match["path"].strip(), (match["format"] or DEFAULT_FORMAT)
        try:
            value = tree.value(path) if isinstance(tree, LazyNamespace) else resolve(tree, path)
            return format(value, spec)
        except QuoteError as error:
            raise QuoteError(f"{page}:{line}: {match[0]}: {error}.") from None
        except ValueError as error:
            raise QuoteError(f"{page}:{line}: {match[0]}: bad format {spec!r} ({error}). "
                             "Fix: use a Python format spec such as .3f, .2g or ,") from None

    return QUOTE.sub(replace, text)

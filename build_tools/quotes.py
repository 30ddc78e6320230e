"""Numbers in prose come from the bake: ``{{ baked: kjv/0/init+scale/mean_row_max | .3f }}``.

Authors never type a measured number: they quote it by its path in the baked data, and the build
replaces the quote with the value, so text and panels cannot disagree, and a changed corpus
changes the text. The paths:

    <corpus>/<seed>/<guards>/<measure>      one baked combination's measure
    <corpus>/mean/<guards>/<measure>         the mean over the baked seeds
    corpus/<corpus>/<sentences|tokens|vocabulary>
    softmax/<example>/<weights|gradient>[/<index>]    the saturation lesson's worked examples
    variance/<d>/<raw|scaled>/<variance|std|mean>
    settings/<d_model|d_k|sqrt_d_k|vocabulary_size|tokens|seeds|variance_samples>

The format after ``|`` is a Python format spec (``.3f``, ``.2g``, ``,``); the default is ``.3g``.
"""

import re

QUOTE = re.compile(r"\{\{\s*baked:\s*(?P<path>[^|}]+?)\s*(?:\|\s*(?P<format>[^}]*?)\s*)?\}\}")
DEFAULT_FORMAT = ".3g"


class QuoteError(Exception):
    """A quote that does not resolve: reported with the page and line."""


def namespace(combinations: dict, seeds: list[int], corpora: dict, softmax: dict, variance: dict,
              settings: dict | None = None) -> dict:
    """The tree quotes walk. ``combinations``: (corpus, seed, guards) -> measures dict."""
    tree: dict = {"corpus": corpora, "softmax": softmax["examples"], "settings": settings or {},
                  "variance": {str(row["d"]): row for row in variance["dims"]}}
    for (corpus, seed, guards), measures in combinations.items():
        tree.setdefault(corpus, {}).setdefault(str(seed), {})[guards] = measures
    for corpus in {key[0] for key in combinations}:
        guard_sets = tree[corpus][str(seeds[0])]
        tree[corpus]["mean"] = {
            guards: {name: sum(tree[corpus][str(s)][guards][name] for s in seeds) / len(seeds)
                     for name in guard_sets[guards]}
            for guards in guard_sets
        }
    return tree


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
            options = list(node) if isinstance(node, dict) else (
                [str(i) for i in range(len(node))] if isinstance(node, list) else [])
            accepted = f"; accepted here: {', '.join(map(str, options))}" if options else ""
            raise QuoteError(f"no value {part!r} under {here}{accepted}")
        walked.append(part)
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        parts = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else None
        raise QuoteError(f"{path!r} is not a number (it holds more: add one of {', '.join(map(str, parts))})"
                         if parts is not None else f"{path!r} is not a number")
    return node


CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


def expand_quotes(markdown: str, tree: dict, page: str, line_offset: int = 0) -> str:
    """Replace every quote by its formatted value; a bad one is an error naming page and line.

    Quotes inside fenced code and inline code are left as written, so a guide can show them.
    """
    from build_tools.blocks.scanner import fenced_lines

    lines = markdown.split("\n")
    for number, (text, fenced) in enumerate(zip(lines, fenced_lines(markdown))):
        if not fenced:
            lines[number] = _expand_line(text, tree, page, number + 1 + line_offset)
    return "\n".join(lines)


def _expand_line(text: str, tree: dict, page: str, line: int) -> str:
    spans = [match.span() for match in CODE_SPAN.finditer(text)]

    def replace(match):
        if any(start <= match.start() < end for start, end in spans):
            return match[0]
        path, spec = match["path"].strip(), (match["format"] or DEFAULT_FORMAT)
        try:
            value = resolve(tree, path)
            return format(value, spec)
        except QuoteError as error:
            raise QuoteError(f"{page}:{line}: {match[0]}: {error}. Fix: quote a path such as "
                             "kjv/0/init+scale/mean_row_max (see the authoring guide).") from None
        except ValueError as error:
            raise QuoteError(f"{page}:{line}: {match[0]}: bad format {spec!r} ({error}). "
                             "Fix: use a Python format spec such as .3f, .2g or ,") from None

    return QUOTE.sub(replace, text)

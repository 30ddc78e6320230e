"""The command line, for people who meet these ideas in a terminal.

    python -m scalecore table --seed 0                 measures for every corpus x guard set
    python -m scalecore head --corpus demo --seed 0 --guards init+scale --json
                                                        one head, every intermediate
    python -m scalecore corpora                        the corpora found, with their sizes

Mistakes (an unknown corpus, guard or word) are one line on stderr naming what is accepted, and
exit code 2: never a traceback.
"""

import argparse
import json
import os
import sys
from pathlib import Path

from scalecore.corpus import SHARED_SENTENCE, VOCABULARY_SIZE, CorpusError, default_root, load_corpora
from scalecore.embeddings import RECIPES, cached_embeddings
from scalecore.experiment import Settings, report, run, run_all, sentence_tokens
from scalecore.guards import GuardSet

USAGE_ERROR = 2
COLUMNS = (
    ("input_spread", "input spread"),
    ("score_spread", "score spread"),
    ("mean_row_max", "row-max"),
    ("mean_entropy", "entropy"),
    ("gradient", "gradient"),
    ("saturated_share", "saturated"),
)


class CommandLineError(Exception):
    """A mistake in what the user asked for: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of argparse's usage dump
        raise CommandLineError(f"{message} (see: python -m scalecore {self.prog.split()[-1]} --help)")


def default_cache() -> Path:
    if "SCALECORE_CACHE" in os.environ:
        return Path(os.environ["SCALECORE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "scalecore"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m scalecore", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    defaults = Settings()

    def common(sub):
        sub.add_argument("--sentence", default=SHARED_SENTENCE, help="the sentence (default: the shared one)")
        sub.add_argument("--recipe", default=defaults.recipe, help=f"one of {', '.join(RECIPES)}")
        sub.add_argument("--d-model", type=int, default=defaults.d_model, help="token vector width")
        sub.add_argument("--d-k", type=int, default=defaults.d_k, help="query/key width")
        sub.add_argument("--corpora", type=Path, default=None, help="folder of corpora")
        sub.add_argument("--cache", type=Path, default=None, help="where learned embeddings are kept")

    table = commands.add_parser("table", help="measures for every corpus and guard set")
    table.add_argument("--seed", type=int, default=0)
    table.add_argument("--corpus", action="append", help="limit to this corpus (repeatable)")
    common(table)

    head = commands.add_parser("head", help="one head with every intermediate")
    head.add_argument("--corpus", required=True)
    head.add_argument("--seed", type=int, default=0)
    head.add_argument("--guards", default="init+scale", help="e.g. none, init+scale, norm+init+scale")
    head.add_argument("--json", action="store_true", help="print every intermediate as JSON")
    common(head)

    commands.add_parser("corpora", help="the corpora found, with their sizes").add_argument(
        "--corpora", type=Path, default=None
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return {"table": cmd_table, "head": cmd_head, "corpora": cmd_corpora}[args.command](args)
    except (CommandLineError, CorpusError, ValueError) as error:
        print(f"scalecore: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except ModuleNotFoundError as error:
        print(f"scalecore: error: learning embeddings needs {error.name}: pip install {error.name}", file=sys.stderr)
        return USAGE_ERROR


def _tables(args, names):
    if args.seed < 0:
        raise CommandLineError(f"a seed is a non-negative integer, got {args.seed}")
    corpora = load_corpora(args.corpora or default_root(), names)
    if not names:  # smallest first: the lesson reads top to bottom
        corpora = dict(sorted(corpora.items(), key=lambda item: item[1].token_count))
    cache = args.cache or default_cache()
    tokens = sentence_tokens(args.sentence)
    tables = {}
    for name, corpus in corpora.items():
        table = cached_embeddings(corpus, args.d_model, cache, args.recipe, VOCABULARY_SIZE)
        unknown = table.unknown_words(tokens)
        if unknown:
            raise CommandLineError(f"not in the {name!r} vocabulary: {', '.join(unknown)}")
        tables[name] = table
    return tables, tokens


def cmd_table(args) -> int:
    tables, tokens = _tables(args, args.corpus)
    header = ["corpus", "guards"] + [title for _, title in COLUMNS]
    rows = []
    for name, table in tables.items():
        for guards, result in run_all(table, tokens, args.seed, args.d_k).items():
            values = result.measures.as_dict()
            rows.append([name, guards] + [f"{values[key]:.4g}" for key, _ in COLUMNS])
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    print(f"sentence: {' '.join(tokens)}   seed: {args.seed}   d_model: {args.d_model}   d_k: {args.d_k}   recipe: {args.recipe}")
    for row in [header] + rows:
        cells = [cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
    return 0


def cmd_head(args) -> int:
    guards = GuardSet.parse(args.guards)
    tables, tokens = _tables(args, [args.corpus])
    table = tables[args.corpus]
    result = run(table, tokens, args.seed, guards, args.d_k)
    if args.json:
        print(json.dumps(report(result, tokens, table), indent=1))
        return 0
    print(f"corpus {args.corpus}, seed {args.seed}, guards {guards}: {' '.join(tokens)}")
    width = max(len(t) for t in tokens)
    for token, row in zip(tokens, result.weights):
        print(token.rjust(width), " ".join(f"{w:5.2f}" for w in row))
    for key, title in COLUMNS:
        print(f"{title:>13}: {result.measures.as_dict()[key]:.4g}")
    return 0


def cmd_corpora(args) -> int:
    corpora = load_corpora(args.corpora or default_root())
    for name, corpus in corpora.items():
        counts = corpus.counts()
        print(f"{name:12} {counts['sentences']:>8} sentences {counts['tokens']:>9} tokens "
              f"{counts['vocabulary']:>7} words  {corpus.title}")
    return 0

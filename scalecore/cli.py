"""The command line, for people who meet these ideas in a terminal.

    python -m scalecore table --seed 0                 measures for every corpus x guard set
    python -m scalecore head --corpus demo --seed 0 --guards init+scale --json
                                                        one head, every intermediate
    python -m scalecore multihead --corpus kjv --seed 0 --heads 4 --guards norm+init+scale --json
                                                        h heads side by side, every intermediate
    python -m scalecore encoder --corpus kjv --seed 0 --layers 6 --norm pre --heads 4 --json
                                                        a stack of encoder layers, layer by layer
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
from scalecore import encoder, multihead
from scalecore.experiment import Settings, position_aware_input, report, run, run_all, sentence_tokens
from scalecore.guards import GuardSet

USAGE_ERROR = 2
COLUMNS = (  # scalecore.measures defines each one
    ("input_spread", "input spread"),
    ("score_spread", "score spread"),
    ("mean_row_max", "row-max"),
    ("word_row_max", "per word"),
    ("mean_entropy", "entropy"),
    ("gradient", "gradient"),
    ("saturated_share", "saturated"),
    ("word_saturated_share", "per word"),
    ("query_gradient", "|dL/dW_Q|"),
    ("value_gradient", "|dL/dW_V|"),
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

    heads = commands.add_parser("multihead", help="h heads side by side, with every intermediate")
    heads.add_argument("--corpus", required=True)
    heads.add_argument("--seed", type=int, default=0)
    heads.add_argument("--heads", type=int, default=4, help="a divisor of d_model (1, 2, 4, 8... for 32)")
    heads.add_argument("--guards", default="init+scale", help="e.g. none, init+scale, norm+init+scale")
    heads.add_argument("--json", action="store_true", help="print every intermediate as JSON")
    common(heads)

    block = commands.add_parser("encoder", help="a stack of encoder layers, layer by layer")
    block.add_argument("--corpus", required=True)
    block.add_argument("--seed", type=int, default=0)
    block.add_argument("--layers", type=int, default=6, help=f"1 to {encoder.MAX_LAYERS}")
    block.add_argument("--norm", default="pre", help=f"where LayerNorm goes: {', '.join(encoder.NORMS)}")
    block.add_argument("--heads", type=int, default=4, help="a divisor of d_model")
    block.add_argument("--json", action="store_true", help="print every intermediate as JSON")
    common(block)

    commands.add_parser("corpora", help="the corpora found, with their sizes").add_argument(
        "--corpora", type=Path, default=None
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        commands = {"table": cmd_table, "head": cmd_head, "multihead": cmd_multihead, "encoder": cmd_encoder,
                    "corpora": cmd_corpora}
        return commands[args.command](args)
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


def _weights_rows(tokens, weights) -> list[str]:
    width = max(len(t) for t in tokens)
    return [f"  {token.rjust(width)} " + " ".join(f"{w:5.2f}" for w in row) for token, row in zip(tokens, weights)]


def cmd_multihead(args) -> int:
    guards = GuardSet.parse(args.guards)
    multihead.head_width(args.d_model, args.heads)  # a bad --heads is named before any embedding is learned
    tables, tokens = _tables(args, [args.corpus])
    x = position_aware_input(tables[args.corpus], tokens)
    result, weights = multihead.attend(x, guards, args.seed, args.heads)
    if args.json:
        print(json.dumps(multihead.report(result, weights, tokens, x, guards), indent=1))
        return 0
    print(f"corpus {args.corpus}, seed {args.seed}, guards {guards}, {args.heads} heads of d_k {result.d_k}: "
          f"{' '.join(tokens)}")
    for number, head in enumerate(result.heads, start=1):
        m = head.measures
        print(f"head {number}: row-max {m.mean_row_max:.4g}, score spread {m.score_spread:.4g}, "
              f"gradient {m.gradient:.4g}")
        print("\n".join(_weights_rows(tokens, head.weights)))
    return 0


def cmd_encoder(args) -> int:
    norm = encoder.check_norm(args.norm)
    encoder.check_layers(args.layers)
    multihead.head_width(args.d_model, args.heads)
    tables, tokens = _tables(args, [args.corpus])
    x = position_aware_input(tables[args.corpus], tokens)
    stack = encoder.encode(x, args.seed, args.layers, norm, args.heads)
    if args.json:
        print(json.dumps(encoder.report(stack, tokens, x, norm, args.heads), indent=1))
        return 0
    print(f"corpus {args.corpus}, seed {args.seed}, LayerNorm {norm}, {args.heads} heads: {' '.join(tokens)}")
    print(f"input spread {encoder.spread(x):.4g}")
    for number, done in enumerate(stack, start=1):
        row_max = sum(h.measures.mean_row_max for h in done.attention.heads) / len(done.attention.heads)
        print(f"layer {number}: heads see spread {encoder.spread(done.attention.head_input):.4g}, "
              f"row-max {row_max:.4g}, attention adds {encoder.spread(done.attention_update):.4g}, "
              f"FFN adds {encoder.spread(done.ffn_update):.4g}, stream {encoder.spread(done.output):.4g}")
    return 0


def cmd_corpora(args) -> int:
    corpora = load_corpora(args.corpora or default_root())
    for name, corpus in corpora.items():
        counts = corpus.counts()
        print(f"{name:12} {counts['sentences']:>8} sentences {counts['tokens']:>9} tokens "
              f"{counts['vocabulary']:>7} words  {corpus.title}")
    return 0



"""``/// scale-guards``: the shared sentence's attention weights under a chosen set of guards.

The reader switches corpus, seed and guards; without JavaScript the panel is the baked figure of
the initial combination, its measures and (with ``table``) its weights. Every corpus x seed x
guard set is baked by ``scalecore.experiment.combination``; live mode calls the same function
for any sentence, seed and d_k.
"""

import json

from scalecore_generator.kinds.options import PanelOptions
from scalecore_generator.kinds.options import ListOf, OneOf, Option, ValidationError, describe
from scalecore_generator.kinds.kind import Grid, Kind, check_corpus_and_seed, corpus_option, offered_corpus_and_seed, \
    offered_guard_sets, seed_option
from scalecore.guards import GUARD_NAMES, GuardSet, all_guard_sets

SHOW = ("heatmap", "measures", "switches", "corpus", "seed", "table", "live")
GUARD_SETS = tuple(str(g) for g in all_guard_sets())

# The measures as a reader meets them, defined once for the fallback and the live view (both
# draw them with the shared read-outs view): key in the baked JSON, name, what it tells, unit,
# and the range of its meter ("1/T" and "ln T" depend on the sentence's length T).
MEASURES = (
    dict(key="input_spread", name="Input spread", unit="", range=None,
         hint="How big the numbers entering the head are: the standard deviation of what it sees (X, or LayerNorm(X) with norm). About 1 is healthy."),
    dict(key="score_spread", name="Score spread", unit="", range=None,
         hint="How far apart the scores of a row are (their standard deviation, averaged over rows). A few units is fine; far more makes softmax pick one token."),
    dict(key="mean_row_max", name="Mean row-max", unit="", range=["1/T", 1],
         hint="The share of attention each token gives its favourite token: 1/T is even, 1 is all on one token."),
    dict(key="word_row_max", name="Row-max per word", unit="", range=["1/T", 1],
         hint="The same with a repeated word's weights added up: a token that spreads its attention over the repeats of one word (such as the three \u201cthe\u201d) still looks at one word."),
    dict(key="mean_entropy", name="Entropy", unit=" nats", range=[0, "ln T"],
         hint="How spread out attention is: ln T is even, 0 is all on one token."),
    dict(key="gradient", name="Gradient size", unit="", range=[0, 0.5],
         hint="How much gradient reaches the scores through softmax (Frobenius norm of its Jacobian, 0 to 0.5). Near 0, the scores cannot learn; bigger is not better."),
    dict(key="saturated_share", name="Saturated rows", unit="", range=[0, 1],
         hint="The share of tokens that give more than 0.9 of their attention to one token."),
    dict(key="word_saturated_share", name="Saturated, per word", unit="", range=[0, 1],
         hint="The share of tokens that give more than 0.9 of their attention to one word, its repeats added up."),
)


class GuardSetText(Option):
    """A guard set such as 'scale+init', stored in its canonical spelling ('init+scale')."""

    def run_validation(self, value):
        if not isinstance(value, str):
            raise ValidationError(f"expected a guard set such as 'init+scale', got {describe(value)}")
        try:
            return str(GuardSet.parse(value))
        except ValueError as error:
            raise ValidationError(str(error)) from None


class ScaleGuards(Kind):
    needs = frozenset({"corpora"})  # the embedding tables of the corpora it offers
    label = "Attention weights under the guards"
    compute = "scalecore.experiment:combination"

    class Options(PanelOptions):
        # One corpus or a list (the reader switches among them); default: every baked corpus.
        corpus = corpus_option()
        # The initial seed of the projections; default: the first baked seed.
        seed = seed_option()
        # The initial guard set, in any order ('scale+init'); stored as 'init+scale'.
        guards = GuardSetText(default="init+scale")
        # What the panel shows.
        show = ListOf(OneOf(SHOW), default=list(SHOW), min_items=1, order=SHOW, example="[heatmap, measures]")
        # Guards the reader cannot toggle (they keep their initial state).
        locked = ListOf(OneOf(GUARD_NAMES), default=[], order=GUARD_NAMES, example="[norm]")

    def grid(self, site):
        settings = site.settings
        fixed = dict(sentence=settings["sentence"], d_k=settings["d_k"], vocabulary_size=settings["vocabulary_size"])
        return Grid(
            axes={"corpus": site.corpora, "seed": site.seeds, "guards": GUARD_SETS},
            params=lambda point: dict(point, **fixed),
            script_axes=("corpus", "seed"),  # a switch of guards repaints from data already loaded
            live_axes=("seed", "sentence", "d_k"),
        )

    def figures(self, result, point):
        title = f"Attention weights: {point['corpus']}, seed {point['seed']}, guards {point['guards']}"
        return {f"{point['guards']}.svg": ("heatmap", {"tokens": result["tokens"], "weights": result["weights"],
                                                       "title": title, "legend": True})}

    def quotes(self, results, grid, site):
        """<corpus>/<seed>/<guards>/<measure>; <corpus>/<seed>/<guards>/favourite/<i>, the position
        (from 1) of the token that token i attends to most; and over the seeds
        <corpus>/<mean|lowest|highest>/<guards>/<measure>: a claim made "on every seed" quotes
        the range it holds over."""
        tree: dict = {}
        for path, result in results.items():
            corpus, seed, guards = path.split("/")
            favourite = [row.index(max(row)) + 1 for row in result["weights"]]
            tree.setdefault(corpus, {}).setdefault(seed, {})[guards] = dict(result["measures"], favourite=favourite)
        over = {"mean": lambda values: sum(values) / len(values), "lowest": min, "highest": max}
        for corpus, seeds in tree.items():
            first = seeds[str(site.seeds[0])]
            for name, pick in over.items():
                seeds[name] = {
                    guards: {key: pick([seeds[str(s)][guards][key] for s in site.seeds])
                             for key, value in first[guards].items() if not isinstance(value, list)}
                    for guards in GUARD_SETS
                }
        return tree

    def offers(self, options, axes):
        return {**offered_corpus_and_seed(options, axes), "guards": offered_guard_sets(options, axes["guards"])}

    def check(self, options, site):
        check_corpus_and_seed(options, site)

    def render(self, options, panel):
        site = panel.site
        corpus, seed, guards = options["corpus"][0], options["seed"], options["guards"]
        data = panel.baked(f"{corpus}/{seed}/{guards}")
        measures = [dict(m, value=data["measures"][m["key"]]) for m in MEASURES]
        return panel.render_template(
            options,
            show=options["show"],
            corpus=corpus,
            corpus_title=site.titles.get(corpus, corpus),
            seed=seed,
            guards=guards,
            sentence=data["sentence"],
            tokens=data["tokens"],
            weights=data["weights"],
            measures=measures,
            measure_definitions=json.dumps(MEASURES, separators=(",", ":"), ensure_ascii=False),
            mean_row_max=data["measures"]["mean_row_max"],
            figure=panel.file(f"{corpus}/{seed}/{guards}.svg"),
            scripts=[panel.script(f"{corpus}/{seed}")],  # another corpus loads when chosen
        )

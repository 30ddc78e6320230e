"""``/// scale-guards``: the shared sentence's attention weights under a chosen set of guards.

The reader switches corpus, seed and guards; without JavaScript the panel is the baked figure of
the initial combination, its measures and (with ``table``) its weights.
"""

from mkdocs.config import config_options as c

from build_tools.bake import Unit
from build_tools.blocks.base import Kind, OptionError, PanelOptions, register
from build_tools.blocks.options import GuardSetText, Integer, ListOf, OneOf, Text, listing, suggestion
from scalecore.guards import GUARD_NAMES

SHOW = ("heatmap", "measures", "switches", "corpus", "seed", "table", "live")

# The measures as a reader meets them: (key in the baked JSON, name, what it answers).
MEASURES = (
    ("input_spread", "Input spread", "How large are the entries of the input X? (std)"),
    ("score_spread", "Score spread", "How far apart are the scores softmax receives? (std)"),
    ("mean_row_max", "Mean row-max", "How much attention does a token give its favourite? 1/T is even, 1 is all."),
    ("mean_entropy", "Mean entropy", "The same from the other side, in nats: log(T) is even, 0 is one-hot."),
    ("gradient", "Gradient", "Size of the softmax Jacobian: near 0, the scores cannot learn."),
    ("saturated_share", "Saturated rows", "Share of rows whose largest weight is above 0.9."),
)


@register
class ScaleGuards(Kind):
    name = "scale-guards"
    label = "Attention weights under the guards"

    class Options(PanelOptions):
        # One corpus or a list (the reader switches among them); default: every baked corpus.
        corpus = c.Optional(ListOf(Text("a corpus name"), min_items=1, single=True, example="[demo, kjv]"))
        # The initial seed of the projections; default: the first baked seed.
        seed = c.Optional(Integer(low=0))
        # The initial guard set, in any order ('scale+init'); stored as 'init+scale'.
        guards = GuardSetText(default="init+scale")
        # What the panel shows.
        show = ListOf(OneOf(SHOW), default=list(SHOW), min_items=1, order=SHOW, example="[heatmap, measures]")
        # Guards the reader cannot toggle (they keep their initial state).
        locked = ListOf(OneOf(GUARD_NAMES), default=[], order=GUARD_NAMES, example="[norm]")

    def check(self, options, grid):
        if options["corpus"] is None:
            options["corpus"] = list(grid.corpora)
        for corpus in options["corpus"]:
            if corpus not in grid.corpora:
                raise OptionError("corpus", f"{corpus!r} is not a baked corpus{suggestion(corpus, grid.corpora)}; "
                                            f"the baked corpora are: {listing(grid.corpora)}")
        if options["seed"] is None:
            options["seed"] = grid.seeds[0]
        elif options["seed"] not in grid.seeds:
            raise OptionError("seed", f"{options['seed']} is not a baked seed; the baked seeds are: "
                                      f"{listing(grid.seeds)}")
        if options["guards"] not in grid.guard_sets:
            raise OptionError("guards", f"{options['guards']!r} is not a baked guard set; the baked guard "
                                        f"sets are: {listing(grid.guard_sets)}")

    def render(self, options, panel):
        grid = panel.context.grid
        corpus, seed, guards = options["corpus"][0], options["seed"], options["guards"]
        unit = Unit(corpus, seed)
        data = panel.baked(f"{unit.folder}/{guards}.json")
        measures = [dict(key=key, name=name, question=question, value=data["measures"][key])
                    for key, name, question in MEASURES]
        return panel.render_template(
            options,
            show=options["show"],
            corpus=corpus,
            corpus_title=grid.titles.get(corpus, corpus),
            seed=seed,
            guards=guards,
            sentence=data["sentence"],
            tokens=data["tokens"],
            weights=data["weights"],
            measures=measures,
            mean_row_max=data["measures"]["mean_row_max"],
            figure=panel.url(f"{unit.folder}/{guards}.svg"),
            scripts=[panel.url(f"{Unit(name, seed).folder}/data.js") for name in options["corpus"]],
        )

"""``/// multihead``: the shared sentence through h heads side by side, each d_model / h wide.

The reader switches the number of heads, picks one head to read closely, flips the guards and
changes corpus and seed. Without JavaScript the panel is the initial combination: each head's
map (drawn at build by the shared heatmap view, only for what the page shows), the heads'
row-max, their score spread under each divisor, and the cost of the layer. Every corpus x seed x
heads x guard set is baked by ``scalecore.multihead.combination``; live mode calls the same
function for any sentence and seed.
"""

import json

from scalecore_generator.kinds.options import OptionError, PanelOptions
from scalecore_generator.kinds.options import Integer, ListOf, OneOf, Text, Type, listing
from scalecore_generator.kinds.options import described
from scalecore_generator.kinds.kind import Grid, Kind, KindSettings, check_corpus_and_seed, corpus_option, head_maps, \
    offered_corpus_and_seed, offered_guard_sets, seed_option
from scalecore.guards import GUARD_NAMES, GuardSet, all_guard_sets
from scalecore.multihead import head_width

SHOW = ("maps", "rowmax", "spread", "cost", "measures", "switches", "heads", "corpus", "seed", "live")
GUARD_SETS = tuple(str(g) for g in all_guard_sets())

# One head's measures as the read-outs show them (the shared readouts view, in the fallback and
# the live view alike).
MEASURES = (
    dict(key="score_spread", name="Score spread", unit="", range=None,
         hint="How far apart this head's scores are when softmax gets them. A few units is fine."),
    dict(key="mean_row_max", name="Mean row-max", unit="", range=["1/T", 1],
         hint="The share of attention each token gives its favourite token in this head: 1/T is even, 1 is all on one token."),
    dict(key="mean_entropy", name="Entropy", unit=" nats", range=[0, "ln T"],
         hint="How spread out this head's attention is: ln T is even, 0 is all on one token."),
    dict(key="gradient", name="Gradient size", unit="", range=[0, 0.5],
         hint="The Frobenius norm of the softmax Jacobian, averaged over rows: near 0, no gradient reaches the scores."),
)
COST_STAGES = (("projections", "Q, K, V = X W (3 T d_model²)"), ("scores", "h × Q_i K_iᵀ (h T² d_k)"),
               ("mixing", "h × A_i V_i (h T² d_k)"), ("output", "concat × W_O (T d_model²)"), ("total", "total"))


def spread_table(point: dict) -> dict:
    """The spec of the shared table view: each head's score spread under each divisor."""
    d_k, d_model = point["d_k"], point["d_model"]
    return {
        "className": "scalecore-multihead-spread",
        "caption": f"Score spread (std within a row of the scores, averaged over the rows) of each of {point['heads']} heads of d_k = {d_k}: "
                   f"raw, divided by √d_k = √{d_k} (the head's own width), and divided by √d_model = √{d_model}.",
        "columns": ["Head", "Raw Q_i K_iᵀ", f"÷ √{d_k}", f"÷ √{d_model}"],
        "rows": [{"header": str(i + 1), "cells": [h["spread"]["unscaled"], h["spread"]["sqrt_d_k"],
                                                  h["spread"]["sqrt_d_model"]]}
                 for i, h in enumerate(point["per_head"])],
    }


def cost_table(point: dict) -> dict:
    """The spec of the shared table view: shapes and multiply-adds of the layer, stage by stage."""
    return {
        "className": "scalecore-multihead-cost",
        "caption": f"Multiply-adds of one layer with {point['heads']} heads of d_k = {point['d_k']} on "
                   f"T = {len(point['tokens'])} tokens: the total is the same for any number of heads.",
        "columns": ["Stage", "Multiply-adds"],
        "rows": [{"header": label, "cells": [point["cost"][key]]} for key, label in COST_STAGES],
    }


def rowmax_bars(point: dict, where: str) -> dict:
    """The spec of the shared bars view: each head's mean row-max."""
    return {"labels": [f"head {i + 1}" for i in range(point["heads"])],
            "values": [h["measures"]["mean_row_max"] for h in point["per_head"]],
            "label": f"Mean row-max of each head, {where}: 1/T is even attention, 1 is all of it on one token."}


class Multihead(Kind):
    needs = frozenset({"corpora"})  # the embedding tables of the corpora it offers
    label = "Attention split among heads"
    compute = "scalecore.multihead:combination"

    class Settings(KindSettings):
        heads = described(ListOf(Type(int), default=[1, 2, 4, 8], example="[1, 2, 4]"),
                          "The numbers of heads to bake; each must divide `d_model`. A block's heads is one of them.",
                          "divisors of d_model, each once")

    class Options(PanelOptions):
        # One corpus or a list (the reader switches among them); default: every baked corpus.
        corpus = corpus_option()
        # The initial seed; default: the first baked seed.
        seed = seed_option()
        # The initial number of heads, one of the baked ones.
        heads = Integer(low=1, default=4)
        # The head read closely first (1 = the first head).
        head = Integer(low=1, default=1)
        # The initial guard set, in any order ('scale+init').
        guards = Text("a guard set such as 'init+scale'", default="init+scale")
        show = ListOf(OneOf(SHOW), default=["maps", "rowmax", "measures", "switches", "heads", "corpus", "seed", "live"],
                      min_items=1, order=SHOW, example="[maps, spread]")
        # Guards the reader cannot toggle.
        locked = ListOf(OneOf(GUARD_NAMES), default=[], order=GUARD_NAMES, example="[norm]")

    def grid(self, site):
        settings = site.settings
        for heads in site.options["heads"]:
            head_width(settings["d_model"], heads)  # a setting that does not divide d_model is named
        fixed = dict(sentence=settings["sentence"])
        return Grid(
            axes={"corpus": site.corpora, "seed": site.seeds, "heads": tuple(site.options["heads"]),
                  "guards": GUARD_SETS},
            params=lambda point: dict(point, **fixed),
            script_axes=("corpus", "seed", "heads"),  # a switch of guards repaints from data in memory
            live_axes=("seed", "sentence"),
        )

    def quotes(self, results, grid, site):
        """<corpus>/<seed>/<heads>/<guards>/<key of the point>, and over every seed and head:
        <corpus>/all/<heads>/<guards>/<lowest_row_max|highest_row_max|mean_row_max|agreement>, and
        <corpus>/all/<heads>/<guards>/spread/<unscaled|sqrt_d_k|sqrt_d_model>/<lowest|highest|mean>."""
        tree = super().quotes(results, grid, site)
        for corpus in site.corpora:
            every = tree[corpus]["all"] = {}
            for heads in site.options["heads"]:
                for guards in GUARD_SETS:
                    points = [results[f"{corpus}/{seed}/{heads}/{guards}"] for seed in site.seeds]
                    per_head = [h for p in points for h in p["per_head"]]
                    row_max = [h["measures"]["mean_row_max"] for h in per_head]
                    every.setdefault(str(heads), {})[guards] = {
                        "lowest_row_max": min(row_max), "highest_row_max": max(row_max),
                        "mean_row_max": sum(row_max) / len(row_max),
                        "agreement": sum(p["summary"]["agreement"] for p in points) / len(points),
                        "spread": {divisor: {"lowest": min(h["spread"][divisor] for h in per_head),
                                             "highest": max(h["spread"][divisor] for h in per_head),
                                             "mean": sum(h["spread"][divisor] for h in per_head) / len(per_head)}
                                   for divisor in ("unscaled", "sqrt_d_k", "sqrt_d_model")},
                    }
        return tree

    def offers(self, options, axes):
        heads = [str(h) for h in axes["heads"]] if "heads" in options["show"] else [str(options["heads"])]
        return {**offered_corpus_and_seed(options, axes), "heads": heads,
                "guards": offered_guard_sets(options, axes["guards"])}

    def check(self, options, site):
        check_corpus_and_seed(options, site)
        if options["heads"] not in site.options["heads"]:
            raise OptionError("heads", f"{options['heads']} is not a baked number of heads; the baked ones are: "
                                       f"{listing(site.options['heads'])}{site.option_at('kinds', self.name, 'heads')}")
        if options["head"] > options["heads"]:
            raise OptionError("head", f"head {options['head']} does not exist with {options['heads']} heads: "
                                      f"use 1 to {options['heads']}")
        try:
            options["guards"] = str(GuardSet.parse(options["guards"]))
        except ValueError as error:
            raise OptionError("guards", str(error)) from None

    def render(self, options, panel):
        corpus, seed, heads, guards = options["corpus"][0], options["seed"], options["heads"], options["guards"]
        point = panel.baked(f"{corpus}/{seed}/{heads}/{guards}")
        where = f"{panel.site.titles.get(corpus, corpus)} ({corpus}), seed {seed}, guards {guards}"
        picked = point["per_head"][options["head"] - 1]
        maps = head_maps(panel, point["tokens"], point["per_head"],
                         lambda number: f"Head {number} of {heads}: attention weights, {where}",
                         lambda head: head["measures"]["mean_row_max"]) if "maps" in options["show"] else []
        return panel.render_template(
            options,
            show=options["show"],
            where=where,
            point=point,
            maps=maps,
            picked=options["head"],
            measures=[dict(m, value=picked["measures"][m["key"]]) for m in MEASURES],
            measure_definitions=json.dumps(MEASURES, separators=(",", ":"), ensure_ascii=False),
            rowmax=rowmax_bars(point, where),
            spread=spread_table(point),
            cost=cost_table(point),
            scripts=[panel.script(f"{corpus}/{seed}/{heads}")],  # others load when chosen
        )

"""``/// encoder``: a stack of encoder layers with LayerNorm none, post or pre, layer by layer.

The reader stacks 1 to 6 layers, moves LayerNorm (none / post / pre), changes corpus and seed, and
picks the layer whose heads' maps are shown. Without JavaScript the panel is the initial stack:
the residual stream's spread layer by layer, each layer's mean row-max and gradient, the chosen
layer's maps (drawn at build by the shared heatmap view) and the table of every layer. Every
corpus x seed x placement is baked once with all layers by ``scalecore.encoder.block`` (a
shallower stack is the first layers of a deeper one); live mode calls it for any sentence and seed.
"""

from scalecore_generator.kinds.options import OptionError, PanelOptions
from scalecore_generator.kinds.options import Integer, ListOf, OneOf, Optional
from scalecore_generator.kinds.options import Bounded, described
from scalecore_generator.kinds.kind import Grid, Kind, KindSettings, check_corpus_and_seed, corpus_option, head_maps, \
    offered_corpus_and_seed, seed_option
from scalecore.encoder import MAX_LAYERS, NORMS
from scalecore.multihead import head_width

SHOW = ("stream", "attention", "maps", "table", "norm", "layers", "corpus", "seed", "live")
NORM_LABELS = {"none": "no LayerNorm", "post": "post-LN: LN(x + sublayer(x))", "pre": "pre-LN: x + sublayer(LN(x))"}
LAYER_KEYS = ("attention_input_spread", "attention_update_spread", "ffn_update_spread", "ffn_share", "stream_spread",
              "mean_row_max", "gradient", "saturated_share")


# The table's columns each written one way: the FFN's share to three decimals, the row-max to two ("1.00", never "1"
# beside "0.99"); spreads and the gradient to three significant digits (the views' default, 1.39 × 10⁵ from 10⁵).
LAYER_FORMATS = ["", "", "", "", ".3f", "", ".2f", ""]


def layers_table(point: dict, layers: int, where: str) -> dict:
    """The spec of the shared table view: every layer's numbers, the stream's input first."""
    rows = [{"header": "input", "cells": ["", "", "", "", point["input_spread"], "", ""]}]
    rows += [{"header": str(layer["layer"]),
              "cells": [layer["attention_input_spread"], layer["attention_update_spread"], layer["ffn_update_spread"],
                        layer["ffn_share"], layer["stream_spread"], layer["mean_row_max"], layer["gradient"]]}
             for layer in point["layers"][:layers]]
    return {
        "className": "scalecore-encoder-layers",
        "caption": f"Layer by layer, {where}: the spread (std) of what the heads see, of what attention and the FFN "
                   "add (and the FFN's share of what the layer adds), and of the residual stream after the layer; the heads' "
                   "mean row-max and gradient size.",
        "columns": ["Layer", "Heads see", "Attention adds", "FFN adds", "FFN share", "Stream", "Row-max", "Gradient"],
        "formats": LAYER_FORMATS,
        "rows": rows,
    }


def stream_line(point: dict, layers: int, where: str) -> dict:
    """The spec of the shared line view: the residual stream's spread after each layer."""
    ys = [point["input_spread"]] + [layer["stream_spread"] for layer in point["layers"][:layers]]
    return {"xs": list(range(layers + 1)), "ys": ys, "xTicks": list(range(layers + 1)), "log": True, "dots": True,
            "label": f"Spread of the residual stream (log scale), input (0) and after each layer, {where}."}


def layer_bars(point: dict, layers: int, key: str, what: str, where: str) -> dict:
    """The spec of the shared bars view: one measure of the heads, layer by layer."""
    return {"labels": [f"layer {layer['layer']}" for layer in point["layers"][:layers]],
            "values": [layer[key] for layer in point["layers"][:layers]], "label": f"{what} of each layer, {where}."}


class Encoder(Kind):
    needs = frozenset({"corpora"})  # the embedding tables of the corpora it offers
    label = "An encoder stack, layer by layer"
    compute = "scalecore.encoder:block"

    class Settings(KindSettings):
        heads = described(Bounded(1, 64, default=4),
                          "The heads of every layer's attention; it must divide `d_model`.")
        layers = described(Bounded(1, MAX_LAYERS, default=6),
                           "The deepest stack baked; a block shows 1 to this many layers.")

    class Options(PanelOptions):
        corpus = corpus_option()
        seed = seed_option()
        # Where LayerNorm goes first: none, post or pre.
        norm = OneOf(NORMS, default="post")
        # How many layers are stacked first (1 to the baked depth).
        layers = Optional(Integer(low=1))
        # The layer whose heads' maps are shown first (1 = the first).
        layer = Integer(low=1, default=1)
        show = ListOf(OneOf(SHOW), default=["stream", "attention", "table", "norm", "layers", "corpus", "seed", "live"],
                      min_items=1, order=SHOW, example="[stream, attention]")

    def grid(self, site):
        settings = site.settings
        head_width(settings["d_model"], site.options["heads"])
        fixed = dict(heads=site.options["heads"], layers=site.options["layers"], sentence=settings["sentence"])
        return Grid(
            axes={"corpus": site.corpora, "seed": site.seeds, "norm": NORMS},
            params=lambda point: dict(point, **fixed),
            script_axes=("corpus", "seed"),  # moving LayerNorm repaints from data in memory
            live_axes=("seed", "sentence"),
        )

    def quotes(self, results, grid, site):
        """<corpus>/<seed>/<norm>/<key of the point>, and over every seed:
        <corpus>/all/<norm>/<layer>/<measure>/<lowest|highest>, <layer> counted from 1."""
        tree = super().quotes(results, grid, site)
        for corpus in site.corpora:
            every = tree[corpus]["all"] = {}
            for norm in NORMS:
                points = [results[f"{corpus}/{seed}/{norm}"] for seed in site.seeds]
                every[norm] = {
                    str(number): {key: {"lowest": min(p["layers"][number - 1][key] for p in points),
                                        "highest": max(p["layers"][number - 1][key] for p in points)}
                                  for key in LAYER_KEYS}
                    for number in range(1, site.options["layers"] + 1)
                }
        return tree

    def offers(self, options, axes):
        norms = list(axes["norm"]) if "norm" in options["show"] else [options["norm"]]
        return {**offered_corpus_and_seed(options, axes), "norm": norms}

    def check(self, options, site):
        check_corpus_and_seed(options, site)
        deepest = site.options["layers"]
        if options["layers"] is None:
            options["layers"] = deepest
        elif options["layers"] > deepest:
            raise OptionError("layers", f"{options['layers']} layers are more than the {deepest} baked; use 1 to "
                                        f"{deepest}, or raise kinds: {{encoder: {{layers: ...}}}} in mkdocs.yml")
        if options["layer"] > options["layers"]:
            raise OptionError("layer", f"layer {options['layer']} is not in a stack of {options['layers']}: "
                                       f"use 1 to {options['layers']}")

    def render(self, options, panel):
        corpus, seed, norm, layers = options["corpus"][0], options["seed"], options["norm"], options["layers"]
        point = panel.baked(f"{corpus}/{seed}/{norm}")
        where = f"{panel.site.titles.get(corpus, corpus)} ({corpus}), seed {seed}, {NORM_LABELS[norm]}"
        chosen = point["layers"][options["layer"] - 1]
        maps = head_maps(panel, point["tokens"], chosen["per_head"],
                         lambda number: f"Layer {chosen['layer']}, head {number}: attention weights, {where}",
                         lambda head: head["mean_row_max"]) if "maps" in options["show"] else []
        return panel.render_template(
            options,
            show=options["show"],
            point=point,
            where=where,
            layers=layers,
            chosen=chosen,
            maps=maps,
            stream=stream_line(point, layers, where),
            row_max=layer_bars(point, layers, "mean_row_max", "Mean row-max of the heads", where),
            gradient=layer_bars(point, layers, "gradient", "Gradient size (Frobenius norm of the softmax Jacobian, 0 to 0.5) "
                                "of the heads", where),
            table=layers_table(point, layers, where),
            scripts=[panel.script(f"{corpus}/{seed}")],  # another corpus loads when chosen
        )

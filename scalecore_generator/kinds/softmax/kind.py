"""``/// softmax``: a few scores, a multiplier, and what softmax and its gradient make of them.

The fallback is computed here with the core (never typed in): the weights of ``factor * scores``
and the size of the softmax Jacobian, which goes to 0 as the weights saturate. The lesson's worked
examples and the sweep of the slider are one baked point (``scalecore.softmax.saturation_lesson``),
the reference the panel and the prose quote.
"""

from scalecore_generator.kinds.options import PanelOptions
from scalecore_generator.kinds.options import ListOf, Number, OneOf
from scalecore_generator.kinds.kind import Grid, Kind
from scalecore.softmax import jacobian_norm, softmax, softmax_jacobian

SHOW = ("weights", "jacobian", "table")
EXAMPLES = [[1.0, 2.0, 3.0], [1.0, 5.0, 10.0], [10.0, 50.0, 100.0]]
LARGEST = 1e6  # the largest score (and factor) in size; the panel's script holds readers to it too
FACTORS = [0.25 * step for step in range(41)]  # the scores [1, 2, 3] multiplied by 0 ... 10


def weights_table(scores, factor, scaled, weights, alike) -> dict:
    """The spec of the shared table view of the weights (the panel's script draws the same);
    ``alike``: the shared views' format of numbers read side by side (views.js alike), as the panel's script
    writes them."""
    factor_text = alike([factor])[0]
    return {"className": "scalecore-softmax",
            "caption": f"Softmax of the scores multiplied by {factor_text}: the weights sum to 1.",
            "columns": ["i", "Score", f"× {factor_text}", "Weight"], "formats": ["", "", "", ".3f"],
            "rows": [{"header": str(i + 1), "cells": [s, x, w]}
                     for i, (s, x, w) in enumerate(zip(alike(scores), alike(scaled), weights))]}


def jacobian_table(jacobian, gradient, factor, number, alike) -> dict:
    """The spec of the shared table view of the softmax Jacobian (``number``: the shared views' number format,
    Panel.num; ``alike``: as weights_table)."""
    n = len(jacobian)
    return {"className": "scalecore-jacobian",
            "caption": f"The softmax Jacobian at factor {alike([factor])[0]}: how weight i (row) moves when score j "
                       f"(column) moves, p_i (δ_ij − p_j); its size is {number(gradient)}.",
            "columns": ["i \\ j"] + [f"s{j + 1}" for j in range(n)], "formats": [""] + [".3f"] * n,
            "rows": [{"header": f"p{i + 1}", "cells": list(row)} for i, row in enumerate(jacobian)]}


class Softmax(Kind):
    label = "Softmax of a row of scores"
    compute = "scalecore.softmax:saturation_lesson"

    class Options(PanelOptions):
        # The row of scores (2 to 8 numbers, repeats allowed). Scores and factor are bounded so
        # that their product stays finite: a million already saturates softmax completely.
        scores = ListOf(Number(low=-LARGEST, high=LARGEST), default=[1.0, 2.0, 3.0], min_items=2, max_items=8, unique=False,
                        example="[1, 2, 3]")
        # The initial multiplier of the scores: 0 is even attention, large is one-hot.
        factor = Number(low=0, high=LARGEST, default=1.0)
        show = ListOf(OneOf(SHOW), default=list(SHOW), min_items=1, order=SHOW, example="[weights, table]")

    def grid(self, site):
        params = dict(examples=EXAMPLES, factors=FACTORS, base=EXAMPLES[0])
        return Grid(axes={}, params=lambda point: params, live_axes=("examples", "factors", "base"))

    def quotes(self, results, grid, site):
        """<example>/<weights|gradient|scores>[/<index>]."""
        return results["index"]["examples"]

    def render(self, options, panel):
        def alike(values):
            return panel.view("alike", [list(values)])

        scaled = [options["factor"] * score for score in options["scores"]]
        weights = softmax(scaled)
        return panel.render_template(
            options,
            show=options["show"],
            weights_table=weights_table(options["scores"], options["factor"], scaled, weights, alike),
            jacobian_table=jacobian_table(softmax_jacobian(weights), jacobian_norm(weights), options["factor"],
                                          panel.num, alike),
            scripts=[panel.script("")],
        )

"""``/// softmax``: a few scores, a multiplier, and what softmax and its gradient make of them.

The fallback is computed here with the core (never typed in): the weights of ``factor * scores``
and the size of the softmax Jacobian, which goes to 0 as the weights saturate.
"""

from build_tools.bake import SOFTMAX
from build_tools.blocks.base import Kind, PanelOptions, register
from build_tools.blocks.options import ListOf, Number, OneOf
from scalecore.softmax import jacobian_norm, softmax, softmax_jacobian

SHOW = ("weights", "jacobian", "table")


@register
class Softmax(Kind):
    name = "softmax"
    label = "Softmax of a row of scores"

    class Options(PanelOptions):
        # The row of scores (2 to 8 numbers, repeats allowed).
        scores = ListOf(Number(), default=[1.0, 2.0, 3.0], min_items=2, max_items=8, unique=False,
                        example="[1, 2, 3]")
        # The initial multiplier of the scores: 0 is even attention, large is one-hot.
        factor = Number(low=0, default=1.0)
        show = ListOf(OneOf(SHOW), default=list(SHOW), min_items=1, order=SHOW, example="[weights, table]")

    def render(self, options, panel):
        scaled = [options["factor"] * score for score in options["scores"]]
        weights = softmax(scaled)
        return panel.render_template(
            options,
            show=options["show"],
            factor=options["factor"],
            rows=list(zip(options["scores"], scaled, weights)),
            jacobian=softmax_jacobian(weights),
            gradient=jacobian_norm(weights),
            scripts=[panel.url(f"{SOFTMAX}/index.js")],
        )

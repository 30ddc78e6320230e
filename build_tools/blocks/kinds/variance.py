"""``/// variance``: why scores grow with d, from sampled dot products q . k.

Without JavaScript: the baked histogram of every chosen d and a table of the variance of q . k,
raw (about d) and divided by sqrt(d) (about 1).
"""

from mkdocs.config import config_options as c

from build_tools.bake import VARIANCE
from build_tools.blocks.base import Kind, OptionError, PanelOptions, register
from build_tools.blocks.options import Integer, ListOf, OneOf, listing

SHOW = ("histogram", "table", "live")


@register
class Variance(Kind):
    name = "variance"
    label = "Variance of the dot product q . k"

    class Options(PanelOptions):
        # The dimensions the reader can pick, each baked; default: all baked ones. Stored ascending.
        dims = c.Optional(ListOf(Integer(low=1), min_items=1, example="[10, 100]"))
        # The initial dimension, one of dims; default: the smallest.
        d = c.Optional(Integer(low=1))
        show = ListOf(OneOf(SHOW), default=list(SHOW), min_items=1, order=SHOW, example="[histogram, table]")

    def check(self, options, grid):
        if options["dims"] is None:
            options["dims"] = list(grid.variance_dims)
        for d in options["dims"]:
            if d not in grid.variance_dims:
                raise OptionError("dims", f"{d} is not a baked dimension; the baked dimensions are: "
                                          f"{listing(grid.variance_dims)}")
        options["dims"] = sorted(options["dims"])
        if options["d"] is None:
            options["d"] = options["dims"][0]
        elif options["d"] not in options["dims"]:
            raise OptionError("d", f"{options['d']} is not one of the panel's dims: {listing(options['dims'])}")

    def render(self, options, panel):
        data = panel.baked(f"{VARIANCE}/index.json")
        rows = {row["d"]: row for row in data["dims"]}
        missing = [d for d in options["dims"] if d not in rows]
        if missing:
            raise OptionError(None, f"the baked variance data has no d = {missing[0]}; is the bake up to date?")
        return panel.render_template(
            options,
            show=options["show"],
            rows=[rows[d] for d in options["dims"]],
            initial=options["d"],
            samples=data["samples"],
            figures={d: panel.url(f"{VARIANCE}/d-{d}.svg") for d in options["dims"]},
            scripts=[panel.url(f"{VARIANCE}/index.js")],
        )

"""``/// variance``: why scores grow with d, from sampled dot products q . k.

Without JavaScript: the baked histogram of every chosen d and a table of the variance of q . k,
raw (about d) and divided by sqrt(d) (about 1). The lesson is one baked point
(``scalecore.variance.lesson`` over the dimensions of the plugin's ``kinds: {variance: ...}``
section); live mode calls the same function for any other d.
"""

from scalecore_generator.kinds.options import OptionError, PanelOptions
from scalecore_generator.kinds.options import Integer, ListOf, OneOf, Optional, listing
from scalecore_generator.kinds.options import Bounded, described
from scalecore_generator.kinds.kind import Grid, Kind, KindSettings

SHOW = ("histogram", "table", "live")


def variance_table(rows: list[dict], samples: int, initial: int | None) -> dict:
    """The spec of the shared table view for these dimensions (the panel's script draws the same)."""
    return {
        "className": "scalecore-variance",
        "caption": f"Variance of q · k for random q and k with d entries ({samples} samples each): it grows like d, "
                   "and dividing by √d brings it back to about 1.",
        "columns": ["d", "Variance of q · k", "Variance of q · k / √d"],
        "rows": [{"header": str(row["d"]), "cells": [row["raw"]["variance"], row["scaled"]["variance"]],
                  "attributes": {"data-scalecore-d": row["d"], "class": "scalecore-initial" if row["d"] == initial else None}}
                 for row in rows],
    }


class Variance(Kind):
    label = "Variance of the dot product q . k"
    compute = "scalecore.variance:lesson"

    class Settings(KindSettings):
        dims = described(ListOf(Bounded(1, 4096), default=[3, 10, 30, 100, 300, 1000], example="[10, 100]"),
                         "The dimensions of q and k to sample; a block's dims are among them.")
        samples = described(Bounded(100, 100000, default=4000),
                            "How many random pairs (q, k) are drawn per dimension.")

    class Options(PanelOptions):
        # The dimensions the reader can pick, each baked; default: all baked ones. Stored ascending.
        dims = Optional(ListOf(Integer(low=1), min_items=1, example="[10, 100]"))
        # The initial dimension, one of dims; default: the smallest.
        d = Optional(Integer(low=1))
        show = ListOf(OneOf(SHOW), default=list(SHOW), min_items=1, order=SHOW, example="[histogram, table]")

    def grid(self, site):
        params = dict(dims=list(site.options["dims"]), samples=site.options["samples"], seed=0, bins=40)
        return Grid(axes={}, params=lambda point: params, live_axes=("dims",))

    def figures(self, result, point):
        """The fallback's histograms, every one on the axis of the largest d: side by side, as a
        reader without JavaScript sees them, they widen with d (each on its own axis, they looked
        equally wide)."""
        figures = {}
        reach = max(row["raw"]["high"] for row in result["dims"])
        widest = max(row["d"] for row in result["dims"])
        for row in result["dims"]:
            raw = row["raw"]
            label = (f"Histogram of {result['samples']} samples of q . k for d = {row['d']}: "
                     f"variance {raw['variance']:.3g}, on the axis of d = {widest}")
            figures[f"d-{row['d']}.svg"] = ("histogram", {"low": raw["low"], "high": raw["high"],
                                                          "counts": raw["counts"], "reach": reach, "label": label,
                                                          "xTitle": "q · k"})
        return figures

    def quotes(self, results, grid, site):
        """<d>/<raw|scaled>/<variance|std|mean>."""
        return {str(row["d"]): row for row in results["index"]["dims"]}

    def check(self, options, site):
        baked = site.options["dims"]
        if options["dims"] is None:
            options["dims"] = list(baked)
        for d in options["dims"]:
            if d not in baked:
                raise OptionError("dims", f"{d} is not a baked dimension; the baked dimensions are: "
                                          f"{listing(baked)}{site.option_at('kinds', self.name, 'dims')}")
        options["dims"] = sorted(options["dims"])
        if options["d"] is None:
            options["d"] = options["dims"][0]
        elif options["d"] not in options["dims"]:
            raise OptionError("d", f"{options['d']} is not one of the panel's dims: {listing(options['dims'])}")

    def render(self, options, panel):
        data = panel.baked("index")
        rows = {row["d"]: row for row in data["dims"]}
        return panel.render_template(
            options,
            show=options["show"],
            rows=[rows[d] for d in options["dims"]],
            variance_table=variance_table([rows[d] for d in options["dims"]], data["samples"], options["d"]),
            initial=options["d"],
            samples=data["samples"],
            figures={d: panel.file(f"d-{d}.svg") for d in options["dims"]},
            scripts=[panel.script("")],
        )

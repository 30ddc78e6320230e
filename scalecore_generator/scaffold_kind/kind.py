"""``/// __KIND__``: a row of scores multiplied by a factor the reader picks, through softmax.

Written by ``scalecore new --template kind``: this folder is a whole interactive. Put it in the
``kinds/`` folder beside a site's mkdocs.yml (its name is the kind's name, the word after
``///``) and use it on a page:

    /// __KIND__ | Softmax of scaled scores
    factor: 1.0
    ///

It computes with a function of Scalecore's core (``scalecore.softmax:saturation_lesson``), which
every site ships to the browser, so it works in any site as it is. To compute with your own
Python, write the function in a package beside mkdocs.yml, list that package in the plugin's
``packages`` option and name it here as ``"yourpackage.module:function"`` (standard library only:
the browser's Python has no numpy). `scalecore guide kinds` explains each file.
"""

from scalecore_generator.kinds.kind import Grid, Kind, KindSettings, described
from scalecore_generator.kinds.options import ListOf, OptionError, PanelOptions, Type

SCORES = [1.0, 2.0, 4.0]


class ScaledSoftmax(Kind):
    label = "Softmax of scaled scores"
    # "package.module:function": called once per point at build time (CPython), and in the
    # reader's browser (Pyodide) for the factors that were not baked.
    compute = "scalecore.softmax:saturation_lesson"

    class Settings(KindSettings):
        # in mkdocs.yml: plugins: [scalecore: {kinds: {__KIND__: {factors: [0.5, 1.0, 2.0]}}}]
        factors = described(ListOf(Type(float), default=[0.5, 1.0, 2.0, 4.0], example="[0.5, 1.0]"),
                            "The factors to bake (readers can compute any other live).")

    class Options(PanelOptions):
        # The factor shown first: one of the baked ones.
        factor = Type(float, default=1.0)

    def grid(self, site):
        return Grid(
            axes={"factor": tuple(site.options["factors"])},
            params=lambda point: {"examples": [SCORES], "factors": [point["factor"]], "base": SCORES},
            script_axes=(),  # every factor in one data.js: switching never waits
            live_axes=("factor",),
        )

    def check(self, options, site):
        if options["factor"] not in site.options["factors"]:
            baked = ", ".join(str(factor) for factor in site.options["factors"])
            # site.option_at: where the baked factors are set in mkdocs.yml (its line), or the plugin's entry
            raise OptionError("factor", f"{options['factor']} is not a baked factor; the baked ones are: {baked}"
                                        f"{site.option_at('kinds', self.name, 'factors')}. Fix: write one of them, or "
                                        f"add {options['factor']} to the setting factors of the kind {self.name}")

    def render(self, options, panel):
        point = panel.baked(str(options["factor"]))  # the path of a point: its axis values joined by "/"
        return panel.render_template(options, scores=SCORES, row=point["sweep"][0], scripts=[panel.script("")])

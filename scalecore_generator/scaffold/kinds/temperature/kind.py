"""``/// temperature``: a row of scores through softmax at a temperature the reader picks.

Baked: every temperature of the site's settings. Live: any temperature, computed in the
browser by the very function that baked the others (mylessons.temperature:weights).
"""

from scalecore_generator.kinds.options import ListOf, OptionError, PanelOptions, Type
from scalecore_generator.kinds.kind import Grid, Kind, KindSettings, described

SCORES = [1.0, 2.0, 4.0]


class Temperature(Kind):
    label = "Softmax at a temperature"
    compute = "mylessons.temperature:weights"

    class Settings(KindSettings):
        # described(): what the setting changes, shown in the table of settings of `scalecore guide options`.
        temperatures = described(ListOf(Type(float), default=[0.25, 0.5, 1.0, 2.0, 4.0], example="[0.5, 1.0]"),
                                 "The temperatures to bake (readers can compute any other live).")

    class Options(PanelOptions):
        # The temperature shown first: one of the baked ones.
        temperature = Type(float, default=1.0)

    def grid(self, site):
        return Grid(
            axes={"temperature": tuple(site.options["temperatures"])},
            params=lambda point: {"scores": SCORES, "temperature": point["temperature"]},
            script_axes=(),  # every temperature in one data.js: switching never waits
            live_axes=("temperature",),
        )

    def check(self, options, site):
        if options["temperature"] not in site.options["temperatures"]:
            wanted = options["temperature"]
            baked = ", ".join(str(t) for t in site.options["temperatures"])
            # Where the baked ones come from: the kind's setting in mkdocs.yml (site.option_at: its line).
            raise OptionError("temperature", f"{wanted} is not a baked temperature; the baked ones are: {baked}"
                                             f"{site.option_at('kinds', 'temperature', 'temperatures')}. Fix: write one of them, or bake {wanted} "
                                             "too: add it to the setting temperatures of the kind temperature, "
                                             "under the scalecore plugin's kinds in mkdocs.yml "
                                             f"(kinds: {{temperature: {{temperatures: [{baked}, {wanted}]}}}})")

    def render(self, options, panel):
        point = panel.baked(str(options["temperature"]))
        return panel.render_template(options, point=point, scripts=[panel.script("")])

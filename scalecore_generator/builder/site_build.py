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
import sys
import time
from pathlib import Path

import scalecore
from scalecore.corpus import CorpusError
from scalecore.experiment import sentence_tokens
from scalecore_generator import mentor, vendor
from scalecore_generator.blocks import views
from scalecore_generator.blocks.base import PanelTemplates
from scalecore_generator.blocks.remembered import RememberedPanels
from scalecore_generator.foundation import cache, disk
from scalecore_generator.builder import bake, disk_search, hosts, live_runtime, offline, points, tables
from scalecore_generator.builder.corpora import load_for_build, warn_about_outside_corpora
from scalecore_generator.builder.engine_site import THEME, EngineSite, OptionLines, default_source_date_epoch
from scalecore_generator.foundation.manifest import MANIFEST, MANIFEST_SCRIPT, PAGE_MANIFEST, PAGE_MANIFEST_SCRIPT, \
    build_manifest, for_pages
from scalecore_generator.builder.memos import KindKeys, build_memos
from scalecore_generator.builder.page_pipeline import PagePipeline
from scalecore_generator.builder.publisher import Publisher
from scalecore_generator.builder.steps import Steps
from scalecore_generator.builder.site_swap import StagedSite, ledger_beside
from scalecore_generator.errors import BuildError
from scalecore_generator.kinds import registry, site_kinds
from scalecore_generator.kinds.kind import Site
from scalecore_generator.pages import assets, author_files, module_meta, formulas, frontend, math_font, module_page, \
    sources
from scalecore_generator.pages.quotes import LazyNamespace
from scalecore_generator.runtime import pyodide as runtime
from scalecore_generator.runtime import fullstack


class SiteBuild:
    """Everything one build knows, and its steps (see the module's docstring)."""

    def __init__(self, settings, engine: EngineSite, command: str, log, serve_nonce: str | None = None,
                 references: dict | None = None, publisher: Publisher | None = None):
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
        self.publisher = publisher  # where the site's files are written (None: made by configure)
        self.pages: PagePipeline | None = None  # each page's steps, once prepared
        self.steps = Steps()  # the steps taken, in the order builder/steps.py gives
        self.cache_use = None
        self.minifier = None
        self.scripted_files = frozenset()  # the author's files allowed their scripts (check_author_files)
        self.mentor_model = None
        self.files: dict[str, Path] = {}
        self.contents: dict[str, str] = {}
        self._engine_files: frozenset[str] = frozenset()  # what the engine writes, as write_files knew it
        self.template_caches = None  # configure(): compiled templates and rendered views, this build's
        self.views = None

    # -- configure: what the build reads before anything is computed -----------------------------

    def configure(self) -> None:
        self.steps.take("configure")
        settings = self.settings
        self.option_lines = OptionLines(settings.where, ("corpora", "seeds", "kinds"))
        # the sha256 of what the site publishes and of what it derives from (cache/digests.py); a
        # staged build keeps its ledger beside the site (stage), so a warm build writes nothing in
        # the cache. Chosen before the corpora are read: their files' digests are kept in it too.
        staged = self.command == "build"
        self.digests = cache.Digests(ledger_beside(self.engine.site_dir) if staged else self.cache / "digests.json",
                                     sources=self.cache / "source-digests.json" if staged else None)
        if self.publisher is None:
            self.publisher = Publisher(self.digests)
        else:
            self.publisher.digests = self.digests
        default_source_date_epoch(self.root)
        sources.check(self.engine.docs_dir, self.log, self.engine.strict)
        self.packages = [(self.root / folder).resolve() for folder in settings.packages]
        for package in self.packages:
            if not (package / "__init__.py").is_file():
                raise BuildError(f"{settings.where('packages')}: {package} is not a Python package (no "
                                 "__init__.py). Fix: list the folder of the package your kinds compute with.")
            if str(package.parent) not in sys.path:
                sys.path.insert(0, str(package.parent))
        if self.command == "serve":  # rebuilds in one process; a build is a process of its own
            registry.forget_edited_packages(self.packages)
        self.memos = build_memos(self.cache / "memo", self.log, self.digests.of)
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
        # "Ask the mentor" on some module page: its own mentor: true, or the site's option
        self.mentor_wanted = module_meta.any_module_page_shows(self.engine.docs_dir, "mentor", bool(settings.mentor))
        try:
            self.corpora = load_for_build(self.root / settings.corpora_dir, settings.corpora, self.cache, self.log,
                                          self.digests.of, self.memos["corpora"]) if self.needs("corpora") else {}
            self.tokens = sentence_tokens(settings.sentence)
        except (CorpusError, ValueError) as error:
            raise BuildError(str(error)) from None
        warn_about_outside_corpora(self)
        self.typesetter = formulas.Typesetter(settings.math, self.cache / "math.json", self.log) \
            if self.engine.uses_math else None
        self.math_font = math_font.MathFont(self.cache / "math-font") if settings.math == "mathml" else None
        self.minifier = frontend.Minifier(self.cache / "frontend", self.digests.of)
        # compiled templates and rendered views, kept across builds; this build's, not the process's
        self.template_caches = cache.TemplateCaches()
        compiled = self.template_caches.get(self.cache / "templates")
        self.views = views.Views(self.cache / "views.json", self.log)
        self.panel_templates = PanelTemplates(self.views, compiled)
        self.module_templates = module_page.environment(compiled)
        # What the build holds once configured (the engine's configuration, the kinds, the views
        # read: tens of thousands of objects) lives as long as the build: kept out of the
        # cyclic collector's walks until it ends. A warm build then makes no full collection. finish() and abandon() give them back,
        # so a dev server's next build frees what this one no longer holds.
        gc.freeze()

    def stage(self) -> Path:
        """Where the engine writes this build's site: a staging folder swapped in by finish(), so
        a failed build leaves the published site as it was (builder/site_swap.py)."""
        self.steps.take("stage")
        if self.command == "build" and not self.staged:
            staged = StagedSite(str(self.engine.site_dir))
            try:
                self.engine.site_dir = Path(staged.begin())
            except OSError as error:  # the lock's note or the folder, beside the site: name that disk
                staged.discard()
                raise BuildError(disk.explain(error, "staging the new site", self.engine.site_dir.parent)) from None
            self.publisher.staged = staged
        return self.engine.site_dir

    @property
    def staged(self) -> StagedSite | None:
        """The staging folder this build writes (None: written in place, the dev server)."""
        return self.publisher.staged if self.publisher is not None else None

    def needs(self, need: str) -> bool:
        """A kind the pages use or quote needs ``need`` (Kind.needs): only then does the site pay
        for it (corpora: loading them and learning their embedding tables)."""
        used_at, quoted = self.used_by_pages
        return any(need in self.kinds[name].needs for name in set(used_at) | set(quoted) if name in self.kinds)

    # -- prepare: the bake and everything the pages point to -------------------------------------

    def prepare(self) -> None:
        self.steps.take("prepare")
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
        no room). Not the published site's size: walking it costs every warm build, and the
        engine's pages, which it also counted, are written later, by a step that stops as
        cleanly on a full disk (the previous site stays)."""
        ours = sum(os.stat(path).st_size for path in self.files.values())
        return ours + sum(len(text.encode("utf-8")) for text in self.contents.values())

    def _prepare(self) -> None:
        settings = self.settings
        snapshot_job = live_runtime.start_snapshot(self)  # made in Chromium while the bake runs
        tables.learn_tables(self)
        self.files = self._bake()
        self.files.update(self.tables_files)
        self.files.update(assets.collect(self.root, self.engine.uses_math and settings.math == "html"))
        live = self.early_runtime or (live_runtime.runtime_of(self) if settings.live else runtime.Runtime({}, {}))
        if self.mentor_wanted:
            self.files.update(mentor.assets(vendor.NODE_MODULES, self.cache, self.digests.of))
        self.mentor_model = self._mentor_model() if settings.mentor_model else None
        if snapshot_job is not None:
            live_runtime.add_snapshot(self, live, snapshot_job)
        if settings.console_full_stack:
            live_runtime.add_full_stack(self, live)
        else:  # the full stack's worker is of no use without its runtime (console.js keeps fullstack.js, which says so)
            for name in fullstack.WORKER_ASSETS:
                self.files.pop(f"{assets.OWN_SITE}/{name}", None)
        self.files.update(live.files)
        # before the manifest: it gives the sha256 of what is served
        self.files.update(frontend.minified(self.files, self.own_folders(), self.minifier))
        self.pages = PagePipeline(self, self._quote_tree(), RememberedPanels(self.memos["panels"], KindKeys(self)))
        self.manifest = self._manifest(live)
        pages_manifest = for_pages(self.manifest)
        self.contents = {
            MANIFEST: json.dumps(self.manifest, separators=(",", ":"), ensure_ascii=False) + "\n",
            MANIFEST_SCRIPT: points.data_script("manifest", self.manifest),
            PAGE_MANIFEST: json.dumps(pages_manifest, separators=(",", ":"), ensure_ascii=False) + "\n",
            PAGE_MANIFEST_SCRIPT: points.data_script("manifest", pages_manifest),
        }

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

    def axes(self) -> dict[str, list[str]]:
        """Each baked kind's axis names, in the order of its points' paths (the mentor's links)."""
        return {name: list(baked.grid.axes) for name, baked in self.baked.items()}

    def offers(self, name: str, options: dict) -> dict[str, list[str]]:
        """The values of a baked kind's axes that its panel with these options can show, where
        not all (Kind.offers): the mentor's links go to a panel that can show their state."""
        baked = self.baked.get(name)
        if baked is None or name not in self.used:
            return {}
        axes = {axis: tuple(str(value) for value in values) for axis, values in baked.grid.axes.items()}
        return self.used[name]().offers(options, axes)

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
                      f"{time.monotonic() - started:.1f} s ({computed} group{'' if computed == 1 else 's'} computed)")
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

    def write_files(self, site_dir: Path, engine_files: frozenset[str] = frozenset()) -> None:
        """Everything the site serves besides the engine's pages: the baked data, the runtime and
        our scripts (``files``, each published: see publish) and the manifests (``contents``).

        Written by the build, not copied by the engine: an engine copies a file it knows
        through its own code, for each of a thousand files (the baked points, the runtime, the
        full stack), while publish() links what the last build published unchanged. An adapter
        still tells its engine of them, so that a page's link to one (the static API) is checked
        as a link to a file of the site. ``engine_files``: the site paths the engine writes
        itself (MkDocs' adapter calls this before MkDocs writes them), left to it: its file wins
        at the same path, as it did when these were MkDocs' files. Zensical's adapter calls it
        once Zensical has written the site. The copies are made while the pages render
        (publisher.py); finish() waits for them."""
        self.steps.take("write_files")
        self.publisher.write_all(self.files, self.contents, os.fspath(site_dir), engine_files)
        self._engine_files = engine_files

    def engine_writes(self, site_dir: Path, engine_files: frozenset[str]) -> None:
        """The site paths the engine writes, as it is about to write them (an adapter that called
        write_files before its engine knew every file: MkDocs' adapter, from on_files, so that
        the copies start while the pages' Markdown is read). One that became the engine's since
        (another plugin added it) is left to the engine: its file wins at the same path."""
        late = engine_files - self._engine_files
        ours = late & ({*self.files, *self.contents})
        if ours:
            self.publisher.leave_to_engine(ours, os.fspath(site_dir))

    def left_out(self) -> frozenset[str]:
        """The theme's files this site does not ship (site paths): the mentor's scripts when no
        page has the mentor. An adapter drops them from what its engine copies."""
        return frozenset() if self.mentor_wanted else frozenset(mentor.THEME_SCRIPTS)

    def own_folders(self) -> list[Path]:
        """Where the scripts and styles we write come from: served minified (pages/frontend.py)."""
        return [assets.OWN, THEME, *(kind.folder for kind in self.used.values())]

    def theme_files(self, ours: dict[str, Path], served_text) -> dict[str, Path]:
        """The engine's copies of our theme's scripts and styles, minified, and the one stylesheet
        (pages/frontend.py): site path -> the file to serve there. ``ours`` are the files the
        engine serves from our folders; ``served_text(path)`` is the text it serves at a path,
        None where it serves nothing (then the build's own file there, as write_files will)."""
        self.steps.take("theme_files")
        styles = [paths["style"] for paths in self.served.values() if "style" in paths]
        later = {math_font.CSS_SITE: math_font.stylesheet()} if self.math_font is not None else {}
        stylesheet = assets.stylesheet(self.engine.uses_math, self.engine.uses_theme, self.settings.math, styles)

        def text(path):
            served = served_text(path)
            if served is None and path in self.files:
                return self.files[path].read_text(encoding="utf-8")
            return served if served is not None else self.contents.get(path)

        return frontend.theme_files(ours, text, stylesheet, later, self.minifier)

    # -- the pages: builder/page_pipeline.py (self.pages, made by prepare) ------------------------

    def check_author_files(self, files: dict[str, Path]) -> None:
        """The author's own files the site publishes as they are (``files``: path under docs/ ->
        file): an SVG, HTML or XML file carrying a script stops the build, unless the site allows
        it by name (pages/author_files.py), and then the service worker serves it as its host does."""
        self.steps.take("check_author_files")
        self.scripted_files = author_files.check_files(files, lambda name: f"{self.engine.docs_dir.name}/{name}",
                                 set(self.settings.allow_inline_scripts), self.log)

    # -- the end ---------------------------------------------------------------------------------

    def finish(self, site_dir: Path) -> None:
        """Write what the pages drew (figures, the mentor's scripts, the math font cut to the
        characters typeset), save the caches, and swap the staged site into place."""
        self.steps.take("finish")
        try:
            self.publisher.settle()  # the copies write_files started
        except OSError as error:
            raise BuildError(disk.explain(error, "writing the site's files", site_dir)) from None
        self.views.save()
        self.views.close()
        self.template_caches.save()
        typeset = None
        if self.typesetter is not None:  # the mentor quotes formulas as the pages show them
            docs = self.engine.docs_dir.name

            def typeset(tex: str, display: bool) -> str:
                return self.typesetter.formula(tex, display, docs, str)
        try:
            scripts = self.pages.mentor.scripts(self.pages.quotes, typeset, self.axes(),
                                                self.typesetter.version if self.typesetter is not None else None,
                                                only=self.pages.mentor_pages, offers=self.offers)
        finally:
            if self.typesetter is not None:
                self.typesetter.save()
        try:
            written = {path: text if isinstance(text, bytes) else text.encode("utf-8")  # a mentor's vectors are bytes
                       for path, text in {**self.pages.figures, **scripts}.items()}
            if self.typesetter is not None and self.math_font is not None:
                written.update(self.math_font.files(self.typesetter.markup()))
            written.update(offline.app_files(self.engine.site_name, self.engine.site_description, self.memos["app"]))
            written.update(disk_search.files(site_dir, self.memos["search"]))  # the search plugins wrote their index before finish
            for site_path, data in sorted(written.items()):
                self.publisher.write(data, os.path.join(site_dir, site_path), site_path)
        except OSError as error:
            raise BuildError(disk.explain(error, "writing the fallbacks' figures", site_dir)) from None
        try:
            carried = self.publisher.place_unchanged(os.fspath(site_dir)) if self.staged else {}
        except OSError as error:
            raise BuildError(disk.explain(error, "linking the unchanged files", site_dir)) from None
        try:  # last: the listing is of the site as published (builder/offline.py)
            listed = offline.write(Path(site_dir), self.digests.sized, also=carried, serving=self.command == "serve",
                                   scripted=self.scripted_files)
        except OSError as error:
            raise BuildError(disk.explain(error, "writing the offline listing", site_dir)) from None
        hosts.check_before_swap(self, os.fspath(site_dir), {path: entry["bytes"] for path, entry in listed["files"].items()})
        for memo in self.memos.values():  # after the mentor's scripts: they read the quotes memo
            memo.save()
        self.minifier.commit()
        final = self.staged.final if self.staged else None
        try:
            self.publisher.swap(carried)
        except OSError as error:
            raise BuildError(disk.explain(error, "swapping the new site in", final)) from None
        self.digests.save()
        cache.finish_build(self.cache, self.settings.cache_keep_builds, self.cache_use, self.log)
        gc.unfreeze()

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
        if self.publisher is not None:
            self.publisher.cancel()  # nothing is written into the staging folder once it is gone
        staging = self.staged.staging if self.staged else None
        if self.staged:
            self.staged.discard()
            self.publisher.staged = None
        return staging

    def watched(self) -> list[Path]:
        """The folders a development server watches for the build (those that exist): the
        corpora, the site's kinds and packages, and the generator's own templates, scripts and kinds."""
        from scalecore_generator.blocks.base import SHARED_TEMPLATES

        settings = self.settings
        folders = [self.root / settings.corpora_dir, self.root / settings.kinds_dir, *getattr(self, "packages", ()),
                   registry.BUILT_IN, SHARED_TEMPLATES, assets.OWN.resolve(), THEME]
        return [folder for folder in dict.fromkeys(folders) if folder.is_dir()]

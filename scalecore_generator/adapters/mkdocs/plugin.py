"""The Scalecore MkDocs plugin: hooks only. The work lives in the modules they call.

    on_startup     which command runs (only ``build`` stages the site)
    on_config      load and check the corpora and the kinds; stage the site folder
    on_pre_build   learn embeddings, bake the grid of every kind the pages use, build the wheels
    on_files       add every baked and runtime file to the site
    on_page_markdown  expand the authors' panel blocks
    on_post_build  swap the staged site into place
    on_serve       watch what the plugin reads (corpora, kinds, its templates) for rebuilds
"""

import difflib
import functools
import hashlib
import json
import logging
import os
import posixpath
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote

from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.utils import get_relative_url

import scalecore
from scalecore_generator.pages import assets, author_scripts, csp, formulas, frontend, math_font, offscreen, sources, views
from scalecore_generator.build import bake, cache, disk
from scalecore_generator import mentor, vendor
from scalecore_generator.adapters.mkdocs import features
from scalecore_generator.kinds import registry, site_kinds
from scalecore_generator.runtime import pyodide as runtime
from scalecore_generator.build.cache import forget_templates, save_templates, template_cache
from scalecore_generator.pages.quotes import LazyNamespace, QuoteError, expand_quotes
from scalecore_generator.blocks.base import use_template_cache
from scalecore_generator.adapters.mkdocs.config import ScalecoreConfig, kind_settings_reference, missing_nav_pages, nav_line, reference
from scalecore_generator.pages.generated import GeneratedError, corpora_table, expand_generated
from scalecore_generator.build.corpora import load_for_build
from scalecore_generator.kinds.kind import Site
from scalecore_generator.pages.module_meta import check_callouts, check_module_meta, check_neighbours, check_section_meta
from scalecore_generator.build.manifest import MANIFEST, MANIFEST_SCRIPT, PAGE_MANIFEST, PAGE_MANIFEST_SCRIPT, build_manifest, \
    for_pages
from scalecore_generator.runtime import snapshot
from scalecore_generator.build.site_swap import StagedSite, WarningCounter
from scalecore_generator.build.node import NodeError
from scalecore.corpus import SHIPPED, CorpusError
from scalecore.embeddings import cached_embeddings, table_path
from scalecore.experiment import sentence_tokens

log = get_plugin_logger("scalecore")


class ScalecorePlugin(BasePlugin[ScalecoreConfig]):
    supports_multiple_instances = False

    def __init__(self):
        self.command = None
        self.serve_nonce = None
        self.staged = None
        self.warnings = WarningCounter()
        self.stashes = {}  # page -> its panels while Python-Markdown converts it (blocks/stash.py)

    def on_startup(self, *, command, dirty):
        self.command = command
        # mkdocs serve adds a live-reload script to every page it serves: the pages' policy
        # allows it by this nonce, in serve builds only (csp.add; on_serve marks the script).
        self.serve_nonce = secrets.token_urlsafe(18) if command == "serve" else None

    def on_config(self, config):
        if not self.config.enabled:
            return
        try:
            return self._configure(config)
        except OSError as error:
            raise PluginError(disk.explain(error, "preparing the build")) from None

    def _configure(self, config):
        self.root = Path(config.config_file_path or ".").resolve().parent
        self.option_lines = {key: self.config.where(key) for key in ("corpora", "seeds", "kinds")}
        self.cache = self.root / self.config.cache_dir
        cache.forget_hashes()  # a file this build hashes is hashed again, never taken from a build before
        _default_source_date_epoch(self.root)
        try:
            sources.check(Path(config.docs_dir), log)
        except sources.SourceError as error:
            raise PluginError(f"scalecore: {error}") from None
        self.packages = [(self.root / folder).resolve() for folder in self.config.packages]
        for package in self.packages:
            if not (package / "__init__.py").is_file():
                raise PluginError(f"scalecore: {self.config.where('packages')}: {package} is not a Python package "
                                  "(no __init__.py). Fix: list the folder of the package your kinds compute with.")
            if str(package.parent) not in sys.path:
                sys.path.insert(0, str(package.parent))
        try:
            self.kinds = registry.discover(self.root / self.config.kinds_dir)
            self.kind_settings = site_kinds.settings(self.kinds, self.config.kinds, self.config.where)
        except (registry.KindError, ValueError) as error:
            raise PluginError(f"scalecore: {error}") from None
        self._used_by_pages = site_kinds.usage(Path(config.docs_dir), self.kinds)  # one pass per build
        try:
            self.corpora = load_for_build(self.root / self.config.corpora_dir, self.config.corpora, self.cache, log) \
                if self._needs("corpora") else {}
            self.tokens = sentence_tokens(self.config.sentence)
        except (CorpusError, ValueError) as error:
            raise PluginError(f"scalecore: {error}") from None
        self._warn_about_outside_corpora()
        try:
            added = features.configure(config, THEME, functools.partial(_key_line, config.config_file_path))
        except features.FeatureError as error:
            raise PluginError(f"scalecore: {error}") from None
        if added:
            log.info(f"configured for its features: {'; '.join(added)} (see the guide 'Plugin options')")
        assets.register(config, self.root, math=self.config.math, isolation=self.config.live)
        self.typesetter = formulas.Typesetter(self.config.math, self.cache / "math.json", log) \
            if assets.uses_math(config) else None
        self.math_font = math_font.MathFont(self.cache / "math-font") if self.config.math == "mathml" else None
        try:
            self.minifier = frontend.Minifier(self.cache / "frontend")
        except frontend.FrontendError as error:
            raise PluginError(f"scalecore: {error}") from None
        use_template_cache(self.cache / "templates")
        views.use_cache(self.cache / "views.json", log)
        self.memos = _memos(self.cache / "memo", log)
        if self.command == "build" and not self.staged:
            self.staged = StagedSite(config.site_dir)
            config.site_dir = self.staged.begin()
            logging.getLogger("mkdocs").addHandler(self.warnings)
        return config

    def on_pre_build(self, config):
        if not self.config.enabled:
            return
        self.cache_use = cache.SharedUse(self.cache)  # a prune elsewhere waits while this build runs
        self.cache_use.acquire()
        try:
            self._prepare(config)
        except OSError as error:
            raise PluginError(disk.explain(error, "writing the cache", self.cache)) from None
        if self.staged:
            try:
                disk.check_room(self.staged.staging, self._site_bytes())
            except OSError as error:
                raise PluginError(disk.explain(error, "staging the new site", self.staged.staging)) from None

    def _site_bytes(self) -> int:
        """What the staged site will take: as much as the published one, or at least our files."""
        ours = sum(path.stat().st_size for path in self.files.values())
        return max(disk.folder_bytes(self.staged.final), ours + sum(len(t.encode()) for t in self.contents.values()))

    def _prepare(self, config):
        def damaged(message):
            log.info(f"cache: {message}")

        snapshot_job = self._start_snapshot(config)  # made in Chromium while the bake runs

        settings = (self.config.d_model, self.cache, self.config.recipe, self.config.vocabulary_size)
        bake.learn_tables([(corpus, *settings) for corpus in self.corpora.values()
                           if not table_path(corpus, *settings).exists()], self.config.workers or os.cpu_count() or 1)
        self.tables = {name: cached_embeddings(corpus, *settings, on_damage=damaged)
                       for name, corpus in self.corpora.items()}
        self._check_shared_sentence()
        self.tables_files = self._embedding_tables()
        self.files = self._bake(config)
        self.files.update(self.tables_files)
        self.files.update(assets.collect(self.root, assets.uses_math(config) and self.config.math == "html"))
        live = self.early_runtime or (runtime.collect(self.root, self.cache, self.packages, self.config.package_mirror or None)
                                      if self.config.live else runtime.Runtime({}, {}))
        self.files.update(mentor.assets(vendor.NODE_MODULES))
        self.mentor_model = self._mentor_model() if self.config.mentor_model else None
        if snapshot_job is not None:
            self._snapshot(live, snapshot_job)
        self.files.update(live.files)
        try:  # before the manifest: it gives the sha256 of what is served
            self.files.update(frontend.minified(self.files, self._own_folders(), self.minifier))
        except frontend.FrontendError as error:
            raise PluginError(f"scalecore: {error}") from None
        self.figures = {}  # drawn while the pages render (Panel.figure), written with the site
        self.stashes = {}
        self.mentor = mentor.Collector(self.memos["mentor"])  # every page's passages, for the module pages' mentor
        self.quotes = self._quote_tree()
        self.manifest = self._manifest(live)
        pages_manifest = for_pages(self.manifest)
        self.contents = {
            MANIFEST: json.dumps(self.manifest, separators=(",", ":"), ensure_ascii=False) + "\n",
            MANIFEST_SCRIPT: bake.data_script("manifest", self.manifest),
            PAGE_MANIFEST: json.dumps(pages_manifest, separators=(",", ":"), ensure_ascii=False) + "\n",
            PAGE_MANIFEST_SCRIPT: bake.data_script("manifest", pages_manifest),
        }

    def _start_snapshot(self, config):
        """Pyodide's memory snapshot (scalecore_generator/runtime/snapshot.py), started in a thread before the bake
        (it waits on Chromium in another process): the site's wheels, and the module of every
        compute function of the kinds the pages use (those the manifest will list) imported.
        None when the site ships none."""
        self.early_runtime = None
        if not (self.config.live and self.config.live_snapshot):
            return None
        import concurrent.futures

        used_at, quoted = self._usage(config)
        computes = sorted({self.kinds[name].compute for name in set(used_at) | quoted
                           if name in self.kinds and getattr(self.kinds[name], "compute", None)})
        live = self.early_runtime = runtime.collect(self.root, self.cache, self.packages,
                                                    self.config.package_mirror or None)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="scalecore-snapshot")
        job = pool.submit(snapshot.make, runtime.pyodide_folder(self.root), live.wheels(),
                          snapshot.compute_modules(computes), self.cache, log,
                          cached_only=self.command == "serve")
        pool.shutdown(wait=False)
        return job

    def _snapshot(self, live: "runtime.Runtime", job) -> None:
        """The snapshot's entry in the runtime; without it the worker loads Python normally."""
        try:
            made = job.result()
        except snapshot.SnapshotError as error:
            say = log.info if isinstance(error, snapshot.SnapshotUnavailable) else log.warning
            say(f"live: no memory snapshot ({error}); live mode will start Python the normal way. "
                "To build without trying, set 'live_snapshot: false' for the scalecore plugin.")
            return
        live.files[snapshot.SITE_PATH] = made.path
        live.manifest[snapshot.MANIFEST_KEY] = snapshot.SITE_PATH
        live.details[snapshot.MANIFEST_KEY] = {"key": made.key, "imports": list(made.imports), "bytes": made.raw_bytes}

    def _needs(self, need: str) -> bool:
        """A kind the pages use or quote needs ``need`` (Kind.needs): only then does the site pay
        for it (corpora: loading them and learning their embedding tables)."""
        used_at, quoted = self._used_by_pages
        return any(need in self.kinds[name].needs for name in set(used_at) | set(quoted) if name in self.kinds)

    def _usage(self, config):
        """Which kinds the pages use and quote (site_kinds.usage, read in on_config): one pass over
        the sources per build, for the corpora, the snapshot and the bake alike."""
        used_at, quoted = self._used_by_pages
        return dict(used_at), set(quoted)

    def _site(self, name: str | None = None) -> Site:
        return Site(
            corpora=tuple(self.corpora), titles={n: c.title for n, c in self.corpora.items()},
            seeds=tuple(self.config.seeds),
            settings=dict(d_model=self.config.d_model, d_k=self.config.d_k, sentence=self.config.sentence,
                          tokens=tuple(self.tokens), vocabulary_size=self.config.vocabulary_size,
                          recipe=self.config.recipe),
            options=self.kind_settings.get(name, {}) if name else {},
            where=self.option_lines,
        )

    def _bake(self, config) -> dict[str, Path]:
        """Every kind the pages use or quote, from the cache or baked now: site path -> file."""
        self.used_at, quoted = self._usage(config)
        self.used = {name: self.kinds[name] for name in sorted(set(self.used_at) | quoted)}
        sites = {name: self._site(name) for name in self.used}
        workers = self.config.workers or os.cpu_count() or 1
        budget = bake.Budget(self.config.bake_budget_points, self.config.bake_budget_megabytes)
        started = time.monotonic()
        try:
            self.baked = bake.bake_kinds(self.used, sites, self.tables_files, self.cache, workers, budget,
                                         self.used_at, log, imports=self.memos["imports"])
        except (bake.BakeError, registry.KindError) as error:
            raise PluginError(f"scalecore: {error}") from None
        computed = sum(b.computed for b in self.baked.values())
        log.info(f"bake: {sum(b.grid.size for b in self.baked.values())} points ready in "
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

    def _embedding_tables(self) -> dict[str, Path]:
        """Each corpus's table in its compact form: what the bake and live mode read."""
        files = {}
        for name, table in self.tables.items():
            path = self.cache / "site" / f"{bake.EMBEDDINGS}/{name}.json"
            _write_if_changed(path, bake.dumps(table.to_json()))
            files[f"{bake.EMBEDDINGS}/{name}.json"] = path
        return files

    def _manifest(self, live: "runtime.Runtime") -> dict:
        return build_manifest(
            version=scalecore.__version__,
            settings=dict(d_model=self.config.d_model, d_k=self.config.d_k, recipe=self.config.recipe,
                          vocabulary_size=self.config.vocabulary_size),
            sentence=self.config.sentence, tokens=self.tokens, seeds=self.config.seeds,
            corpora={name: {"title": c.title, "counts": c.counts(), "embeddings": f"{bake.EMBEDDINGS}/{name}.json"}
                     for name, c in self.corpora.items()},
            files=self.files, runtime=live.manifest, runtime_details=live.details,
            kinds={name: (kind, self.baked.get(name), self.served[name]) for name, kind in self.used.items()},
        )

    def read_baked(self, site_path: str):
        return json.loads(self.files[site_path].read_text(encoding="utf-8"))

    def _quote_tree(self):
        """What ``{{ baked: }}`` quotes and the mentor's facts read: each kind's quote tree, made
        (from every baked point of the kind) only if a value is not in the memo under the kind's
        key, which hashes its cache entries (content-addressed: code, parameters, inputs) and
        its view of the site."""
        def tree(name, baked):
            results = {path: self.read_baked(point["json"]) for path, point in baked.points.items()}
            return self.used[name]().quotes(results, baked.grid, self._site(name))

        def key(name, baked):  # not the site's ``where`` (lines of mkdocs.yml, for messages only)
            entries = sorted(target.name for target in baked.entries.values())
            site = self._site(name)
            seen = (site.corpora, site.titles, site.seeds, site.settings, site.options)
            return hashlib.sha256(repr((name, entries, seen)).encode()).hexdigest()

        kinds = {name: (key(name, baked), functools.partial(tree, name, baked)) for name, baked in self.baked.items()}
        return LazyNamespace(kinds, {name: c.counts() for name, c in self.corpora.items()},
                             settings=dict(d_model=self.config.d_model, d_k=self.config.d_k,
                                           sqrt_d_k=self.config.d_k ** 0.5, vocabulary_size=self.config.vocabulary_size,
                                           tokens=len(self.tokens), seeds=len(self.config.seeds)),
                             memo=self.memos["quotes"])

    def _check_shared_sentence(self):
        missing = {name: table.unknown_words(self.tokens) for name, table in self.tables.items()}
        missing = {name: words for name, words in missing.items() if words}
        if missing:
            where = "; ".join(f"{name} lacks {', '.join(words)}" for name, words in missing.items())
            raise PluginError(
                f"scalecore: {self.config.where('sentence')}: the shared sentence {self.config.sentence!r} must "
                f"use only words in every corpus's top {self.config.vocabulary_size} vocabulary: {where}. "
                f"Fix: choose other words (option 'sentence') or raise 'vocabulary_size'."
            )

    @event_priority(-100)  # after plugins that add pages: the nav may name those
    def on_files(self, files, config):
        self.site_files, self.neighbours_checked = files, False
        if not self.config.enabled:
            return
        self._check_nav(files, config)
        for site_path, source in sorted(self.files.items()):
            kind = _EntryFile if cache.in_checked_entry(source) else File  # baked files, the snapshot
            files.append(kind.generated(config, site_path, abs_src_path=str(source), inclusion=InclusionLevel.NOT_IN_NAV))
        for site_path, text in sorted(self.contents.items()):
            files.append(File.generated(config, site_path, content=text, inclusion=InclusionLevel.NOT_IN_NAV))
        self._serve_minified(files, config)
        return files

    def _own_folders(self) -> list[Path]:
        """Where the scripts and styles we write come from: served minified (scalecore_generator/pages/frontend.py)."""
        return [assets.OWN, THEME, *(kind.folder for kind in self.used.values())]

    def _serve_minified(self, files, config):
        """Our scripts and styles minified, the styles in one stylesheet (scalecore_generator/pages/frontend.py)."""
        styles = [paths["style"] for paths in self.served.values() if "style" in paths]
        later = {math_font.CSS_SITE: math_font.stylesheet()} if self.math_font is not None else {}
        try:
            frontend.serve(files, config, self._own_folders(), assets.stylesheet(config, self.config.math, styles),
                           later, self.minifier)
        except (frontend.FrontendError, ValueError, OSError) as error:
            raise PluginError(f"scalecore: {error}") from None

    def _check_nav(self, files, config):
        """A nav entry naming a page that is not in docs/ stops the build with its line in
        mkdocs.yml (MkDocs itself only warns, and publishes a link that leads nowhere)."""
        pages = sorted(f.src_uri for f in files.documentation_pages())
        missing = missing_nav_pages(config.nav, pages)
        if not missing:
            return
        target = missing[0]
        source = config.config_file_path or "mkdocs.yml"
        line = nav_line(source, target)
        close = difflib.get_close_matches(target, pages, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        docs = Path(config.docs_dir).name
        listed = f" (the pages are: {', '.join(pages)})" if not close and len(pages) <= 20 else ""
        raise PluginError(f"scalecore: {source}:{line or 1}: the nav entry {target!r} is not a page in {docs}/. "
                          f"Fix: {hint}{'W' if hint else 'w'}rite the path of a page relative to {docs}/{listed}, or "
                          "add that page.")

    def _mentor_model(self) -> dict:
        """The local model and wllama, served by the site (option mentor_model): what the page
        needs to offer it, with its size stated before any download."""
        try:
            files = mentor.model_assets(vendor.NODE_MODULES, self.cache, log)
        except mentor.ModelError as error:
            raise PluginError(f"scalecore: {self.config.where('mentor_model')}: {error}") from None
        self.files.update(files)
        return {"url": mentor.MODEL_SITE, "bytes": files[mentor.MODEL_SITE].stat().st_size,
                "wllama": f"{mentor.WLLAMA_SITE}/index.js", "wasm": f"{mentor.WLLAMA_SITE}/wllama.wasm"}

    @event_priority(50)  # as on_page_markdown: other plugins get the panels, never their slots
    def _restore_panels(self, html, page, config, files):
        """Each panel's HTML back in the place of its slot (scalecore_generator/blocks/stash.py),
        once the author's own HTML is checked for inline scripts (pages/author_scripts.py)."""
        if self.config.enabled and "<script" in html.lower():
            source = Path(page.file.abs_src_path).read_text(encoding="utf-8-sig") if page.file.abs_src_path else ""
            try:
                author_scripts.check_content(html, f"{Path(config.docs_dir).name}/{page.file.src_uri}", source,
                                             page.file.src_uri in self.config.allow_inline_scripts, log)
            except author_scripts.AuthorScriptError as error:
                raise PluginError(f"scalecore: {error}") from None
        stash = self.stashes.pop(page.file.src_uri, None)
        return stash.restore(html) if stash is not None else html

    def _read_content(self, html, page, config, files):
        """The mentor's passages come from the rendered content, panels expanded, before the
        theme wraps it (and before KaTeX: a passage keeps its formula as readable text). Then the
        runs between headings become boxes the browser skips off screen (scalecore_generator/pages/offscreen.py)."""
        if self.config.enabled:
            self.mentor.read(html, page.file.dest_uri, page.title, page.meta)
            html = offscreen.wrap(html)
        return html

    on_page_content = CombinedEvent(_restore_panels, _read_content)

    @event_priority(100)  # every page is read by now, before any is rendered with the theme
    def on_page_context(self, context, page, config, nav):
        if self.config.enabled and not self.neighbours_checked:
            self.neighbours_checked = True
            self._check_neighbours(config)
        if self.config.enabled and page.meta.get("code"):
            context["scalecore_mentor"] = mentor.script_path(page.file.dest_uri)
            context["scalecore_mentor_model"] = self.mentor_model
        return context

    def _check_neighbours(self, config):
        """Every prerequisite and next title of a module page names a page (or is external)."""
        pages = [file.page for file in self.site_files.documentation_pages() if file.page is not None]
        modules, titles = {}, {}
        for other in pages:
            where = f"{Path(config.docs_dir).name}/{other.file.src_uri}"
            titles[where] = [str(t) for t in (other.meta.get("title"), other.title) if t]
            if other.meta and "code" in other.meta:
                source = Path(other.file.abs_src_path).read_text(encoding="utf-8-sig") if other.file.abs_src_path else ""
                modules[where] = (other.meta, source)
        try:
            check_neighbours(modules, titles)
        except ValueError as error:
            raise PluginError(f"scalecore: {error}") from None

    def on_serve(self, server, config, builder):
        """``mkdocs serve`` rebuilds when what the plugin reads changes, not only docs/ and
        mkdocs.yml: the corpora, the site's kinds and packages, and the plugin's own templates,
        scripts and kinds."""
        if self.config.enabled:
            for path in self.watched():
                server.watch(str(path))
            _mark_reload_script(server, self.serve_nonce)
        return server

    def watched(self) -> list[Path]:
        """The folders ``mkdocs serve`` watches for the plugin (those that exist)."""
        from scalecore_generator.blocks.base import SHARED_TEMPLATES

        folders = [self.root / self.config.corpora_dir, self.root / self.config.kinds_dir, *self.packages,
                   registry.BUILT_IN, SHARED_TEMPLATES, assets.OWN.resolve(), THEME]
        return [folder for folder in dict.fromkeys(folders) if folder.is_dir()]

    def on_env(self, env, config, files):
        """Keep the theme's compiled templates in the cache: a warm rebuild skips compiling
        Material's templates again (a third of a plain build's time here)."""
        if self.config.enabled:
            env.bytecode_cache = template_cache(self.cache / "templates")
        return env

    @event_priority(50)  # before other plugins see the markdown: they get plain HTML blocks
    def on_page_markdown(self, markdown, page, config, files):
        if not self.config.enabled:
            return
        return self._expand(markdown, page, config, files)

    def _expand(self, markdown, page, config, files):
        if "title" in page.meta:  # text, wherever the theme writes it (pages/author_scripts.py)
            page.meta["title"] = author_scripts.text_title(page.meta["title"])
        from scalecore_generator.blocks import BlockError, PageContext, Stash, expand_blocks

        source = Path(page.file.abs_src_path).read_text(encoding="utf-8-sig") if page.file.abs_src_path else ""
        offset = source[: len(source) - len(markdown)].count("\n") if source.endswith(markdown) else 0
        where = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
        try:
            check_module_meta(page.meta, where, source)
            check_section_meta(page.meta, where, source)
            check_callouts(markdown, where, offset)
        except ValueError as error:
            raise PluginError(f"scalecore: {error}") from None
        context = PageContext(
            page=where, site_root="../" * page.url.count("/") or "./", kinds=self.kinds,
            sites={name: self._site(name) for name in self.kinds},
            read_baked=self.read_baked, line_offset=offset, markdown_extensions=config.markdown_extensions,
            markdown_config=config.mdx_configs,
            scripts={name: self.served.get(name, {}) for name in self.kinds},
            figures=self.figures,
            resolve_link=functools.partial(_page_link, files, page.file),
            pages=self._page_paths(files),
        )
        tables = {"options": reference, "kind-settings": lambda: kind_settings_reference(self.kinds),
                  "corpora": lambda: corpora_table(self.manifest["corpora"])}
        try:
            expand_generated(markdown, tables, where, offset)  # its mistakes, with their lines
            markdown = expand_quotes(markdown, self.quotes, where, offset)
            stash = self.stashes[page.file.src_uri] = Stash()
            markdown = expand_blocks(markdown, context, keep=stash.keep)
            return expand_generated(markdown, tables, where, check=False)  # tables add lines: last
        except (BlockError, QuoteError, GeneratedError) as error:
            raise PluginError(f"scalecore: {error}") from None

    def _page_paths(self, files) -> tuple[str, ...]:
        """Every page's path (for the hints of a link to a missing page), listed once per build:
        the files are complete once every plugin's on_files has run, before the first page."""
        known = getattr(self, "_pages", None)
        if known is None or known[0] is not files or known[1] != len(files):
            known = self._pages = (files, len(files), tuple(sorted(f.src_uri for f in files.documentation_pages())))
        return known[2]

    def on_post_page(self, html, page, config):
        """Typeset the page's math, so that no math script runs in the reader's browser, then give
        the finished page its Content-Security-Policy (scalecore_generator/pages/csp.py). Math is done on the
        finished page: the search index keeps the formulas' TeX (what a reader types), not KaTeX's
        markup, and indexing stays as fast as for a page without math."""
        if not self.config.enabled:
            return html
        if self.typesetter is not None and "arithmatex" in html:
            def source() -> str:  # read only to name the line of a formula KaTeX refuses
                return Path(page.file.abs_src_path).read_text(encoding="utf-8-sig") if page.file.abs_src_path else ""

            try:
                html = self.typesetter.page(html, f"{Path(config.docs_dir).name}/{page.file.src_uri}", source)
            except (formulas.MathError, NodeError) as error:
                raise PluginError(f"scalecore: {error}") from None
        if self.math_font is not None and "<math" in html:
            html = math_font.preloaded(html, get_relative_url(math_font.FONT_SITE, page.url), offscreen.first_screen(html))
        return csp.add(html, csp.origin_of(self.config.package_mirror), self.serve_nonce)

    def on_post_template(self, output_content, template_name, config):
        """The theme's own pages (404.html) get the same policy as every other page."""
        if not self.config.enabled or not template_name.endswith(".html"):
            return output_content
        return csp.add(output_content, csp.origin_of(self.config.package_mirror), self.serve_nonce)

    def on_post_build(self, config):
        if config.strict and self.warnings.count:
            forget_templates()
            return  # MkDocs aborts this build: the site and the cache stay as they were
        views.save_cache()
        save_templates()
        if self.typesetter is not None:
            self.typesetter.save()
        try:
            written = {path: text.encode("utf-8") for path, text in
                       {**self.figures, **self.mentor.scripts(self.quotes)}.items()}
            if self.typesetter is not None and self.math_font is not None:
                written.update(self.math_font.files(self.typesetter.markup()))
            for site_path, data in sorted(written.items()):
                target = Path(config.site_dir) / site_path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        except OSError as error:
            raise PluginError(disk.explain(error, "writing the fallbacks' figures", config.site_dir)) from None
        for memo in self.memos.values():  # after the mentor's scripts: they read the quotes memo
            memo.save()
        self.minifier.commit()
        if self.staged:
            self.staged.commit()
            self.staged = None
        cache.finish_build(self.cache, self.config.cache_keep_builds, getattr(self, "cache_use", None), log)

    def on_build_error(self, error):
        forget_templates()
        if getattr(self, "minifier", None) is not None:
            self.minifier.discard()
        if getattr(self, "cache_use", None) is not None:
            self.cache_use.release()
        staging = self.staged.staging if self.staged else None
        if self.staged:
            self.staged.discard()
            self.staged = None
        if isinstance(error, OSError):  # MkDocs' own writes (pages, theme files) into the staging folder
            log.error(disk.explain(error, "writing the site", staging).removeprefix("scalecore: "))
            raise Abort("Aborted with a disk error.")

    def _warn_about_outside_corpora(self):
        """A corpus folder (or its text) that links outside the site's folder and corpora_dir is
        baked and published like any other: say where it really comes from."""
        inside = [self.root.resolve(), (self.root / self.config.corpora_dir).resolve(), SHIPPED.resolve()]
        for name, corpus in self.corpora.items():
            folder = Path(corpus.path)
            for path in (folder, folder / "text.txt", folder / "corpus.toml"):
                target = path.resolve()
                if path.is_symlink() or path == folder:
                    if not any(target == top or top in target.parents for top in inside):
                        log.warning(f"the corpus {name!r} ({path}) links to {target}, outside "
                                    f"{self.root}: that text is baked and published with this site. If that is "
                                    "not meant, copy the corpus into corpora_dir instead of linking it.")
                        break

    def on_shutdown(self):
        if getattr(self, "minifier", None) is not None:
            self.minifier.discard()  # a build that did not finish keeps no new result
        if self.staged:  # strict-mode abort after on_post_build: keep the previous site
            self.staged.discard()
            self.staged = None
        logging.getLogger("mkdocs").removeHandler(self.warnings)


class _EntryFile(File):
    """A file of a cache entry (a baked file, the memory snapshot), given to the site as a file
    of its own: a clone where the file system can share blocks copy-on-write (btrfs, XFS, APFS
    through the kernel's FICLONE), a plain copy elsewhere. Never a hard link: the published site
    and the cache must not share a byte, or a change to one (a byte flipped in the cache, an
    edit under site/) would change the other at once, without a build or its checks."""

    def copy_file(self, dirty: bool = False) -> None:
        if dirty and not self.is_modified():
            return
        clone_or_copy(Path(self.abs_src_path), Path(self.abs_dest_path))


_CLONES = {"work": True}  # FICLONE worked, or has not been tried, on this machine's file system


def clone_or_copy(source: Path, target: Path) -> None:
    """``target`` as a file of its own with ``source``'s bytes (see _EntryFile). The clone is
    tried until the file system refuses it once; then every file is copied with shutil.copyfile
    (the kernel's sendfile: 0.2 ms a file here, about twice a link's cost in all)."""
    try:
        target.unlink()
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
    if _CLONES["work"]:
        try:
            import fcntl

            with open(source, "rb") as given, open(target, "wb") as made:
                fcntl.ioctl(made.fileno(), 0x40049409, given.fileno())  # FICLONE: share blocks, copy-on-write
            return
        except (ImportError, OSError):
            _CLONES["work"] = False
    shutil.copyfile(source, target)


def _memos(folder: Path, log) -> dict[str, cache.Memo]:
    """What a warm build need not derive again (scalecore_generator.build.cache.Memo), each versioned by the
    code that derives it: the modules each source imports (the bake's keys), each page's mentor
    passages, and the values pages quote with the mentor's facts."""
    from scalecore_generator.pages import quotes

    def version(*modules):
        return hashlib.sha256(b"".join(Path(m.__file__).read_bytes() for m in modules)).hexdigest()

    return {"imports": cache.Memo(folder / "imports.json", log, version(bake)),
            "mentor": cache.Memo(folder / "mentor.json", log, version(mentor)),
            "quotes": cache.Memo(folder / "quotes.json", log, version(quotes, mentor))}


def _default_source_date_epoch(root: Path) -> None:
    """Builds of the same sources are byte-identical: without SOURCE_DATE_EPOCH, MkDocs stamps
    the build time (sitemap dates, gzip headers), so we default it to the last commit's time."""
    if "SOURCE_DATE_EPOCH" in os.environ:
        return
    try:
        stamp = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True,
                               text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        stamp = ""
    os.environ["SOURCE_DATE_EPOCH"] = stamp if stamp.isdigit() else "315532800"  # else 1980-01-01


THEME = assets.THEME.resolve()  # the module pages' templates (theme.custom_dir)


def _page_link(files, here, target: str) -> str | None:
    """A link from the page ``here`` to a .md file, as MkDocs writes it in a page's own markdown:
    the URL of that page relative to ``here`` (so it follows use_directory_urls); None when the
    file is no page of the site."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(here.src_uri), unquote(target)))
    found = files.get_file_from_path(path)
    if found is None or not found.is_documentation_page():
        return None
    return found.url_relative_to(here)


def _write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    from scalecore.embeddings import write_atomically

    write_atomically(path, text)


def _key_line(config_file: str | None, key: str) -> str:
    """``mkdocs.yml:line`` of a top-level key (the file alone when the site does not set it)."""
    source = config_file or "mkdocs.yml"
    try:
        lines = Path(source).read_text(encoding="utf-8-sig").splitlines()
    except OSError:
        return source
    found = next((number for number, line in enumerate(lines, 1) if re.match(rf"{re.escape(key)}\s*:", line)), None)
    return f"{source}:{found}" if found else source


def _mark_reload_script(server, nonce: str | None) -> None:
    """The development server's live-reload script, added to each page it serves, carries the
    serve build's nonce, which the pages' policy allows: an author sees every edit without the
    policy being loosened for anything else. (MkDocs has no hook for it: its method is wrapped.)"""
    inject = getattr(server, "_inject_js_into_html", None)
    if nonce is None or inject is None or getattr(inject, "scalecore_nonce", None) == nonce:
        return

    def marked(content, epoch):
        injected = inject(content, epoch)
        at = content.rfind(b"</body>")  # where MkDocs puts its script: before </body>, else at the end
        at = len(content) if at < 0 else at
        opening = b"<script>"
        if injected[at:at + len(opening)] == opening:
            injected = injected[:at] + f'<script nonce="{nonce}">'.encode() + injected[at + len(opening):]
        return injected

    marked.scalecore_nonce = nonce
    server._inject_js_into_html = marked

"""The Scalecore MkDocs plugin: MkDocs' hooks, each a few lines that call the engine-free build
(builder/site_build.py). What is MkDocs' own stays in the adapter: its configuration, pages, files,
nav and dev server as the build needs them (site.py), and its error, raised once at the edge
(``_edge``) from the build's ``ScalecoreError``.

    on_startup     which command runs (only ``build`` stages the site)
    on_config      the features' configuration; the build reads its kinds and corpora, stages the site
    on_pre_build   the build's bake, runtime and manifest
    on_files       the author's own files checked for scripts; our theme's files minified
    on_env         the templates' cache; every baked and runtime file written (not MkDocs' files)
    on_pre_page    the page's conversion taken from the cache when nothing it is made from changed
    on_page_markdown, on_page_content   the authors' blocks out and the panels in (their
                   fallbacks held back from the search plugins...
    on_page_context   ...until they have indexed the page); every page's neighbours checked
    on_post_page   the page's scripts checked; its math, font preload and policy
    on_post_build  the staged site swapped into place
    on_serve       what the dev server watches besides docs/
"""

import functools
import logging
import secrets
import sys
from pathlib import Path

from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File

from scalecore_generator.adapters.mkdocs import error_page, features, site
from scalecore_generator.adapters.mkdocs.converted_pages import ConvertedPages
from scalecore_generator.adapters.mkdocs.config import ScalecoreConfig, kind_settings_reference, reference
from scalecore_generator.adapters.mkdocs.last_good import LastGoodSite
from scalecore_generator.foundation import disk, said
from scalecore_generator.builder.engine_site import THEME
from scalecore_generator.builder.site_build import SiteBuild
from scalecore_generator.builder.site_swap import WarningCounter
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.pages import assets, frontend

log = get_plugin_logger("scalecore")


def _edge(hook):
    """The one place a build's mistake becomes MkDocs' error: its message (file, line, fix), no
    traceback; a disk error while configuring is explained the same way."""

    @functools.wraps(hook)
    def at_the_edge(self, *args, **kwargs):
        if not self.config.enabled:
            return args[0] if args and hook.__name__ not in ("_configure", "on_pre_build") else None
        try:
            return hook(self, *args, **kwargs)
        except ScalecoreError as error:
            if kwargs.get("page") is not None:  # our message names the page: MkDocs' own line would dangle
                self.page_errors.pages.add(kwargs["page"].file.src_uri)
            raise PluginError(error.engine_message()) from None
        except OSError as error:
            if hook.__name__ != "_configure":
                raise
            raise PluginError(disk.explain(error, "preparing the build")) from None

    return at_the_edge


class ScalecorePlugin(BasePlugin[ScalecoreConfig]):
    supports_multiple_instances = False

    def __init__(self):
        self.command = None
        self.serve_nonce = None
        self.server = None  # mkdocs serve's server (on_serve)
        self.watched: set[str] = set()  # the files outside docs/ the server watches for the pages that read them
        self.serve_failure = None  # under mkdocs serve: the last rebuild's error, shown on every page served
        self.failure_seen = False  # on_build_error saw this rebuild fail (else it failed before the hooks)
        self.build = None
        self.converted = None  # this build's pages' conversions, kept and taken (converted_pages.py)
        self.last_good = None  # under mkdocs serve: the last site that built, while a rebuild runs
        self.warnings = WarningCounter()
        self.page_errors = site.put_on("mkdocs.commands.build", site.PageErrorEcho())

    def load_config(self, options, config_file_path=None):
        """MkDocs' own settings' messages get their mkdocs.yml line too (site.ConfigMessageLines):
        this is where the plugin first learns which file the site's configuration is."""
        site.put_on("mkdocs.config", site.ConfigMessageLines(config_file_path))
        return super().load_config(options, config_file_path)

    def on_startup(self, *, command, dirty):
        self.command = command
        # Every warning from here on is counted (a strict build that warned is never swapped in:
        # on_post_build), those logged while the plugin configures the build too.
        # Not the dev server's own (mkdocs.livereload: '"GET /favicon.ico" code 404' between two
        # builds): counted, they made the next build of mkdocs serve a strict build that warned,
        # which was then not put in place.
        self.warnings.addFilter(lambda record: not record.name.startswith("mkdocs.livereload"))
        logging.getLogger("mkdocs").addHandler(self.warnings)
        # mkdocs serve adds a live-reload script to every page it serves: the pages' policy
        # allows it by this nonce, in serve builds only (csp.add; on_serve marks the script).
        self.serve_nonce = secrets.token_urlsafe(18) if command == "serve" else None

    @event_priority(100)  # before every plugin's on_config: where MkDocs starts counting a build's warnings
    def _count_from_here(self, config):
        """A build's warnings, from its start: not the last build's error (MkDocs logs it after
        on_build_error), nor what the dev server logged in between."""
        self.warnings.start()
        site.forget_said_messages()
        if config.get("docs_dir"):  # its link warnings' lines
            site.put_on("mkdocs.structure.pages", site.PageLinkLines(config["docs_dir"], self._anchors_of,
                                                                     self._built_files))
        return config

    @_edge
    def _configure(self, config):
        added = features.configure(config, THEME, functools.partial(site.key_line, config.config_file_path))
        if added:  # not again on every rebuild of mkdocs serve (the same line each save)
            said.once(log.info, f"configured for its features: {'; '.join(added)} (scalecore guide options)")
        engine = site.engine_site(config)
        assets.check_math(engine.uses_math, self.config.math)
        site.add_page_assets(config, assets.page_scripts(isolation=self.config.live, theme=engine.uses_theme))
        self.build = SiteBuild(self.config, engine, self.command, log, self.serve_nonce,
                               references={"options": lambda kinds: reference(), "kind-settings": kind_settings_reference})
        self.build.configure()
        self.converted = ConvertedPages(self.build.cache / "pages", self.build.digests.of, self._conversion_failed)
        if self.command == "build":
            config.site_dir = str(self.build.stage())
            if note := site.directory_urls_note(config):
                log.info(note)
        return config

    on_config = CombinedEvent(_count_from_here, _configure)

    @_edge
    def on_pre_build(self, config):
        if self.command == "serve":  # a rebuild that fails serves the last site that built (last_good.py)
            self.last_good = self.last_good or LastGoodSite(Path(config.site_dir))
            self.last_good.set_aside()
        self.build.prepare()

    @event_priority(-100)  # after plugins that add pages: the nav may name those
    @_edge
    def on_files(self, files, config):
        self.site_files, self.all_pages = files, None  # all_pages: once every page is read
        site.check_nav(files, config)
        self.build.check_author_files(site.author_files(files, config, self.command))
        self._serve_theme_files(files, config)
        # The build's own files, written from here (MkDocs cleaned the site folder before this
        # event): the copies into a new folder (a hundred MB: the runtime, the full stack) go on
        # while MkDocs reads every page's Markdown, not only while it renders the templates.
        self.build.write_files(Path(config.site_dir), frozenset(file.dest_uri for file in files))
        files = self.site_files = site.SiteFiles(files, config, {*self.build.files, *self.build.contents})
        return files

    def _serve_theme_files(self, files, config):
        """Our theme's scripts and styles minified, the styles in one stylesheet (pages/frontend.py)."""
        own = self.build.own_folders()
        for file in [file for file in files if file.src_uri in self.build.left_out()]:
            files.remove(file)
        ours = {file.src_uri: file for file in files
                if file.abs_src_path and frontend.is_own(Path(file.abs_src_path), own)}

        def served_text(path):
            found = files.get_file_from_path(path)
            return None if found is None else found.content_string

        done = self.build.theme_files({uri: Path(file.abs_src_path) for uri, file in ours.items()}, served_text)
        for uri, file in ours.items():
            files.remove(file)
            files.append(File.generated(config, uri, abs_src_path=str(done[uri]), inclusion=file.inclusion))
        # The stylesheet is the build's to write, as the rest of its folder (assets/scalecore): a
        # folder only the build writes is carried whole into the next site when unchanged
        # (SiteBuild._place_unchanged), not linked file by file.
        self.build.files[frontend.STYLESHEET] = done[frontend.STYLESHEET]

    @_edge
    def on_env(self, env, config, files):
        """Keep the theme's compiled templates in the cache: a warm rebuild skips compiling
        Material's templates again (a third of a plain build's time here). MkDocs copies its own
        files right after this event: a file another plugin gave it since on_files, at a path
        the build writes too, is left to MkDocs, so that its file wins, as it did when ours were
        its files (the build's own are SiteBuild.write_files', not MkDocs' files, which it walks
        a dozen times a build)."""
        env.bytecode_cache = self.build.template_caches.get(self.build.cache / "templates")
        self.build.engine_writes(Path(config.site_dir), frozenset(file.dest_uri for file in files))
        return env

    def on_pre_page(self, page, config, files):
        if self.config.enabled and self.converted is not None:
            self.converted.take(page, config, files)
        return page

    @event_priority(50)  # before other plugins see the markdown: they get plain HTML blocks
    @_edge
    def on_page_markdown(self, markdown, page, config, files):
        site.module_switches(page, self.config)
        return self.build.pages.expand(site.page_info(page), markdown, functools.partial(site.page_link, files, page.file),
                                 self._page_paths(files))

    def _page_paths(self, files) -> tuple[str, ...]:
        """Every page's path (for the hints of a link to a missing page), listed once per build:
        the files are complete once every plugin's on_files has run, before the first page."""
        known = getattr(self, "_pages", None)
        if known is None or known[0] is not files or known[1] != len(files):
            known = self._pages = (files, len(files), tuple(sorted(f.src_uri for f in files.documentation_pages())))
        return known[2]

    @event_priority(50)  # as on_page_markdown: other plugins get the panels, never their slots
    @_edge
    def _restore_panels(self, html, page, config, files):
        return self.build.pages.restore(site.page_info(page), html)

    @_edge
    def _read_content(self, html, page, config, files):
        return self.build.pages.read(site.page_info(page), html)

    on_page_content = CombinedEvent(_restore_panels, _read_content)

    @event_priority(100)  # every page is read by now, before any is rendered with the theme
    @_edge
    def _check_neighbours(self, context, page, config, nav):
        if self.all_pages is None:
            self.all_pages = [site.page_info(file.page) for file in self.site_files.documentation_pages()
                              if file.page is not None]
            self.build.pages.check_neighbours(self.all_pages)
        return context

    @event_priority(-100)  # after the search plugins (they indexed the page without its fallbacks)
    @_edge
    def _put_back_fallbacks(self, context, page, config, nav):
        page.content = self.build.pages.put_back(page.content)
        return context

    on_page_context = CombinedEvent(_check_neighbours, _put_back_fallbacks)

    @_edge
    def on_post_page(self, html, page, config):
        site.check_page_scripts(html, page, config)  # a theme override that dropped the panels' scripts
        return self.build.pages.finish_page(site.page_info(page), html, self.all_pages)

    @_edge
    def on_post_template(self, output_content, template_name, config):
        """The theme's own pages (404.html) get the same policy as every other page."""
        if not template_name.endswith(".html"):
            return output_content
        if error_page.needs_root(template_name, config.site_url):  # a 404 page a subpath host serves
            ours = self.site_files.build_uris() if isinstance(self.site_files, site.SiteFiles) else set()
            uris = [file.dest_uri for file in self.site_files or ()] + sorted(ours)
            output_content = error_page.relative_error_page(output_content, error_page.site_folders(uris))
        return self.build.pages.finish_page(None, output_content)

    @event_priority(-100)  # after the other plugins' on_post_build: the search plugins write their index there
    @_edge
    def on_post_build(self, config):
        warned, self.warnings.count = self.warnings.count, 0  # the next build (mkdocs serve) counts its own
        if config.strict and warned:
            self.build.abandon()  # MkDocs aborts this build: the site and the cache stay as they were
            self.converted.forget()
            return
        self.serve_failure = None
        self.build.finish(Path(config.site_dir))
        self.converted.save()
        self._watch_the_builds_folders()
        self._watch_what_pages_read(config)
        if self.last_good is not None:
            self.last_good.drop()

    def _built_files(self) -> set[str]:
        """The site paths of the files the build writes itself (for a link's fix)."""
        return self.site_files.build_uris() if isinstance(self.site_files, site.SiteFiles) else set()

    def _anchors_of(self, src_uri: str) -> list[str]:
        """The anchors of a page of this build, once converted (for a link to a missing one)."""
        files = getattr(self, "site_files", None)
        found = files.get_file_from_path(src_uri) if files is not None else None
        page = getattr(found, "page", None)
        return sorted(getattr(page, "present_anchor_ids", None) or ())

    def _conversion_failed(self, page, error) -> PluginError:
        """A page whose Markdown an extension could not convert (a snippet not found): its file and
        line and the fix, as our own errors (MkDocs printed the extension's traceback)."""
        self.page_errors.pages.add(page.file.src_uri)
        return PluginError(site.conversion_error(page.file.src_uri, error, self.build.engine.docs_dir,
                                                 self.build.engine.config_file))

    def _watch_the_builds_folders(self) -> None:
        """The folders the build reads (corpora, kinds, packages...), watched under ``mkdocs
        serve``, those a rebuild's settings added too: a package added to ``packages`` while
        serving was read by the rebuild, but an edit to it then rebuilt nothing."""
        if self.server is None or self.build is None:
            return
        for path in self.build.watched():
            if str(path) not in self.watched:
                self.server.watch(str(path))
                self.watched.add(str(path))

    def _watch_what_pages_read(self, config) -> None:
        """Under ``mkdocs serve``, the files a page's conversion read outside docs/ (a snippet that
        pymdownx.snippets includes from another folder): MkDocs watches docs/ and mkdocs.yml
        only, so an edit to one rebuilt nothing and the page stayed as it was. Installed
        packages' files are not the author's to edit."""
        if self.server is None or self.converted is None:
            return
        docs, installed = Path(config.docs_dir).resolve(), {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
        for path in sorted(self.converted.opened - self.watched):
            place = Path(path).resolve()
            if place.is_file() and not any(place.is_relative_to(folder) for folder in (docs, *installed)):
                self.server.watch(str(place))
                self.watched.add(path)

    def on_build_error(self, error):
        self.failure_seen = True
        warned, self.warnings.count = self.warnings.count, 0
        staging = self.build.abandon() if self.build is not None else None
        if self.converted is not None:
            self.converted.forget()
        if self.last_good is not None:
            self.last_good.put_back()
        if isinstance(error, OSError):  # MkDocs' own writes (pages, theme files) into the staging folder
            explained = disk.explain(error, "writing the site", staging)
            self.serve_failed(explained)
            log.error(explained.removeprefix("scalecore: "))
            raise Abort("Aborted with a disk error.")
        text = str(error) or type(error).__name__
        if isinstance(error, Abort) and "strict mode" in text:  # the warnings themselves, as the terminal has them
            shown = self.warnings.warned
            text += (" The warnings:\n" + "\n".join(shown) + ("\n(more in the terminal)" if warned > len(shown) else "")
                     if shown else " The warnings are in the terminal, above this message.")
        self.serve_failed(text)

    def serve_failed(self, message: str) -> None:
        """Under ``mkdocs serve``, a rebuild that failed: MkDocs logs the error and keeps serving the
        last pages that built, silently for the browser. Each page it serves says so now
        (site.failure_banner), and the open ones reload to show it."""
        if self.command != "serve" or self.server is None:
            return  # mkdocs build, or serve's first build (which stops the server)
        self.serve_failure = message
        site.tell_pages(self.server)
        log.info("the pages open in the browser show this error until a build succeeds")

    def on_serve(self, server, config, builder):
        """``mkdocs serve`` rebuilds when what the build reads changes, not only docs/ and
        mkdocs.yml: the corpora, the site's kinds and packages, and the generator's own templates,
        scripts and kinds. A port another server holds is said before MkDocs' traceback."""
        address = getattr(config, "dev_addr", None)
        host, port = (address.host, address.port) if address is not None else (None, None)
        if address is not None and not _can_listen(host, port):
            log.error(f"{host}:{port} is in use: another server is listening there (an earlier mkdocs serve, or "
                      f"python -m http.server). Fix: stop it, or serve on another port: mkdocs serve -a {host}:{port + 1}")
            raise Abort("Aborted: the port is in use.")
        if self.config.enabled and self.build is not None:
            self.server = server
            self._watch_the_builds_folders()
            site.mark_reload_script(server, self.serve_nonce, lambda: self.serve_failure)
            self._watch_what_pages_read(config)  # the first build's, made before the server was given
            self._see_config_failures(server, getattr(config, "config_file_path", None))
        return server

    def _see_config_failures(self, server, config_file: str | None) -> None:
        """A rebuild whose mkdocs.yml MkDocs cannot read fails before any plugin runs, so no hook
        sees it: the open pages kept the last build without a word, and a reload waited for a
        build that never came. The server's builder is wrapped (MkDocs calls ``server.builder``
        for each rebuild), and a failure no hook saw is said like any other. A mkdocs.yml that
        is no valid YAML is said at its line with the fix, in the terminal too, where MkDocs
        printed a traceback of sixty lines (a fresh author's finding)."""
        original = getattr(server, "builder", None)
        if original is None or getattr(original, "scalecore_wrapped", False):
            return

        def builder(*args, **kwargs):
            self.failure_seen = False
            self.warnings.errors = []
            try:
                return original(*args, **kwargs)
            except Exception as error:
                if self.failure_seen:
                    raise
                problem = site.yaml_problem(config_file, error)
                if problem is not None:
                    log.error(problem)
                self.serve_failed(problem or "\n".join(self.warnings.errors + [str(error) or type(error).__name__]))
                if problem is None:
                    raise

        builder.scalecore_wrapped = True
        server.builder = builder

    def on_shutdown(self):
        if self.build is not None:
            self.build.abandon()  # a build that did not finish keeps nothing new
        logging.getLogger("mkdocs").removeHandler(self.warnings)


def _can_listen(host: str, port: int) -> bool:
    """Whether a server may listen on host:port now (as MkDocs' will: the address reused, so a
    port a stopped server left in TIME_WAIT counts as free)."""
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
        return True
    except OSError:
        return False

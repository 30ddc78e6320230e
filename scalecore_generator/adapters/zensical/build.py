"""``scalecore build --engine zensical``: the build around ``zensical build`` (see __init__.py)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import yaml

from scalecore_generator.adapters.zensical import ZENSICAL_VERSION, blocks
from scalecore_generator.foundation import disk
from scalecore_generator.builder.engine_site import THEME, EngineSite, PageInfo
from scalecore_generator.builder.site_build import SiteBuild
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.pages import assets, frontend

log = logging.getLogger("scalecore")
BLOCKS = "scalecore_generator.adapters.zensical.blocks"
# What the features need of the Markdown (adapters/mkdocs/features.py says why for each).
EXTENSIONS = {
    "admonition": {}, "attr_list": {}, "md_in_html": {}, "tables": {}, "toc": {"permalink": True},
    "pymdownx.details": {}, "pymdownx.superfences": {}, "pymdownx.arithmatex": {"generic": True},
}
PALETTE = [
    {"media": "(prefers-color-scheme: light)", "scheme": "default", "primary": "indigo", "accent": "indigo",
     "toggle": {"icon": "material/weather-night", "name": "Switch to dark mode"}},
    {"media": "(prefers-color-scheme: dark)", "scheme": "slate", "primary": "indigo", "accent": "indigo",
     "toggle": {"icon": "material/weather-sunny", "name": "Switch to light mode"}},
]


try:  # what Zensical's Rust core raises when it stops on an invariant (a BaseException)
    from pyo3_runtime import PanicException as _Panic
except ImportError:
    class _Panic(Exception):
        pass


class ZensicalError(ScalecoreError):
    """Zensical is missing, or refused the configuration: the message says which and the fix."""


def build(config_file: Path, strict: bool = False, site_dir: Path | None = None) -> Path:
    """Build the site of ``config_file`` (mkdocs.yml) with Zensical; returns the site folder."""
    try:
        import zensical
    except ImportError:
        raise ZensicalError(f"the Zensical engine is not installed. Fix: pip install 'zensical=={ZENSICAL_VERSION}', "
                            "or build with MkDocs (the default engine): mkdocs build") from None
    if zensical.version() != ZENSICAL_VERSION:  # its internals are read in one place: blocks.rendering_context
        log.warning(f"zensical {zensical.version()}: Scalecore was tested with {ZENSICAL_VERSION}, whose internals "
                    f"it reads. If the build fails, pip install 'zensical=={ZENSICAL_VERSION}'.")
    config_file = Path(config_file).resolve()
    root = config_file.parent
    config = _read(config_file)
    settings = _settings(config_file, config)
    docs_dir = (root / config.get("docs_dir", "docs")).resolve()
    site = (root / (site_dir or config.get("site_dir", "site"))).resolve()
    engine = EngineSite(config_file=config_file, docs_dir=docs_dir, site_dir=site,
                        markdown_extensions=[], markdown_config={}, theme_dirs=[THEME],
                        site_name=str(config.get("site_name", "")), site_description=str(config.get("site_description") or ""),
                        strict=strict)
    derived = _derive(config, engine, settings)
    assets.check_math(engine.uses_math, settings.math)
    from scalecore_generator.adapters.mkdocs.config import kind_settings_reference, reference

    run = SiteBuild(settings, engine, "build", log,
                    references={"options": lambda kinds: reference(), "kind-settings": kind_settings_reference})
    try:
        run.configure()
        staging = run.stage()
        run.prepare()
        run.check_author_files({path.relative_to(docs_dir).as_posix(): path for path in sorted(docs_dir.rglob("*"))
                                if path.is_file() and path.suffix != ".md"})
        with blocks.rendering(run, bool(config.get("use_directory_urls", True))) as (key, rendering):
            project = _project(run, _naming(derived, key))
            try:
                zensical.build(str(project / "mkdocs.yml"), {"clean": True, "strict": strict})
            except (Exception, _Panic) as error:  # Zensical's own error (configuration, a page): its message, no traceback
                if rendering.error is not None:
                    raise rendering.error from None
                raise ZensicalError(f"zensical build stopped: {error}. Fix: see the message above; the previous "
                                    f"site in {site} is unchanged.") from None
            if rendering.error is not None:  # a page's mistake Zensical did not stop on
                raise rendering.error from None
            pages = dict(rendering.pages)
        shutil.rmtree(staging)
        shutil.move(project / "site", staging)
        if not pages:
            raise ZensicalError("zensical build rendered no page through the blocks' extension: this Zensical "
                                f"cannot run it. Fix: pip install 'zensical=={ZENSICAL_VERSION}'.")
        _finish(run, staging, pages)
        run.finish(staging)
    except BaseException:
        run.abandon()
        raise
    return site


def _naming(derived: dict, key: str) -> dict:
    """``derived`` with the blocks' extension configured with the key of the build's Rendering."""
    extensions = [{BLOCKS: {"run": key}} if entry == BLOCKS else entry for entry in derived["markdown_extensions"]]
    return {**derived, "markdown_extensions": extensions}


def _project(run: SiteBuild, derived: dict) -> Path:
    """The folder Zensical builds in, inside the build's cache: the derived configuration, a copy
    of the docs, the site it writes. Zensical keeps its own cache in its project's ``.cache``
    and ``--clean`` (needed: a page's panels change with baked data its cache does not know)
    deletes that whole folder, which in the author's project is where Scalecore's cache lives
    too; and it wants the docs and the site inside its project. Hence a project of its own."""
    project = run.cache / "zensical"
    for made in ("docs", "site"):
        shutil.rmtree(project / made, ignore_errors=True)
    shutil.copytree(run.engine.docs_dir, project / "docs")
    derived = {**derived, "docs_dir": "docs", "site_dir": "site"}
    (project / "mkdocs.yml").write_text(yaml.dump(derived, Dumper=yaml.Dumper, sort_keys=False, allow_unicode=True),
                                        encoding="utf-8")
    return project


def _finish(run: SiteBuild, staging: Path, pages: dict[str, PageInfo]) -> None:
    """What MkDocs' on_files, on_page_context and on_post_page do, on Zensical's output."""
    every = list(pages.values())
    run.pages.check_neighbours(every)
    run.write_files(staging)
    own = run.own_folders()
    ours = {path.relative_to(THEME).as_posix(): path for path in sorted(THEME.rglob("*"))
            if path.is_file() and frontend.is_own(path, own)
            and path.relative_to(THEME).as_posix() not in run.left_out()}

    def served_text(path):  # the theme's own files are ours: Zensical is given no custom_dir of ours
        for folder in (staging, THEME):
            if (folder / path).is_file():
                return (folder / path).read_text(encoding="utf-8")
        return None

    for site_path, made in run.theme_files(ours, served_text).items():
        disk.clone_or_copy(made, staging / site_path)
    for html_file in sorted(staging.rglob("*.html")):
        site_path = html_file.relative_to(staging).as_posix()
        page = pages.get(site_path)
        html = html_file.read_text(encoding="utf-8")
        html_file.write_text(run.pages.finish_page(page, html, every), encoding="utf-8")


def _read(config_file: Path) -> dict:
    """mkdocs.yml as data, with MkDocs' own tags resolved (Zensical's reader knows only !ENV)."""
    root = config_file.parent

    class Loader(yaml.Loader):  # the full loader, as MkDocs': !!python/name values stay functions
        pass

    def relative(loader, node):
        value = loader.construct_scalar(node) or "$config_dir"
        return str(root) if value == "$config_dir" else str((root / value).resolve())

    def environment(loader, node):
        names = loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else [loader.construct_scalar(node)]
        *keys, default = names if len(names) > 1 else (*names, None)
        return next((os.environ[key] for key in keys if key in os.environ), default)

    Loader.add_constructor("!relative", relative)
    Loader.add_constructor("!ENV", environment)
    try:
        with open(config_file, encoding="utf-8-sig") as source:
            return yaml.load(source, Loader=Loader) or {}  # noqa: S506 (the author's own file, as MkDocs reads it)
    except (OSError, yaml.YAMLError) as error:
        raise ZensicalError(f"{config_file}: cannot be read ({error}). Fix: check the file with mkdocs build.") from None


def _settings(config_file: Path, config: dict):
    """The scalecore options, checked by the same rules as the MkDocs plugin's."""
    from scalecore_generator.adapters.mkdocs.config import ScalecoreConfig

    options = next((entry["scalecore"] for entry in config.get("plugins") or []
                    if isinstance(entry, dict) and "scalecore" in entry), None)
    if options is None and "scalecore" not in (config.get("plugins") or []):
        raise ZensicalError(f"{config_file}: the scalecore plugin is not listed under plugins. Fix: add "
                            "'- scalecore' to plugins (its options are read from there under every engine).")
    settings = ScalecoreConfig(config_file_path=str(config_file))
    settings.load_dict(dict(options or {}))
    errors, _ = settings.validate()
    if errors:
        raise ZensicalError(str(errors[0][1]))
    return settings


def _derive(config: dict, engine: EngineSite, settings) -> dict:
    """Zensical's configuration: the author's, with what the features need (as the MkDocs plugin's
    features.configure adds it) and the scalecore plugin replaced by its blocks' extension."""
    derived = {key: value for key, value in config.items() if key not in ("plugins", "hooks", "site_dir")}
    theme = dict(config.get("theme") or {})
    if theme.get("custom_dir"):  # a site's own overrides, relative to mkdocs.yml, from the project copy
        theme["custom_dir"] = str((engine.config_file.parent / theme["custom_dir"]).resolve())
    if theme.get("font") and theme["font"] != {"text": "Roboto", "code": "Roboto Mono"}:
        raise ZensicalError(f"{engine.config_file}: theme.font names a font the theme fetches from Google Fonts. "
                            "Fix: set font: false.")
    theme["font"] = False
    theme.setdefault("palette", [dict(scheme) for scheme in PALETTE])
    derived["theme"] = theme
    names, options = _extensions(config.get("markdown_extensions") or [])
    for name, needed in EXTENSIONS.items():
        if name not in names:
            names.append(name)
            options[name] = dict(needed)
    names.append(BLOCKS)
    engine.markdown_extensions[:] = [name for name in names if name != BLOCKS]
    engine.markdown_config.update(options)
    derived["markdown_extensions"] = [{name: options[name]} if options.get(name) else name for name in names]
    derived["extra_css"] = [*(config.get("extra_css") or []), frontend.STYLESHEET]
    scripts = assets.page_scripts(isolation=settings.live, theme=True)
    derived["extra_javascript"] = [*(config.get("extra_javascript") or []),
                                   *({"path": script, "defer": True} for script in scripts)]
    search = [entry for entry in config.get("plugins") or [] if entry == "search" or
              (isinstance(entry, dict) and "search" in entry)]
    derived["plugins"] = search
    return derived


def _extensions(listed) -> tuple[list[str], dict]:
    names, options = [], {}
    for entry in listed:
        if isinstance(entry, str):
            names.append(entry)
        else:
            (name, value), = entry.items()
            names.append(name)
            options[name] = dict(value or {})
    return names, options


def version_line() -> str:
    try:
        import zensical

        return f"zensical {zensical.version()}"
    except ImportError:
        return "zensical (not installed)"



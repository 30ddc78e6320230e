"""What the plugin's features need from MkDocs' configuration, set by the plugin itself.

An author writes ``plugins: [scalecore]`` and nothing else: no ``custom_dir`` pointing into
site-packages, no list of Markdown extensions to copy, no font or palette to know about. Each
need is either added when the site leaves it out, or, when the site sets it in a way the
feature cannot work with, a build error naming mkdocs.yml's line and the fix. Nothing a feature
needs is dropped silently. The author's own settings win wherever they work:

- theme overrides: ours (the module pages' scripts and styles, the search dialog's name) are
  added behind the site's own ``custom_dir``, ahead of Material's templates, so a site may still
  override any of them (the module header itself is written by the build: pages/module_page.py);
- Markdown extensions: those the blocks, callouts and math need are added with the options they
  need; an extension the site configures differently (arithmatex without ``generic``) is an error;
- fonts: Material fetches its default fonts from Google, which the site's policy blocks and an
  offline reader cannot reach, so the default is turned off (the system's fonts are used); a font
  the site names is an error with the fix;
- palette: a site that sets none gets a light and a dark scheme following the reader's system,
  with a toggle; a site that sets one keeps it;
- links: a link to a heading that does not exist, and a link to a folder-style address
  (``../lessons/pendulum/``, a 404 on a site whose pages are files) are warnings (so ``strict``
  stops the build), not MkDocs' default, a line at INFO level that no one reads; a site that sets
  ``validation: {anchors: ...}`` or ``{unrecognized_links: ...}`` itself keeps its choice.
"""

import logging
import re
from pathlib import Path
from scalecore_generator.errors import ScalecoreError

# Extension -> the options it needs (None: any). The blocks are Python-Markdown blocks and
# superfences; callouts are admonitions (collapsible ones details); math is arithmatex's generic
# output, which the build typesets (pages/formulas.py); attr_list and md_in_html the panels' markup.
EXTENSIONS = {
    "admonition": None,
    "attr_list": None,
    "md_in_html": None,
    "tables": None,
    "toc": {"permalink": True},
    "pymdownx.details": None,
    "pymdownx.superfences": None,
    "pymdownx.arithmatex": {"generic": True},
}
REQUIRED_OPTIONS = {"pymdownx.arithmatex": {"generic": True}}  # without these the feature breaks
MATERIAL_DEFAULT_FONT = {"text": "Roboto", "code": "Roboto Mono"}
PALETTE = [
    {"media": "(prefers-color-scheme: light)", "scheme": "default", "primary": "indigo", "accent": "indigo",
     "toggle": {"icon": "material/weather-night", "name": "Switch to dark mode"}},
    {"media": "(prefers-color-scheme: dark)", "scheme": "slate", "primary": "indigo", "accent": "indigo",
     "toggle": {"icon": "material/weather-sunny", "name": "Switch to light mode"}},
]


class FeatureError(ScalecoreError):
    """The site's configuration keeps a feature from working: the message has the fix."""


def configure(config, theme_folder: Path, where) -> list[str]:
    """Give ``config`` what the features need; the list says what was added (for the log).
    ``where(key)`` names the line of a top-level key of mkdocs.yml, for messages."""
    added = []
    added += _theme_overrides(config, theme_folder, where)
    added += _extensions(config, where)
    added += _fonts(config, where)
    added += _palette(config)
    added += _anchors(config)
    return added


def _theme_overrides(config, folder: Path, where) -> list[str]:
    dirs = [Path(d).resolve() for d in config.theme.dirs]
    if folder.resolve() in dirs:
        return []
    if config.theme.name != "material":
        raise FeatureError(f"{where('theme')}: the theme is {config.theme.name!r}; Scalecore's pages (module "
                           "header, cards, mentor) extend Material's templates. Fix: set theme: {name: material}.")
    import material

    own = (Path(material.__file__).parent / "templates").resolve()
    at = dirs.index(own) if own in dirs else len(dirs)
    config.theme.dirs.insert(at, str(folder))
    return ["its theme overrides"]


def _extensions(config, where) -> list[str]:
    added = []
    for name, options in EXTENSIONS.items():
        if name not in config.markdown_extensions:
            config.markdown_extensions.append(name)
            if options:
                config.mdx_configs[name] = dict(options)
            added.append(name)
            continue
        for key, value in REQUIRED_OPTIONS.get(name, {}).items():
            if config.mdx_configs.get(name, {}).get(key) != value:
                raise FeatureError(f"{where('markdown_extensions')}: {name} needs {key}: {value!r} (the build "
                                   f"typesets its output). Fix: write '- {name}: {{{key}: {str(value).lower()}}}', "
                                   "or leave the extension out and the plugin adds it.")
    return [f"the Markdown extensions {', '.join(added)}"] if added else []


def _fonts(config, where) -> list[str]:
    font = config.theme.get("font")
    if not font:
        return []
    if dict(font) == MATERIAL_DEFAULT_FONT:
        config.theme["font"] = False
        return ["the reader's own fonts (theme font: false; Material's default, Roboto, would be fetched "
                "from Google Fonts, which an offline site never asks)"]
    raise FeatureError(f"{where('theme')}: theme.font names {dict(font)}, which Material fetches from Google "
                       "Fonts: the site's Content-Security-Policy blocks it and offline readers cannot reach it. "
                       "Fix: set font: false (the reader's system fonts), and serve your own font with extra_css.")


def _palette(config) -> list[str]:
    if config.theme.get("palette"):
        return []
    config.theme["palette"] = [dict(scheme) for scheme in PALETTE]
    return ["a light and a dark palette"]


def _anchors(config) -> list[str]:
    links, added = config.validation.links, []
    if links.anchors < logging.WARNING and not _sets(config.config_file_path, "anchors"):
        links.anchors = logging.WARNING
        added.append("links to missing anchors as warnings")
    if links.unrecognized_links < logging.WARNING and not _sets(config.config_file_path, "unrecognized_links"):
        links.unrecognized_links = logging.WARNING
        added.append("links to folder-style addresses as warnings")
    return added


def _sets(config_file: str | None, key: str) -> bool:
    try:
        text = Path(config_file or "mkdocs.yml").read_text(encoding="utf-8-sig")
    except OSError:
        return False
    return re.search(rf"^\s*{key}\s*:", text, re.M) is not None

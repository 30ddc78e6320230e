"""What a build knows of the engine that renders its pages, in the engine's own terms read by
its adapter (adapters/mkdocs, adapters/zensical): the site's configuration (``EngineSite``) and
each page (``PageInfo``). The build itself imports no engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scalecore_generator.pages import assets

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

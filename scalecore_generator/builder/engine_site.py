"""What a build knows of the engine that renders its pages, in the engine's own terms read by
its adapter (adapters/mkdocs, adapters/zensical): the site's configuration (``EngineSite``) and
each page (``PageInfo``). The build itself imports no engine."""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Mapping
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


class OptionLines(Mapping):
    """Where each of some options is written ("mkdocs.yml:14"), found when a kind's message asks:
    finding the lines parses the configuration file again, which a build whose kinds have
    nothing to say need not do."""

    def __init__(self, where, keys: tuple[str, ...]):
        self._where, self._keys = where, keys

    @functools.cached_property
    def _lines(self) -> dict[str, str]:
        return {key: self._where(key) for key in self._keys}

    def __getitem__(self, key: str) -> str:
        return self._lines[key]

    def within(self, key: str, *inner: str) -> str:
        """The line of a setting inside one of the options (kinds, a kind, its setting): the line
        an author edits to bake another value, not the option's first line."""
        return self._where(key, *inner)

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


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

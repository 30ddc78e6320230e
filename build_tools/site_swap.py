"""Build into a staging folder and swap it in only when the whole build succeeded.

MkDocs empties ``site_dir`` right after ``on_pre_build``, before any page is rendered, so an
error in a page (a malformed panel block, say) would leave the reader with half a site or none.
We point ``site_dir`` at a sibling staging folder instead, and rename it into place after a
clean build: a failed build leaves the previous site exactly as it was.
"""

import logging
import shutil
from pathlib import Path


class WarningCounter(logging.Handler):
    """Counts warnings, so a ``--strict`` build that MkDocs will abort is not swapped in."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.count = 0

    def emit(self, record):
        self.count += 1


class StagedSite:
    def __init__(self, final: str):
        self.final = Path(final)
        self.staging = self.final.with_name(f".{self.final.name}.partial")
        self.previous = self.final.with_name(f".{self.final.name}.previous")

    def begin(self) -> str:
        """Where MkDocs should write this build."""
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging.mkdir(parents=True)
        return str(self.staging)

    def commit(self) -> None:
        """The new site replaces the old one (two renames; the old one is then removed)."""
        shutil.rmtree(self.previous, ignore_errors=True)
        if self.final.exists():
            self.final.rename(self.previous)
        self.staging.rename(self.final)
        shutil.rmtree(self.previous, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

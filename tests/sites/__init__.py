"""Fixture sites for the plugin tests, and the helpers that build them.

``base/`` is a tiny site: two small corpora (``tiny``, ``small``), seed 0, d_model 8, a short
variance lesson and ``live: false``, so a cold build takes a few seconds. Tests never build in
this folder: they copy it (``copy_site``) to a temporary folder and change one thing there.

Every build runs ``python -m mkdocs build`` in a subprocess, as a user would: the exit status,
the log and the files on disk are what the tests look at.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BASE = Path(__file__).resolve().parent / "base"
CACHE = ".cache/scalecore"  # the plugin's default cache_dir, relative to mkdocs.yml

# MkDocs' log lines look like "ERROR   -  message"; the level is padded.
_LOG_LINE = re.compile(r"^(DEBUG|INFO|WARNING|ERROR)\s+-\s+(.*)$")


@dataclass
class Build:
    returncode: int
    stdout: str
    stderr: str

    def lines(self, level: str) -> list[str]:
        """The messages logged at ``level`` ("ERROR", "WARNING", "INFO"), prefix removed."""
        found = []
        for line in self.stderr.splitlines():
            match = _LOG_LINE.match(line)
            if match and match[1] == level:
                found.append(match[2])
        return found

    @property
    def errors(self) -> list[str]:
        return self.lines("ERROR")

    def describe(self) -> str:
        return f"exit status {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def environment(source_date_epoch: str | None = "1700000000", **extra) -> dict[str, str]:
    """The build's environment: MkDocs' end-of-life banner off, a fixed SOURCE_DATE_EPOCH unless
    None (then the variable is removed and the plugin picks its own)."""
    env = {key: value for key, value in os.environ.items() if key != "SOURCE_DATE_EPOCH"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    if source_date_epoch is not None:
        env["SOURCE_DATE_EPOCH"] = source_date_epoch
    env.update(extra)
    return env


def build_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mkdocs", "build", *args]


def build(folder: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 600) -> Build:
    """``mkdocs build`` in ``folder`` (which holds mkdocs.yml)."""
    done = subprocess.run(build_command(*args), cwd=folder, env=env or environment(), capture_output=True,
                          text=True, timeout=timeout)
    return Build(done.returncode, done.stdout, done.stderr)


def copy_site(destination: Path, source: Path = BASE) -> Path:
    """A copy of a fixture site: the sources only from tests/sites, everything (its built site
    and cache too) from a folder a test built."""
    ignore = shutil.ignore_patterns("site", ".cache", ".site.*") if source == BASE else None
    shutil.copytree(source, destination, symlinks=True, ignore=ignore)
    return destination.resolve()


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must occur exactly once) with ``new`` in a text file."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder``: relative path -> sha256 of its bytes (empty if no folder)."""
    folder = Path(folder)
    if not folder.is_dir():
        return {}
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def stamps(folder: Path) -> dict[str, int]:
    """Every file and folder under ``folder``: relative path -> modification time (ns)."""
    folder = Path(folder)
    return {path.relative_to(folder).as_posix(): path.stat().st_mtime_ns for path in sorted(folder.rglob("*"))}


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the first line of ``path`` that contains ``text``."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")

"""The user cache: what is the same for every site and every clone on this machine, made once.

Some results depend only on pinned inputs, never on a site: the full stack's published parts
(runtime/fullstack.py: gzip of 176 MB, most of a cold build's time) and the trimmed standard
library they are cut from. They live in one folder per user, not in a site's ``.cache``:
``$SCALECORE_USER_CACHE`` if set (the tests point it at a temporary folder), else
``$XDG_CACHE_HOME/scalecore``, else ``~/.cache/scalecore``.

Many builds may use it at once (two sites, two clones, a test run beside a dev server), so:

- every file is written under a temporary name in its final folder and renamed into place
  (``os.replace``): a half-written file never has its final name, and two builds making the
  same file leave one whole copy (the same bytes: results are deterministic);
- whoever reads a file checks it against the sha256 its record gives (through the build's
  digest ledger, so a warm build reads nothing again) and makes it again on any mismatch;
- nothing here is a site's: a build copies (or clones) from it into the site, never links, so a
  byte changed here cannot reach a published site.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

ENVIRONMENT = "SCALECORE_USER_CACHE"
TEMPORARY_SUFFIX = ".tmp"
ABANDONED_S = 3600  # a temporary file this old is a killed build's: removed by the next maker


def folder() -> Path:
    """The user cache's folder (not created here)."""
    chosen = os.environ.get(ENVIRONMENT)
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "scalecore"


def write_atomically(path: Path, data: bytes) -> None:
    """``path`` with ``data``, written under a temporary name beside it and renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as stream:
            os.fchmod(stream.fileno(), 0o644)  # mkstemp's 0600 would be carried to a copy that keeps modes
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_record(path: Path) -> dict | None:
    """A JSON record written with write_atomically, or None (missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_record(path: Path, data: dict) -> None:
    write_atomically(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def remove_abandoned(where: Path) -> None:
    """Temporary files of builds killed while writing (older than an hour: a live build's are
    minutes old at most)."""
    if not where.is_dir():
        return
    now = time.time()
    for path in where.glob(f".*{TEMPORARY_SUFFIX}"):
        try:
            if now - path.stat().st_mtime > ABANDONED_S:
                path.unlink()
        except OSError:
            pass

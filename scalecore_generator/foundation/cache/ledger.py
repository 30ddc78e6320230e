"""The cache's usage ledger, which keeps it bounded while the code and the pages change.

Every entry a build uses (found intact, or written) is noted; when the build has succeeded, the
ledger (usage.json) records the build's number for each, and entries no build has used for
``keep_builds`` builds are removed. A build that used exactly what the last one used counts
for nothing and writes nothing: a warm rebuild leaves the cache untouched. Builds hold a shared lock on the cache while they run and a
prune needs it exclusively, so a prune never removes an entry another build is reading: when
another build holds the cache, the prune waits for a later build (or tells the command's user).
"""

import functools
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scalecore_generator.foundation.cache.entries import RECORD, TEMPORARY
from scalecore_generator.foundation.disk import write_atomically

LEDGER = "usage.json"
LOCK = ".lock"


def every_entry(root: Path) -> list[Path]:
    """Every entry of the cache: a folder holding a record, up to three levels down."""
    root = Path(root)
    found = []
    for depth in ("*", "*/*", "*/*/*"):
        found += [record.parent for record in root.glob(f"{depth}/{RECORD}")
                  if not record.parent.name.startswith(TEMPORARY)]
    return sorted(set(found))


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())


class CacheBusy(Exception):
    """Another build holds the cache: nothing was pruned."""


class SharedUse:
    """One build's use of its cache: the shared lock it holds while it runs (fcntl; a no-op where
    absent), and the entries it used, found intact or written (``note``), which finish_build
    records in the usage ledger when the build has succeeded."""

    def __init__(self, root: Path):
        self.root, self.handle = Path(root), None
        self.used: set[str] = set()

    def note(self, folder: Path) -> None:
        folder = Path(folder)
        if folder.is_symlink():
            self.used.add(str(folder.resolve()))
        else:  # resolving the parent once: the bake notes a hundred entries of one folder
            self.used.add(os.path.join(_resolved(str(folder.parent)), folder.name))

    def acquire(self) -> None:
        try:
            import fcntl

            self.root.mkdir(parents=True, exist_ok=True)
            self.handle = open(self.root / LOCK, "a+")
            fcntl.flock(self.handle, fcntl.LOCK_SH)
        except (ImportError, OSError):
            self.handle = None

    def release(self) -> None:
        if self.handle is not None:
            self.handle.close()  # closing drops the lock
            self.handle = None


@contextmanager
def exclusive(root: Path) -> Iterator[None]:
    """The cache to ourselves, or CacheBusy at once when a build is using it."""
    try:
        import fcntl
    except ImportError:  # no locks on this system: prune anyway, entries are renamed away first
        yield
        return
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise CacheBusy(f"another build is using the cache {root}") from None
        yield


def _ledger(root: Path) -> dict:
    try:
        ledger = json.loads((root / LEDGER).read_text(encoding="utf-8"))
        if isinstance(ledger.get("builds"), int) and isinstance(ledger.get("entries"), dict):
            return ledger
    except (OSError, ValueError, AttributeError):
        pass
    return {"builds": 0, "entries": {}}


def stale(root: Path, keep_builds: int, ledger: dict | None = None) -> list[Path]:
    """The entries no build has used in the last ``keep_builds`` builds. An entry the ledger has
    never seen counts as used by the latest build: a cache from before the ledger is not wiped."""
    ledger = ledger or _ledger(root)
    latest = ledger["builds"]
    out = []
    for entry in every_entry(root):
        last = ledger["entries"].get(entry.relative_to(root).as_posix(), latest)
        if latest - last >= keep_builds:
            out.append(entry)
    return out


def remove_entries(found: list[Path]) -> int:
    """Remove entries (renamed away first, so a half-removed one is never taken for an entry)."""
    freed = 0
    for entry in found:
        size = folder_size(entry)
        doomed = entry.with_name(f"{TEMPORARY}pruned-{entry.name}-{os.getpid()}")
        try:
            entry.rename(doomed)
        except OSError:
            continue
        shutil.rmtree(doomed, ignore_errors=True)
        freed += size
    return freed


def finish_build(root: Path, keep_builds: int, use: SharedUse | None, log) -> None:
    """After a successful build: record what it used, then prune what no recent build used."""
    root = Path(root)
    ledger = _ledger(root)
    used = set()
    for folder in (use.used if use is not None else ()):
        try:
            used.add(Path(folder).relative_to(root.resolve()).as_posix())
        except ValueError:
            pass  # an entry outside this cache (another site's)
    if use is not None:
        use.release()
    latest = {name for name, number in ledger["entries"].items() if number == ledger["builds"]}
    if ledger["builds"] and used == latest:
        return  # the same entries as the last build: nothing ages, nothing is written
    ledger["builds"] += 1
    for name in used:
        ledger["entries"][name] = ledger["builds"]
    try:
        with exclusive(root):
            doomed = stale(root, keep_builds, ledger)
            freed = remove_entries(doomed)
            present = {entry.relative_to(root).as_posix() for entry in every_entry(root)}
            # forget what is gone; an entry seen for the first time starts its count now
            ledger["entries"] = {name: ledger["entries"].get(name, ledger["builds"]) for name in sorted(present)}
            write_atomically(root / LEDGER, json.dumps(ledger, sort_keys=True, indent=0))
            if doomed:
                log.info(f"cache: removed {len(doomed)} entries no build used in the last {keep_builds} builds "
                         f"({freed / 2**20:.1f} MB).")
    except CacheBusy:
        write_atomically(root / LEDGER, json.dumps(ledger, sort_keys=True, indent=0))
        log.info("cache: another build is using the cache; pruning waits for a later build.")
    except OSError as error:
        log.info(f"cache: could not prune ({error.strerror or error}); the cache is unchanged.")


@functools.lru_cache(maxsize=4096)
def _resolved(folder: str) -> str:
    return str(Path(folder).resolve())

"""Build into a staging folder and swap it in only when the whole build succeeded.

MkDocs empties ``site_dir`` right after ``on_pre_build``, before any page is rendered, so an
error in a page (a malformed panel block, say) would leave the reader with half a site or none.
We point ``site_dir`` at a sibling staging folder instead, and swap it into place after a
clean build: a failed build leaves the previous site exactly as it was.

Two builds of one checkout at once must not share anything: each build stages into a folder of
its own (``.site.partial-<pid>``), and one lock per published folder (``.site.lock``, held with
``flock`` for the whole build) lets only one of them run; the other stops at once, naming the
process that holds it. The swap itself is one atomic ``renameat2(RENAME_EXCHANGE)`` on Linux, so a
web server reading ``site/`` sees the old tree or the new one, never a partial one (but for the
instant described below, when unchanged folders are carried over).

A warm build changes few of the site's thousand files. A folder whose every file the new site
publishes unchanged (the baked points of a kind, the runtime) is not copied or linked into the
staging folder file by file: it is carried, moved whole from the published site into the staged
one just before the swap (``folders_to_carry``, ``commit(carried)``), one rename for hundreds of
files. A build that fails before the swap has moved nothing; a process killed between the moves
and the swap leaves a journal, and the next build moves the folders back before anything else.
The price: from the first of those renames to the exchange (a rename each, then the exchange,
about a millisecond), a request for a file in a carried folder finds none. Linking each file
instead had no such instant, and cost a warm build far more. A SIGTERM or SIGINT in that instant (a CI job's
timeout sends one) is held until the exchange is done (``_signals_held``): the build then ends as
the signal asks, with the new site whole in place, instead of ending between two renames with
the carried folders in neither site.
"""

import ctypes
import errno
import fcntl
import json
import logging
import os
import shutil
import signal
import threading
from contextlib import contextmanager
from pathlib import Path

from scalecore_generator.errors import ScalecoreError

from scalecore_generator.foundation.cache.digests import ledger_beside  # noqa: F401 (the site build's)
from scalecore_generator.foundation.processes import process_is_gone


class WarningCounter(logging.Handler):
    """Counts warnings, so a ``--strict`` build that MkDocs will abort is not swapped in."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.count = 0
        self.errors: list[str] = []  # the last errors' messages (a failed rebuild under serve says them)
        self.warned: list[str] = []  # this build's first warnings (a strict rebuild under serve says them)

    def start(self) -> None:
        """A new build: its own warnings from here."""
        self.count = 0
        self.warned = []

    def emit(self, record):
        self.count += 1
        if record.levelno >= logging.ERROR:
            self.errors = (self.errors + [record.getMessage()])[-5:]
        elif len(self.warned) < 10:
            self.warned.append(record.getMessage())


class StagedSite:
    def __init__(self, final: str):
        self.final = Path(final).absolute()
        self.staging = self.final.with_name(f".{self.final.name}.partial-{os.getpid()}")
        self.lock_path = self.final.with_name(f".{self.final.name}.lock")
        # Who holds the lock, for the message another build gives: beside the lock file, replaced
        # whole (the lock file itself cannot be: a new inode would not be the one locked), so it
        # never reads empty while it is written.
        self.holder_path = self.final.with_name(f".{self.final.name}.lock.holder")
        # The folders commit() is moving from the published site into the staged one (see the
        # module's docstring): written before the first move, removed after the swap.
        self.journal_path = self.final.with_name(f".{self.final.name}.carried-{os.getpid()}.json")
        self._lock = None

    def begin(self) -> str:
        """Take the lock, clear what killed builds left, and say where MkDocs should write."""
        self.final.parent.mkdir(parents=True, exist_ok=True)
        self._acquire()
        for journal in self.final.parent.glob(f".{self.final.name}.carried-*.json"):
            self._put_back(journal)
        for stale in self.final.parent.glob(f".{self.final.name}.partial-*"):
            if stale != self.staging and process_is_gone(stale.name.rsplit("-", 1)[-1]):
                shutil.rmtree(stale, ignore_errors=True)
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging.mkdir(parents=True)
        return str(self.staging)

    def commit(self, carried: list[str] = ()) -> None:
        """The new site replaces the old one in one atomic step; the old one is then removed.
        ``carried``: folders of the published site (site paths) the staged one takes whole
        (folders_to_carry), moved in just before the swap."""
        previous = None
        with _signals_held():  # from the first folder carried to the new site in place
            self._carry(carried)
            try:
                exchanged = self.final.exists() and _exchange(self.staging, self.final)
            except OSError:
                self._move_back(carried)
                raise
            if exchanged:
                previous = self.staging  # now holds the previous site
            else:
                previous = self.final.with_name(f".{self.final.name}.previous-{os.getpid()}")
                if self.final.exists():
                    self.final.rename(previous)
                self.staging.rename(self.final)
            self.journal_path.unlink(missing_ok=True)
        shutil.rmtree(previous, ignore_errors=True)
        self._release()

    def _carry(self, folders: list[str]) -> None:
        """Move each folder from the published site into the staged one; on a failure, every
        folder moved so far goes back and the error is raised (the build is then abandoned)."""
        if not folders:
            return
        self.journal_path.write_text(json.dumps({"staging": str(self.staging), "folders": list(folders)}),
                                     encoding="utf-8")
        moved = []
        try:
            for folder in folders:
                target = self.staging / folder
                target.parent.mkdir(parents=True, exist_ok=True)
                os.rename(self.final / folder, target)
                moved.append(folder)
        except OSError:
            self._move_back(moved)
            raise

    def _move_back(self, folders: list[str]) -> None:
        for folder in reversed(folders):
            os.rename(self.staging / folder, self.final / folder)
        self.journal_path.unlink(missing_ok=True)

    def _put_back(self, journal: Path) -> None:
        """A build killed between carrying folders and the swap (its journal left behind, its
        process gone): the folders go back into the published site, which then is whole again."""
        if not process_is_gone(journal.stem.rsplit("-", 1)[-1]):
            return
        try:
            record = json.loads(journal.read_text(encoding="utf-8"))
            staging, folders = Path(record["staging"]), list(record["folders"])
        except (OSError, ValueError, KeyError, TypeError):
            journal.unlink(missing_ok=True)
            return
        for folder in folders:
            source, target = staging / folder, self.final / folder
            if source.is_dir() and not os.path.lexists(target) and target.parent.is_dir():
                os.rename(source, target)
        journal.unlink(missing_ok=True)

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
        self._release()

    def _acquire(self) -> None:
        stream = open(self.lock_path, "a+", encoding="utf-8")
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            stream.close()
            try:
                holder = self.holder_path.read_text(encoding="utf-8").strip() or "unknown"
            except OSError:
                holder = "unknown"  # the holder has not yet written it (the first instant of its build)
            raise ScalecoreError(
                f"scalecore: another build is writing {self.final} (pid {holder}); nothing was changed. "
                f"Fix: wait for it to finish and build again, or build into another folder (mkdocs build -d DIR)."
            ) from None
        self._lock = stream
        for stale in self.final.parent.glob(f"{self.holder_path.name}.*"):  # killed while naming itself
            if process_is_gone(stale.name.rsplit(".", 1)[-1]):
                try:
                    stale.unlink(missing_ok=True)
                except OSError:
                    pass
        partial = self.holder_path.with_name(f"{self.holder_path.name}.{os.getpid()}")
        try:
            partial.write_text(f"{os.getpid()}\n", encoding="utf-8")
            os.replace(partial, self.holder_path)
        except OSError:  # a full disk: nothing left behind, and the build stops here, saying so
            try:
                partial.unlink(missing_ok=True)
            except OSError:
                pass
            self._release()
            raise

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the file releases the flock
            self._lock = None


HELD_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@contextmanager
def _signals_held():
    """Hold SIGTERM, SIGINT and SIGHUP for the block (a few renames: about a millisecond), then
    deliver the first that came, as if it came just after: the block is never left half done.

    Python runs a signal's handler in the main thread, between two of its instructions, whichever
    thread the kernel gave the signal to; so a handler that notes the signal holds it for every
    thread. Only the main thread may set handlers: elsewhere (a development server's rebuild
    thread, which stages nothing) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    before = {number: signal.signal(number, lambda number, frame: came.append(number)) for number in HELD_SIGNALS}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)  # None: set outside Python
        if came:
            os.kill(os.getpid(), came[0])  # its own handler now, or the default: the end of the build


def folders_to_carry(staging: str, final: str, unchanged: set[str]) -> list[str]:
    """The largest folders of the published site (``final``) that the staged site can take whole:
    every file in the folder is one of ``unchanged`` (site paths the new site publishes with the
    same bytes), every one of those under it is there, it holds no empty folder, and the staged
    site has nothing at that path yet (the engine wrote nothing there). A stray file in a
    published folder keeps that folder from being carried, so the new site never inherits it."""
    beneath: dict[str, set[str]] = {}
    for site_path in unchanged:
        parts = site_path.split("/")
        for depth in range(1, len(parts)):
            beneath.setdefault("/".join(parts[:depth]), set()).add(site_path)
    carried: list[str] = []
    for folder in sorted(beneath, key=lambda name: (name.count("/"), name)):
        if any(folder.startswith(taken + "/") for taken in carried):
            continue
        if os.path.lexists(os.path.join(staging, folder)):
            continue
        if _files_under(os.path.join(final, folder), folder) == beneath[folder]:
            carried.append(folder)
    return sorted(carried)


def _files_under(folder: str, prefix: str) -> set[str] | None:
    """Every entry under ``folder`` that is not a folder, as site paths; None when ``folder`` is not
    a real folder or holds an empty one (neither can be carried as it is)."""
    if os.path.islink(folder) or not os.path.isdir(folder):
        return None
    found: set[str] = set()

    def walk(path: str, at: str) -> bool:
        empty = True
        with os.scandir(path) as entries:
            for entry in entries:
                empty = False
                if entry.is_dir(follow_symlinks=False):
                    if not walk(entry.path, f"{at}/{entry.name}"):
                        return False
                else:
                    found.add(f"{at}/{entry.name}")
        return not empty

    try:
        return found if walk(folder, prefix) else None
    except OSError:
        return None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 RENAME_EXCHANGE); False where unsupported.

    Written by hand because neither the standard library nor a kept package offers it; where it
    is missing the caller falls back to two renames, still under the build lock.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EPERM, errno.ENOTSUP):
        return False  # a filesystem without exchange: fall back
    raise OSError(code, os.strerror(code), str(b))

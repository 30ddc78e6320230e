"""Build into a staging folder and swap it in only when the whole build succeeded.

MkDocs empties ``site_dir`` right after ``on_pre_build``, before any page is rendered, so an
error in a page (a malformed panel block, say) would leave the reader with half a site or none.
We point ``site_dir`` at a sibling staging folder instead, and swap it into place after a
clean build: a failed build leaves the previous site exactly as it was.

Two builds of one checkout at once must not share anything: each build stages into a folder of
its own (``.site.partial-<pid>``), and one lock per published folder (``.site.lock``, held with
``flock`` for the whole build) lets only one of them run; the other stops at once, naming the
process that holds it. The swap itself is one atomic ``renameat2(RENAME_EXCHANGE)`` on Linux, so a
web server reading ``site/`` sees the old tree or the new one, never a missing or partial folder.
"""

import ctypes
import errno
import fcntl
import logging
import os
import shutil
from pathlib import Path

from scalecore_generator.errors import ScalecoreError

from scalecore_generator.build.processes import process_is_gone


class WarningCounter(logging.Handler):
    """Counts warnings, so a ``--strict`` build that MkDocs will abort is not swapped in."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.count = 0

    def emit(self, record):
        self.count += 1


class StagedSite:
    def __init__(self, final: str):
        self.final = Path(final).absolute()
        self.staging = self.final.with_name(f".{self.final.name}.partial-{os.getpid()}")
        self.lock_path = self.final.with_name(f".{self.final.name}.lock")
        self.digests_path = self.final.with_name(f".{self.final.name}.digests.json")  # build/cache/digests.py
        # Who holds the lock, for the message another build gives: beside the lock file, replaced
        # whole (the lock file itself cannot be: a new inode would not be the one locked), so it
        # never reads empty while it is written.
        self.holder_path = self.final.with_name(f".{self.final.name}.lock.holder")
        self._lock = None

    def begin(self) -> str:
        """Take the lock, clear what killed builds left, and say where MkDocs should write."""
        self.final.parent.mkdir(parents=True, exist_ok=True)
        self._acquire()
        for stale in self.final.parent.glob(f".{self.final.name}.partial-*"):
            if stale != self.staging and process_is_gone(stale.name.rsplit("-", 1)[-1]):
                shutil.rmtree(stale, ignore_errors=True)
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging.mkdir(parents=True)
        return str(self.staging)

    def commit(self) -> None:
        """The new site replaces the old one in one atomic step; the old one is then removed."""
        if self.final.exists() and _exchange(self.staging, self.final):
            shutil.rmtree(self.staging, ignore_errors=True)  # now holds the previous site
        else:
            previous = self.final.with_name(f".{self.final.name}.previous-{os.getpid()}")
            if self.final.exists():
                self.final.rename(previous)
            self.staging.rename(self.final)
            shutil.rmtree(previous, ignore_errors=True)
        self._release()

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
        partial = self.holder_path.with_name(f"{self.holder_path.name}.{os.getpid()}")
        partial.write_text(f"{os.getpid()}\n", encoding="utf-8")
        os.replace(partial, self.holder_path)
        self._lock = stream

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the file releases the flock
            self._lock = None


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

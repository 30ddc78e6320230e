"""Disk and permission problems as one line a user can act on: the path, what ran out, the fix.

A build writes in two places: the cache (``cache_dir``: learned tables, baked entries, the core
wheel) and a staging folder beside the published site, which holds a whole new site until it
replaces the old one. So besides the cache, a build needs room for one more copy of the site.
"""

import errno
import os
import shutil
import tempfile
from pathlib import Path

MB = 1024 * 1024


def explain(error: OSError, doing: str, place: Path | str | None = None) -> str:
    """``error`` (raised while ``doing``, e.g. "writing the cache") as one line with its fix.
    ``place``: the folder being written, named (and its free space measured) when the error
    itself carries no file name, as a write() to an open file does not. With neither, no figure:
    the free space of another folder (the working directory's) may be another disk's."""
    known = error.filename or place
    path = str(known) if known is not None else "a file the error did not name"
    if error.errno == errno.ENOSPC:
        free = _free_mb(Path(error.filename).parent if error.filename else Path(place)) if known is not None else None
        if error.strerror and error.strerror != os.strerror(errno.ENOSPC):
            room = f" ({error.strerror})"  # ours, from check_room: what is needed and what is free
        else:
            room = f" ({free:,.0f} MB free there)" if free is not None else ""
        return (f"scalecore: no space left on the device holding {path} while {doing}{room}. Fix: free some "
                "space there (a build needs the cache plus one more copy of the site beside site/: "
                "scalecore guide offline), or move cache_dir or the site (mkdocs build -d DIR) to a disk with room.")
    if error.errno == errno.EDQUOT:
        return (f"scalecore: the disk quota is used up for {path} while {doing}. Fix: free some of your quota, "
                "or move cache_dir or the site (mkdocs build -d DIR) elsewhere.")
    if error.errno == errno.ELOOP:
        return (f"scalecore: cannot read {path}: it is a symbolic link that leads back to itself (a loop of "
                "links). Fix: replace the link with the file it stands for, or point it at a file that exists, then "
                "build again.")
    if error.errno in (errno.EACCES, errno.EPERM) and _reading(error, place):
        return (f"scalecore: cannot read {path}: {error.strerror}. Fix: make it readable for this user "
                f"(chmod u+r {path}), then build again.")
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        where = Path(error.filename).parent if error.filename else Path(place) if place is not None else None
        folder = f"make {where} writable for this user" if where is not None else "make the folder writable"
        return (f"scalecore: cannot write {path} while {doing}: {error.strerror}. Fix: {folder}, or point "
                "cache_dir (or the site, mkdocs build -d DIR) at a writable folder.")
    return (f"scalecore: {error.strerror or error} ({path}) while {doing}. Fix: check that the folder exists "
            "and is writable, then build again.")


def _reading(error: OSError, place: Path | str | None) -> bool:
    """Whether a permission error was a read: it names a file outside the folder being written
    (``place``) that is there and that this user cannot read (the pages, the corpora, a kind)."""
    if not error.filename:
        return False
    target = os.path.abspath(os.fsdecode(error.filename))
    if place is not None and (target + os.sep).startswith(os.path.abspath(place) + os.sep):
        return False
    return os.path.isfile(target) and not os.access(target, os.R_OK)


def _free_mb(folder: Path) -> float | None:
    for candidate in [folder, *folder.parents]:
        try:
            return shutil.disk_usage(candidate).free / MB
        except OSError:
            continue
    return None


def check_room(staging: Path, need: int) -> None:
    """Raise an ENOSPC-style OSError before writing ``need`` bytes under ``staging`` when the disk
    plainly cannot hold them (so the build stops before it writes half a site)."""
    free = _free_mb(staging)
    if free is not None and free * MB < need:
        raise OSError(errno.ENOSPC, f"{amount(need)} needed, {amount(free * MB)} free", str(staging))


def amount(size: float) -> str:
    """A number of bytes as a reader reads it: "850 kB", "3.4 MB", "1,204 MB" (a small site's
    "0 MB needed, 0 MB free" said nothing)."""
    if size < MB:
        return f"{size / 1024:,.0f} kB"
    return f"{size / MB:,.1f} MB" if size < 10 * MB else f"{size / MB:,.0f} MB"


_CLONES = {"work": True}  # FICLONE worked, or has not been tried, on this machine's file system


def clone_or_copy(source: Path, target: Path) -> None:
    """``target`` as a file of its own with ``source``'s bytes: a clone where the file system can
    share blocks copy-on-write (btrfs, XFS, APFS through the kernel's FICLONE), a plain copy
    elsewhere. Never a hard link: the published site and the cache must not share a byte, or a
    change to one (a byte flipped in the cache, an edit under site/) would change the other at
    once, without a build or its checks. The clone is tried until the file system refuses it
    once; then every file is copied with shutil.copyfile (the kernel's sendfile)."""
    try:
        target.unlink()
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
    if _CLONES["work"]:
        try:
            import fcntl

            with open(source, "rb") as given, open(target, "wb") as made:
                fcntl.ioctl(made.fileno(), 0x40049409, given.fileno())  # FICLONE: share blocks, copy-on-write
            return
        except (ImportError, OSError):
            _CLONES["work"] = False
    shutil.copyfile(source, target)


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path`` and rename it into place: a killed build never
    leaves half a file that a later build would read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

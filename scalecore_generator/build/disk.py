"""Disk and permission problems as one line a user can act on: the path, what ran out, the fix.

A build writes in two places: the cache (``cache_dir``: learned tables, baked entries, the core
wheel) and a staging folder beside the published site, which holds a whole new site until it
replaces the old one. So besides the cache, a build needs room for one more copy of the site.
"""

import errno
import os
import shutil
from pathlib import Path

MB = 1024 * 1024


def explain(error: OSError, doing: str, place: Path | str | None = None) -> str:
    """``error`` (raised while ``doing``, e.g. "writing the cache") as one line with its fix.
    ``place``: the folder being written, named (and its free space measured) when the error
    itself carries no file name, as a write() to an open file does not."""
    path = error.filename or (str(place) if place is not None else "(unknown path)")
    where = Path(error.filename).parent if error.filename else Path(place) if place is not None else Path(".")
    if error.errno == errno.ENOSPC:
        free = _free_mb(where)
        if error.strerror and error.strerror != os.strerror(errno.ENOSPC):
            room = f" ({error.strerror})"  # ours, from check_room: what is needed and what is free
        else:
            room = f" ({free:,.0f} MB free there)" if free is not None else ""
        return (f"scalecore: no space left on the device holding {path} while {doing}{room}. Fix: free some "
                "space there (a build needs the cache plus one more copy of the site beside site/: see "
                "the offline guide), or move cache_dir or the site (mkdocs build -d DIR) to a disk with room.")
    if error.errno == errno.EDQUOT:
        return (f"scalecore: the disk quota is used up for {path} while {doing}. Fix: free some of your quota, "
                "or move cache_dir or the site (mkdocs build -d DIR) elsewhere.")
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return (f"scalecore: cannot write {path} while {doing}: {error.strerror}. Fix: make {where} writable "
                "for this user, or point cache_dir (or the site, mkdocs build -d DIR) at a writable folder.")
    return (f"scalecore: {error.strerror or error} ({path}) while {doing}. Fix: check that the folder exists "
            "and is writable, then build again.")


def _free_mb(folder: Path) -> float | None:
    for candidate in [folder, *folder.parents]:
        try:
            return shutil.disk_usage(candidate).free / MB
        except OSError:
            continue
    return None


def folder_bytes(folder: Path) -> int:
    """The bytes of every file under ``folder`` (0 when it does not exist)."""
    total = 0
    for top, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                continue
    return total


def check_room(staging: Path, need: int) -> None:
    """Raise an ENOSPC-style OSError before writing ``need`` bytes under ``staging`` when the disk
    plainly cannot hold them (so the build stops before it writes half a site)."""
    free = _free_mb(staging)
    if free is not None and free * MB < need:
        raise OSError(errno.ENOSPC, f"{need / MB:,.0f} MB needed, {free:,.0f} MB free", str(staging))

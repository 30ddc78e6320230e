"""The build cache's entries: written atomically and checked every time they are used.

An *entry* is a folder named by the hash of its inputs (the key), written into a temporary
folder that carries the writer's pid and renamed into place when complete. Beside its files it
holds a record, ``.entry.json``, of every file's sha256. Using an entry re-hashes its files
against the record: a file changed on disk (a bit flip, a stray edit, a truncated copy) makes
the entry *damaged*; the build says so in one line and bakes it again, so a wrong number is
never shipped and never hashed into the manifest as if it were right.

Temporary folders of killed builds are recognised by their pid and removed; a failed write
removes its temporary folder before the error goes on. Every entry a build uses (found intact,
or written) is noted by the build's ``use`` (ledger.SharedUse): what the usage ledger records
when the build has succeeded.
"""

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scalecore_generator.foundation.processes import process_is_gone

RECORD = ".entry.json"
TEMPORARY = ".tmp-"


def content_name(key: str, data: bytes, suffix: str) -> str:
    """``<key>.<the start of data's sha256><suffix>``: a cached result named by what it was made
    from (``key``) and by what it holds, so that reading it can check it."""
    return f"{key}.{hashlib.sha256(data).hexdigest()[:32]}{suffix}"


def content_named(folder: Path, key: str, suffix: str, names: list[str] | None = None,
                  digest=None) -> tuple[Path, bytes | None] | None:
    """The cached result for ``key`` in ``folder`` whose bytes still match its name (see
    content_name), and its bytes; None if there is none, so a damaged copy is made again rather
    than served. ``names``: the folder's listing, for a caller that looks up many keys (a glob
    lists the folder again for each). ``digest(path)``: a file's sha256 (the build's ledger,
    which knows an unchanged file's without reading it); then the bytes are not read (None)."""
    if names is None:
        names = os.listdir(folder) if os.path.isdir(folder) else []
    start = f"{key}."
    for name in sorted(n for n in names if n.startswith(start) and n.endswith(suffix)):
        cached = Path(folder) / name
        try:
            if digest is not None:
                if name == f"{key}.{digest(cached)[:32]}{suffix}":
                    return cached, None
                continue
            data = cached.read_bytes()
        except OSError:
            continue
        if name == content_name(key, data, suffix):
            return cached, data
    return None


def sha256_file(path: Path) -> str:
    """The file's sha256, read now. Read in chunks of 1 MiB: ``hashlib.file_digest`` allocates and
    zeroes a buffer of 256 KiB for every call, which for the bake's thousand small files was a
    third of the time it took to check them."""
    fd = os.open(path, os.O_RDONLY)
    try:
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def damage(folder: Path, digest=sha256_file) -> str | None:
    """Why the entry in ``folder`` cannot be trusted, or None when every file matches its record.
    ``digest(path)``: a file's sha256; a build passes its ledger's (digests.py), which reads
    again only a file written since it was last read."""
    return _checked(folder, digest)[0]


def _checked(folder: Path, digest) -> tuple[str | None, dict[str, str]]:
    """(damage's answer, the record's files: name -> sha256, sorted by name)."""
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        files = record["files"]
    except FileNotFoundError:
        return f"it has no {RECORD}", {}
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"its {RECORD} is unreadable ({type(error).__name__})", {}
    return _mismatch(folder, files, digest), dict(sorted(files.items()))


def _mismatch(folder: Path, files: dict, digest) -> str | None:
    present = set()

    def walk(path: str, prefix: str) -> None:  # os.scandir: os.walk's lists and relpaths cost a warm bake more
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    walk(entry.path, f"{prefix}{entry.name}/")
                else:
                    present.add(prefix + entry.name)

    walk(os.fspath(folder), "")
    present.discard(RECORD)
    if present != set(files):
        extra, missing = sorted(present - set(files)), sorted(set(files) - present)
        return f"missing {missing[0]}" if missing else f"unexpected file {extra[0]}"
    where = os.fspath(folder)
    for name, expected in sorted(files.items()):
        try:
            if digest(os.path.join(where, name)) != expected:
                return f"{name} does not match its recorded sha256"
        except OSError as error:
            return f"{name} is unreadable ({error.strerror})"
    return None


def usable(folder: Path, log, digest=sha256_file, use=None) -> bool:
    """True when the entry exists and is intact (``digest``: see damage); then noted as used by
    the build's ``use`` (ledger.SharedUse). A damaged entry is reported, moved out of the way and
    removed, so the caller bakes it again."""
    return intact_files(folder, log, digest, use) is not None


def intact_files(folder: Path, log, digest=sha256_file, use=None) -> dict[str, str] | None:
    """usable(), answered with the entry's files (its record's: name -> sha256, each just found
    to match; sorted by name), or None."""
    if not folder.is_dir():
        return None
    problem, files = _checked(folder, digest)
    if problem is None:
        if use is not None:
            use.note(folder)
        return files
    log.info(f"cache: the entry {folder.name} is damaged ({problem}); it will be rebuilt.")
    discarded = folder.with_name(f"{TEMPORARY}damaged-{folder.name}-{os.getpid()}")
    try:
        folder.rename(discarded)
    except OSError:
        discarded = folder
    shutil.rmtree(discarded, ignore_errors=True)
    return None


@contextmanager
def writing(target: Path, use=None) -> Iterator[Path]:
    """``with writing(target) as folder:`` fill ``folder``; on success it is recorded and renamed
    to ``target`` (and noted as used by the build's ``use``); on any error it is removed and the
    error goes on."""
    temporary = target.with_name(f"{TEMPORARY}{target.name}-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        temporary.mkdir(parents=True)
        yield temporary
        files = {path.relative_to(temporary).as_posix(): sha256_file(path)
                 for path in sorted(temporary.rglob("*")) if path.is_file()}
        (temporary / RECORD).write_text(json.dumps({"files": files}, indent=0, sort_keys=True), encoding="utf-8")
        _publish(temporary, target)
        if use is not None:
            use.note(target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _publish(temporary: Path, target: Path) -> None:
    """Rename a finished folder into place; if another build got there first, keep theirs."""
    try:
        temporary.rename(target)
    except OSError:
        if not target.is_dir():
            raise
        shutil.rmtree(temporary, ignore_errors=True)


def remove_abandoned(folder: Path) -> None:
    """Remove temporary folders whose writer is gone (a killed build): never trusted."""
    if not folder.is_dir():
        return
    for stale in folder.glob(f"{TEMPORARY}*"):
        if process_is_gone(stale.name.rsplit("-", 1)[-1]):
            shutil.rmtree(stale, ignore_errors=True)

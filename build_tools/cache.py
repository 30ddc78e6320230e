"""The build cache: entries that are written atomically and checked every time they are used.

An *entry* is a folder named by the hash of its inputs (the key), written into a temporary
folder that carries the writer's pid and renamed into place when complete. Beside its files it
holds a record, ``.entry.json``, of every file's sha256. Using an entry re-hashes its files
against the record: a file changed on disk (a bit flip, a stray edit, a truncated copy) makes
the entry *damaged*; the build says so in one line and bakes it again, so a wrong number is
never shipped and never hashed into the manifest as if it were right.

Small records (a corpus's counts) carry their own hash the same way (:func:`write_record`).
Temporary folders of killed builds are recognised by their pid and removed; a failed write
removes its temporary folder before the error goes on.
"""

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import jinja2

from build_tools.processes import process_is_gone

RECORD = ".entry.json"
TEMPORARY = ".tmp-"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def damage(folder: Path) -> str | None:
    """Why the entry in ``folder`` cannot be trusted, or None when every file matches its record."""
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        files = record["files"]
    except FileNotFoundError:
        return f"it has no {RECORD}"
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"its {RECORD} is unreadable ({type(error).__name__})"
    present = {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()} - {RECORD}
    if present != set(files):
        extra, missing = sorted(present - set(files)), sorted(set(files) - present)
        return f"missing {missing[0]}" if missing else f"unexpected file {extra[0]}"
    for name, expected in sorted(files.items()):
        try:
            if sha256_file(folder / name) != expected:
                return f"{name} does not match its recorded sha256"
        except OSError as error:
            return f"{name} is unreadable ({error.strerror})"
    return None


def usable(folder: Path, log) -> bool:
    """True when the entry exists and is intact. A damaged entry is reported, moved out of the
    way and removed, so the caller bakes it again."""
    if not folder.is_dir():
        return False
    problem = damage(folder)
    if problem is None:
        return True
    log.info(f"cache: the entry {folder.name} is damaged ({problem}); it will be rebuilt.")
    discarded = folder.with_name(f"{TEMPORARY}damaged-{folder.name}-{os.getpid()}")
    try:
        folder.rename(discarded)
    except OSError:
        discarded = folder
    shutil.rmtree(discarded, ignore_errors=True)
    return False


@contextmanager
def writing(target: Path) -> Iterator[Path]:
    """``with writing(target) as folder:`` fill ``folder``; on success it is recorded and renamed
    to ``target``; on any error it is removed and the error goes on."""
    temporary = target.with_name(f"{TEMPORARY}{target.name}-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        temporary.mkdir(parents=True)
        yield temporary
        files = {path.relative_to(temporary).as_posix(): sha256_file(path)
                 for path in sorted(temporary.rglob("*")) if path.is_file()}
        (temporary / RECORD).write_text(json.dumps({"files": files}, indent=0, sort_keys=True), encoding="utf-8")
        _publish(temporary, target)
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


# ------------------------------------------------------------------------------ small records


def write_record(path: Path, data) -> None:
    """A small JSON record that carries the hash of its own content."""
    from scalecore.embeddings import write_atomically

    body = json.dumps(data, sort_keys=True)
    write_atomically(path, json.dumps({"sha256": hashlib.sha256(body.encode()).hexdigest(), "data": data},
                                      sort_keys=True))


def read_record(path: Path, log):
    """The record's data, or None when it is missing or damaged (a damaged one is reported)."""
    try:
        wrapper = json.loads(path.read_text(encoding="utf-8"))
        body = json.dumps(wrapper["data"], sort_keys=True)
        if hashlib.sha256(body.encode()).hexdigest() == wrapper["sha256"]:
            return wrapper["data"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        pass
    log.info(f"cache: the record {path.name} is damaged; it will be rebuilt.")
    return None


# ------------------------------------------------------------------------------ templates


class TemplateCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept across builds. It only ever saves time: an unreadable or damaged
    file is compiled again, and a cache that cannot be written (read-only, full) is skipped.
    What a build compiles is written when the build succeeds (``save_templates``), so a failed
    build leaves the cache as it was, like the rest of it."""

    def __init__(self, directory: str):
        super().__init__(directory)
        self.pending: dict[str, jinja2.bccache.Bucket] = {}

    def load_bytecode(self, bucket):
        try:
            super().load_bytecode(bucket)
        except Exception:  # marshal refuses damaged bytes in several ways
            bucket.reset()

    def dump_bytecode(self, bucket):
        self.pending[bucket.key] = bucket

    def save(self) -> None:
        pending, self.pending = self.pending, {}
        for bucket in pending.values():
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass


_template_caches: dict[str, TemplateCache] = {}


def template_cache(folder: Path) -> TemplateCache | None:
    """The cache of compiled templates in ``folder`` (one object per folder, for save_templates)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _template_caches.setdefault(str(folder), TemplateCache(str(folder)))


def save_templates() -> None:
    """Write the templates this build compiled (called once the build has succeeded)."""
    for cache in _template_caches.values():
        cache.save()


def forget_templates() -> None:
    """Drop what a failed build compiled."""
    for cache in _template_caches.values():
        cache.pending.clear()

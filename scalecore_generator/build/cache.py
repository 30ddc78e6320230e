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

import functools
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import jinja2

from scalecore_generator.build.disk import write_atomically
from scalecore_generator.build.processes import process_is_gone

RECORD = ".entry.json"
TEMPORARY = ".tmp-"


def content_name(key: str, data: bytes, suffix: str) -> str:
    """``<key>.<the start of data's sha256><suffix>``: a cached result named by what it was made
    from (``key``) and by what it holds, so that reading it can check it."""
    return f"{key}.{hashlib.sha256(data).hexdigest()[:32]}{suffix}"


def content_named(folder: Path, key: str, suffix: str) -> tuple[Path, bytes] | None:
    """The cached result for ``key`` in ``folder`` whose bytes still match its name (see
    content_name), and its bytes; None if there is none, so a damaged copy is made again rather
    than served."""
    for cached in sorted(folder.glob(f"{key}.*{suffix}")):
        try:
            data = cached.read_bytes()
        except OSError:
            continue
        if cached.name == content_name(key, data, suffix):
            return cached, data
    return None


def sha256_file(path: Path) -> str:
    """The file's sha256, read now. Read in chunks of 1 MiB: ``hashlib.file_digest`` allocates and
    zeroes a buffer of 256 KiB for every call, which for the bake's thousand small files was a
    third of the time it took to check them."""
    fd = os.open(path, os.O_RDONLY)
    try:
        identity = _identity(fd)  # before reading: a file changed while it is read is hashed again
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    _hashed[identity] = hexdigest = digest.hexdigest()
    return hexdigest


# What this build has hashed (the cache's checks, the runtime's files), by the file's identity:
# the manifest lists the sha256 of a thousand files, most of them hashed moments before by the
# check of their cache entry. Only within one build (forget_hashes() starts each): across builds,
# a file is always hashed again, so a changed one is found.
_hashed: dict[tuple, str] = {}


def _identity(fd_or_path) -> tuple:
    stat = os.stat(fd_or_path)
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def sha256_hashed(path: Path) -> str:
    """sha256_file(path), or what this build found when it hashed the same, unchanged file."""
    try:
        known = _hashed.get(_identity(path))
    except OSError:
        known = None
    return known or sha256_file(path)


def forget_hashes() -> None:
    _hashed.clear()


def damage(folder: Path) -> str | None:
    """Why the entry in ``folder`` cannot be trusted, or None when every file matches its record."""
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        files = record["files"]
    except FileNotFoundError:
        return f"it has no {RECORD}"
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"its {RECORD} is unreadable ({type(error).__name__})"
    present = set()
    for here, _, names in os.walk(folder):
        inner = os.path.relpath(here, folder).replace(os.sep, "/")
        present.update(names if inner == "." else (f"{inner}/{name}" for name in names))
    present.discard(RECORD)
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
        note_use(folder)
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
        note_use(target)
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
    body = json.dumps(data, sort_keys=True)
    write_atomically(path, json.dumps({"sha256": hashlib.sha256(body.encode()).hexdigest(), "data": data},
                                      sort_keys=True))


_HEAD, _TAIL = '{"data": ', ', "sha256": "'


def read_record(path: Path, log):
    """The record's data, or None when it is missing or damaged (a damaged one is reported)."""
    try:
        text = path.read_text(encoding="utf-8")
        # As write_record lays it out: {"data": <body>, "sha256": "<sha256 of body>"}. The body's
        # own bytes are hashed, not a re-encoding of what they parse to (a record of rendered
        # views is megabytes: re-encoding it was a tenth of a second of every warm build).
        end = len(text) - len(_TAIL) - 64 - 2
        if text.startswith(_HEAD) and text.endswith('"}') and text[end:end + len(_TAIL)] == _TAIL:
            body = text[len(_HEAD):end]
            if hashlib.sha256(body.encode()).hexdigest() == text[end + len(_TAIL):-2]:
                return json.loads(body)
        wrapper = json.loads(text)
        body = json.dumps(wrapper["data"], sort_keys=True)
        if hashlib.sha256(body.encode()).hexdigest() == wrapper["sha256"]:
            return wrapper["data"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        pass
    log.info(f"cache: the record {path.name} is damaged; it will be rebuilt.")
    return None


class Memo:
    """Values derived from inputs, kept across builds under the hash of those inputs (what a
    module imports, a page's mentor passages, the numbers pages quote), so a warm build does not
    derive them again. A record with its own hash (:func:`write_record`): a damaged one is
    reported and derived again. ``save()`` (when the build has succeeded) keeps exactly the keys
    this build used, and writes nothing when they are the ones it found. ``version`` names the
    code that derives the values: another version starts empty."""

    def __init__(self, path: Path | None, log, version: str = ""):
        self.path, self.version = (Path(path) if path is not None else None), version
        data = read_record(self.path, log) if self.path is not None else None
        fresh = isinstance(data, dict) and data.get("version") == version and isinstance(data.get("values"), dict)
        self.values: dict = dict(data["values"]) if fresh else {}
        self.loaded, self.used = set(self.values), set()

    def get(self, key: str, make):
        """The value under ``key``, or ``make()`` (kept for later builds)."""
        if key not in self.values:
            self.values[key] = make()
        self.used.add(key)
        return self.values[key]

    def save(self) -> None:
        if self.path is None or self.used == self.loaded:
            return
        try:
            write_record(self.path, {"version": self.version, "values": {k: self.values[k] for k in sorted(self.used)}})
            self.loaded = set(self.used)
        except OSError:
            pass  # best effort: the memo only saves time


def program_version(program: str, memo: Path) -> str:
    """``program --version``, kept in the JSON file ``memo`` under the identity of the program's
    file (its real path, size, inode, modification and change times): for Chromium, whose
    version is part of the memory snapshot's key, that is a shell wrapper starting a dozen
    processes, about 75 ms of every build. An upgrade replaces the file, so it is asked again,
    as it is when the memo is missing or unreadable. 'unknown' (never kept) when the program
    cannot be run."""
    import subprocess

    try:
        real = os.path.realpath(program)
        stat = os.stat(real)
        identity = [stat.st_size, stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns]
    except OSError:
        real = identity = None
    try:
        known = json.loads(Path(memo).read_text(encoding="utf-8"))  # real path -> [identity, version]
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    entry = known.get(real)
    if identity is not None and isinstance(entry, list) and len(entry) == 2 and entry[0] == identity \
            and isinstance(entry[1], str):
        return entry[1]
    try:
        answer = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    version = answer.stdout.strip()
    if identity is not None and answer.returncode == 0 and version:
        try:
            write_atomically(Path(memo), json.dumps({**known, real: [identity, version]}, sort_keys=True, indent=0))
        except OSError:
            pass  # best effort: the memo only saves time
    return version


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


# ------------------------------------------------------------------------------ keeping it bounded
#
# Every entry a build uses (found intact, or written) is noted; when the build has succeeded, the
# ledger (usage.json) records the build's number for each, and entries no build has used for
# ``keep_builds`` builds are removed. A build that used exactly what the last one used counts
# for nothing and writes nothing: a warm rebuild leaves the cache untouched. Builds hold a shared lock on the cache while they run and a
# prune needs it exclusively, so a prune never removes an entry another build is reading: when
# another build holds the cache, the prune waits for a later build (or tells the command's user).

LEDGER = "usage.json"
LOCK = ".lock"
_used: set[str] = set()


def note_use(folder: Path) -> None:
    folder = Path(folder)
    if folder.is_symlink():
        _used.add(str(folder.resolve()))
    else:  # resolving the parent once: the bake notes a hundred entries of one folder
        _used.add(os.path.join(_resolved(str(folder.parent)), folder.name))


@functools.lru_cache(maxsize=4096)
def _resolved(folder: str) -> str:
    return str(Path(folder).resolve())


def in_checked_entry(path: Path) -> bool:
    """True when ``path`` is a file of an entry this build found intact (:func:`usable`) or wrote
    (:func:`writing`): what it holds matches the entry's record, now."""
    folder = _resolved(os.path.dirname(os.path.abspath(path)))
    while folder not in _used:
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return True


def entries(root: Path) -> list[Path]:
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
    """The shared lock a build holds on its cache while it runs (fcntl; a no-op where absent)."""

    def __init__(self, root: Path):
        self.root, self.handle = Path(root), None

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
    for entry in entries(root):
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
    for folder in _used:
        try:
            used.add(Path(folder).relative_to(root.resolve()).as_posix())
        except ValueError:
            pass  # an entry outside this cache (another site's)
    _used.clear()
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
            present = {entry.relative_to(root).as_posix() for entry in entries(root)}
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

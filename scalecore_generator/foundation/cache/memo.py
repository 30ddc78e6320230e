"""What the build derives and keeps across builds, each only ever saving time: small records that
carry the hash of their own content (a corpus's counts, the typeset formulas), the memo of
values derived from inputs (:class:`Memo`), programs' versions, and compiled templates. A damaged
one is reported and made again; one that cannot be written is skipped.
"""

import hashlib
import json
import os
from pathlib import Path

import jinja2

from scalecore_generator.foundation.disk import write_atomically


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
        self.path, self.version, self.log = (Path(path) if path is not None else None), version, log
        self._values: dict | None = None  # read on first use: a build that asks nothing of it reads nothing
        self.loaded, self.used = set(), set()
        self.kept: set[str] = set()  # keys to keep if the memo holds them (keep), not read for it

    @property
    def values(self) -> dict:
        if self._values is None:
            data = read_record(self.path, self.log) if self.path is not None else None
            fresh = isinstance(data, dict) and data.get("version") == self.version and \
                isinstance(data.get("values"), dict)
            self._values = dict(data["values"]) if fresh else {}
            self.loaded = set(self._values)
        return self._values

    def get(self, key: str, make):
        """The value under ``key``, or ``make()`` (kept for later builds)."""
        if key not in self.values:
            self.values[key] = make()
        self.used.add(key)
        return self.values[key]

    def keep(self, key: str) -> None:
        """Keep the value under ``key``, if there is one, for later builds (as get() would),
        without reading the memo for it: a build that only keeps values leaves the memo as it was."""
        self.kept.add(key)

    def put(self, key: str, value) -> None:
        """Keep ``value`` under ``key`` (for later builds), whatever was there."""
        self.values[key] = value
        self.used.add(key)

    def save(self) -> None:
        if self.path is None or self._values is None:
            return  # unused by this build, or only kept from: left as it is for the next
        keys = self.used | (self.kept & self._values.keys())
        if keys == self.loaded:
            return  # unchanged
        try:
            write_record(self.path, {"version": self.version, "values": {k: self._values[k] for k in sorted(keys)}})
            self.loaded = keys
        except OSError:
            pass  # best effort: the memo only saves time


def program_version(program: str, memo: Path) -> str:
    """``program --version``, kept in the JSON file ``memo`` under the identity of the program's
    file (its real path, size, inode, modification and change times): for Chromium, whose
    version is part of the memory snapshot's key, that is a shell wrapper starting a dozen
    processes, on every build. An upgrade replaces the file, so it is asked again,
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
    What a build compiles is written when the build succeeds (``TemplateCaches.save``), so a failed
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


class TemplateCaches:
    """The caches of compiled templates one build uses, one per folder: what it compiled is
    written when it succeeds (save) and dropped when it fails (forget)."""

    def __init__(self):
        self.caches: dict[str, TemplateCache] = {}

    def get(self, folder: Path) -> TemplateCache | None:
        """The cache in ``folder`` (None when it cannot be made: templates are then compiled each time)."""
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        return self.caches.setdefault(str(folder), TemplateCache(str(folder)))

    def save(self) -> None:
        for cache in self.caches.values():
            cache.save()

    def forget(self) -> None:
        for cache in self.caches.values():
            cache.pending.clear()

"""The sha256 of the files one build publishes, each read at most once per build, and a file that
has not changed since an earlier build not read again.

The manifest and the offline listing name the sha256 of every file of the site: a thousand baked
files, and a runtime of a few hundred MB when the console's full stack was on (python.wasm alone
was 99 MB, and its compressed copies 36 MB more; its gzip parts are 50 MB now). Reading all of it
again on every warm build was most of what Scalecore added to a rebuild. So a build keeps
the digests it computed in a ledger beside the site it publishes (``.site.digests.json``, beside
``.site.lock``; the dev server's in the cache folder), each with the file's identity (device,
inode, size, modification and change times in nanoseconds), and takes a digest from there only
while the identity is the same.

Why that is safe: any write to a file changes its change time (ctime), which no program can set
back, and replacing it changes its inode. The one gap is a write within the clock's resolution
after the digest was taken; like git's index ("racily clean" entries), a digest is kept only for a
file whose times were already older than two seconds when it was read, so such a file is read
again next time. A cache entry's check against its record (entries.py, ``damage``) takes its
files' digests from here too, so a warm build reads none of the bake's thousand files: a file a
write changed (a stray edit, a copy cut short) is read again and found; what no write made (a
disk's own decay) is what ``scalecore cache --check`` is for, which reads every byte.

A ledger is only as true as what it was written from, so a staged build's ledger (beside the
site) is used only while every file it lists is still there: a published file missing (``rm -rf
site``) or a cache entry removed (``scalecore cache --check`` removes a damaged one) means
something outside the build changed what it vouched for, and that build reads every file it needs
again instead (a cold build's reading), and writes a new ledger. A digest it takes is then one it
read this build, or the ledger's for a file whose identity has not changed. Without that, a
tampered cache file entered in the ledger under its new identity with the old digest was copied
into a site that had been removed, and listed with the old digest.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from scalecore_generator.foundation.cache.entries import sha256_file
from scalecore_generator.foundation.processes import process_is_gone

SCHEMA = "scalecore/digests/1"
SETTLED_NS = 2_000_000_000  # a file's times must be this much older than the read (see above)


def ledger_beside(site: Path) -> Path:
    """The digest ledger a staged build keeps beside its site (``site`` -> ``.site.digests.json``)."""
    site = Path(site).absolute()
    return site.with_name(f".{site.name}.digests.json")


def _beside_a_site(ledger: Path) -> bool:
    return ledger.name.startswith(".") and ledger.name.endswith(".digests.json")


def _identity(stat: os.stat_result) -> list[int]:
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


class Digests:
    """The digests of one build. ``of(path)`` is the file's sha256; ``save()`` keeps, for the next
    build, the settled ones this build asked for (so the ledger holds the site's files, no more)."""

    def __init__(self, ledger: Path | None, sources: Path | None = None):
        self._ledger = Path(ledger) if ledger is not None else None
        self._before = self._read()
        # A staged build's second ledger, in the cache: the digests of the files it publishes
        # from (the cache's entries, the runtime, the full stack), for a build into a folder whose
        # own ledger knows nothing yet (a CI job with a restored cache, a new output folder),
        # which read 100 MB again to learn what the cache's files hold. Written only by such a
        # build, when it had to read some file: a build beside its own ledger writes nothing in
        # the cache.
        self._sources = Path(sources) if sources is not None else None
        self._sources_before = self._read_sources() if self._sources is not None and not self._before else {}
        self._published: set[str] = set()  # the site's own files (published()): not sources
        self._known: dict[str, list] = {}  # path -> identity + [sha256]: what this build knows
        self._settled: set[str] = set()  # the paths of those the next build may take from the ledger
        self._vouched: dict[str, str] = {}  # path -> sha256 this build checked otherwise (vouch)
        self.read = 0  # files this build had to read (for the benchmark's report)

    def _clear_leftovers(self, ledger: Path | None = None) -> None:
        """The temporary ledgers of builds killed while they wrote one (and the older name,
        ``..site.digests.json.<pid>.tmp``, which git did not ignore)."""
        ledger = ledger or self._ledger
        for pattern in (f"{ledger.name}.*.tmp", f".{ledger.name}.*.tmp"):
            for leftover in ledger.parent.glob(pattern):
                if process_is_gone(leftover.name[:-len(".tmp")].rsplit(".", 1)[-1]):
                    try:
                        leftover.unlink()
                    except OSError:
                        pass

    def _read(self) -> dict[str, list]:
        if self._ledger is None:
            return {}
        self._clear_leftovers()
        try:
            data = json.loads(self._ledger.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or damaged: every file is read, and a new ledger written
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("files"), dict):
            return {}
        if _beside_a_site(self._ledger) and not all(os.path.lexists(path) for path in data["files"]):
            return {}  # a published file or a cache entry gone since: every file is read (see above)
        return data["files"]

    def _read_sources(self) -> dict[str, list]:
        """The cache's ledger of sources, held to the same rule as a site's: used only while every
        file it lists is still there."""
        self._clear_leftovers(self._sources)
        try:
            data = json.loads(self._sources.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("files"), dict):
            return {}
        if not all(os.path.lexists(path) for path in data["files"]):
            return {}
        return data["files"]

    def _recall(self, key: str, identity: list[int]) -> str | None:
        """What this build, else the ledger, knows of the file as it is now (a ledger entry taken
        is kept for the next build too)."""
        known = self._known.get(key)
        if known is not None and known[:5] == identity:
            return known[5]
        kept = self._before.get(key) or self._sources_before.get(key)
        if isinstance(kept, list) and len(kept) == 6 and kept[:5] == identity and isinstance(kept[5], str):
            self._known[key] = kept
            self._settled.add(key)
            return kept[5]
        return None

    def of(self, path: Path) -> str:
        vouched = self._vouched.get(os.path.abspath(path)) if self._vouched else None
        return vouched if vouched is not None else self.sized(path)[0]

    def vouch(self, path: Path, digest: str) -> None:
        """``path`` holds bytes whose sha256 is ``digest``, as this build has just checked (a
        cache entry's file, found to match its entry's record, or written with it): of() gives
        it without a stat for the rest of the build. Only for a file nothing rewrites for the
        rest of the build: a cache entry's, once the bake is done (an entry is written whole
        into a temporary folder and renamed into place, then only read)."""
        self._vouched[os.path.abspath(path)] = digest

    def sized(self, path: Path) -> tuple[str, int]:
        """The file's sha256 and its size (one stat for both)."""
        key = os.path.abspath(path)
        stat = os.stat(key)
        identity = _identity(stat)
        recalled = self._recall(key, identity)
        if recalled is not None:
            return recalled, stat.st_size
        read_at = time.time_ns()
        digest = sha256_file(Path(key))
        self.read += 1
        self._known[key] = identity + [digest]
        if read_at - max(stat.st_mtime_ns, stat.st_ctime_ns) >= SETTLED_NS and _identity(os.stat(key)) == identity:
            self._settled.add(key)
        else:
            self._settled.discard(key)
        return digest, stat.st_size

    def known(self, path: Path) -> str | None:
        """The file's sha256 if this build or the ledger knows it for the file as it is now; never
        reads the file (None: unknown, or changed since)."""
        return self.known_sized(path)[0]

    def known_sized(self, path: Path) -> tuple[str | None, int]:
        """known(), and the file's size from the same stat (0 when there is no file)."""
        key = os.path.abspath(path)
        try:
            stat = os.stat(key)
        except OSError:
            return None, 0
        return self._recall(key, _identity(stat)), stat.st_size

    def wrote(self, path: Path, digest: str) -> None:
        """This build wrote ``path`` with bytes whose sha256 is ``digest`` (a copy of a file it
        hashed) just now: known without reading it, while its identity stays the same."""
        key = os.path.abspath(path)
        self._known[key] = _identity(os.stat(key)) + [digest]

    def forget(self, path: Path) -> None:
        """What this build knew of ``path`` is dropped: another writer replaced it (the engine's own
        file at the same path), so its digest is read again when asked."""
        key = os.path.abspath(path)
        self._known.pop(key, None)
        self._settled.discard(key)

    def published(self, files: dict[Path, str], carried: set[str] = frozenset()) -> None:
        """The files this build published (path -> sha256), in their final place: kept in the
        ledger, so the next build can tell an unchanged one without reading it (SiteBuild.publish
        links it instead of copying). They are not held to the two-second rule: this build wrote
        them moments ago from bytes it hashed, and nothing else writes into a site being built.
        ``carried``: those of them that came into the site inside a folder moved whole, which
        changes no file's times: their identity is the one this build found, not stat'ed again."""
        for path, digest in files.items():
            key = os.path.abspath(path)
            self._published.add(key)
            known = self._known.get(key) if key in carried else None
            if known is not None and known[5] == digest:
                self._settled.add(key)
                continue
            try:
                self._known[key] = _identity(os.stat(key)) + [digest]
            except OSError:
                continue
            self._settled.add(key)

    def matches(self, path: Path, prefix: str) -> bool:
        """True when the file's sha256 starts with ``prefix`` (a content-named cache file, whose
        name carries the start of its digest: see entries.content_name)."""
        try:
            return self.of(path).startswith(prefix)
        except OSError:
            return False

    def save(self) -> None:
        """Write the ledger (after a build that succeeded); a failure to write costs the next build
        some reading, nothing else."""
        if self._ledger is None:
            return
        files = {key: self._known[key] for key in sorted(self._settled)}
        if files == self._before:
            return  # a warm build of an unchanged site: the ledger as it was
        # Not the files gone since they were read (the minifier's temporary outputs, moved into
        # its cache): a ledger listing a missing file is not trusted, and the next build read
        # every file again.
        files = {key: known for key, known in files.items() if os.path.lexists(key)}
        if self._sources is not None and self.read and not self._before:
            sources = {key: known for key, known in files.items() if key not in self._published}
            if sources != self._sources_before:
                self._write(self._sources, sources)
        if files != self._before:
            self._write(self._ledger, files)

    def _write(self, ledger: Path, files: dict[str, list]) -> None:
        text = json.dumps({"schema": SCHEMA, "files": files}, separators=(",", ":"))
        temporary = ledger.with_name(f"{ledger.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(text + "\n", encoding="utf-8")
            temporary.replace(ledger)
        except OSError:  # a read-only cache, a full disk
            try:
                temporary.unlink(missing_ok=True)
            except OSError:
                pass

"""The one place a build writes the site's files besides the engine's pages.

Everything the build serves (the baked data, the runtime, our scripts, the manifests, the figures
the pages drew, the mentor's scripts) reaches the site through a ``Publisher``: it knows which of
them the published site already has with the same bytes (the digest ledger), copies only the
others, and at the swap carries whole folders of unchanged files into the new site. A test that
wants to see or stop the writes replaces this one object (``SiteBuild(publisher=...)``).

Never a link into the cache or the installed packages (disk.clone_or_copy): a change to one
would change the other. Nothing writes into a published file: the build stages a new site and
swaps it in (site_swap.py).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from scalecore_generator.builder.site_swap import StagedSite, folders_to_carry
from scalecore_generator.foundation import disk

COPYING_THREADS = 8


class Publisher:
    """What one build writes into its site, and what it found already published."""

    def __init__(self, digests):
        self.digests = digests  # foundation/cache.Digests: each file's sha256, known without reading it
        self.staged: StagedSite | None = None  # a staged build's site (None: written in place, the dev server)
        self.published: dict[str, str] = {}  # what was written, in its final place -> its sha256
        # site path -> (source file or bytes, published place, staged place, sha256, size) of each
        # file the published site already has with the same bytes: placed by place_unchanged()
        self.unchanged: dict[str, tuple[str | bytes, str, str, str, int]] = {}
        self.carried: list[str] = []  # the published site's folders the staged one takes whole
        self._copies: list | None = None  # while write_all runs: the copies it makes at once
        self._copying: _Copying | None = None  # those copies, made while the engine renders its pages

    def publish(self, source: Path, target: str, site_path: str) -> None:
        """Give the site ``target`` with ``source``'s bytes, its digest known without reading it.
        The same file in the site as the last build published it, unchanged since, is not copied
        again: place_unchanged() carries its whole folder into the staged site at the swap, or
        links it, and a warm build neither copies nor deletes the runtime's few hundred MB again
        (the full stack's parts alone are 50 MB)."""
        self._place(site_path, target, self.digests.of(source), os.fspath(source))

    def write(self, data: bytes, target: str, site_path: str) -> None:
        """Give the site ``target`` with ``data`` (a figure, a mentor script), as publish() does a file."""
        self._place(site_path, target, hashlib.sha256(data).hexdigest(), data)

    def write_all(self, files: dict[str, Path], contents: dict[str, str], site_dir: str,
                  engine_files: frozenset[str] = frozenset()) -> None:
        """The build's ``files`` (site path -> file) and ``contents`` (site path -> text) into
        ``site_dir``, but none of ``engine_files``: the engine writes those itself, and its file
        wins. The copies are started here and made in threads while the engine renders its pages
        (a new folder's thousand files, 106 MB for this repository's site, are mostly the
        kernel's work, which page rendering in Python does not wait on); settle() waits for them."""
        self.unchanged = {}
        self._copies = []
        for site_path, source in sorted(files.items()):
            if site_path not in engine_files:
                self.publish(source, os.path.join(site_dir, site_path), site_path)
        for site_path, text in sorted(contents.items()):
            if site_path not in engine_files:
                self.write(text.encode("utf-8"), os.path.join(site_dir, site_path), site_path)
        copies, self._copies = self._copies, None
        self._copying = _Copying(copies)

    def settle(self) -> None:
        """Wait for the copies write_all started; the first error is raised (a full disk)."""
        copying, self._copying = self._copying, None
        if copying is not None:
            copying.wait()
            for _, target, digest in copying.copies:
                self.digests.wrote(target, digest)

    def leave_to_engine(self, site_paths: set[str], site_dir: str) -> None:
        """Files the engine turned out to write itself after write_all started (another plugin
        added them late): their copies are waited for, then left to the engine, whose file wins at
        the same path, and neither the ledger nor the listing gets their digest."""
        targets = {os.path.join(site_dir, site_path) for site_path in site_paths}
        copying = self._copying
        if not targets or copying is None or not any(target in targets for _, target, _ in copying.copies):
            return
        self.settle()
        for target in targets:
            self.published.pop(self._published_place(target), None)
            self.digests.forget(target)

    def cancel(self) -> None:
        """A build that stopped: the copies not started are dropped, those under way finished,
        so that nothing writes into the staging folder once it is removed."""
        copying, self._copying = self._copying, None
        if copying is not None:
            copying.cancel()

    def _place(self, site_path: str, target: str, digest: str, source: str | bytes) -> None:
        """``source`` (a file, or bytes) at ``target``, unless the published site already has
        those bytes there (then placed by place_unchanged)."""
        earlier = self._published_place(target)
        self.published[earlier] = digest
        if earlier != target:
            published, size = self.digests.known_sized(earlier)
            if published == digest:
                self.unchanged[site_path] = (source, earlier, target, digest, size)
                return
        if earlier != target or self.digests.known(target) != digest:
            if self._copies is not None:  # write_all: copied with the others, then noted
                self._copies.append((source, target, digest))
                return
            _copy(source, target)
        self.digests.wrote(target, digest)

    def _published_place(self, target: str) -> str:
        """Where ``target`` of the site being written is once published (the same path when the
        site is written in place: the dev server)."""
        if self.staged is None:
            return target
        staging = os.fspath(self.staged.staging) + os.sep
        return os.fspath(self.staged.final) + target[len(staging) - 1:] if target.startswith(staging) else target

    def place_unchanged(self, site_dir: str) -> dict[str, tuple[str, int]]:
        """Put the files the published site already has (``unchanged``) into the staged one, once
        the engine has written its own: the folders holding only such files are carried whole at
        the swap (site_swap.folders_to_carry: one rename for the hundreds of a kind's baked
        points), the others linked one by one. Returns the carried files, site path -> their
        sha256 and size, for the offline listing. A file the engine wrote at the same path wins,
        as it would have had ours been copied first."""
        self.carried = folders_to_carry(site_dir, os.fspath(self.staged.final), set(self.unchanged))
        inside = tuple(f"{folder}/" for folder in self.carried)
        carried = {}
        for site_path, (source, earlier, target, digest, size) in sorted(self.unchanged.items()):
            if site_path.startswith(inside):
                carried[site_path] = (digest, size)
                continue
            try:
                _link(earlier, target)
            except FileExistsError:  # the engine's own file
                self.published.pop(earlier, None)
                continue
            except OSError:  # another file system, or one without links: a copy of its own
                _copy(source, target)
            self.digests.wrote(target, digest)
        return carried

    def swap(self, carried: dict) -> None:
        """The staged site into place (carrying the folders place_unchanged chose), then the ledger
        told what the site now holds: after the swap, which changes the linked files' times
        (not those of carried folders' files)."""
        final = os.fspath(self.staged.final) if self.staged else ""
        if self.staged:
            self.staged.commit(self.carried)
            self.staged = None
        self.digests.published(self.published, {os.path.join(final, site_path) for site_path in carried})


def _link(source: str, target: str) -> None:
    """A hard link at ``target``, its folder made only when missing: a staged site starts empty,
    and for its thousand files a mkdir each was a third of the time publishing took. An existing
    ``target`` (FileExistsError) is the caller's to judge."""
    try:
        os.link(source, target)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.link(source, target)


class _Copying:
    """Every (source, target, digest) being copied, in threads: a build into a new folder copies a
    thousand files (the baked points, the runtime, the full stack), and making a file is mostly
    waiting on the file system (the kernel copies the bytes: sendfile), which threads overlap."""

    def __init__(self, copies: list[tuple[str | bytes, str, str]]):
        import concurrent.futures

        self.copies = copies
        self._pool = concurrent.futures.ThreadPoolExecutor(COPYING_THREADS, thread_name_prefix="scalecore-copy") \
            if copies else None
        self._done = [self._pool.submit(_copy, source, target) for source, target, _ in copies] if copies else []

    def wait(self) -> None:
        try:
            for done in self._done:
                done.result()  # the first error stops the wait (cancel() then drops the rest)
        except BaseException:
            self.cancel()
            raise
        if self._pool is not None:
            self._pool.shutdown()

    def cancel(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


def _copy(source: str | bytes, target: str) -> None:
    """``target`` as a file of its own with ``source``'s bytes (a file of the cache or the installed
    packages: disk.clone_or_copy; or bytes the build made): never written through a link."""
    if not isinstance(source, bytes):
        disk.clone_or_copy(Path(source), Path(target))
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.lexists(target):
        os.unlink(target)  # a new file: never written through a link to a published one
    with open(target, "wb") as stream:
        stream.write(source)

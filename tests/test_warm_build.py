"""What a warm rebuild keeps from the last one must never be wrong: each shortcut here is checked
against the slow path it replaces."""

import hashlib
import json
import os
import re
import stat
from pathlib import Path

from scalecore_generator.foundation import cache


def _program(folder, version: str):
    """A program answering ``--version`` that counts how often it was run."""
    program = folder / "browser"
    runs = folder / "runs"
    program.write_text(f'#!/bin/sh\necho x >> "{runs}"\necho "{version}"\n', encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    return program, runs


def _runs(runs) -> int:
    return len(runs.read_text().splitlines()) if runs.exists() else 0


def test_a_programs_version_is_asked_once_and_again_when_the_program_changes(tmp_path):
    program, runs = _program(tmp_path, "Browser 1.0")
    memo = tmp_path / "cache" / "memo" / "programs.json"
    assert cache.program_version(str(program), memo) == "Browser 1.0"
    assert cache.program_version(str(program), memo) == "Browser 1.0"
    assert _runs(runs) == 1

    program.write_text(program.read_text().replace("Browser 1.0", "Browser 2.0"))  # an upgrade
    assert cache.program_version(str(program), memo) == "Browser 2.0"
    assert _runs(runs) == 2

    memo.write_text("{not json")  # a damaged memo is asked again, not believed
    assert cache.program_version(str(program), memo) == "Browser 2.0"
    assert _runs(runs) == 3
    assert cache.program_version(str(program), memo) == "Browser 2.0"
    assert _runs(runs) == 3


def test_a_program_that_cannot_run_is_unknown_and_not_remembered(tmp_path):
    memo = tmp_path / "programs.json"
    assert cache.program_version(str(tmp_path / "missing"), memo) == "unknown"
    assert not memo.exists()


def test_sha256_file_matches_hashlib_for_empty_small_and_large_files(tmp_path):
    for size in (0, 1, 4096, (1 << 20) - 1, 1 << 20, (3 << 20) + 17):
        path = tmp_path / f"f{size}"
        path.write_bytes(os.urandom(size))
        assert cache.sha256_file(path) == hashlib.sha256(path.read_bytes()).hexdigest()
        assert cache.Digests(tmp_path / "digests.json").of(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_digest_is_taken_from_the_ledger_only_while_the_file_is_unchanged(tmp_path, monkeypatch):
    from scalecore_generator.foundation.cache import digests

    monkeypatch.setattr(digests, "SETTLED_NS", 0)  # no two-second wait for the files to settle
    big = tmp_path / "python.wasm"
    big.write_bytes(os.urandom(3 << 20))
    first = cache.Digests(tmp_path / "digests.json")
    want = hashlib.sha256(big.read_bytes()).hexdigest()
    assert first.of(big) == want and first.of(big) == want and first.read == 1  # once a build
    first.save()

    second = cache.Digests(tmp_path / "digests.json")  # the next build: nothing read
    assert second.of(big) == want and second.read == 0

    stat = big.stat()  # a byte flipped, size and modification time put back as they were
    data = bytearray(big.read_bytes())
    data[1000] ^= 1
    big.write_bytes(bytes(data))
    os.utime(big, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    third = cache.Digests(tmp_path / "digests.json")  # its change time moved: read again, the new digest
    assert third.of(big) == hashlib.sha256(bytes(data)).hexdigest() and third.read == 1

    (tmp_path / "digests.json").write_text("{damaged")
    assert cache.Digests(tmp_path / "digests.json").of(big) == hashlib.sha256(bytes(data)).hexdigest()


def test_a_file_written_moments_ago_is_not_kept_in_the_ledger(tmp_path):
    fresh = tmp_path / "fresh.bin"
    fresh.write_bytes(b"just written")
    digests = cache.Digests(tmp_path / "digests.json")
    digests.of(fresh)
    digests.save()
    again = cache.Digests(tmp_path / "digests.json")  # too recent to trust its times: read again (git's racy-clean rule)
    again.of(fresh)
    assert again.read == 1


def test_an_entry_changed_after_it_was_written_is_not_usable(tmp_path):
    class Log:
        def info(self, line):
            pass

    with cache.writing(tmp_path / "snapshot" / "abc") as folder:
        (folder / "inner").mkdir()
        (folder / "inner" / "data.bin").write_bytes(b"data")
    written = tmp_path / "snapshot" / "abc" / "inner" / "data.bin"
    assert cache.usable(tmp_path / "snapshot" / "abc", Log())
    written.write_bytes(b"changed through a link in the site")
    assert not cache.usable(tmp_path / "snapshot" / "abc", Log())


def test_a_builds_views_come_from_its_memo_and_its_node_process_ends_with_it(tmp_path):
    """Each build has its own views (pages/views.Views): what an earlier build rendered comes from
    the memo without starting Node; what is new starts the build's one Node process, which the
    build closes; the memo keeps exactly what this build drew, and an unchanged one is not written."""
    from scalecore_generator.blocks import views

    class Log:
        def info(self, message):
            raise AssertionError(message)

    memo = tmp_path / "views.json"
    first = views.Views(memo, Log())
    one, two = first.view("number", [1.5, ""]), first.view("number", [2.25, ".3f"])
    server = first.server
    assert server is not None and server.lines.process.poll() is None
    first.save()
    first.close()
    assert first.server is None and server.lines.process.wait(timeout=10) is not None

    second = views.Views(memo, Log())
    assert second.view("number", [1.5, ""]) == one and second.server is None, "rendered again, not from the memo"
    written = memo.stat().st_mtime_ns
    second.save()  # used one of the two: the memo keeps that one
    assert memo.stat().st_mtime_ns != written
    third = views.Views(memo, Log())
    assert set(third.memo) == {views.request_key("number", [1.5, ""])}
    third.view("number", [1.5, ""])
    unchanged = memo.stat().st_mtime_ns
    third.save()
    assert memo.stat().st_mtime_ns == unchanged and third.server is None
    fresh = views.Views()  # no memo: rendered by its own Node process
    assert fresh.view("number", [2.25, ".3f"]) == two
    fresh.close()


def test_an_offline_wheel_changed_since_the_last_build_is_refused_though_its_digest_was_kept(tmp_path, monkeypatch):
    """The console's offline wheels are checked against the lock through the build's digest ledger:
    a wheel rewritten since (same size, its modification time put back) is read again and refused."""
    import pytest

    from scalecore_generator.foundation.cache import digests
    from scalecore_generator.errors import ScalecoreError
    from scalecore_generator.runtime.pyodide import LockedWheel, _checked_wheels

    monkeypatch.setattr(digests, "SETTLED_NS", 0)
    data = b"PK" + os.urandom(4096)
    wheel = LockedWheel("tiny", "1.0", hashlib.sha256(data).hexdigest(), ("tiny",), ())
    path = tmp_path / wheel.file_name
    path.write_bytes(data)
    ledger = tmp_path / "digests.json"
    first = cache.Digests(ledger)
    assert _checked_wheels(tmp_path, [wheel], first.of) == {wheel: path}
    first.save()
    before = path.stat()
    path.write_bytes(b"PK" + os.urandom(4096))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(ScalecoreError, match="tiny_1.0|tiny-1.0"):
        _checked_wheels(tmp_path, [wheel], cache.Digests(ledger).of)


def _files(root, *paths):
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(path, encoding="utf-8")


def test_only_folders_holding_exactly_the_unchanged_files_are_carried_whole(tmp_path):
    """site_swap.folders_to_carry: the largest folders of the published site whose every file the
    new site publishes unchanged, and which the staged site (the engine) has not written into."""
    from scalecore_generator.builder.site_swap import folders_to_carry

    final, staging = tmp_path / "site", tmp_path / "staging"
    _files(final, "api/k/0/a.json", "api/k/0/b.json", "api/k/1/a.json", "api/other/x.json", "assets/run/p.wasm",
           "assets/theme.css", "stray/kept.json", "stray/extra.json", "hollow/f.json")
    (final / "hollow" / "empty").mkdir()
    staging.mkdir()
    _files(staging, "assets/theme.css", "api/index.json")  # what the engine and the build wrote
    unchanged = {"api/k/0/a.json", "api/k/0/b.json", "api/k/1/a.json", "api/other/x.json", "assets/run/p.wasm",
                 "stray/kept.json", "hollow/f.json", "gone/missing.json"}
    assert folders_to_carry(str(staging), str(final), unchanged) == ["api/k", "api/other", "assets/run"]
    # api/ itself: the staged site has api/index.json; stray/: a file the new site does not publish;
    # hollow/: an empty folder; gone/: not in the published site at all

    _files(staging, "api/k/1/figure.svg")  # drawn by this build into a carried folder's place: not carried
    assert folders_to_carry(str(staging), str(final), unchanged) == ["api/k/0", "api/other", "assets/run"]
    assert folders_to_carry(str(staging), str(final), set()) == []


def test_the_swap_carries_folders_in_and_a_killed_swap_is_put_back_by_the_next_build(tmp_path):
    from scalecore_generator.builder.site_swap import StagedSite

    final = tmp_path / "site"
    _files(final, "index.html", "api/k/0/a.json", "api/k/1/a.json")
    inode = (final / "api/k/0/a.json").stat().st_ino
    staged = StagedSite(str(final))
    staging = Path(staged.begin())
    _files(staging, "index.html")
    staged.commit(["api/k"])
    assert (final / "api/k/0/a.json").stat().st_ino == inode, "carried, not copied"
    assert sorted(p.relative_to(final).as_posix() for p in final.rglob("*") if p.is_file()) == \
        ["api/k/0/a.json", "api/k/1/a.json", "index.html"]
    assert not staging.exists() and not list(tmp_path.glob(".site.carried-*"))

    # A build killed after carrying api/k out of the published site, before its swap:
    dead = "999999999"
    stale = tmp_path / f".site.partial-{dead}"
    (stale / "api").mkdir(parents=True)
    os.rename(final / "api" / "k", stale / "api" / "k")
    (tmp_path / f".site.carried-{dead}.json").write_text(json.dumps({"staging": str(stale), "folders": ["api/k"]}))
    StagedSite(str(final)).begin()  # the next build
    assert (final / "api/k/0/a.json").stat().st_ino == inode, "the published site is whole again"
    assert not stale.exists() and not list(tmp_path.glob(".site.carried-*"))


def test_a_corpus_digest_from_the_memo_is_the_cores_and_follows_the_text(tmp_path, monkeypatch):
    """A warm build knows a corpus's digest (its table's name) from the memo, under the sha256 of
    its two files as the ledger knows them; it is the core's own digest, and an edited text gets
    its new one."""
    import shutil

    from scalecore.corpus import SHIPPED, load_corpus
    from scalecore_generator.builder import corpora
    from scalecore_generator.foundation.cache import digests as ledger

    class Log:
        def info(self, message):
            pass

    monkeypatch.setattr(ledger, "SETTLED_NS", 0)
    root = tmp_path / "corpora"
    shutil.copytree(SHIPPED / "demo", root / "mine")

    def digest_now():
        memo = cache.Memo(tmp_path / "corpora.json", Log(), "v1")
        found = corpora.load_for_build(root, ["mine"], tmp_path / "cache", Log(), cache.Digests(tmp_path / "d.json").of,
                                       memo)["mine"].digest
        memo.save()
        return found

    assert digest_now() == digest_now() == load_corpus(root / "mine").digest
    before = digest_now()
    metadata = root / "mine" / "corpus.toml"
    metadata.write_text(re.sub(r'title = "', 'title = "Mine: ', metadata.read_text(encoding="utf-8"), 1),
                        encoding="utf-8")
    assert digest_now() == load_corpus(root / "mine").digest != before

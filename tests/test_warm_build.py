"""What a warm rebuild keeps from the last one must never be wrong: each shortcut here is checked
against the slow path it replaces."""

import hashlib
import os
import stat

from scalecore_generator.build import cache


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
        assert cache.sha256_hashed(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_only_files_of_an_entry_checked_by_this_build_count_as_checked(tmp_path):
    class Log:
        def info(self, line):
            pass

    cache._used.clear()
    with cache.writing(tmp_path / "snapshot" / "abc") as folder:
        (folder / "inner").mkdir()
        (folder / "inner" / "data.bin").write_bytes(b"data")
    written = tmp_path / "snapshot" / "abc" / "inner" / "data.bin"
    assert cache.in_checked_entry(written)
    assert not cache.in_checked_entry(tmp_path / "snapshot" / "loose.bin")

    cache._used.clear()  # the next build: nothing is checked until it is used
    assert not cache.in_checked_entry(written)
    assert cache.usable(tmp_path / "snapshot" / "abc", Log())
    assert cache.in_checked_entry(written)

    cache._used.clear()
    written.write_bytes(b"changed through a link in the site")
    assert not cache.usable(tmp_path / "snapshot" / "abc", Log())
    assert not cache.in_checked_entry(written)
    cache._used.clear()

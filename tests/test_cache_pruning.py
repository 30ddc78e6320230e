"""The build cache stays bounded (issue 14, item 9): entries no build used for ``cache_keep_builds``
builds are removed after a successful build; a prune never runs while another build holds the
cache; ``scalecore cache`` shows the size and prunes by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scalecore_generator.foundation import cache
from sites import CACHE, build, copy_site, edit

REPO = Path(__file__).resolve().parent.parent


class Log:
    def __init__(self):
        self.lines = []

    def info(self, message):
        self.lines.append(message)


def entry(root: Path, name: str, use: cache.SharedUse | None = None) -> Path:
    with cache.writing(root / "bake" / name, use) as folder:
        (folder / "data.json").write_text(json.dumps({"name": name}), encoding="utf-8")
    return root / "bake" / name


def test_entries_unused_for_keep_builds_builds_are_removed(tmp_path):
    root = tmp_path / "cache"
    log = Log()
    use = cache.SharedUse(root)
    old, kept = entry(root, "old", use), entry(root, "kept", use)
    cache.finish_build(root, 2, use, log)  # build 1 used both
    for name in ("a", "b"):  # builds 2 and 3 use 'kept' and a new entry each, not 'old'
        use = cache.SharedUse(root)
        use.note(kept)
        entry(root, name, use)
        cache.finish_build(root, 2, use, log)
    assert not old.exists() and kept.exists()
    assert any("removed 1 entries no build used in the last 2 builds" in line for line in log.lines)
    ledger = json.loads((root / cache.LEDGER).read_text(encoding="utf-8"))
    assert ledger["builds"] == 3 and ledger["entries"] == {"bake/a": 2, "bake/b": 3, "bake/kept": 3}


def test_a_build_that_uses_what_the_last_one_used_writes_nothing(tmp_path):
    root = tmp_path / "cache"
    use = cache.SharedUse(root)
    kept = entry(root, "kept", use)
    cache.finish_build(root, 1, use, Log())
    ledger = (root / cache.LEDGER).stat().st_mtime_ns
    for _ in range(3):
        use = cache.SharedUse(root)
        use.note(kept)
        cache.finish_build(root, 1, use, Log())
    assert (root / cache.LEDGER).stat().st_mtime_ns == ledger and kept.exists()
    assert not list((root / "bake").glob(f"{cache.TEMPORARY}*"))


def test_an_entry_from_before_the_ledger_is_not_wiped_at_once(tmp_path):
    root = tmp_path / "cache"
    before = entry(root, "before")  # written by an older build, which kept no ledger
    cache.finish_build(root, 1, None, Log())
    assert before.exists()  # first seen now: its count starts
    cache.finish_build(root, 1, None, Log())
    assert not before.exists()


HOLD = """
import fcntl, sys, time
handle = open(sys.argv[1], "a+")
fcntl.flock(handle, fcntl.LOCK_SH)
print("held", flush=True)
time.sleep(30)
"""


def test_no_prune_while_another_build_holds_the_cache(tmp_path):
    root = tmp_path / "cache"
    use = cache.SharedUse(root)
    old = entry(root, "old", use)
    cache.finish_build(root, 1, use, Log())
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(root / cache.LOCK)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        log = Log()
        cache.finish_build(root, 1, None, log)
        assert old.exists()
        assert "cache: another build is using the cache; pruning waits for a later build." in log.lines
        done = subprocess.run([sys.executable, "-m", "scalecore_generator", "cache", "--dir", str(root), "--keep-builds", "1",
                               "--prune"], capture_output=True, text=True, cwd=REPO)
        assert done.returncode == 2 and "another build is using the cache" in done.stderr
        assert "nothing was removed" in done.stderr and old.exists()
    finally:
        holder.kill()
        holder.wait()
    done = subprocess.run([sys.executable, "-m", "scalecore_generator", "cache", "--dir", str(root), "--keep-builds", "1",
                           "--prune"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "1 entries; 1 unused in the last 1 builds" in done.stdout and "removed 1 entries" in done.stdout
    assert not old.exists()


def test_the_cache_command_reports_size_and_stale_entries(tmp_path):
    root = tmp_path / "cache"
    entry(root, "a")
    entry(root, "b")
    cache.finish_build(root, 5, None, Log())
    done = subprocess.run([sys.executable, "-m", "scalecore_generator", "cache", "--dir", str(root)], capture_output=True,
                          text=True, cwd=REPO)
    assert done.returncode == 0 and "2 entries; 0 unused in the last 10 builds" in done.stdout
    missing = subprocess.run([sys.executable, "-m", "scalecore_generator", "cache", "--dir", str(tmp_path / "none")],
                             capture_output=True, text=True, cwd=REPO)
    assert missing.returncode == 2 and missing.stderr.startswith("scalecore: error: no cache at")


def test_the_cache_check_reads_every_byte_and_removes_what_decayed(tmp_path):
    """A build trusts a cache file it read before while no write has touched it (its digest
    ledger); ``scalecore cache --check`` reads every byte, for what no write made: here a byte
    flipped with the file's times put back."""
    root = tmp_path / "cache"
    good, decayed = entry(root, "good"), entry(root, "decayed")
    data = decayed / "data.json"
    stat = data.stat()
    flipped = bytearray(data.read_bytes())
    flipped[3] ^= 1
    data.write_bytes(bytes(flipped))
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    def check():
        return subprocess.run([sys.executable, "-m", "scalecore_generator", "cache", "--dir", str(root), "--check"],
                              capture_output=True, text=True, cwd=REPO)

    done = check()
    assert done.returncode == 1, done.stderr
    assert "damaged: bake/decayed: data.json does not match its recorded sha256; removed" in done.stdout
    assert "checked 2 entries: 1 damaged" in done.stdout
    assert good.is_dir() and not decayed.exists()
    again = check()
    assert again.returncode == 0 and "checked 1 entries: 0 damaged" in again.stdout


def test_repeated_builds_with_changing_inputs_keep_the_cache_bounded(tmp_path):
    site = copy_site(tmp_path / "site")
    edit(site / "mkdocs.yml", "      live: false", "      live: false\n      cache_keep_builds: 1")
    counts = []
    for number, seed in enumerate((1, 2, 3, 4)):  # each build bakes another second seed's groups
        edit(site / "mkdocs.yml", "seeds: [0]" if not number else f"seeds: [0, {seed - 1}]", f"seeds: [0, {seed}]")
        done = build(site)
        assert done.returncode == 0, done.describe()
        counts.append(len(cache.every_entry(site / CACHE)))
    assert counts[0] > 0
    assert max(counts) == counts[0], counts  # each build's groups replace the last build's, not add to them
    ledger = json.loads((site / CACHE / cache.LEDGER).read_text(encoding="utf-8"))
    assert ledger["builds"] == 4 and set(ledger["entries"].values()) == {4}

"""Nothing lost, nothing forged: builds at once, a cache that cannot lie, disks that fail, builds
that are killed, and inputs that used to be accepted without a word.

Every build is a real ``mkdocs build`` in a subprocess, in a copy of the fixture site after one
clean build (``cold``). Disk faults are injected by tests/faults.py (see why there).
"""

import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scalecore_generator.foundation.processes import process_is_gone
from sites import CACHE, REPO, Build, build, build_command, copy_site, edit, environment, tree

FAULTS = Path(__file__).resolve().parent / "faults.py"
UNITS = "api/scale-guards"


def succeeded(result: Build) -> Build:
    assert result.returncode == 0, result.describe()
    assert "Traceback" not in result.stderr
    return result


def failed_plainly(result: Build) -> Build:
    """Exit 1, one ERROR line from us, no traceback."""
    assert result.returncode == 1, result.describe()
    assert "Traceback" not in result.stderr + result.stdout, result.describe()
    return result


@pytest.fixture(scope="module")
def cold(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("cold") / "base")
    succeeded(build(folder))
    return folder, tree(folder / "site")


@pytest.fixture
def site(cold, tmp_path):
    """A copy of the cold build (sources, site and cache)."""
    return copy_site(tmp_path / "base", source=cold[0])


def with_faults(folder: Path, *options: str, env=None) -> Build:
    done = subprocess.run([sys.executable, str(FAULTS), *options, "--"], cwd=folder, env=env or environment(),
                          capture_output=True, text=True, timeout=600)
    return Build(done.returncode, done.stdout, done.stderr)


def unit_entries(folder: Path) -> list[Path]:
    return sorted(p for p in (folder / CACHE / "bake").iterdir() if p.name.startswith("scale-guards-"))


# --------------------------------------------------------------------------------------------
# Two builds at once
# --------------------------------------------------------------------------------------------


def test_a_build_while_another_holds_the_site_stops_naming_it_and_changes_nothing(cold, site):
    with open(site / ".site.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        (site / ".site.lock.holder").write_text("4242\n", encoding="utf-8")  # as a holding build leaves it
        result = failed_plainly(build(site))
    assert result.errors == [
        f"scalecore: another build is writing {site / 'site'} (pid 4242); nothing was changed. Fix: wait for it "
        "to finish and build again, or build into another folder (mkdocs build -d DIR)."
    ], result.describe()
    assert tree(site / "site") == cold[1]
    assert not list(site.glob(".site.partial*"))


HOLDER = """
import sys, time
from scalecore_generator.builder.site_swap import StagedSite
holder = StagedSite(sys.argv[1])
deadline = time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline:  # take the lock and let it go, as builds one after another do
    try:
        holder._acquire()
    except Exception:
        continue
    holder._release()
"""


def test_the_holders_pid_is_never_read_half_written(tmp_path):
    """The message names the holding build every time: another process takes and leaves the lock
    as fast as it can while this one keeps asking; no refusal may say 'pid unknown' (the pid was
    once truncated and then written in place, and read in between one time in five)."""
    from scalecore_generator.builder.site_swap import StagedSite

    target = str(tmp_path / "site")
    child = subprocess.Popen([sys.executable, "-c", HOLDER, target, "4"])
    refusals = []
    try:
        time.sleep(0.3)  # the child has taken the lock at least once
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            asking = StagedSite(target)
            try:
                asking._acquire()
            except Exception as refused:  # PluginError
                refusals.append(str(refused))
                continue
            asking._release()
    finally:
        child.wait(timeout=30)
    assert len(refusals) > 50, len(refusals)
    unknown = [message for message in refusals if "(pid unknown)" in message]
    assert not unknown, f"{len(unknown)} of {len(refusals)} refusals named no pid"
    # the holder, or for the instant after it took the lock, the build that held it just before
    assert all(f"(pid {child.pid})" in message or f"(pid {os.getpid()})" in message for message in refusals)


def test_two_builds_at_once_leave_one_complete_site(cold, site):
    (site / "docs" / "index.md").write_text("# Home\n\nBuilt twice at once.\n", encoding="utf-8")
    processes = [subprocess.Popen(build_command(), cwd=site, env=environment(), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=600)
        results.append(Build(process.returncode, out, err))
    for result in results:
        assert "Traceback" not in result.stderr, result.describe()
        if result.returncode:
            assert any("another build is writing" in line for line in result.errors), result.describe()
    assert any(result.returncode == 0 for result in results)
    clean = copy_site(site.parent.parent / "clean" / "base", source=site)
    succeeded(build(clean))
    assert tree(site / "site") == tree(clean / "site"), "the published site is not one complete build"
    assert not list(site.glob(".site.partial*")) and not list(site.glob(".site.previous*"))


def test_a_warm_build_carries_unchanged_folders_whole_and_never_a_stray_file(cold, site):
    """The baked points the published site already has are moved into the new site at the swap,
    not copied (builder/site_swap.py): the same files, the same inodes. A file the new site does not
    publish, left in such a folder, is not carried into it, and one missing is put back."""
    succeeded(build(site))  # the copy's own digest ledger (the copied one names the cold folder's paths)
    baked = sorted((site / "site" / UNITS).rglob("*.json"))
    inodes = {path: path.stat().st_ino for path in baked}
    # the build's own folder, its stylesheet included: only the build writes there, so it is
    # moved whole, and not one of its files is even linked again (a link changes a file's ctime)
    own = site / "site" / "assets" / "scalecore"
    stamps = {path: path.stat().st_ctime_ns for path in own.rglob("*") if path.is_file()}
    assert own / "scalecore.min.css" in stamps
    succeeded(build(site))
    assert {path: path.stat().st_ino for path in baked} == inodes, "unchanged baked files were copied again"
    assert {path: path.stat().st_ctime_ns for path in own.rglob("*") if path.is_file()} == stamps
    assert tree(site / "site") == cold[1]

    stray, removed = baked[0].parent / "stray.json", baked[1]
    stray.write_text("{}", encoding="utf-8")
    removed.unlink()
    succeeded(build(site))
    assert not stray.exists() and removed.is_file()
    assert tree(site / "site") == cold[1]
    assert not list(site.glob(".site.carried-*")) and not list(site.glob(".site.partial*"))


def test_a_file_another_plugin_gives_mkdocs_late_wins_over_the_builds_own(cold, site):
    """The build writes its own files from on_files (the copies go on while MkDocs reads the
    pages); a file another plugin hands MkDocs later, at one of those paths, is MkDocs' to write:
    the site serves that file, and the offline listing gives its digest, not the build's."""
    chosen = "assets/scalecore/views.js"
    late = b"/* the late plugin's file */\n"
    (site / "late_plugin.py").write_text(
        "from mkdocs.structure.files import File\n\n\n"
        "def on_nav(nav, config, files):\n"
        f"    files.append(File.generated(config, {chosen!r}, content={late!r}))\n"
        "    return nav\n", encoding="utf-8")
    with (site / "mkdocs.yml").open("a", encoding="utf-8") as config:
        config.write("\nhooks:\n  - late_plugin.py\n")
    succeeded(build(site))
    assert (site / "site" / chosen).read_bytes() == late
    listed = json.loads((site / "site" / "offline.json").read_text(encoding="utf-8"))["files"][chosen]
    assert listed["sha256"] == hashlib.sha256(late).hexdigest() and listed["bytes"] == len(late)


# --------------------------------------------------------------------------------------------
# A cache that cannot lie
# --------------------------------------------------------------------------------------------


def _change_a_digit(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    match = re.search(r'"mean_row_max":(\d)\.(\d)', text)
    digit = match[2]
    other = "9" if digit != "9" else "1"
    path.write_text(text[: match.start(2)] + other + text[match.end(2):], encoding="utf-8")
    json.loads(path.read_text(encoding="utf-8"))  # still valid JSON: only the number lies


TAMPERING = {
    "one digit": lambda entry: _change_a_digit(entry / "none.json"),
    "invalid json": lambda entry: (entry / "init.json").write_bytes(b"\xff\xfe{not json"),
    "broken data.js": lambda entry: (entry / "data.js").write_text("(globalThis.scalecoreData", encoding="utf-8"),
    "a missing figure": lambda entry: (entry / "scale.svg").unlink(),
    "no record": lambda entry: (entry / ".entry.json").unlink(),
}


@pytest.mark.parametrize("how", TAMPERING)
def test_a_tampered_cache_entry_is_reported_and_baked_again(cold, site, how):
    entry = unit_entries(site)[0]
    TAMPERING[how](entry)
    result = succeeded(build(site))
    reports = [line for line in result.lines("INFO") if "cache:" in line]
    assert len(reports) == 1 and reports[0].startswith(f"scalecore: cache: the entry {entry.name} is damaged ("), \
        result.describe()
    assert reports[0].endswith("); it will be rebuilt."), reports
    assert tree(site / "site") == cold[1], "the site must show the true numbers"
    succeeded_again = succeeded(build(site))
    assert not [line for line in succeeded_again.lines("INFO") if "cache:" in line]


def test_the_site_shows_the_true_number_after_a_digit_was_changed_in_the_cache(cold, site):
    entry = unit_entries(site)[0]
    before = (entry / "none.json").read_text(encoding="utf-8")
    _change_a_digit(entry / "none.json")
    succeeded(build(site))
    corpus, seed = json.loads(before)["corpus"], json.loads(before)["seed"]
    assert (site / "site" / UNITS / corpus / str(seed) / "none.json").read_text(encoding="utf-8") == before


def test_the_published_site_shares_no_byte_with_the_cache(cold, site):
    """A byte flipped in a cached file in place leaves site/ as it was, and the next build repairs
    the cache; an edit under site/ leaves the cache as it was (no hard link joins them)."""
    entry = unit_entries(site)[0]
    cached = entry / "data.js"
    published = [path for path in (site / "site").rglob("data.js") if path.read_bytes() == cached.read_bytes()]
    assert published, "the entry's data.js is not in the site"
    site_before = tree(site / "site")
    with open(cached, "r+b") as file:  # in place, as a stray editor or a disk error would
        file.seek(20)
        byte = file.read(1)
        file.seek(20)
        file.write(bytes([byte[0] ^ 1]))
    assert tree(site / "site") == site_before, "a change to the cache changed the published site"
    result = succeeded(build(site))
    assert any(f"the entry {entry.name} is damaged" in line for line in result.lines("INFO")), result.describe()
    assert tree(site / "site") == site_before
    cache_before = tree(site / CACHE)
    with open(published[0], "r+b") as file:
        file.seek(20)
        file.write(b"#")
    assert tree(site / CACHE) == cache_before, "an edit under site/ changed the cache"
    for path in (site / "site").rglob("*"):
        assert not path.is_file() or path.stat().st_nlink == 1, f"{path} is linked to another file"


def _forge_ledger(site: Path, files: dict[Path, str]) -> None:
    """Enter each file in the site's digest ledger under its identity as it is now, with the given
    digest (the one of its bytes before they changed): a ledger that vouches for bytes the file no
    longer holds."""
    ledger = site / ".site.digests.json"
    data = json.loads(ledger.read_text(encoding="utf-8"))
    for file, digest in files.items():
        stat = file.stat()
        data["files"][str(file)] = [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, digest]
    ledger.write_text(json.dumps(data), encoding="utf-8")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _published_copy(site: Path, entry_file: Path) -> Path:
    point = json.loads(entry_file.read_text(encoding="utf-8"))
    return site / "site" / UNITS / point["corpus"] / str(point["seed"]) / entry_file.name


def test_a_wrong_digest_in_the_ledger_is_not_shipped_into_a_removed_site(cold, site):
    """Issue 46.5's steps: a cache entry's bytes changed, the ledger given the file's new identity
    with the old digest, the site removed. The build must not copy those bytes into the site (nor
    list the old digest for them in offline.json): a ledger whose published files are gone is not
    used, every file is read, the entry found damaged and baked again."""
    succeeded(build(site))  # the copy's own ledger (the copied one names the cold folder's paths)
    entry = unit_entries(site)[0]
    true = _sha256(entry / "none.json")
    _change_a_digit(entry / "none.json")
    _forge_ledger(site, {entry / "none.json": true})
    shutil.rmtree(site / "site")
    result = succeeded(build(site))
    assert any(f"the entry {entry.name} is damaged" in line for line in result.lines("INFO")), result.describe()
    assert tree(site / "site") == cold[1], "the tampered bytes were shipped"


def test_after_the_cache_check_repairs_an_entry_the_next_build_ships_the_true_bytes(cold, site):
    """What the build above used to leave: the tampered bytes in the cache and in the site, the
    ledger vouching for both with the old digest. ``scalecore cache --check`` reads every byte and
    removes the entry; the next build must then not trust the ledger's word for the published
    copy (it used to carry it into the new site as unchanged)."""
    from scalecore_generator import cli

    succeeded(build(site))
    entry = unit_entries(site)[0]
    published = _published_copy(site, entry / "none.json")
    true = _sha256(published)
    assert _sha256(entry / "none.json") == true
    _change_a_digit(entry / "none.json")
    shutil.copyfile(entry / "none.json", published)
    _forge_ledger(site, {entry / "none.json": true, published: true})
    assert cli.main(["cache", "--check", "--dir", str(site / CACHE)]) == 1  # one damaged entry, removed
    assert not entry.exists()
    succeeded(build(site))
    assert tree(site / "site") == cold[1], "the tampered bytes stayed in the site"
    again = succeeded(build(site))
    assert tree(site / "site") == cold[1]


def test_a_tampered_corpus_record_and_embedding_table_are_rebuilt(cold, site):
    [record] = [p for p in (site / CACHE / "corpora").iterdir() if p.name.startswith("tiny-")]
    record.write_text(record.read_text(encoding="utf-8").replace('"sentences": ', '"sentences": 1'), encoding="utf-8")
    [table] = [p for p in (site / CACHE / "embeddings").iterdir() if p.name.startswith("tiny-")]
    table.write_text(table.read_text(encoding="utf-8").replace('"the"', '"thy"', 1), encoding="utf-8")
    result = succeeded(build(site))
    reports = [line for line in result.lines("INFO") if "cache:" in line]
    assert reports == [f"scalecore: cache: the record {record.name} is damaged; it will be rebuilt.",
                       f"scalecore: cache: the cached embedding table {table.name} is damaged; it will be learned again."]
    assert tree(site / "site") == cold[1]


def test_embedding_tables_missing_beside_known_corpora_are_learned_again_in_parallel(cold, site):
    # What a changed d_model, or a pruned table, leaves: the corpora's records are known, so the
    # corpora are loaded lazily in the bake's worker processes (two corpora: two workers).
    tables = sorted((site / CACHE / "embeddings").iterdir())
    assert [t.name.split("-")[0] for t in tables] == ["small", "tiny"]
    for table in tables:
        table.unlink()
    succeeded(build(site))
    assert sorted(p.name for p in (site / CACHE / "embeddings").iterdir()) == [t.name for t in tables]
    assert tree(site / "site") == cold[1]


# --------------------------------------------------------------------------------------------
# Disks that fail
# --------------------------------------------------------------------------------------------


def test_a_read_only_cache_with_nothing_to_rebuild_builds(cold, site):
    result = succeeded(with_faults(site, "--read-only", str(site / CACHE)))
    assert tree(site / "site") == cold[1]


def test_a_full_disk_while_baking_is_one_line_and_leaves_no_temporary_folder(cold, site):
    edit(site / "mkdocs.yml", "seeds: [0]", "seeds: [0, 1]")  # two new units to bake
    result = failed_plainly(with_faults(site, "--full", str(site / CACHE / "bake")))
    [error] = result.errors
    assert error.startswith(f"scalecore: no space left on the device holding {site / CACHE / 'bake'}/"), error
    assert "while writing the cache" in error and "Fix: free some space there" in error, error
    assert tree(site / "site") == cold[1]
    assert not list((site / CACHE / "bake").glob(".tmp-*"))


def test_a_full_small_disk_names_the_cache_and_its_own_free_space(cold, site, tmp_path):
    """On a 12 MB file system of its own, the cache's disk fills: the message names the cache's
    path and the free space of that file system, not of another (the root's)."""
    import shutil as shutil_

    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        with open(mount / "filler", "wb") as filler:  # leave 16 kB free, as on the disk that was reported
            filler.write(b"\0" * (shutil_.disk_usage(mount).free - 16 * 1024))
        edit(site / "mkdocs.yml", "      live: false\n", f"      live: false\n      cache_dir: {mount / 'cache'}\n")
        result = failed_plainly(build(site))
        [error] = result.errors
        free = shutil_.disk_usage(mount).free / 2**20
        assert "(unknown path)" not in error, error
        assert f"no space left on the device holding {mount / 'cache'}" in error, error
        shown = re.search(r"\(([\d,]+) MB free there\)", error)
        assert shown and abs(int(shown[1].replace(",", "")) - free) <= 1, (error, free)
        assert tree(site / "site") == cold[1]
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def test_a_full_disk_while_writing_pages_is_one_line_and_keeps_the_previous_site(cold, site):
    (site / "docs" / "index.md").write_text("# Home\n\nA new line.\n", encoding="utf-8")
    staging = site / f".site.partial-"  # the prefix: every build stages into its own folder
    result = failed_plainly(with_faults(site, "--full", f"{staging}*"))
    [error] = result.errors[-1:]
    assert re.match(rf"scalecore: no space left on the device holding {re.escape(str(staging))}\d+/", error), \
        result.describe()
    assert "while writing the site" in error
    assert tree(site / "site") == cold[1]
    assert not list(site.glob(".site.partial*"))


def test_a_disk_too_small_for_a_second_copy_of_the_site_stops_before_writing_it(cold, site, tmp_path):
    # shutil.disk_usage says 100 kB free: less than the build's own files of this small site (no
    # module page, so no mentor: some hundreds of kB)
    patch = tmp_path / "tiny_disk.py"
    patch.write_text("import collections, shutil\n"
                     "Usage = collections.namedtuple('Usage', 'total used free')\n"
                     "shutil.disk_usage = lambda path: Usage(10 << 20, (10 << 20) - 100_000, 100_000)\n", encoding="utf-8")
    env = environment(PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-c", "import tiny_disk, sys; from mkdocs.__main__ import cli; "
                             "sys.argv = ['mkdocs', 'build']; cli()"], cwd=site, env=env, capture_output=True,
                            text=True, timeout=600)
    outcome = failed_plainly(Build(result.returncode, result.stdout, result.stderr))
    [error] = outcome.errors
    assert re.match(r"scalecore: no space left on the device holding .*\.site\.partial-\d+ while staging the new "
                    r"site \([\d,.]+ [kM]B needed, 98 kB free\)\. Fix: ", error), error
    assert " 0 MB" not in error and " 0 kB" not in error  # amounts a reader can read, at any size
    assert tree(site / "site") == cold[1]
    assert not list(site.glob(".site.partial*"))


# --------------------------------------------------------------------------------------------
# A killed build
# --------------------------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(child) for child in (task / "children").read_text().split())
    return found


def test_killing_the_build_kills_its_bake_workers(site):
    edit(site / "mkdocs.yml", "seeds: [0]", "seeds: [0, 1, 2, 3, 4, 5]\n      workers: 2")
    process = subprocess.Popen(build_command(), cwd=site, env=environment(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    workers = set()
    try:
        for line in process.stderr:
            if re.search(r"scalecore: bake: \d+ groups? of \d+ points in \d+ kinds?; \d+ from the cache, [1-9]", line):
                deadline = time.monotonic() + 30
                while len(workers) < 2 and time.monotonic() < deadline:
                    workers = _children(process.pid)
                    time.sleep(0.02)
                break
        assert len(workers) == 2, f"expected two bake workers, saw {workers}"
        process.send_signal(signal.SIGKILL)  # the build alone: no clean-up code runs
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        process.stderr.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not all(process_is_gone(str(pid)) for pid in workers):
        time.sleep(0.05)
    assert all(process_is_gone(str(pid)) for pid in workers), "bake workers outlived the killed build"


LEDGER_WRITE_KILLED = """
import os, signal, sys
from pathlib import Path
from scalecore_generator.foundation.cache import Digests
digests = Digests(Path(sys.argv[1]))
page = Path(sys.argv[2])
digests.published({page: digests.of(page)})
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # killed once the temporary is written
digests.save()
"""


def test_a_build_killed_while_writing_its_ledger_leaves_a_file_git_ignores_and_the_next_build_removes(tmp_path):
    """The digest ledger is written beside the site and renamed into place; a build killed in
    between left ``..site.digests.json.<pid>.tmp``, which a site's .gitignore (``.site.*``) does
    not match, and which stayed. Now: a name the scaffold's .gitignore ignores, and the next
    build's ledger removes it (and one of the old name)."""
    from scalecore_generator.foundation.cache import Digests

    ledger, page = tmp_path / ".site.digests.json", tmp_path / "site" / "index.html"
    page.parent.mkdir()
    page.write_text("<p>hello</p>\n", encoding="utf-8")
    killed = subprocess.run([sys.executable, "-c", LEDGER_WRITE_KILLED, str(ledger), str(page)], cwd=REPO)
    assert killed.returncode == -signal.SIGKILL
    [left] = [path for path in tmp_path.iterdir() if path.name.endswith(".tmp")]
    shutil.copy(REPO / "scalecore_generator" / "scaffold" / ".gitignore", tmp_path / ".gitignore")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    ignored = subprocess.run(["git", "-C", str(tmp_path), "check-ignore", "-q", left.name])
    assert ignored.returncode == 0, f"git does not ignore {left.name}"
    old = tmp_path / f"..site.digests.json.{left.name.split('.')[-2]}.tmp"  # the name it had before
    old.write_text("{}", encoding="utf-8")
    Digests(ledger)
    assert not left.exists() and not old.exists()


def test_a_full_disk_while_the_build_names_itself_leaves_no_file(tmp_path, monkeypatch):
    """The build writes its pid beside the lock (``.site.lock.holder.<pid>``, then renamed); on a
    full disk the file is made but not written, and it stayed. Now it is removed and the build
    stops there (SiteBuild.stage names the site's folder and its free space: tests/test_disk.py),
    and one a killed build left is removed by the next."""
    import errno

    from scalecore_generator.builder.site_swap import StagedSite

    def full(self, text, *args, **kwargs):  # a full disk: the file is made, its bytes are not
        self.touch()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = tmp_path / f".site.lock.holder.{dead.stdout.strip()}"
    left.write_text("", encoding="utf-8")
    monkeypatch.setattr(Path, "write_text", full)
    staged = StagedSite(str(tmp_path / "site"))
    with pytest.raises(OSError) as raised:
        staged.begin()
    assert raised.value.errno == errno.ENOSPC
    assert not list(tmp_path.glob(".site.lock.holder.*"))
    staged.discard()


SNAPSHOT_BUILD = """
import json, os, subprocess, sys
request = dict(json.loads(sys.argv[1]), parent=os.getpid())  # as runtime/snapshot.make() asks
subprocess.run([sys.executable, "-m", "scalecore_generator.runtime.snapshot", json.dumps(request)])
"""


def test_killing_the_build_ends_the_snapshot_helper_and_its_browser(tmp_path):
    """The snapshot is made by a helper process that runs Chromium (runtime/snapshot.py); a build
    SIGKILLed while it runs used to leave it, and Chromium, for 3 to 13 s (until Chromium
    answered). Here a stand-in browser that never answers: a shell that starts a child and waits."""
    pids = tmp_path / "browser.pids"
    browser = tmp_path / "chromium"
    browser.write_text(f"#!/bin/sh\nsleep 600 &\necho $$ $! > {pids}\nwait\n", encoding="utf-8")
    browser.chmod(0o755)
    request = {"pyodide": str(tmp_path / "no-pyodide"), "wheels": [], "imports": [], "epochMs": 0,
               "out": str(tmp_path / "snapshot.bin.gz"), "chromium": str(browser)}
    build = subprocess.Popen([sys.executable, "-c", SNAPSHOT_BUILD, json.dumps(request)], cwd=REPO)
    try:
        deadline = time.monotonic() + 30
        while not (pids.is_file() and len(pids.read_text().split()) == 2) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids.is_file(), "the stand-in browser never started"
        helpers = _children(build.pid)
        assert len(helpers) == 1, helpers
        build.send_signal(signal.SIGKILL)  # the build alone: no clean-up code runs
        build.wait(timeout=30)
        left = helpers | {int(pid) for pid in pids.read_text().split()}
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not all(process_is_gone(str(pid)) for pid in left):
            time.sleep(0.05)
        assert all(process_is_gone(str(pid)) for pid in left), "the snapshot helper or its browser outlived the build"
    finally:
        if build.poll() is None:
            build.kill()
        for pid in (pids.read_text().split() if pids.is_file() else []):
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_sigterm_while_folders_are_carried_leaves_the_whole_new_site(cold, site):
    """A CI job's timeout sends SIGTERM; here it comes right after the swap carried the first
    unchanged folder out of site/ into the staged one. The build ends as the signal asks, but
    only once the new site is in place: site/ is wholly the new site, never one missing the
    folders carried (1,037 of 1,107 files once), and the next build is the same site again."""
    changed = "# Home\n\nA page changed, the baked points not.\n"
    (site / "docs" / "index.md").write_text(changed, encoding="utf-8")
    succeeded(build(site))
    assert tree(site / "site") != cold[1]
    for moves in (1, 2):
        trial = copy_site(site.parent.parent / f"trial-{moves}" / "base", source=cold[0])
        succeeded(build(trial))  # the copy's own ledger: the next build carries its baked folders
        (trial / "docs" / "index.md").write_text(changed, encoding="utf-8")
        killed = with_faults(trial, "--term-after-moves", f"{trial / 'site'}:{moves}")
        assert killed.returncode == -signal.SIGTERM, killed.describe()
        assert tree(trial / "site") == tree(site / "site"), f"killed after {moves} folder(s): site/ is not the new site"
        assert not list(trial.glob(".site.carried-*"))
        succeeded(build(trial))
        assert tree(trial / "site") == tree(site / "site")
        assert not list(trial.glob(".site.partial*")) and not list(trial.glob(".site.previous*"))


def test_a_signal_during_the_carry_comes_after_it_as_it_would_have(tmp_path):
    """Ctrl-C (SIGINT) in the swap's few renames is held, then raised as KeyboardInterrupt once
    they are all done; the handlers are the build's own again afterwards."""
    from scalecore_generator.builder.site_swap import _signals_held

    before = signal.getsignal(signal.SIGINT)
    done = []
    with pytest.raises(KeyboardInterrupt):
        with _signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # a handler would have run by now
            done.append("every rename")
    assert done == ["every rename"]
    assert signal.getsignal(signal.SIGINT) is before


# --------------------------------------------------------------------------------------------
# Inputs that used to pass without a word
# --------------------------------------------------------------------------------------------


def test_a_corpus_linked_from_outside_the_site_is_named_in_a_warning(cold, site, tmp_path):
    outside = tmp_path / "elsewhere" / "small"
    outside.parent.mkdir(parents=True)
    (site / "corpora" / "small").rename(outside)
    (site / "corpora" / "small").symlink_to(outside, target_is_directory=True)
    result = build(site)
    assert result.lines("WARNING")[:1] == [
        f"scalecore: the corpus 'small' ({site / 'corpora' / 'small'}) links to {outside}, outside {site}: that "
        "text is baked and published with this site. If that is not meant, copy the corpus into corpora_dir "
        "instead of linking it."], result.describe()


def test_a_formula_the_typesetter_cannot_parse_stops_the_build_with_page_and_line(cold, site):
    edit(site / "mkdocs.yml", "  - pymdownx.superfences", "  - pymdownx.superfences\n  - pymdownx.arithmatex:\n"
                                                          "      generic: true")
    lesson = site / "docs" / "lesson.md"
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(text.rstrip("\n") + "\n\nThe ratio \\(\\frac{1}{\\sqrt{d_k}\\) is small.\n", encoding="utf-8")
    line = text.rstrip("\n").count("\n") + 3
    result = failed_plainly(with_faults(site))
    # one line: MkDocs' own "Error building page 'lesson.md':" no longer dangles above it
    assert len(result.errors) == 1, result.describe()
    assert result.errors[0].startswith(f"scalecore: docs/lesson.md:{line}: the formula \u201c\\frac{{1}}{{\\sqrt{{d_k}}"
                                       "\u201d is not valid TeX for Temml: "), result.describe()
    assert "Fix: correct the TeX" in result.errors[0]
    assert tree(site / "site") == cold[1]


def test_math_without_its_typesetter_is_an_error_not_raw_tex(cold, site, tmp_path):
    edit(site / "mkdocs.yml", "  - pymdownx.superfences", "  - pymdownx.superfences\n  - pymdownx.arithmatex:\n"
                                                          "      generic: true")
    result = failed_plainly(with_faults(site, "--set", f"scalecore_generator.pages.assets:NODE_MODULES={tmp_path / 'none'}"))
    assert result.errors == [
        f"scalecore: the pages use math (pymdownx.arithmatex), but {tmp_path / 'none' / 'temml'} is missing, "
        "so every formula would show as raw TeX. Fix: reinstall scalecore (pip install --force-reinstall "
        "'scalecore[site]'), which carries them; in its repository, run bash build_tools/dev.sh build."], \
        result.describe()
    assert tree(site / "site") == cold[1]

"""Disk and permission problems as one line that names the right path, the right figure, read or
write (scalecore_generator/foundation/disk.py; issue 46, item 7).

The errors are made as the kernel makes them (an errno, a file name or none); a build's own
failures are simulated in a subprocess with a module that wraps one call (the tests run as root,
which ignores file modes), as tests/test_build_reliability.py does.
"""

from __future__ import annotations

import collections
import errno
import os
import subprocess
import sys

import pytest

from scalecore_generator.foundation import disk
from sites import Build, copy_site, environment, tree

Usage = collections.namedtuple("Usage", "total used free")


@pytest.fixture
def disks(monkeypatch):
    """shutil.disk_usage for two disks: 3 MB free under the folders in the list, 57,344 MB free
    anywhere else; every folder asked about is recorded."""
    small, asked = [], []

    def usage(path):
        asked.append(os.path.abspath(path))
        free = 3 if any(os.path.abspath(path).startswith(str(folder)) for folder in small) else 57_344
        return Usage(100_000 << 20, 0, free << 20)

    monkeypatch.setattr(disk.shutil, "disk_usage", usage)
    return small, asked


def test_a_full_disk_without_a_file_name_names_the_place_and_its_own_figure(disks, tmp_path):
    small, asked = disks
    small.append(tmp_path / "out")
    error = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # a write() to an open file: no name
    assert disk.explain(error, "staging the new site", tmp_path / "out" / "site") == (
        f"scalecore: no space left on the device holding {tmp_path / 'out' / 'site'} while staging the new site "
        "(3 MB free there). Fix: free some space there (a build needs the cache plus one more copy of the site "
        "beside site/: scalecore guide offline), or move cache_dir or the site (mkdocs build -d DIR) to a disk with room.")


def test_a_full_disk_with_nothing_named_measures_no_other_disk(disks):
    small, asked = disks
    message = disk.explain(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "preparing the build")
    assert message.startswith("scalecore: no space left on the device holding a file the error did not name while "
                              "preparing the build. Fix: "), message
    assert "MB free" not in message and asked == []


def test_an_unreadable_page_says_cannot_read_and_how_to_make_it_readable(monkeypatch, tmp_path):
    page = tmp_path / "docs" / "corpora.md"
    page.parent.mkdir()
    page.write_text("# Corpora\n", encoding="utf-8")
    monkeypatch.setattr(disk.os, "access", lambda path, mode: not (path == str(page) and mode == os.R_OK))
    error = PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(page))
    assert disk.explain(error, "writing the site", tmp_path / ".site.partial-1") == (
        f"scalecore: cannot read {page}: Permission denied. Fix: make it readable for this user "
        f"(chmod u+r {page}), then build again.")
    # Inside the folder being written, or a file that is not there: a write, as before.
    inside = PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / ".site.partial-1" / "a.html"))
    assert disk.explain(inside, "writing the site", tmp_path / ".site.partial-1").startswith("scalecore: cannot write ")


def test_a_symlink_loop_says_so_and_not_that_a_folder_is_missing(tmp_path):
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop)
    with pytest.raises(OSError) as raised:
        loop.read_text()
    assert disk.explain(raised.value, "writing the site") == (
        f"scalecore: cannot read {loop}: it is a symbolic link that leads back to itself (a loop of links). Fix: "
        "replace the link with the file it stands for, or point it at a file that exists, then build again.")


# --------------------------------------------------------------------------------------------
# In a build
# --------------------------------------------------------------------------------------------

PATCH = """
import builtins, collections, errno, os, pathlib, shutil
Usage = collections.namedtuple("Usage", "total used free")
OUT = {out!r}
shutil.disk_usage = lambda path: Usage(100_000 << 20, 0, (3 if os.path.abspath(path).startswith(OUT) else 57_344) << 20)
written = pathlib.Path.write_text
def write_text(self, *args, **kwargs):
    if self.name.startswith(".site.lock.holder"):  # the disk fills as the lock's note is written
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return written(self, *args, **kwargs)
pathlib.Path.write_text = write_text
UNREADABLE = {unreadable!r}
opened = builtins.open
def open_(file, mode="r", *args, **kwargs):
    if UNREADABLE and str(file) == UNREADABLE and not any(flag in mode for flag in "wax+"):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
    return opened(file, mode, *args, **kwargs)
builtins.open = open_
accessible = os.access
os.access = lambda path, mode, **kw: False if str(path) == UNREADABLE else accessible(path, mode, **kw)
"""


def build_with(site, tmp_path, *args, out="/nonexistent", unreadable="", full_lock=False) -> Build:
    patch = tmp_path / "faulty.py"
    source = PATCH.format(out=str(out), unreadable=str(unreadable))
    if not full_lock:
        source = source.replace('self.name.startswith(".site.lock.holder")', "False")
    patch.write_text(source, encoding="utf-8")
    env = environment(PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", "import faulty, sys; from mkdocs.__main__ import cli; "
                           f"sys.argv = ['mkdocs', 'build', *{list(args)!r}]; cli()"], cwd=site, env=env,
                          capture_output=True, text=True, timeout=600)
    return Build(done.returncode, done.stdout, done.stderr)


@pytest.mark.build
def test_a_full_output_disk_names_the_output_and_its_figure(tmp_path):
    site = copy_site(tmp_path / "site")
    out = tmp_path / "out"
    result = build_with(site, tmp_path, "-d", str(out / "site"), out=out, full_lock=True)
    assert result.returncode == 1, result.describe()
    assert result.errors[-1] == (
        f"scalecore: no space left on the device holding {out} while staging the new site (3 MB free there). Fix: "
        "free some space there (a build needs the cache plus one more copy of the site beside site/: scalecore guide "
        "offline), or move cache_dir or the site (mkdocs build -d DIR) to a disk with room."), result.describe()


@pytest.mark.build
def test_an_unreadable_page_stops_the_build_saying_cannot_read(tmp_path):
    site = copy_site(tmp_path / "site")
    page = site / "docs" / "lesson.md"
    result = build_with(site, tmp_path, unreadable=page)
    assert result.returncode == 1, result.describe()
    assert result.errors[-1] == (f"scalecore: cannot read {page}: Permission denied. Fix: make it readable for this user "
                                 f"(chmod u+r {page}), then build again."), result.describe()
    assert tree(site / "site") == {}

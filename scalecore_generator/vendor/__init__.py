"""Every third-party file the build runs or the site ships, travelling inside this package.

An author installs Scalecore with ``pip install scalecore[site]`` and nothing else: no npm, no
download at build time. So the files the build needs from npm packages (Pyodide, the math
typesetters and the math font, MiniSearch, pdf.js, the isolation service worker, wllama, and
esbuild compiled to WebAssembly for minifying) are copied into ``node_modules/`` here, laid out as
npm lays them out (Node resolves ``require("katex")`` from it), and only the files we use. Each
file is pinned by sha256 in ``npm.json``, beside its package's version and licence;
``build_tools/vendor.py`` in the repository copies them from ``npm ci`` and refuses a file whose
hash differs, and the release wheel is built after it.

The console's offline wheels (``browser-wheels.lock``) live in ``wheels/``, downloaded by pip
with ``--require-hashes`` and checked again by the build.
"""

import hashlib
import json
from pathlib import Path
from scalecore_generator.errors import ScalecoreError

HERE = Path(__file__).parent
NODE_MODULES = HERE / "node_modules"
PINS = HERE / "npm.json"
WHEELS = HERE / "wheels"
WHEELS_LOCK = HERE / "browser-wheels.lock"
MODELS_LOCK = HERE / "models.lock"
LICENSES = HERE / "LICENSES"
# The fix when a vendored file is missing: the package carries them all.
REINSTALL = ("reinstall scalecore (pip install --force-reinstall 'scalecore[site]'), which carries them; "
             "in its repository, run bash build_tools/dev.sh build")


class VendorError(ScalecoreError):
    """A vendored file is missing or differs from its pin: the message names it and the fix."""


def pins() -> dict:
    """package -> {"version", "license", "files": {path inside the package: sha256}}."""
    return json.loads(PINS.read_text(encoding="utf-8"))


def package_file(package: str, *parts: str) -> Path:
    return NODE_MODULES / package / Path(*parts)


def missing(packages: list[str]) -> list[str]:
    """The vendored files of ``packages`` that are not here (a clone before its set-up)."""
    known = pins()
    return [f"{package}/{path}" for package in packages for path in known[package]["files"]
            if not (NODE_MODULES / package / path).is_file()]


def check(packages: list[str] | None = None) -> None:
    """Every pinned file of ``packages`` (default: all) is here with its pinned sha256."""
    known = pins()
    for package in packages or sorted(known):
        for path, digest in known[package]["files"].items():
            file = NODE_MODULES / package / path
            if not file.is_file():
                raise VendorError(f"{file} is missing. Fix: reinstall scalecore (pip install --force-reinstall "
                                  "scalecore[site]); in the repository, run bash build_tools/dev.sh build.")
            if hashlib.sha256(file.read_bytes()).hexdigest() != digest:
                raise VendorError(f"{file} differs from its pin in {PINS.name}. Fix: reinstall scalecore; in the "
                                  "repository, run bash build_tools/dev.sh build.")

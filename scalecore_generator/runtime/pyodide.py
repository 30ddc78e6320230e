"""The live runtime shipped inside the site: the self-hosted Pyodide, the core's wheel and the
console's offline scientific stack.

Pyodide comes from the npm package ``pyodide`` (pinned in build_tools/package-lock.json), never
from a CDN. We ship only the files ``loadPyodide`` reads: the loader, the asm module and its
WebAssembly and the standard library. Its package index is replaced by the site's own lock file
(``assets/pyodide/pyodide-lock.json``, generated here in Pyodide's format) that lists only the
pure-Python wheels of scalecore_generator/vendor/browser-wheels.lock, served beside it: the console loads them
when code imports them (``loadPackagesFromImports``), so they cost nothing until then.

``assets/pyodide/packages.json`` tells the console what it can load offline, which imports
Pyodide's distribution provides that this site does not serve (so ``import numpy`` can say so in
one line) and the package mirror a deployer configured (option ``package_mirror``).

The service worker at the site's root (scalecore_generator/builder/offline.py) makes pages cross-origin
isolated on hosts that cannot send COOP/COEP headers, so Stop can interrupt Python and input() can
wait for the reader.
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from scalecore_generator.errors import ScalecoreError

import scalecore
from scalecore_generator import vendor
from scalecore_generator.foundation.cache import sha256_file
from scalecore_generator.runtime import imports
from scalecore_generator.runtime.wheel import build_wheel

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
PYODIDE_SITE = "assets/pyodide"
WHEEL_SITE = "assets/scalecore"
LOCK_SITE = f"{PYODIDE_SITE}/pyodide-lock.json"
PACKAGES_SITE = f"{PYODIDE_SITE}/packages.json"
WHEELS_LOCK = vendor.WHEELS_LOCK
WHEELS_DIR = vendor.WHEELS  # pip download --require-hashes fills it (bash build_tools/dev.sh; the release wheel carries it)


@dataclass
class Runtime:
    files: dict[str, Path]  # site path -> source file
    manifest: dict[str, str]  # manifest key -> site path
    details: dict[str, dict] = field(default_factory=dict)  # manifest key -> more fields of its entry

    def wheels(self) -> list[Path]:
        """The wheels live mode installs, in the worker's order: the core's, then the site's own."""
        keys = ["core_wheel"] + sorted(key for key in self.manifest if key.startswith("wheel_"))
        return [self.files[self.manifest[key]] for key in keys if key in self.manifest]


@dataclass(frozen=True)
class LockedWheel:
    name: str
    version: str
    sha256: str
    imports: tuple[str, ...]
    depends: tuple[str, ...]

    @property
    def file_name(self) -> str:
        return f"{re.sub(r'[-.]+', '_', self.name)}-{self.version}-py3-none-any.whl"


def pyodide_folder(root: Path | None = None) -> Path:
    """Pyodide, from the plugin's own npm packages (whichever site is being built)."""
    return vendor.NODE_MODULES / "pyodide"


def locked_wheels(lock: Path = WHEELS_LOCK) -> list[LockedWheel]:
    """The wheels of scalecore_generator/vendor/browser-wheels.lock (pip's format, with our comments)."""
    wheels, current = [], None
    for line in lock.read_text(encoding="utf-8").splitlines():
        pin = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)\s+--hash=sha256:([0-9a-f]{64})\s*$", line)
        extra = re.match(r"^\s+#\s*(imports|depends):\s*(.*)$", line)
        if pin:
            current = {"name": pin[1], "version": pin[2], "sha256": pin[3], "imports": (pin[1],), "depends": ()}
            wheels.append(current)
        elif extra and current is not None:
            current[extra[1]] = tuple(extra[2].split())
    return [LockedWheel(**wheel) for wheel in wheels]


def _checked_wheels(folder: Path, wheels: list[LockedWheel], digest=sha256_file) -> dict[LockedWheel, Path]:
    """Each locked wheel, checked against the lock's sha256 (``digest``: a build's digest ledger,
    which reads a wheel again only when a write has touched it: sympy alone is 6 MB)."""
    found, problems = {}, []
    for wheel in wheels:
        path = folder / wheel.file_name
        if not path.is_file():
            problems.append(f"{wheel.file_name} is missing")
        elif (found_sha := digest(path)) != wheel.sha256:
            problems.append(f"{wheel.file_name} has sha256 {found_sha}, the lock says {wheel.sha256}")
        else:
            found[wheel] = path
    if problems:
        raise ScalecoreError(
            f"scalecore: the console's offline wheels in {folder} do not match {WHEELS_LOCK.name}: "
            f"{'; '.join(problems)}. Fix: reinstall scalecore (pip install --force-reinstall 'scalecore[site]'), "
            "which carries them (in Scalecore's repository: bash build_tools/dev.sh build), or set 'live: false' "
            "for the scalecore plugin in mkdocs.yml."
        )
    return found


def lock_file(pyodide_lock: dict, wheels: list[LockedWheel]) -> dict:
    """The site's Pyodide lock file: Pyodide's own ``info`` (its version checks) and our wheels only,
    so nothing is ever looked up elsewhere."""
    return {
        "info": pyodide_lock["info"],
        "packages": {
            wheel.name.lower(): {
                "name": wheel.name, "version": wheel.version, "file_name": wheel.file_name,
                "install_dir": "site", "sha256": wheel.sha256, "package_type": "package",
                "imports": list(wheel.imports), "depends": [d.lower() for d in wheel.depends],
                "unvendored_tests": False,
            }
            for wheel in wheels
        },
    }


def packages_file(pyodide_lock: dict, wheels: list[LockedWheel], mirror: str | None) -> dict:
    """What the console can import beyond the standard library, and where the rest would come from."""
    offline = {name for wheel in wheels for name in wheel.imports}
    elsewhere = {}
    for package in pyodide_lock["packages"].values():
        if package.get("package_type") != "package":
            continue
        for name in package.get("imports", []):
            if name not in offline:
                elsewhere.setdefault(name, package["name"])
    return {
        "offline": sorted(wheel.name for wheel in wheels),
        "mirror": mirror,
        "elsewhere": dict(sorted(elsewhere.items())),
    }


def collect(root: Path, cache: Path, packages: list[Path] = (), mirror: str | None = None,
            wheels_dir: Path = WHEELS_DIR, digest=sha256_file, memo=None, computes: list[str] | None = None) -> Runtime:
    """Pyodide's files, the core's wheel, a wheel of each of the site's own packages, and the offline
    wheels with the lock file that lists them (``digest``: see _checked_wheels; ``memo``: the
    build's, which knows the wheels it built: see build_wheel).

    The site's packages are checked first against what the browser's Python can import
    (runtime/imports.py): from the modules of the kinds' compute functions (``computes``,
    ``package.module:function``), or, when the caller does not name them, from every module of
    the packages."""
    if mirror and not re.match(r"^https?://[^/?#\s]+(/[^?#\s]*)?$", mirror):
        raise ScalecoreError(f"scalecore: package_mirror must be the http(s) URL of a folder holding a "
                          f"pyodide-lock.json, got {mirror!r}. Fix: write e.g. package_mirror: "
                          "'https://<your mirror's host>/pyodide/', or leave it out.")
    if mirror and not mirror.endswith("/"):
        mirror += "/"
    folder = pyodide_folder(root)
    missing = [name for name in PYODIDE_FILES + ("pyodide-lock.json",) if not (folder / name).is_file()]
    if missing:
        raise ScalecoreError(
            f"scalecore: live mode needs the npm package pyodide in {folder.parent} "
            f"(missing {', '.join(missing)}). "
            "Fix: " + vendor.REINSTALL + ", or set 'live: false' for the scalecore plugin in mkdocs.yml."
        )
    pyodide_lock = json.loads((folder / "pyodide-lock.json").read_text(encoding="utf-8"))
    wheels = locked_wheels()
    imports.check_or_stop(list(packages), computes, folder, {wheel.name: list(wheel.imports) for wheel in wheels},
                          set(packages_file(pyodide_lock, wheels, None)["elsewhere"]))
    files = {f"{PYODIDE_SITE}/{name}": folder / name for name in PYODIDE_FILES}
    # Every file loadPyodide reads is listed with its sha256: the worker checks each before use.
    manifest = {"pyodide": f"{PYODIDE_SITE}/pyodide.mjs"}
    manifest.update({"pyodide_" + name.removeprefix("pyodide.").replace(".", "_"): f"{PYODIDE_SITE}/{name}"
                     for name in PYODIDE_FILES[1:]})
    for key, package in [("core_wheel", Path(scalecore.__file__).parent)] + [
            (f"wheel_{p.name}", p) for p in packages]:
        wheel = build_wheel(package, cache / "wheel", memo, digest)
        files[f"{WHEEL_SITE}/{wheel.name}"] = wheel
        manifest[key] = f"{WHEEL_SITE}/{wheel.name}"

    for wheel, path in _checked_wheels(wheels_dir, wheels, digest).items():
        files[f"{PYODIDE_SITE}/{wheel.file_name}"] = path
    dumps = lambda data: json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"  # noqa: E731
    contents = {LOCK_SITE: dumps(lock_file(pyodide_lock, wheels)),
                PACKAGES_SITE: dumps(packages_file(pyodide_lock, wheels, mirror))}
    generated = cache / "runtime"
    generated.mkdir(parents=True, exist_ok=True)
    for site_path, text in contents.items():
        path = generated / Path(site_path).name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        files[site_path] = path
    manifest["package_lock"] = LOCK_SITE
    manifest["packages"] = PACKAGES_SITE
    return Runtime(files=files, manifest=manifest)

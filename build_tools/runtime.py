"""The live runtime shipped inside the site: the self-hosted Pyodide and the core's wheel.

Pyodide comes from the npm package ``pyodide`` (pinned in build_tools/package-lock.json), never
from a CDN. We ship only the files ``loadPyodide`` reads: the loader, the asm module and its
WebAssembly, the standard library and the lock file (its package list is never fetched: the core
is pure Python and travels as our own wheel).
"""

from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import PluginError

import scalecore
from build_tools.wheel import build_wheel

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYODIDE_SITE = "assets/pyodide"
WHEEL_SITE = "assets/scalecore"


@dataclass
class Runtime:
    files: dict[str, Path]  # site path -> source file
    manifest: dict[str, str]  # manifest key -> site path


def pyodide_folder(root: Path | None = None) -> Path:
    """Pyodide, from the plugin's own npm packages (whichever site is being built)."""
    from build_tools.assets import NODE_MODULES

    return NODE_MODULES / "pyodide"


def collect(root: Path, cache: Path, packages: list[Path] = ()) -> Runtime:
    """Pyodide's files, the core's wheel and a wheel of each of the site's own packages."""
    folder = pyodide_folder(root)
    missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
    if missing:
        raise PluginError(
            f"scalecore: live mode needs the npm package pyodide in {folder} (missing {', '.join(missing)}). "
            "Fix: run 'npm ci --prefix build_tools' (bash build_tools/dev.sh serve does it), "
            "or set 'live: false' for the scalecore plugin in mkdocs.yml."
        )
    files = {f"{PYODIDE_SITE}/{name}": folder / name for name in PYODIDE_FILES}
    manifest = {"pyodide": f"{PYODIDE_SITE}/pyodide.mjs"}
    for key, package in [("core_wheel", Path(scalecore.__file__).parent)] + [
            (f"wheel_{p.name}", p) for p in packages]:
        wheel = build_wheel(package, cache / "wheel")
        files[f"{WHEEL_SITE}/{wheel.name}"] = wheel
        manifest[key] = f"{WHEEL_SITE}/{wheel.name}"
    return Runtime(files=files, manifest=manifest)

"""Copy the npm files the generator needs into its package, each checked against its pin.

    python build_tools/vendor.py            copy from build_tools/node_modules (after npm ci),
                                            refusing any file whose sha256 differs from
                                            scalecore_generator/vendor/npm.json
    python build_tools/vendor.py --update   the same, writing the pins anew (after a version bump
                                            in build_tools/package.json: review the diff)

Only the files below travel (the wheel would otherwise carry 90 MB of npm packages, pdf.js's
sources and wllama's C++ among them). Each package keeps its licence file beside its files; a
package whose npm tarball has none (Pyodide) names a licence text in
scalecore_generator/vendor/LICENSES/.
"""

import hashlib
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "build_tools" / "node_modules"
VENDOR = REPO / "scalecore_generator" / "vendor"
TARGET = VENDOR / "node_modules"
PINS = VENDOR / "npm.json"

# package -> (the files the build runs or the site ships, globs; its licence: a file of the
# package, or LICENSES/<name> for a package whose tarball carries none)
PACKAGES = {
    "pyodide": (["package.json", "pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json"], "LICENSES/MPL-2.0.txt"),
    "coi-serviceworker": (["package.json", "coi-serviceworker.js"], "LICENSE"),
    "katex": (["package.json", "dist/katex.js", "dist/katex.min.css", "dist/fonts/*.woff2"], "LICENSE"),
    "temml": (["package.json", "dist/temml.cjs", "dist/Temml-STIX2.css"], "LICENSE"),
    "@fontsource/stix-two-math": (["package.json", "files/stix-two-math-latin-400-normal.woff"], "LICENSE"),
    "minisearch": (["package.json", "dist/umd/index.js", "dist/cjs/index.cjs"], "LICENSE.txt"),
    "pdfjs-dist": (["package.json", "build/pdf.min.mjs", "build/pdf.worker.min.mjs"], "LICENSE"),
    "@wllama/wllama": (["package.json", "esm/index.js", "esm/wasm/wllama.wasm"], "LICENCE"),
    # The full stack's WASI shim (plugin option console_full_stack): its ES modules, as they import each other.
    "@bjorn3/browser_wasi_shim": (["package.json", "dist/*.js"], "LICENSE-MIT"),
    # The mentor's sentence encoder runs in it (onnxruntime-web's wasm backend, one thread): the classic
    # script, the ES module it imports and its WebAssembly. Its npm tarball carries no licence file.
    "onnxruntime-web": (["package.json", "dist/ort.wasm.min.js", "dist/ort-wasm-simd-threaded.mjs",
                         "dist/ort-wasm-simd-threaded.wasm"], "LICENSES/MIT-onnxruntime.txt"),
    "esbuild-wasm": (["package.json", "bin/esbuild", "lib/main.js", "esbuild.wasm", "wasm_exec.js", "wasm_exec_node.js"],
                     "LICENSE.md"),
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wanted(package: str) -> list[str]:
    globs, licence = PACKAGES[package]
    root = SOURCE / package
    found = sorted({path.relative_to(root).as_posix() for pattern in globs for path in root.glob(pattern)
                    if path.is_file()})
    if not licence.startswith("LICENSES/"):
        found.append(licence)
    missing = [pattern for pattern in globs if not any(root.glob(pattern))]
    if missing:
        sys.exit(f"vendor: {package} has no {missing[0]} in {root}. Fix: run npm ci --prefix build_tools.")
    return sorted(set(found))


def main(update: bool) -> None:
    old = json.loads(PINS.read_text(encoding="utf-8")) if PINS.is_file() else {}
    pins = {}
    for package in sorted(PACKAGES):
        version = json.loads((SOURCE / package / "package.json").read_text(encoding="utf-8"))["version"]
        files = {path: sha256(SOURCE / package / path) for path in wanted(package)}
        licence = PACKAGES[package][1]
        pins[package] = {"version": version, "license": licence, "files": files}
        if not update and old.get(package) != pins[package]:
            changed = sorted(set(files.items()) ^ set(old.get(package, {}).get("files", {}).items()))
            sys.exit(f"vendor: {package} {version} differs from its pin in {PINS.relative_to(REPO)} "
                     f"({changed[0][0] if changed else 'version or licence'}). Fix: if build_tools/package-lock.json "
                     "changed on purpose, run python build_tools/vendor.py --update and review the diff.")
    if TARGET.exists():
        shutil.rmtree(TARGET)
    for package, pin in pins.items():
        for path in pin["files"]:
            target = TARGET / package / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(SOURCE / package / path, target)
    if update:
        PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    total = sum((TARGET / p / f).stat().st_size for p, pin in pins.items() for f in pin["files"])
    print(f"vendor: {sum(len(p['files']) for p in pins.values())} files of {len(pins)} npm packages, "
          f"{total / 1e6:.1f} MB, in {TARGET.relative_to(REPO)}")


if __name__ == "__main__":
    main("--update" in sys.argv[1:])

"""Pyodide's memory snapshot for live mode: made at build time, shipped gzip-compressed.

A bare Pyodide start spends most of its time booting the interpreter and importing modules
(about 3 s in a worker here). ``loadPyodide({_loadSnapshot})`` instead copies a saved
WebAssembly heap into place: the interpreter, the core's wheel and the modules the live compute
functions need (the manifest's ``computes``, read generically from the kinds), already imported.
The worker (assets/scalecore/worker.js) verifies the file's sha256, decompresses it with
``DecompressionStream('gzip')`` and falls back to the normal load, saying why, when the snapshot
is missing, stale or refused.

Where it is made, and why Node
------------------------------
In Node, by build_tools/snapshot.mjs, once per build, cached. The heap holds no JavaScript
state of the maker: Pyodide records every JavaScript object Python refers to by its path in
the globals (snapshot.mjs refuses any beyond Pyodide's own, so nothing is looked up in the
worker before its sandbox is in place), and the file system lives outside the heap, so the
worker unpacks the (checked) wheel again after restoring: modules not imported at build stay
importable. What differs between Node and a browser worker is fixed at build rather than taken
from the machine (the clock, the entropy, the program name, the runtime string, LANG). We
measured the result restored in headless Chromium: it computes the baked numbers, so there is
no need for a browser at build time (headless Chromium through Playwright would also work, at
the price of a browser as a build dependency).

Determinism: two builds of the same inputs give byte-identical files. The hash secret is fixed
(PYTHONHASHSEED=0, visible in ``os.environ`` of the console), randomness comes from a fixed
sequence and the worker reseeds ``random`` after restoring, the clock is SOURCE_DATE_EPOCH, and
the gzip header carries no name and mtime 0.

Staleness: the manifest entry carries a ``key``, ``pyodide=<version>;pyodide.asm.wasm=<sha256>;
wheels=<sha256>,...`` (the core's wheel first, then the site's own in the manifest's order). The
worker computes the same key from the Pyodide module it imported and the manifest's runtime
entries; any difference means the runtime or a wheel changed since the snapshot was made, and
the snapshot is not used. Pyodide adds its own check (the BUILD_ID of pyodide.asm.mjs and
pyodide.asm.wasm) and refuses a foreign heap.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from build_tools import cache

SCRIPT = Path(__file__).with_name("snapshot.mjs")
SITE_PATH = "assets/pyodide/snapshot.bin.gz"
MANIFEST_KEY = "snapshot"
FORMAT = 1  # bump when what goes into the snapshot changes in a way the inputs do not show
TIMEOUT_S = 300


class SnapshotError(Exception):
    """The snapshot could not be made: the build goes on without it (the worker loads normally)."""


@dataclass(frozen=True)
class Snapshot:
    path: Path  # the gzip file to ship
    key: str  # the staleness key (see the module's docstring)
    imports: tuple[str, ...]
    raw_bytes: int


def compute_modules(computes: list[str]) -> list[str]:
    """The modules to import before the snapshot: scalecore.browser (the worker's side) and the
    module of every ``package.module:function`` the manifest's kinds compute with."""
    modules = {"scalecore.browser"} | {name.partition(":")[0] for name in computes if name}
    return sorted(modules)


def staleness_key(version: str, wasm_sha256: str, wheel_sha256s: list[str]) -> str:
    """What the snapshot depends on, in the form the worker rebuilds from the manifest."""
    return f"pyodide={version};pyodide.asm.wasm={wasm_sha256};wheels={','.join(wheel_sha256s)}"


def _epoch_ms() -> int:
    try:
        return max(0, int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))) * 1000
    except ValueError:
        return 315532800 * 1000


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise SnapshotError("node is not on PATH")
    return node


def make(pyodide: Path, wheels: list[Path], imports: list[str], cache_root: Path, log) -> Snapshot:
    """The snapshot for these inputs: from the cache, or made now (a few seconds) and cached.
    Raises SnapshotError when it cannot be made."""
    runtime_files = {name: cache.sha256_file(pyodide / name)
                     for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")}
    wheel_shas = [cache.sha256_file(wheel) for wheel in wheels]
    version = json.loads((pyodide / "package.json").read_text(encoding="utf-8"))["version"]
    inputs = {"format": FORMAT, "runtime": runtime_files, "wheels": wheel_shas, "imports": list(imports),
              "epoch_ms": _epoch_ms(), "maker": cache.sha256_file(SCRIPT), "npm_version": version}
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:24]
    folder = cache_root / "snapshot" / digest
    if cache.usable(folder, log):
        info = json.loads((folder / "info.json").read_text(encoding="utf-8"))
        return Snapshot(folder / Path(SITE_PATH).name, info["key"], tuple(info["imports"]), info["raw_bytes"])
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="scalecore-snapshot-") as scratch:
        raw = Path(scratch) / "snapshot.bin"
        request = {"pyodide": str(pyodide.resolve()), "wheels": [str(w.resolve()) for w in wheels],
                   "imports": list(imports), "epochMs": inputs["epoch_ms"], "out": str(raw)}
        try:
            done = subprocess.run([_node(), str(SCRIPT)], input=json.dumps(request), capture_output=True,
                                  text=True, timeout=TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError) as error:
            raise SnapshotError(f"Node could not run {SCRIPT.name}: {error}") from None
        lines = done.stdout.strip().splitlines()
        try:
            answer = json.loads(lines[-1]) if lines else {"error": done.stderr.strip()[-2000:] or "no answer"}
        except ValueError:
            answer = {"error": lines[-1][:2000]}
        if done.returncode != 0 or "error" in answer:
            raise SnapshotError(answer.get("error", f"exit code {done.returncode}"))
        key = staleness_key(answer["version"], runtime_files["pyodide.asm.wasm"], wheel_shas)
        with cache.writing(folder) as target:
            with open(raw, "rb") as source, open(target / Path(SITE_PATH).name, "wb") as sink:
                # no file name, mtime 0: the same bytes on every build
                with gzip.GzipFile(filename="", mode="wb", fileobj=sink, compresslevel=6, mtime=0) as packed:
                    shutil.copyfileobj(source, packed, 1 << 20)
            (target / "info.json").write_text(json.dumps(
                {"key": key, "imports": list(imports), "raw_bytes": answer["bytes"], "inputs": inputs},
                indent=1, sort_keys=True), encoding="utf-8")
    log.info(f"live: Pyodide memory snapshot made in {time.monotonic() - started:.1f} s "
             f"({answer['bytes'] / 1e6:.1f} MB, {len(imports)} modules imported)")
    return Snapshot(folder / Path(SITE_PATH).name, key, tuple(imports), answer["bytes"])

"""Pyodide's memory snapshot for live mode: made at build time, shipped gzip-compressed.

A bare Pyodide start spends most of its time booting the interpreter and importing modules
(about 3 s in a worker here). ``loadPyodide({_loadSnapshot})`` instead copies a saved
WebAssembly heap into place: the interpreter, the core's wheel and the modules the live compute
functions need (the manifest's ``computes``, read generically from the kinds), already imported.
The worker (assets/scalecore/worker.js) verifies the file's sha256, decompresses it with
``DecompressionStream('gzip')`` and falls back to the normal load, saying why, when the snapshot
is missing, stale or refused.

Where it is made, and why headless Chromium
-------------------------------------------
In a module worker of headless Chromium (what the tests use; found as for Lighthouse:
CHROME_PATH, else chromium on PATH), by scalecore_generator/runtime/snapshot-maker.js, in a child process, once
per build and cached. No driver: Chromium is started on the maker's page, which posts the
heap and then its answer to the child's server; the child then stops Chromium. We first made it
in Node (one process, no browser): restored in Chromium it computes the baked numbers, but the
heap also keeps what CPython decided when it started about the JavaScript engine under it, and
Node 20 decides differently from Chromium. Its WebAssembly GC is too old for CPython's call
trampoline, so the heap points at the JavaScript trampoline; and it has stack switching (JSPI)
only behind a flag. Restored in Chromium, the console's ``time.sleep`` (which suspends through
JSPI) then stopped Pyodide with "SuspendError: trying to suspend JS frames". A heap booted in
the browser family it is restored in has none of this. What the maker could leak of its own
machine is fixed instead (the clock, the entropy, the runtime string, LANG), and the heap holds
no JavaScript state: Pyodide records every JavaScript object Python refers to by its path in
the globals, and the maker refuses any beyond Pyodide's own, so nothing is looked up in the
site's worker before its sandbox is in place. The file system lives outside the heap, so the
worker unpacks the (checked) wheel again after restoring: modules not imported at build stay
importable.

Without Chromium the build goes on without a snapshot (one line says so) and
live mode loads Python the normal way.

Determinism: two builds of the same inputs give byte-identical files. The hash secret is fixed
(PYTHONHASHSEED=0, visible in ``os.environ`` of the console), randomness comes from a fixed
sequence and the worker reseeds ``random`` after restoring, the clock is SOURCE_DATE_EPOCH, and
the gzip header carries no name and mtime 0.

Staleness: the manifest entry carries a ``key``, ``pyodide=<version>;pyodide.asm.wasm=<sha256>;
wheels=<sha256>,...;jspi=<0|1>`` (the core's wheel first, then the site's own in the manifest's
order). The worker computes the same key from the Pyodide module it imported, the manifest's
runtime entries and its own browser; any difference means the runtime or a wheel changed since
the snapshot was made, and the snapshot is not used. ``jspi`` is whether WebAssembly stack
switching was available: Python caches that answer when it starts (``run_sync``, and through it
``time.sleep`` in the console), so a heap booted without it fails in a browser that has it, and
the reverse. Chromium has it; a browser without it (Firefox, Safari today) loads Python the normal way. Pyodide adds its own check (the BUILD_ID of pyodide.asm.mjs and
pyodide.asm.wasm) and refuses a foreign heap.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scalecore_generator.foundation import cache
from scalecore_generator.foundation.cache import user
from scalecore_generator.errors import ScalecoreError

MAKER = Path(__file__).with_name("snapshot-maker.js")
SITE_PATH = "assets/pyodide/snapshot.bin.gz"
MANIFEST_KEY = "snapshot"
FORMAT = 2  # bump when what goes into the snapshot changes in a way the inputs do not show
TIMEOUT_S = 300
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
# --expose-gc: the maker collects JavaScript's garbage before the snapshot (snapshot-maker.js).
# --liftoff-only: WebAssembly runs from V8's baseline compiler only. The maker runs CPython's
# start once, so recompiling its hot functions with the optimising compiler (in threads of their
# own, beside the bake on the build's cores) costs more than it saves: the maker's processes
# used 8.3-9.6 s of CPU against 11.0-11.5 s (three runs each), in no more time, and the heap is
# the same bytes (it is memory, not code).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--js-flags=--expose-gc --liftoff-only"]


class SnapshotError(ScalecoreError):
    """The snapshot could not be made: the build goes on without it (the worker loads normally)."""


class SnapshotUnavailable(SnapshotError):
    """No Chromium here: nothing failed, the site has no snapshot."""


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


def staleness_key(version: str, wasm_sha256: str, wheel_sha256s: list[str], jspi: bool) -> str:
    """What the snapshot depends on, in the form the worker rebuilds from the manifest and the
    browser it runs in."""
    return (f"pyodide={version};pyodide.asm.wasm={wasm_sha256};wheels={','.join(wheel_sha256s)};"
            f"jspi={int(bool(jspi))}")


def chromium() -> str:
    """The Chromium to make the snapshot in: CHROME_PATH (as for Lighthouse), else one on PATH."""
    found = os.environ.get("CHROME_PATH") or next(
        (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))), None)
    if not found or not Path(found).is_file():
        raise SnapshotUnavailable("no Chromium found (set CHROME_PATH, or install chromium)")
    return found


@functools.lru_cache(maxsize=4)
def _chromium_version(path: str, cache_root: Path) -> str:  # part of the cache key (about 70 ms: kept in the cache)
    return cache.program_version(path, cache_root / "memo" / "programs.json")


def _epoch_ms() -> int:
    try:
        return max(0, int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))) * 1000
    except ValueError:
        return 315532800 * 1000


def make(pyodide: Path, wheels: list[Path], imports: list[str], cache_root: Path, log,
         cached_only: bool = False, use=None, digest=cache.sha256_file) -> Snapshot:
    """The snapshot for these inputs: from the cache, or made now (about 10 s) and cached.
    Raises SnapshotError when it cannot be made (SnapshotUnavailable: no Chromium, or
    ``cached_only`` and none is cached: ``mkdocs serve`` rebuilds on every edit of the core, and
    a new wheel would mean a new snapshot each time). ``use``: the build's use of the cache
    (cache.SharedUse), which notes the entry; ``digest``: a file's sha256, the build's ledger's
    (cache.Digests.of), through which a warm build reads neither Pyodide's 10 MB nor the
    snapshot's again to find its entry."""
    browser = chromium()
    runtime_files = {name: digest(pyodide / name) for name in PYODIDE_FILES}
    wheel_shas = [digest(wheel) for wheel in wheels]
    version = json.loads((pyodide / "package.json").read_text(encoding="utf-8"))["version"]
    inputs = {"format": FORMAT, "runtime": runtime_files, "wheels": wheel_shas, "imports": list(imports),
              "epoch_ms": _epoch_ms(), "maker": [cache.sha256_file(MAKER), cache.sha256_file(Path(__file__))],
              "npm_version": version, "chromium": _chromium_version(browser, cache_root)}
    folder = cache_root / "snapshot" / hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:24]
    shared = user.folder() / "snapshot" / folder.name  # the same inputs' snapshot, for every site on this machine
    if cache.usable(folder, log, digest, use=use) or _copied(shared, folder, log, use):
        info = json.loads((folder / "info.json").read_text(encoding="utf-8"))
        return Snapshot(folder / Path(SITE_PATH).name, info["key"], tuple(info["imports"]), info["raw_bytes"])
    if cached_only:
        raise SnapshotUnavailable("not made while serving (mkdocs build makes it)")
    started = time.monotonic()
    with cache.writing(folder, use) as target:
        packed = target / Path(SITE_PATH).name  # the child writes it, gzip-compressed
        request = {"pyodide": str(pyodide.resolve()), "wheels": [str(w.resolve()) for w in wheels],
                   "imports": list(imports), "epochMs": inputs["epoch_ms"], "out": str(packed), "chromium": browser,
                   "parent": os.getpid()}
        try:  # a child process: its server and Chromium end with it, and it with this build
            done = subprocess.run([sys.executable, "-m", "scalecore_generator.runtime.snapshot", json.dumps(request)],
                                  capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
                                  cwd=Path(__file__).resolve().parents[2])
        except (OSError, subprocess.SubprocessError) as error:
            raise SnapshotError(f"the snapshot maker did not run: {error}") from None
        lines = done.stdout.strip().splitlines()
        try:
            answer = json.loads(lines[-1]) if lines else {"error": done.stderr.strip()[-2000:] or "no answer"}
        except ValueError:
            answer = {"error": lines[-1][:2000]}
        if done.returncode != 0 or "error" in answer or not packed.is_file():
            raise SnapshotError(answer.get("error", f"exit code {done.returncode}: {done.stderr.strip()[-2000:]}"))
        key = staleness_key(answer["version"], runtime_files["pyodide.asm.wasm"], wheel_shas, answer["jspi"])
        (target / "info.json").write_text(json.dumps(
            {"key": key, "imports": list(imports), "raw_bytes": answer["bytes"], "inputs": inputs},
            indent=1, sort_keys=True), encoding="utf-8")
    log.info(f"live: Pyodide memory snapshot made in {time.monotonic() - started:.1f} s "
             f"({answer['bytes'] / 1e6:.1f} MB, {len(imports)} modules imported)")
    _copied(folder, shared, log)
    return Snapshot(folder / Path(SITE_PATH).name, key, tuple(imports), answer["bytes"])


def _copied(source: Path, target: Path, log, use=None) -> bool:
    """Whether ``target`` now holds a whole, checked copy of the entry ``source`` (the user
    cache's, for a site's cache, or the reverse). Made once per machine, a snapshot is about 10 s
    of a cold build; copied (6 MB), never linked: a byte changed in one cache reaches no other.
    Builds racing to copy the same entry leave one whole copy (cache.writing). A user cache that
    cannot be written only costs the next site its own making."""
    if not cache.usable(source, log):
        return False
    try:
        with cache.writing(target, use) as folder:
            for path in sorted(source.iterdir()):
                if path.is_file() and path.name != cache.RECORD:
                    shutil.copyfile(path, folder / path.name)
    except OSError as error:
        log.info(f"live: the snapshot was not copied to {target.parent} ({error.strerror or error})")
        return False
    return cache.usable(target, log, use=use)


# ------------------------------------------------------------------------------ the child process

# The page hands the worker's answer to the build with a POST of ./result (event-driven: the
# build waits on it, nothing polls).
PAGE = """<!doctype html><meta charset="utf-8"><title>snapshot</title><script type="module">
const worker = new Worker("snapshot-maker.js?request=" + encodeURIComponent(REQUEST), { type: "module" });
const answer = (data) => fetch("result", { method: "POST", body: JSON.stringify(data) });
worker.onmessage = (event) => answer(event.data);
worker.onerror = (event) => answer({ error: "the maker failed: " + event.message });
</script>"""
PAGE_BYTES = 4096  # the maker sends a heap without its pages of zeros (snapshot-maker.js)


def _unpack_into(source, length: int, size: int, sink) -> int:
    """Read the maker's body (a byte per page, 1 when the page follows, then those pages) of a
    heap of ``size`` bytes from ``source`` and write the whole heap to ``sink``: the bytes left
    unread of ``length``."""
    pages = -(-size // PAGE_BYTES)
    kept = source.read(pages)
    length -= len(kept)
    if len(kept) != pages:
        raise ValueError("the snapshot's page map is cut short")
    zeros, block = bytes(PAGE_BYTES), bytearray()
    for page, present in enumerate(kept):
        wanted = min(PAGE_BYTES, size - page * PAGE_BYTES)
        if present:
            data = source.read(wanted)
            length -= len(data)
            if len(data) != wanted:
                raise ValueError("the snapshot is cut short")
            block += data
        else:
            block += zeros[:wanted]
        if len(block) >= 1 << 20:
            sink.write(block)
            block.clear()
    sink.write(block)
    return length


def _serve(folder: Path, out: Path, answered):
    """The maker's files on 127.0.0.1 (a free port); a POST of snapshot.bin (``?bytes=<size>``,
    its pages of zeros left out) is written to ``out`` as the heap, gzip-compressed as it comes
    (no file name, mtime 0: the same bytes on every build); a POST of result (the worker's JSON
    answer) is passed to ``answered``."""
    import http.server
    import threading
    import urllib.parse

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm"}

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            where = urllib.parse.urlsplit(self.path)
            left = -1
            try:
                if where.path == "/result":
                    body = self.rfile.read(length)
                    left = length - len(body)
                    answered(json.loads(body))
                else:
                    query = urllib.parse.parse_qs(where.query)
                    with open(out, "wb") as sink, gzip.GzipFile(filename="", mode="wb", fileobj=sink,
                                                                compresslevel=6, mtime=0) as packed:
                        left = _unpack_into(self.rfile, length, int(query["bytes"][0]), packed)
            except (KeyError, ValueError):
                left = -1
            self.send_response(200 if left == 0 else 400)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _make_in_chromium(request: dict) -> dict:
    """Start headless Chromium on the maker's page (no driver: the page posts its answer back),
    wait for the answer or for Chromium to end, then stop Chromium and every process it started."""
    import signal
    import threading

    answers, done = [], threading.Event()

    def answered(answer):
        answers.append(answer)
        done.set()

    with tempfile.TemporaryDirectory(prefix="scalecore-snapshot-site-") as scratch:
        folder = Path(scratch) / "site"
        folder.mkdir()
        for name in PYODIDE_FILES:
            (folder / name).symlink_to(Path(request["pyodide"]) / name)
        (folder / MAKER.name).symlink_to(MAKER)
        wheels = []
        for index, wheel in enumerate(request["wheels"]):
            (folder / f"wheel-{index}.whl").symlink_to(wheel)
            wheels.append(f"wheel-{index}.whl")
        maker = {"wheels": wheels, "imports": request["imports"], "epochMs": request["epochMs"]}
        (folder / "index.html").write_text(PAGE.replace("REQUEST", json.dumps(json.dumps(maker))), encoding="utf-8")
        server = _serve(folder, Path(request["out"]), answered)
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        started = []

        def ended(number, frame):  # the build died (main: die_with_parent), or this helper is stopped
            for browser in started:
                _kill_group(browser, signal)
            raise SystemExit(128 + number)

        signal.signal(signal.SIGTERM, ended)
        try:
            with open(Path(scratch) / "chromium.log", "w+b") as log:
                browser = subprocess.Popen(
                    [request["chromium"], *CHROMIUM_ARGS, f"--user-data-dir={Path(scratch) / 'profile'}", url],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
                started.append(browser)
                threading.Thread(target=lambda: (browser.wait(), done.set()), daemon=True).start()
                try:
                    finished = done.wait(TIMEOUT_S)
                finally:
                    _stop(browser, signal)
                if answers:
                    return answers[0]
                if not finished:
                    return {"error": f"no answer from Chromium in {TIMEOUT_S} s"}
                log.seek(0)
                said = log.read().decode("utf-8", "replace").strip()[-2000:]
                return {"error": f"Chromium ended without an answer (exit code {browser.returncode}): {said}"}
        finally:
            server.shutdown()
            server.server_close()


def _stop(browser, signal) -> None:
    """End Chromium (its own process group: the browser and every process it started)."""
    if browser.poll() is None:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            pass
    _kill_group(browser, signal)  # whatever of the group is left
    if browser.poll() is None:
        browser.wait(10)


def _kill_group(browser, signal) -> None:
    try:
        os.killpg(browser.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv: list[str]) -> int:
    """``python -m scalecore_generator.runtime.snapshot REQUEST_JSON``: make one raw snapshot (what make() runs)."""
    import signal

    from scalecore_generator.foundation.processes import die_with_parent

    try:
        request = json.loads(argv[0])
        if "parent" in request:  # a SIGTERM when the build dies, even SIGKILLed: Chromium is stopped
            die_with_parent(request["parent"], signal.SIGTERM)
        answer = _make_in_chromium(request)
    except Exception as error:  # noqa: BLE001 - reported to the build as one line
        answer = {"error": f"{type(error).__name__}: {error}"[:4000]}
    print(json.dumps(answer))
    return 1 if "error" in answer else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

// Make Pyodide's memory snapshot for live mode, at build time, in Node (build_tools/snapshot.py).
//
// stdin:  {"pyodide": "<folder of the npm package>", "wheels": ["<wheel path>", ...],
//          "imports": ["scalecore.browser", ...], "epochMs": <SOURCE_DATE_EPOCH * 1000>,
//          "out": "<file to write the raw snapshot to>"}
// stdout: one JSON line {"version", "bytes", "state"} or {"error"} (exit code 1).
//
// Pyodide is loaded with _makeSnapshot, the wheels are unpacked into site-packages, the modules
// are imported, and pyodide.makeMemorySnapshot() gives the WebAssembly heap plus a JSON record
// of the JavaScript objects Python holds. The same inputs always give the same bytes:
// - randomness (the hash secret, the random module's seed, libc's entropy) is drawn from a fixed
//   sequence instead of the operating system: PYTHONHASHSEED=0, and node:crypto's randomFillSync
//   (what Emscripten reads in Node) replaced by a seeded generator; the worker reseeds the random
//   module after restoring (scalecore.browser.restored);
// - the clock is frozen at SOURCE_DATE_EPOCH (file times Python caches, the time of imports) and
//   the monotonic clock advances one millisecond per reading;
// - nothing of the build machine reaches the heap: the program name is Pyodide's browser
//   default, the runtime string is a fixed user agent rather than Node's version, LANG is C.UTF-8.
// Python must hold no JavaScript object beyond Pyodide's own (every restored reference would be
// looked up in the worker's globals before its sandbox is in place): the record is checked here.
import { readFile, writeFile } from "node:fs/promises";
import nodeCrypto from "node:crypto";

function answer(data, code = 0) {
  process.stdout.write(JSON.stringify(data) + "\n", () => process.exit(code));
}

try {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

  let state = 0x9e3779b9; // a fixed sequence (an LCG's high bytes): reproducible, not secret
  nodeCrypto.randomFillSync = (view) => {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let i = 0; i < bytes.length; i += 1) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      bytes[i] = state >>> 24;
    }
    return view;
  };
  let ticks = 0;
  Date.now = () => request.epochMs;
  performance.now = () => (ticks += 1);
  Object.defineProperty(globalThis, "navigator", {
    value: { userAgent: "Scalecore memory snapshot (Pyodide, made at build time)", language: "C" },
    configurable: true,
  });

  const folder = request.pyodide.endsWith("/") ? request.pyodide : request.pyodide + "/";
  const { loadPyodide } = await import(new URL("pyodide.mjs", "file://" + folder).href);
  const quiet = () => {};
  const pyodide = await loadPyodide({
    indexURL: folder, _makeSnapshot: true, _sysExecutable: "./this.program",
    env: { PYTHONHASHSEED: "0", LANG: "C.UTF-8" }, stdout: quiet, stderr: quiet,
  });
  const paths = pyodide.pyimport("sysconfig").get_paths();
  const purelib = paths.get("purelib");
  paths.destroy();
  for (const wheel of request.wheels) {
    pyodide.unpackArchive(new Uint8Array(await readFile(wheel)), "wheel", { extractDir: purelib });
  }
  // The clock stands still, so a directory's mtime cannot tell the import system that the
  // wheels added files: it is told.
  const importlib = pyodide.pyimport("importlib");
  importlib.invalidate_caches();
  importlib.destroy();
  for (const name of request.imports) pyodide.pyimport(name).destroy();
  const snapshot = pyodide.makeMemorySnapshot();
  const header = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 4);
  const record = JSON.parse(new TextDecoder().decode(snapshot.subarray(48, 48 + header[2])));
  const held = record.hiwireKeys.filter((key) => key !== null);
  if (held.length) {
    throw new Error(`Python holds JavaScript objects the snapshot cannot carry safely: ${JSON.stringify(held).slice(0, 300)}`);
  }
  await writeFile(request.out, snapshot);
  answer({ version: pyodide.version, bytes: snapshot.length, state: record });
} catch (error) {
  answer({ error: String(error && error.stack ? error.stack : error).slice(0, 4000) }, 1);
}

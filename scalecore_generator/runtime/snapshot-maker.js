// Make Pyodide's memory snapshot for live mode, at build time, in a module Web Worker of
// headless Chromium (scalecore_generator/runtime/snapshot.py drives it; it is never shipped in the site).
//
// The worker is loaded as  snapshot-maker.js?request=<JSON>  with
//   {"wheels": ["<URL>", ...], "imports": ["scalecore.browser", ...], "epochMs": <ms>}
// Pyodide (served beside it) is loaded with _makeSnapshot, the wheels are unpacked into
// site-packages, the modules are imported, and pyodide.makeMemorySnapshot() (the WebAssembly
// heap plus a JSON record of the JavaScript objects Python holds) is POSTed to ./snapshot.bin
// without its pages of zeros (pagesWithoutZeros). The worker then posts {version, bytes, jspi}
// (or {error}) to the page.
//
// The same inputs always give the same bytes:
// - randomness (the hash secret, the random module's seed, libc's entropy) comes from a fixed
//   sequence: PYTHONHASHSEED=0, and crypto.getRandomValues (what Emscripten reads) replaced by a
//   seeded generator; the site's worker reseeds the random module after restoring
//   (scalecore.browser.restored);
// - the clock is frozen at SOURCE_DATE_EPOCH (file times Python caches, the time of imports) and
//   the monotonic clock advances one millisecond per reading;
// - nothing of the build machine reaches the heap: the runtime string Python keeps
//   (sys._emscripten_info) is a fixed user agent, not this Chromium's, and LANG is C.UTF-8.
// Python must hold no JavaScript object beyond Pyodide's own (each restored reference would be
// looked up in the site worker's globals before its sandbox is in place): checked here.

const request = JSON.parse(new URL(self.location.href).searchParams.get("request"));

let state = 0x9e3779b9; // a fixed sequence (an LCG's high bytes): reproducible, not secret
crypto.getRandomValues = (view) => {
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
Object.defineProperty(self, "navigator", {
  value: { userAgent: "Scalecore memory snapshot (Pyodide, made at build time)", language: "C" },
  configurable: true,
});

// The heap as sent: a byte per PAGE-byte page (1: the page follows, 0: it is all zeros), then the
// pages that are not all zeros, in order (the last one may be shorter).
const PAGE = 4096;
function pagesWithoutZeros(bytes) {
  const pages = Math.ceil(bytes.length / PAGE);
  const kept = new Uint8Array(pages);
  let count = 0;
  for (let page = 0; page < pages; page += 1) {
    const end = Math.min((page + 1) * PAGE, bytes.length);
    for (let i = page * PAGE; i < end; i += 1) {
      if (bytes[i] !== 0) { kept[page] = 1; count += 1; break; }
    }
  }
  const body = new Uint8Array(pages + count * PAGE);
  body.set(kept);
  let at = pages;
  for (let page = 0; page < pages; page += 1) {
    if (!kept[page]) continue;
    const part = bytes.subarray(page * PAGE, Math.min((page + 1) * PAGE, bytes.length));
    body.set(part, at);
    at += part.length;
  }
  return body.subarray(0, at);
}

async function make() {
  const base = new URL("./", self.location.href).href;
  const { loadPyodide } = await import(base + "pyodide.mjs");
  const quiet = () => {};
  const pyodide = await loadPyodide({
    indexURL: base, _makeSnapshot: true, env: { PYTHONHASHSEED: "0", LANG: "C.UTF-8" },
    stdout: quiet, stderr: quiet,
  });
  const paths = pyodide.pyimport("sysconfig").get_paths();
  const purelib = paths.get("purelib");
  paths.destroy();
  for (const url of request.wheels) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`could not read ${url} (HTTP ${response.status})`);
    pyodide.unpackArchive(new Uint8Array(await response.arrayBuffer()), "wheel", { extractDir: purelib });
  }
  // The clock stands still, so a directory's mtime cannot tell the import system that the
  // wheels added files: it is told.
  const importlib = pyodide.pyimport("importlib");
  importlib.invalidate_caches();
  importlib.destroy();
  for (const name of request.imports) pyodide.pyimport(name).destroy();
  // A proxy Pyodide made while loading holds a Python reference until JavaScript's garbage
  // collector finds it and its FinalizationRegistry callback runs, whenever that is: a build on a
  // busy machine saved a heap one reference count apart from another's. So collect now (Chromium
  // runs with --expose-gc), let the finalizers run, then Python's own collector.
  for (let round = 0; round < 2 && typeof self.gc === "function"; round += 1) {
    self.gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const collector = pyodide.pyimport("gc");
  collector.collect();
  collector.destroy();
  const snapshot = pyodide.makeMemorySnapshot();
  const header = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 4);
  const record = JSON.parse(new TextDecoder().decode(snapshot.subarray(48, 48 + header[2])));
  const held = record.hiwireKeys.filter((key) => key !== null);
  if (held.length) {
    throw new Error(`Python holds JavaScript objects the snapshot cannot carry safely: ${JSON.stringify(held).slice(0, 300)}`);
  }
  // Chromium uploads a request body slowly (31 MB took 1.4 to 5 s here, against 0.1 s for the
  // same bytes from curl), and half the heap is pages of zeros: only the others are sent (see
  // pagesWithoutZeros); snapshot.py puts the zeros back and compresses as the bytes arrive.
  const sent = await fetch(`${base}snapshot.bin?bytes=${snapshot.length}`, { method: "POST", body: pagesWithoutZeros(snapshot) });
  if (!sent.ok) throw new Error(`could not hand the snapshot over (HTTP ${sent.status})`);
  // Python remembers at start-up whether WebAssembly stack switching (JSPI) is there: the site's
  // worker uses the snapshot only where its browser gives the same answer (the key's jspi=).
  const jspi = "Suspending" in WebAssembly || "Suspender" in WebAssembly;
  return { version: pyodide.version, bytes: snapshot.length, jspi };
}

make().then((answer) => postMessage(answer), (error) => postMessage({ error: String(error && error.stack || error).slice(0, 4000) }));

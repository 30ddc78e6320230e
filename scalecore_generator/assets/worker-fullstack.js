// The console's full-stack worker: CPython 3.15 for WASI with numpy, pandas, scipy, scikit-learn
// and matplotlib (scalecore_generator/runtime/fullstack.py), run by fullstack-python.js on the WASI
// shim. Started by fullstack.js (the page's side) when the reader chooses the full stack.
//
// Protocol: the page sends {type: "init", payload} first, then {id, type: "run", payload: {code}};
// a run is answered {id, result: {outcome, ms}} or {id, error}. Meanwhile the worker sends
// {type: "progress", stage, step, text}, {type: "compiled", module, stdlib} (the compiled
// WebAssembly.Module and the checked zip, which the page keeps: Stop terminates this worker and
// the next one starts from them, without downloading or compiling again), {type: "ready",
// timings}, and while code runs {type: "stream", id, parts: [{stream, text}], cut} (stream:
// "stdout" | "stderr" | "image", an image's part carrying its PNG as `bytes`) and
// {type: "input", id, prompt} when input() waits for the reader.
//
//   init  {wasm, stdlib: {sha256, bytes, parts: [{url, sha256, bytes, rawBytes}]}, shim: {module
//         name: {url, sha256}}, wheels: [{url, sha256}], files: {site path: {url, sha256}},
//         module?, stdlibBytes?, input?}
//
// python.wasm and the standard library come as gzip parts (runtime/fullstack.py: no static host
// takes a file over 25 MiB, and a plain server sends what it has): fetched in order, each
// decoded with DecompressionStream("gzip") as it streams into the whole file, the progress
// counted in the bytes the host sends. A host that decoded a part itself (Content-Encoding:
// gzip) hands over raw bytes, which no longer begin with gzip's 1f 8b: taken as they are.
//
// Every file is checked against the sha256 the manifest gives it before it is used (a part's
// own sha256 where its published bytes arrived, and always the reassembled whole's): the shim's
// modules are fetched and checked before they are imported (the import then comes from the
// browser's cache, as worker.js does for Pyodide's loader). Python here reaches nothing but this
// worker's host function (no JavaScript, no network): the page's CSP and worker-sandbox.js's box
// are not needed to keep it in.

import { startPython } from "./fullstack-python.js";

const STREAM_EVERY_MS = 30; // output is sent at most this often while code runs (it runs synchronously)
const STREAM_KEEP = 200000; // characters kept of a flood between two sends (the page keeps as many)
const REFUSED = new Uint8Array([0, ...new TextEncoder().encode("refused")]); // scalecore/fullstack.py

let python = null;
let input = null; // {state: Int32Array(2), bytes: Uint8Array} where the page is cross-origin isolated
let running = null; // the id of the run under way, and its output waiting to be sent
let outcome = "ok";

self.onmessage = (event) => {
  const { id, type, payload } = event.data || {};
  if (type === "init") {
    start(payload).then((timings) => self.postMessage({ type: "ready", timings }),
      (error) => self.postMessage({ type: "progress", stage: "error", text: error.message || String(error) }));
  } else if (type === "run") {
    run(id, payload.code);
  }
};

function progress(stage, step, text) {
  self.postMessage({ type: "progress", stage, step, text });
}

async function start(config) {
  const t0 = performance.now();
  const timings = {};
  input = config.input ? { state: new Int32Array(config.input, 0, 2), bytes: new Uint8Array(config.input, 8) } : null;
  progress("download", 0, "Checking the WASI shim (sha256)\u2026");
  const shim = await importChecked(config.shim);
  let module = config.module;
  let stdlib = config.stdlibBytes;
  if (!module) {
    const sizes = new Map();
    const report = () => {
      const loaded = [...sizes.values()].reduce((sum, file) => sum + file.loaded, 0);
      const total = [...sizes.values()].reduce((sum, file) => sum + file.total, 0);
      progress("download", total ? 3 * Math.min(1, loaded / total) : 0, "Downloading the full stack" +
        (total ? ` (${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB)` : "") + "\u2026");
    };
    const [wasm, zip] = await Promise.all([config.wasm, config.stdlib].map((entry) => downloadParts(entry, sizes, report)));
    timings.downloadMs = performance.now() - t0;
    progress("start", 3, "Compiling Python\u2026");
    const t = performance.now();
    module = await WebAssembly.compile(wasm);
    timings.compileMs = performance.now() - t;
    stdlib = zip;
    self.postMessage({ type: "compiled", module, stdlib });
  }
  progress("start", 3.5, "Starting Python\u2026");
  const files = {};
  const listing = {};
  for (const wheel of config.wheels) files[`/site/wheels/${new URL(wheel.url).pathname.split("/").pop()}`] = await checked(wheel);
  for (const [sitePath, entry] of Object.entries(config.files || {})) {
    files[`/site/files/${sitePath}`] = await checked(entry);
    listing[sitePath] = `/site/files/${sitePath}`;
  }
  files["/site/files.json"] = new TextEncoder().encode(JSON.stringify(listing));
  const t = performance.now();
  python = startPython({ shim, module, stdlib, files, write, door });
  timings.startMs = performance.now() - t;
  timings.totalMs = performance.now() - t0;
  progress("ready", 4, "Python is ready.");
  return timings;
}

function run(id, code) {
  const t = performance.now();
  running = { id, parts: [], size: 0, cut: 0, sent: performance.now(), decoders: {} };
  outcome = "ok";
  try {
    python.run(code);
    send();
    self.postMessage({ id, result: { outcome, ms: performance.now() - t } });
  } catch (error) {
    send();
    self.postMessage({ id, error: "the full stack's Python failed: " + (error.message || String(error)) });
  } finally {
    running = null;
  }
}

/* Python's stdout and stderr, decoded as they come, sent every STREAM_EVERY_MS at most. */
function write(stream, bytes) {
  if (!running) return;
  const decoder = (running.decoders[stream] ||= new TextDecoder());
  const text = decoder.decode(bytes, { stream: true });
  if (text) queue({ stream, text }, text.length);
}

function queue(part, size) {
  running.parts.push(part);
  running.size += size;
  while (running.size > STREAM_KEEP && running.parts.length > 1) { // a flood keeps its end
    const first = running.parts.shift();
    const length = first.text ? first.text.length : 1;
    running.size -= length;
    running.cut += length;
  }
  if (performance.now() - running.sent >= STREAM_EVERY_MS) send();
}

function send() {
  if (!running || !running.parts.length) return;
  self.postMessage({ type: "stream", id: running.id, parts: running.parts, cut: running.cut });
  running.parts = [];
  running.size = 0;
  running.cut = 0;
  running.sent = performance.now();
}

/* What Python asks of the host (scalecore/fullstack.py). */
function door(kind, bytes) {
  if (kind === "figure" && running) {
    queue({ stream: "image", bytes: bytes.slice() }, 1);
    send(); // in its place among the text
    return null;
  }
  if (kind === "done") {
    outcome = new TextDecoder().decode(bytes);
    return null;
  }
  if (kind === "input") return readLine(new TextDecoder().decode(bytes));
  return null;
}

/* input(): the page shows a field and answers through shared memory (state 1: answered, with
   the length in state[1]; 2: cancelled); where it cannot (the page is not cross-origin
   isolated), Python says so in plain words. */
function readLine(prompt) {
  if (!input || !running) return REFUSED;
  send();
  Atomics.store(input.state, 0, 0);
  self.postMessage({ type: "input", id: running.id, prompt });
  Atomics.wait(input.state, 0, 0);
  const answered = Atomics.load(input.state, 0) === 1;
  const length = Atomics.load(input.state, 1);
  Atomics.store(input.state, 0, 0);
  return answered ? input.bytes.slice(0, length) : REFUSED;
}

// ------------------------------------------------------------------------------ checked files

async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function mismatch(url, actual, want) {
  return new Error(`the full stack's file ${url} failed its check: its sha256 is ${actual}, the manifest says ` +
    `${want}. The site's files are inconsistent (a partial upload, a stale cache, or a changed file); reload ` +
    "the page, and rebuild the site if this persists.");
}

async function checked(entry) {
  const response = await fetch(entry.url);
  if (!response.ok) throw new Error(`could not download ${entry.url} (HTTP ${response.status})`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const actual = await sha256(bytes);
  if (actual !== entry.sha256) throw mismatch(entry.url, actual, entry.sha256);
  return bytes;
}

/* A file published as gzip parts (see the top): the parts fetched in order and decoded into the
   whole as they arrive, the progress counted in published bytes; the whole then checked. */
async function downloadParts(entry, sizes, report) {
  const name = entry.parts[0].url.replace(/\.part-1\.gz$/, "");
  const file = { loaded: 0, total: entry.parts.reduce((sum, part) => sum + part.bytes, 0) };
  sizes.set(name, file);
  const whole = new Uint8Array(entry.bytes);
  let at = 0;
  for (const part of entry.parts) {
    const response = await fetch(part.url);
    if (!response.ok || !response.body) throw new Error(`could not download ${part.url} (HTTP ${response.status})`);
    const before = file.loaded;
    at = await readPart(response.body, part, whole, at, name, entry, (published) => {
      file.loaded = before + Math.min(published, part.bytes);
      report();
    });
    file.loaded = before + part.bytes;
    report();
  }
  const actual = at === entry.bytes ? await sha256(whole) : `that of ${at} bytes, not ${entry.bytes}`;
  if (actual !== entry.sha256) throw mismatch(name, actual, entry.sha256);
  return whole;
}

/* One part's body into ``whole`` from ``at``; returns where the next part starts. */
async function readPart(body, part, whole, at, name, entry, progressed) {
  const reader = body.getReader();
  const head = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < 2) { // enough to tell gzip from bytes a host already decoded
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    head.push(value);
    headBytes += value.byteLength;
  }
  const first = head.length ? head[0] : new Uint8Array(0);
  const second = first.byteLength > 1 ? first[1] : head.length > 1 ? head[1][0] : undefined;
  const gzipped = first[0] === 0x1f && second === 0x8b;
  const store = (bytes) => {
    if (at + bytes.byteLength > whole.byteLength) throw mismatch(name, `that of more than ${entry.bytes} bytes`, entry.sha256);
    whole.set(bytes, at);
    at += bytes.byteLength;
  };
  async function* chunks() {
    yield* head;
    if (ended) return;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  }
  if (!gzipped) { // decoded by the host: raw bytes, their progress scaled to the part's published size
    let raw = 0;
    for await (const chunk of chunks()) {
      store(chunk);
      raw += chunk.byteLength;
      progressed(part.rawBytes ? Math.round((raw * part.bytes) / part.rawBytes) : 0);
    }
    return at;
  }
  const kept = []; // the published bytes, for the part's own sha256
  let published = 0;
  const decoder = new DecompressionStream("gzip");
  const writer = decoder.writable.getWriter();
  const drained = (async () => {
    const out = decoder.readable.getReader();
    for (;;) {
      const { done, value } = await out.read();
      if (done) return;
      store(value);
    }
  })();
  let failed = null;
  drained.catch((error) => {
    failed = failed || error;
  });
  for await (const chunk of chunks()) {
    kept.push(chunk);
    published += chunk.byteLength;
    progressed(published);
    if (failed) continue; // read the rest: the part's sha256 says what went wrong
    try {
      await writer.write(chunk);
    } catch (error) {
      failed = failed || error;
    }
  }
  if (!failed) {
    try {
      await writer.close();
      await drained;
    } catch (error) {
      failed = failed || error;
    }
  }
  if (failed) {
    const actual = await sha256(await new Blob(kept).arrayBuffer());
    if (actual !== part.sha256) throw mismatch(part.url, actual, part.sha256);
    throw failed;
  }
  return at;
}

/* The shim's ES modules, each checked, then its index imported. */
async function importChecked(modules) {
  for (const entry of Object.values(modules)) await checked(entry);
  return import(modules.index.url);
}

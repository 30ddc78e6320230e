// The Python worker: one module Web Worker running the site's own Pyodide and the core wheel.
//
// Protocol (Pyodide's web-worker pattern): the page sends {id, type, payload}; every message
// awaits the one start-up promise; each is answered {id, result, ms} (ms: the time the request
// took here, for benchmarks) or {id, error}. Other messages
// the worker sends: {type: "progress", stage, step, text}, {type: "ready", timings} (timings.snapshot:
// "used", or why the memory snapshot was not: "none", "stale", "tampered", "missing", "refused",
// "unreadable", "unsupported", with snapshotReason; snapshotMs: its download, check and unpacking),
// {type: "stream", id, stream: "stdout"|"stderr", text} (console output while code runs).
//
//   init         {pyodide, wheels: [{url, sha256}], files: {site path: {url, sha256}},
//                 computes: {kind: "package.module:function"}, lock?: {url, sha256},
//                 packages?: {url, sha256}, snapshot?: {url, sha256, key, bytes}, interrupt?, input?}
//                all URLs absolute; interrupt and input are SharedArrayBuffers when the page is
//                cross-origin isolated (input: see readLine below)
//   compute      {kind, points: [params]}  -> the kind's compute function on each: a list of JSON,
//                answered {id, json: its text, floats?, ms} (the page parses it; floats, a
//                Float64Array, holds the lists of floats the text names as {"$floats": [start,
//                length]}: scalecore.browser.compute_packed, live.js puts them back)
//   run          {code, session}           -> console code; output streams as it comes, and the
//                packages it imports load first (the site's offline wheels, or the mirror's)
//
// While console code runs the worker also sends {type: "stream", id, parts: [{stream, text}],
// cut} (stream: "stdout" | "stderr" | "note"; cut: characters dropped before these, a flood
// being kept to its last STREAM_KEEP characters) and {type: "input", id, prompt} when input()
// waits for the reader.
//
// The Python side is the module scalecore.browser, in the core's wheel: no Python lives here.
//
// Messages run one at a time, in order. Nothing here fetches from another host: Pyodide's
// files come from the site, and the wheel's sha256 is checked before it is unpacked.
//
// The console's box (worker-sandbox.js): all messages travel over a MessageChannel port the page
// sends with init, out of Python's reach, and once Pyodide has loaded, confine() limits what
// Python can reach to the site's own origin.

import { confine, connectPage } from "./worker-sandbox.js";

let pyodide = null;
let browser = null; // the Python module scalecore.browser: compute, the console
let computes = {}; // kind -> "package.module:function", from the manifest
let ready = null;
let interrupt = null;
let stopTarget = null; // the newest request id a stop is meant for
let input = null; // {state: Int32Array(2), bytes: Uint8Array}: see readLine
let queue = Promise.resolve();
let waiting = 0; // requests received and not yet answered: a warm-up run waits for none
let newestPrepare = 0; // the id of the newest prepare received: an older one still queued is skipped
let streamId = null;
const sessions = new Map(); // console session -> its globals (a PyProxy dict)

const post = connectPage(receive); // the page ignores self.postMessage: console code can call it
const isPythonError = (error) => error && (error.type !== undefined || error.constructor?.name === "PythonError");

// A SystemExit or KeyboardInterrupt under runPythonAsync rejects the awaited promise and can
// also be re-thrown from Pyodide's event loop as an uncaught error: the awaiting code reports
// it, so the duplicate must not surface as an error in the page's console.
self.addEventListener("error", (event) => {
  if (isPythonError(event.error) || /PythonError|SystemExit|KeyboardInterrupt/.test(event.message || "")) {
    event.preventDefault();
  }
});
self.addEventListener("unhandledrejection", (event) => {
  if (isPythonError(event.reason)) event.preventDefault();
});

function receive(data) {
  const { id, type, payload } = data || {};
  if (type === "init") {
    if (!ready) {
      ready = start(payload);
      ready.then((timings) => post({ type: "ready", timings }),
        (error) => post({ type: "progress", stage: "error", text: message(error) }));
    }
    return;
  }
  if (type === "prepare") newestPrepare = id;
  waiting += 1;
  queue = queue.then(() => handle(id, type, payload)).then(() => {
    waiting -= 1;
    warmUpSoon();
  });
}

async function handle(id, type, payload) {
  try {
    if (!ready) throw new Error("the Python worker was not started (no init message)");
    await ready;
    const handler = HANDLERS[type];
    if (!handler) throw new Error(`unknown request ${JSON.stringify(type)}`);
    // A stop meant only for earlier requests is stale; one sent while this request waited in
    // the queue is this request's, and Python raises KeyboardInterrupt as soon as it runs.
    if (interrupt) clearStaleStop(id);
    const t = performance.now();
    const answer = await handler(payload, id);
    const ms = performance.now() - t; // its time here: the page measures the rest (live.js, lastCall)
    post(answer instanceof JsonText ? { id, json: answer.text, floats: answer.floats, ms } : { id, result: answer, ms });
  } catch (error) {
    post({ id, error: message(error) });
  }
}

/* Clear a stop meant only for requests before this one. The page stores the stop's target
   before the signal, so a stop that comes between the check and the clear is seen on the
   second look and put back: clearing it would leave Stop waiting for a run that never ends. */
function clearStaleStop(id) {
  if (id <= Atomics.load(stopTarget, 0)) return;
  Atomics.store(interrupt, 0, 0);
  if (id <= Atomics.load(stopTarget, 0)) Atomics.store(interrupt, 0, 2);
}

function message(error) {
  if (!error) return "unknown error";
  return error.message || String(error);
}

// A compute function's exception, as the panel can show and read it: "ValueError: not in the ..."
// (its last line, the exception itself), not the whole traceback Pyodide puts in the message.
function pythonMessage(error) {
  const text = String(error.message || error).replace(/\s+$/, "");
  const type = error.type ? String(error.type) : "";
  const at = type ? text.lastIndexOf("\n" + type + ":") : -1;
  if (at >= 0) return text.slice(at + 1);
  const lines = text.split("\n");
  return lines[lines.length - 1] || text;
}

// A compute function called with other parameters than it takes: the names came from the
// panel's script (its points() or its request), which the message then names, with what it sent.
function sentParameters(said, points) {
  if (!/^TypeError: .*(unexpected keyword argument|missing \d+ required)/.test(said) || !points.length) return "";
  return ` (the panel's script sent: ${Object.keys(points[0]).join(", ")})`;
}

function progress(stage, step, text) {
  post({ type: "progress", stage, step, text });
}

// ------------------------------------------------------------------------------------ start-up

async function start(config) {
  const t0 = performance.now();
  const timings = {};
  interrupt = config.interrupt ? new Uint8Array(config.interrupt, 0, 1) : null; // live.js, spawn()
  stopTarget = config.interrupt ? new Int32Array(config.interrupt, 4, 1) : null;
  input = config.input ? { state: new Int32Array(config.input, 0, 2), bytes: new Uint8Array(config.input, 8) } : null;

  progress("download", 0, "Downloading the Python runtime\u2026");
  const downloads = trackDownloads(config.runtime || [], config.snapshot ? [config.snapshot.url] : []);
  let restored = false;
  let mirror = null;
  let wheels = [];
  try {
    // The core's wheels, fetched and checked from the first moment, beside Pyodide's own downloads,
    // and unpacked once Python is up (they were fetched only then: a tenth of the start).
    wheels = (config.wheels || []).map(checkedWheel);
    for (const pending of wheels) pending.catch(() => {}); // awaited below, reported there
    // What the console can import beyond the standard library (runtime.py): the site's own lock
    // file, and a deployer's package mirror when one is configured.
    const packages = config.packages ? JSON.parse(await checkedText(config.packages)) : { mirror: null };
    mirror = packages.mirror ? new URL(packages.mirror, config.pyodide).href : null;
    const lock = config.lock ? await lockFile(config.lock, mirror) : null;
    await downloads.verifyModules(); // pyodide.mjs and pyodide.asm.mjs, before they run
    const pyodideModule = await import(config.pyodide);
    const { loadPyodide } = pyodideModule;
    const options = { indexURL: new URL(".", config.pyodide).href };
    if (lock) Object.assign(options, { lockFileContents: lock, packageBaseUrl: new URL(".", config.lock.url).href });
    // From the build's memory snapshot when there is a current one (see snapshotPlan); any
    // problem with it means the normal load, with the reason logged and in the timings.
    const plan = snapshotPlan(config, pyodideModule.version, timings);
    if (plan.bytes) {
      try {
        // Emscripten catches a failed WebAssembly start and waits forever: a failed check ends it here.
        pyodide = await Promise.race([loadPyodide({ ...options, _loadSnapshot: plan.bytes }), downloads.failed]);
        restored = true;
      } catch (error) {
        if (downloads.broken()) throw error; // a runtime file failed its check: no load can help
        Object.assign(plan, error && error.snapshotStatus
          ? { status: error.snapshotStatus, reason: error.message }
          : { status: "refused", reason: "Pyodide refused it: " + message(error) });
      }
    }
    timings.snapshot = restored ? "used" : plan.status;
    if (restored) {
      console.info(`scalecore: Python restored from the build's memory snapshot (${Math.round(timings.snapshotMs)} ms ` +
        "to download, check and decompress it).");
    } else {
      timings.snapshotReason = plan.reason;
      (plan.status === "none" ? console.info : console.warn)(`scalecore: the memory snapshot was not used ` +
        `(${plan.status}: ${plan.reason}); Python starts the normal way.`);
      pyodide = await Promise.race([loadPyodide(options), downloads.failed]);
    }
  } finally {
    downloads.restore();
  }
  // Before any other Python runs: the console's box (worker-sandbox.js); the mirror is the one
  // other origin it may reach.
  confine(mirror ? [new URL(mirror).origin] : []);
  timings.pyodideMs = performance.now() - t0;
  if (interrupt) pyodide.setInterruptBuffer(interrupt);
  // input() and sys.stdin wait for the reader where the page can answer; elsewhere input() says
  // in one line that it cannot read here (scalecore.browser) and sys.stdin is at its end.
  pyodide.setStdin(input ? { stdin: () => { const line = readLine(""); return line === undefined ? null : line + "\n"; } } : { error: true });
  // Raw writes, decoded as they come: what Python flushes is sent as it is, a partial line too
  // (so nothing printed in one run can surface in the next). A terminal, so Python flushes at
  // each newline and output streams while code runs.
  for (const [name, set] of [["stdout", pyodide.setStdout], ["stderr", pyodide.setStderr]]) {
    const decoder = new TextDecoder();
    set({ isatty: true, write: (bytes) => { stream(name, decoder.decode(bytes, { stream: true })); return bytes.length; } });
  }

  progress("verify", 3, "Checking the core (sha256)\u2026");
  let t = performance.now();
  // Into site-packages, so `import scalecore` keeps working after an os.chdir().
  const paths = pyodide.pyimport("sysconfig").get_paths();
  const purelib = paths.get("purelib");
  paths.destroy();
  for (const checked of wheels) pyodide.unpackArchive(await checked, "wheel", { extractDir: purelib });
  timings.coreMs = performance.now() - t;

  t = performance.now();
  browser = pyodide.pyimport("scalecore.browser");
  if (restored) browser.restored(); // this visit's own random seed, fresh import caches
  browser.start(JSON.stringify(config.files || {}), input ? readLine : undefined); // undefined: None
  computes = config.computes || {};
  timings.runtimeMs = performance.now() - t;
  timings.totalMs = performance.now() - t0;
  progress("ready", 4, "Python is ready.");
  return timings;
}

// ------------------------------------------------------------------------------ the snapshot

// The memory snapshot the build made (scalecore_generator/runtime/snapshot.py): a saved WebAssembly heap with
// Python booted, the core's wheel unpacked and the live compute functions' modules imported, so
// Pyodide copies it into place instead of starting the interpreter (a third of the time). It is
// used only when the manifest lists one whose key matches what this worker loads: the Pyodide
// version of the module it imported, the sha256 of pyodide.asm.wasm and of every wheel (the
// runtime or a wheel changed since the build: "stale"), and whether this browser has
// WebAssembly stack switching like the heap's maker had (Python remembers it from start-up). Its download starts at once, beside
// Pyodide's own; its sha256 is checked ("tampered") before DecompressionStream unpacks it, and
// Pyodide itself refuses a heap of another build ("refused"). Any of these: the normal load.
// The file system is not part of the heap: start() unpacks the wheel again as it always does.
function snapshotPlan(config, version, timings) {
  const entry = config.snapshot;
  if (!entry) {
    return { status: "none", reason: "the site ships no memory snapshot (mkdocs serve makes none; mkdocs build does " +
      "unless the plugin option live_snapshot is false)" };
  }
  const wasm = (config.runtime || []).find((file) => /\/pyodide\.asm\.wasm$/.test(new URL(file.url, self.location.href).pathname));
  // Python caches at start-up whether stack switching (JSPI) is there: the heap must agree.
  const jspi = typeof WebAssembly === "object" && ("Suspending" in WebAssembly || "Suspender" in WebAssembly);
  const key = `pyodide=${version};pyodide.asm.wasm=${wasm ? wasm.sha256 : "?"};wheels=` +
    (config.wheels || []).map((wheel) => wheel.sha256).join(",") + `;jspi=${jspi ? 1 : 0}`;
  if (entry.key !== key) {
    return { status: "stale", reason: `it was made for ${entry.key}, this page loads ${key}` };
  }
  if (typeof DecompressionStream !== "function") {
    return { status: "unsupported", reason: "this browser has no DecompressionStream" };
  }
  const bytes = snapshotBytes(entry, timings);
  bytes.catch(() => {}); // loadPyodide awaits it; the reason is reported there, never as unhandled
  return { bytes };
}

/* One of the core's wheels, downloaded and checked against the manifest's sha256: its bytes. */
async function checkedWheel(wheel) {
  const response = await fetch(wheel.url);
  if (!response.ok) throw new Error(`could not download the wheel ${wheel.url} (HTTP ${response.status})`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const actual = await sha256(bytes);
  if (actual !== wheel.sha256) {
    throw new Error(`the wheel ${wheel.url} failed its check: its sha256 is ${actual}, the manifest says ` +
      `${wheel.sha256}. The site's files are inconsistent (a partial upload or a stale cache?); ` +
      "reload the page, and rebuild the site if this persists.");
  }
  return bytes;
}

function snapshotProblem(status, text) {
  const error = new Error(text);
  error.snapshotStatus = status;
  return error;
}

async function snapshotBytes(entry, timings) {
  const t = performance.now();
  const response = await fetch(entry.url); // trackDownloads' fetch: its bytes count in the progress
  if (!response.ok) throw snapshotProblem("missing", `${entry.url} answered HTTP ${response.status}`);
  // Decompressed while it downloads; Pyodide gets the result only once the downloaded bytes
  // have passed the check.
  const [packedStream, rawStream] = response.body.tee();
  const unpacked = new Response(rawStream.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
  unpacked.catch(() => {}); // reported below, or moot when the check fails first
  const packed = new Uint8Array(await new Response(packedStream).arrayBuffer());
  const actual = await sha256(packed);
  if (actual !== entry.sha256) {
    const decoded = !(packed[0] === 0x1f && packed[1] === 0x8b);
    throw snapshotProblem("tampered", `${entry.url} has sha256 ${actual}, the manifest says ${entry.sha256}` +
      (decoded ? " (it is not gzip: was it sent with Content-Encoding: gzip and decoded on the way?)" : ""));
  }
  let raw;
  try {
    raw = new Uint8Array(await unpacked);
  } catch (error) {
    throw snapshotProblem("unreadable", `${entry.url} could not be decompressed: ${message(error)}`);
  }
  if (entry.bytes && raw.length !== entry.bytes) {
    throw snapshotProblem("unreadable", `${entry.url} decompressed to ${raw.length} bytes, the manifest says ${entry.bytes}`);
  }
  timings.snapshotMs = performance.now() - t;
  return raw;
}

// ------------------------------------------------------------------------------ downloads

// The big downloads (the WebAssembly module and the standard library, ~12 MB) are watched
// byte by byte, so the page can show real progress and then say "Starting Python" while the
// module compiles and the interpreter boots (most of the ~4 s on a fresh start).
//
// Every file of Pyodide's is checked against the sha256 the manifest gives it (``checked``):
// the two JavaScript modules before they are imported (fetched once here; the import then comes
// from the browser's cache), the WebAssembly module and the standard library as Pyodide fetches
// them, so they are downloaded once and only checked bytes reach it. A mismatch stops live mode
// with a plain message.
function trackDownloads(checked, watched = []) {
  const expected = new Map(checked.map((entry) => [new URL(entry.url, self.location.href).href, entry.sha256]));
  const original = self.fetch;
  let fail;
  const failed = new Promise((resolve, reject) => { fail = reject; });
  failed.catch(() => {}); // the error is start()'s to report, not an unhandled rejection
  const files = new Map(); // url -> {loaded, total, done}
  let last = 0;
  let started = false;
  let broken = false; // a check failed: the error is the last word, not a later download's progress
  let over = false; // Python is loaded: what is still counted is no longer the start's progress
  const report = (force) => {
    if (broken || over) return;
    const all = [...files.values()];
    if (all.length >= 2 && all.every((file) => file.done)) {
      if (!started) progress("start", 1.5, "Starting Python\u2026");
      started = true;
      return;
    }
    const now = performance.now();
    if (!force && now - last < 100) return;
    last = now;
    const loaded = all.reduce((sum, file) => sum + file.loaded, 0);
    const total = all.reduce((sum, file) => sum + file.total, 0);
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    progress("download", total ? Math.min(1, loaded / total) : 0,
      "Downloading the Python runtime" + (total ? ` (${mb(loaded)} of ${mb(total)} MB)` : "") + "\u2026");
  };
  const verify = async (url, bytes) => {
    const want = expected.get(url);
    if (want === undefined) return;
    const actual = await sha256(bytes);
    if (actual !== want) {
      const error = new Error(`the Python runtime file ${url} failed its check: its sha256 is ${actual}, the ` +
        `manifest says ${want}. The site's files are inconsistent (a partial upload, a stale cache, or a changed ` +
        "file); reload the page, and rebuild the site if this persists.");
      broken = true;
      fail(error);
      throw error;
    }
  };
  self.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = String(input && input.url ? input.url : input);
    if (expected.has(url) && response.ok && !/\.m?js$/.test(url)) {
      const bytes = new Uint8Array(await count(url, response).arrayBuffer());
      try {
        await verify(url, bytes);
      } catch (error) {
        // start() reports it (downloads.failed); Pyodide is left waiting, so that none of its
        // own promises rejects unhandled behind the message.
        return new Promise(() => {});
      }
      return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    const big = /\.wasm$|python_stdlib\.zip$/.test(url) || watched.some((entry) => new URL(entry, self.location.href).href === url);
    if (!big || !response.ok || !response.body) return response;
    return count(url, response);
  };
  function count(url, response) {
    const file = { loaded: 0, total: Number(response.headers.get("Content-Length")) || 0, done: false };
    files.set(url, file);
    const reader = response.body.getReader();
    const counted = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          file.done = true;
          controller.close();
          report(true);
          return;
        }
        file.loaded += value.byteLength;
        controller.enqueue(value);
        report(false);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  return {
    failed,
    broken: () => broken,
    restore: () => { self.fetch = original; over = true; },
    verifyModules: async () => {
      for (const [url] of expected) {
        if (!/\.m?js$/.test(url)) continue;
        const response = await original(url);
        if (!response.ok) throw new Error(`could not download ${url} (HTTP ${response.status})`);
        await verify(url, new Uint8Array(await response.arrayBuffer()));
      }
    },
  };
}

/* A small site file (text), checked against the sha256 the manifest gives it. */
async function checkedText(entry) {
  const response = await fetch(entry.url);
  if (!response.ok) throw new Error(`could not download ${entry.url} (HTTP ${response.status})`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const actual = await sha256(bytes);
  if (actual !== entry.sha256) {
    throw new Error(`${entry.url} failed its check: its sha256 is ${actual}, the manifest says ${entry.sha256}. ` +
      "Reload the page, and rebuild the site if this persists.");
  }
  return new TextDecoder().decode(bytes);
}

/* The lock file Pyodide loads packages from: the site's own (its offline wheels), plus, with a
   mirror, every package of the mirror's pyodide-lock.json the site does not have, each at its
   absolute URL on the mirror (Pyodide checks every wheel against the lock's sha256). */
async function lockFile(entry, mirror) {
  const lock = JSON.parse(await checkedText(entry));
  if (!mirror) return lock;
  const response = await fetch(new URL("pyodide-lock.json", mirror).href);
  if (!response.ok) throw new Error(`could not read the package mirror's lock file at ${mirror} (HTTP ${response.status})`);
  const theirs = await response.json();
  for (const [name, item] of Object.entries(theirs.packages || {})) {
    if (lock.packages[name]) continue;
    lock.packages[name] = { ...item, file_name: new URL(item.file_name, mirror).href };
  }
  return lock;
}

async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// ------------------------------------------------------------------------------------ streams

// Console output, coalesced: a loop printing two million lines sends a message every
// STREAM_EVERY_MS (the page paints at most once a frame), not two million messages, and a flood
// keeps only its last STREAM_KEEP characters (what the page keeps), counting the rest as cut.
// The parts keep the order stdout and stderr were written in. What is left is sent before the
// run's answer. What is written less than STREAM_EVERY_MS after a send waits for a timer, which
// fires while Python sleeps (time.sleep suspends it) or awaits: print("a"); print("b");
// time.sleep(5) shows "b" at once, not five seconds later. A run's first output goes at once.
const STREAM_EVERY_MS = 50;
const STREAM_KEEP = 200000;
let pending = []; // [{stream, text}]
let pendingSize = 0;
let pendingCut = 0;
let lastSent = 0;
let flushTimer = null;

function stream(name, text) {
  const last = pending[pending.length - 1];
  if (last && last.stream === name) last.text += text;
  else pending.push({ stream: name, text });
  pendingSize += text.length;
  if (pendingSize > 2 * STREAM_KEEP) keepTail();
  const since = performance.now() - lastSent;
  if (since >= STREAM_EVERY_MS) flush();
  else if (flushTimer === null) flushTimer = setTimeout(flush, STREAM_EVERY_MS - since);
}

function keepTail() {
  let excess = pendingSize - STREAM_KEEP;
  while (excess > 0 && pending.length) {
    const first = pending[0];
    const drop = Math.min(excess, first.text.length);
    if (drop === first.text.length) pending.shift();
    else first.text = first.text.slice(drop);
    excess -= drop;
    pendingSize -= drop;
    pendingCut += drop;
  }
}

function flush() {
  if (flushTimer !== null) clearTimeout(flushTimer);
  flushTimer = null;
  lastSent = performance.now();
  if (!pending.length && !pendingCut) return;
  keepTail();
  if (streamId !== null) post({ type: "stream", id: streamId, parts: pending, cut: pendingCut });
  pending = [];
  pendingSize = 0;
  pendingCut = 0;
}

// ------------------------------------------------------------------------------------ input

// input() on a cross-origin-isolated page: the worker asks the page for a line and blocks on a
// SharedArrayBuffer until the reader answers (Atomics.wait; Python cannot yield to the event
// loop from inside input()). The buffer: state (Int32 0: waiting, 1: answered, 2: stopped),
// length (Int32), then the answer's UTF-8 bytes, written by the page (live.js, answer()).
// Returns the line, or undefined when Stop was pressed (Python raises KeyboardInterrupt).
function readLine(prompt) {
  flush(); // what was printed before the prompt comes first
  Atomics.store(input.state, 0, 0);
  post({ type: "input", id: streamId, prompt: String(prompt) });
  while (Atomics.load(input.state, 0) === 0) Atomics.wait(input.state, 0, 0, 1000);
  if (Atomics.load(input.state, 0) === 2) {
    if (interrupt) interrupt[0] = 0; // this stop is answered by the KeyboardInterrupt input() raises
    return undefined; // None in Python (null would be pyodide's jsnull)
  }
  const length = Atomics.load(input.state, 1);
  return new TextDecoder().decode(input.bytes.slice(0, length));
}

function note(text) {
  stream("note", text + "\n");
}

// ------------------------------------------------------------------------------------ requests

/* A handler's answer that is JSON text already: sent as {id, json, floats} and parsed by the page. */
class JsonText {
  constructor(text, floats) {
    this.text = text;
    this.floats = floats; // a Float64Array or undefined
  }
}

// Warm-up in idle time. V8 runs WebAssembly first as baseline code (Liftoff) and compiles a
// function again, optimised (TurboFan), once it has run enough: it is the runs that count, not
// the time (idle time after the first compute changes nothing; measured: benchmarks/RESULTS.md,
// "Measurements behind the code's choices"). So after a compute that took at most WARM_UP_POINT_MS a point, while nothing else is asked, the
// worker computes its points again one at a time (answers dropped), one point per task, up to
// WARM_UP_RUNS points and WARM_UP_MS in this visit: the reader's next recompute runs optimised
// code. A request that comes waits at most for the point under way (a few ms: hence one point at
// a time, and only short ones; a long compute runs enough on its own), and the runs go on once it
// is answered.
const WARM_UP_POINT_MS = 25;
const WARM_UP_RUNS = 120;
const WARM_UP_MS = 800;
let lastWarning = ""; // the last compute's exception, as the console was told it
let warmUp = null; // {name, points: [JSON text of one point], next}: the last short compute's
let warmUpRuns = 0;
let warmUpSpent = 0;
let warmUpTimer = null;

const warmUpLeft = () => warmUpRuns < WARM_UP_RUNS && warmUpSpent < WARM_UP_MS;

function warmUpSoon() {
  if (warmUp && warmUpLeft() && warmUpTimer === null) warmUpTimer = setTimeout(warmUpRun, 0);
}

function warmUpRun() {
  warmUpTimer = null;
  if (!warmUp || waiting > 0 || !warmUpLeft()) return; // a request goes first; back after it
  const t = performance.now();
  warmUpRuns += 1;
  try {
    const point = warmUp.points[warmUp.next++ % warmUp.points.length];
    browser.compute_packed(warmUp.name, point).destroy();
  } catch (error) {
    warmUp = null; // whatever the reason (a stop, say): no more runs of it
    return;
  } finally {
    warmUpSpent += performance.now() - t;
  }
  warmUpSoon();
}

const HANDLERS = {
  // A kind's compute function (named in the manifest), once per parameter set: exactly what
  // the bake called for its points, so live results equal baked ones.
  async compute({ kind, points }) {
    const name = computes[kind];
    if (!name) throw new Error(`the kind ${JSON.stringify(kind)} computes nothing live on this site`);
    let answer;
    const text = JSON.stringify(points);
    const t = performance.now();
    try {
      answer = browser.compute_packed(name, text);
      lastWarning = "";
      const short = points.length && performance.now() - t <= WARM_UP_POINT_MS * points.length;
      warmUp = short ? { name, points: points.map((point) => JSON.stringify([point])), next: 0 } : null;
    } catch (error) {
      if (!isPythonError(error)) throw error;
      // The panel shows the exception itself; the author finds where it was raised in the
      // browser's console (a warning: the page handled it), once: a click after the same
      // request computed on intent (prepare) raises it again.
      const said = `scalecore: ${name} raised in live mode for ${text.length > 300 ? text.slice(0, 300) + "\u2026" : text}:\n` +
        String(error.message || error).trim();
      if (said !== lastWarning) console.warn(said);
      lastWarning = said;
      throw new Error(pythonMessage(error) + sentParameters(pythonMessage(error), points));
    }
    // The JSON text itself goes to the page, which parses it: one string to copy, not a tree of
    // arrays to clone on both sides; the floats as one array of doubles beside it (Python writing
    // each as text was most of json.dumps's time in Pyodide).
    try {
      const json = answer.get(0);
      const packed = answer.get(1);
      let floats;
      if (packed) {
        const view = packed.getBuffer("f64");
        floats = view.data.slice(); // a copy out of Python's memory
        view.release();
        packed.destroy();
      }
      return new JsonText(json, floats);
    } finally {
      answer.destroy();
    }
  },

  // A compute the page expects next (live.js, prepare): a compute, unless the reader has typed
  // past it (a newer prepare is queued), then skipped. The warm-up above then repeats its
  // points, as after a compute.
  async prepare({ kind, points }, id) {
    return id === newestPrepare ? HANDLERS.compute({ kind, points }) : null;
  },

  async run({ code, session }, id) {
    let namespace = sessions.get(session);
    if (!namespace) {
      namespace = browser.namespace();
      sessions.set(session, namespace);
    }
    streamId = id;
    lastSent = 0; // this run's first output is sent at once
    const t = performance.now();
    try {
      // The packages the code imports, from the site (or the mirror), before it runs: each wheel
      // is downloaded the first time code imports it, never before.
      await pyodide.loadPackagesFromImports(code, { messageCallback: note, errorCallback: note });
      const outcome = await browser.run(code, namespace);
      return { outcome, ms: performance.now() - t };
    } finally {
      browser.flush();
      flush();
      streamId = null;
    }
  },
};

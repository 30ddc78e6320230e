// The page's side of the console's full scientific stack (worker-fullstack.js), where the site
// ships it (plugin option console_full_stack). It speaks like live.js's client, so the console
// runs code the same way on either runtime:
//
//   const info = fullStack(manifest);        // null when the site has none; else its download size
//   const why = await cannotRun();           // null, or the plain reason this browser cannot run it
//   const client = connectFullStack(manifest, {onProgress});
//   await client.call("run", {code}, {onStream, onInput});  // -> {outcome, ms}
//   await client.stop();                     // terminates the worker; the next starts at once
//
// Stop always restarts: the runtime runs code synchronously and has no interrupt. The restart
// costs no download and no compiling: the first worker hands the page its compiled
// WebAssembly.Module and the checked standard library, and each later one starts from them.
// Timings for benchmarks go to window.scalecoreTimings.fullStack (ready: worker start to Python
// ready, with the worker's own split; restartReadyMs after a stop).

import { WorkerClient } from "./worker-client.js";

const timings = (globalThis.scalecoreTimings = globalThis.scalecoreTimings || {});
let shared = null;

/* The full stack's files in the manifest, with what they cost to download; null without it.
   python.wasm and the standard library are published as gzip parts (runtime/fullstack.py), which
   every host sends as they are: ``download`` is the sum of the parts' published bytes, what the
   reader's browser receives from this host; ``bytes`` what they unpack to. */
export function fullStack(manifest) {
  const runtime = manifest.data.runtime || {};
  const files = [runtime.fullstack_wasm, runtime.fullstack_stdlib];
  if (files.some((file) => !file || !Array.isArray(file.parts)) || !runtime.fullstack_shim_index) return null;
  const published = (file) => file.parts.reduce((sum, part) => sum + part.bytes, 0);
  return { bytes: files[0].bytes + files[1].bytes, download: published(files[0]) + published(files[1]) };
}

/* What the reader is told the full stack costs: the bytes this host sends (the parts as
   published, measured at build), and what they take unpacked. */
export function sizeText(info) {
  const mb = (bytes) => Math.round(bytes / 1e6) + " MB";
  return `a ${mb(info.download)} download (${mb(info.bytes)} unpacked), once; the browser keeps it`;
}

// The smallest module with a try_table block: WebAssembly's exception handling with exnref,
// which python.wasm uses (browsers without it, and Node 20, cannot compile it).
const EXCEPTIONS_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0,
  10, 8, 1, 6, 0, 31, 64, 0, 11, 11]);

/* Why this page cannot run the full stack, in plain words, or null: checked before anything
   is downloaded. */
export function cannotRun() {
  if (typeof WebAssembly !== "object" || !WebAssembly.validate(EXCEPTIONS_PROBE)) {
    return "This browser cannot run the full scientific stack: its Python needs WebAssembly exception " +
      "handling (exnref), which recent Chrome, Edge and Firefox have. The console's Pyodide runtime works here.";
  }
  return null;
}

function runtimeConfig(manifest) {
  const runtime = manifest.data.runtime;
  const absolute = (entry) => ({ url: new URL(entry.url, manifest.url).href, sha256: entry.sha256, bytes: entry.bytes });
  const parted = (entry) => ({ sha256: entry.sha256, bytes: entry.bytes, parts: entry.parts.map((part) => ({
    url: new URL(part.url, manifest.url).href, sha256: part.sha256, bytes: part.bytes, rawBytes: part.raw_bytes })) });
  const shim = {};
  for (const key of Object.keys(runtime).sort()) {
    if (key.startsWith("fullstack_shim_")) shim[key.slice("fullstack_shim_".length)] = absolute(runtime[key]);
  }
  const wheels = [absolute(runtime.core_wheel)];
  const files = {};
  for (const corpus of manifest.data.corpora) files["api/embeddings/" + corpus.name + ".json"] = absolute(corpus.embeddings);
  // What the site's Pyodide has offline: an import of it here says to switch (scalecore/fullstack.py).
  if (runtime.packages) files["assets/pyodide/packages.json"] = absolute(runtime.packages);
  return { wasm: parted(runtime.fullstack_wasm), stdlib: parted(runtime.fullstack_stdlib), shim, wheels, files };
}

class FullStackClient extends WorkerClient {
  constructor(config) {
    super(config, "The full stack could not start: ");
    this.compiled = null; // {module, stdlib} from the first worker
    this.spawn();
  }

  spawn() {
    const started = performance.now();
    this.input = this.inputBuffer();
    const worker = new Worker(new URL("./worker-fullstack.js", import.meta.url), { type: "module", name: "scalecore-full-stack" });
    this.worker = worker;
    this.channel = worker;
    this.awaitReady();
    worker.onerror = (event) => {
      event.preventDefault();
      this.fail(worker, new Error("the full-stack worker failed" + (event.message ? ": " + event.message : "")));
    };
    worker.onmessage = (event) => this.receive(worker, event.data, started);
    const payload = { ...this.config, input: this.input };
    if (this.compiled) Object.assign(payload, { module: this.compiled.module, stdlibBytes: this.compiled.stdlib });
    worker.postMessage({ type: "init", payload });
    this.emit({ stage: "download", step: 0, text: this.compiled ? "Starting Python again\u2026" : "Starting the full stack\u2026" });
  }

  receiveOwn(message, started) {
    if (message.type === "compiled") {
      this.compiled = { module: message.module, stdlib: message.stdlib };
      return true;
    }
    if (message.type !== "ready") return false;
    const ms = performance.now() - started;
    timings.fullStack = { ...(timings.fullStack || {}), ...(this.restarts ? { restartReadyMs: ms } : { readyMs: ms, startup: message.timings }) };
    this.becameReady();
    return true;
  }

  /* Stop: the worker is terminated at once (a busy loop cannot be interrupted) and a new one
     started from the compiled module; variables are gone. */
  stop() {
    if (!this.busy && this.progress.stage === "ready") return Promise.resolve({ mode: "idle" });
    const reason = this.progress.stage === "ready" ? "full stack" : "starting";
    this.restart(reason);
    return Promise.resolve({ mode: "restarted", reason });
  }
}

/* The one full-stack client of this visit; starts its worker on first use. */
export function connectFullStack(manifest, { onProgress } = {}) {
  if (!shared) shared = new FullStackClient(runtimeConfig(manifest));
  if (onProgress) shared.onProgress(onProgress);
  return shared;
}

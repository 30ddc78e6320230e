// The page's side of the Python worker (worker.js): one worker for the whole site visit,
// started on the first live action or console run, shared by every panel, and kept across
// Material's instant page swaps.
//
//   const live = await import(".../live.js");
//   const client = live.connect(manifest, {onProgress});   // starts the worker if needed
//   await client.ready();
//   const results = await client.compute(kind, [params, ...]);   // the kind's compute function
//   await client.stop();   // interrupt (cross-origin isolated pages) or restart the worker
//   client.answer(text);   // the reader's line for an input() the worker waits on (isolated pages)
//
// Timings for benchmarks go to window.scalecoreTimings: liveReadyMs (worker start to Python
// ready), liveStartup (the worker's own split, with snapshot: "used" or why not), restartReadyMs
// after a stop, prefetchedAt (when intent started the worker: prefetch()), liveReadyAt (when
// Python was ready, on the page's clock), lastCall (the last answered request: {type, ms: sent to
// answered, workerMs: the worker's own time on it, parseMs: the page parsing its JSON and putting its floats back}).
//
//   live.prefetch(manifest);   // intent (hover, focus, pointerdown): start the worker early

import { StoppedError, WorkerClient } from "./worker-client.js";

export { StoppedError };

const timings = (globalThis.scalecoreTimings = globalThis.scalecoreTimings || {});
let shared = null;

// How long an interrupt may take to reach Python before Stop restarts it instead: Python
// answers in tens of milliseconds unless it is stuck outside the interpreter loop.
const STUCK_MS = 2000;

/* Absolute URLs of what the worker needs, read from the manifest (never built by hand). */
function runtimeConfig(manifest) {
  const data = manifest.data;
  if (!data.runtime || !data.runtime.pyodide || !data.runtime.core_wheel) {
    throw new Error("this site was built without the Python runtime (the plugin's option live: false), " +
      "so live mode and the console are not available");
  }
  const absolute = (entry) => ({ url: new URL(entry.url, manifest.url).href, sha256: entry.sha256 });
  // The core first, then the site's own packages (runtime keys wheel_<package>).
  const wheels = [absolute(data.runtime.core_wheel)].concat(Object.keys(data.runtime).sort()
    .filter((key) => key.indexOf("wheel_") === 0).map((key) => absolute(data.runtime[key])));
  // The site files Python may read: the corpora's embedding tables.
  const files = {};
  for (const corpus of data.corpora) files["api/embeddings/" + corpus.name + ".json"] = absolute(corpus.embeddings);
  const computes = {};
  for (const [name, kind] of Object.entries(data.kinds || {})) if (kind.compute) computes[name] = kind.compute;
  // The console's packages (runtime.py): the site's Pyodide lock file and what it can import.
  const extra = {};
  if (data.runtime.package_lock) extra.lock = absolute(data.runtime.package_lock);
  if (data.runtime.packages) {
    extra.packages = absolute(data.runtime.packages);
    files["assets/pyodide/packages.json"] = extra.packages; // scalecore.browser reads it for import errors
  }
  // The build's memory snapshot (scalecore_generator/runtime/snapshot.py): the worker checks its key and sha256
  // itself and falls back to the normal load, so it is not among the files a failed check stops.
  const snapshot = data.runtime.snapshot;
  if (snapshot) extra.snapshot = { ...absolute(snapshot), key: snapshot.key, bytes: snapshot.bytes };
  // Pyodide's own files, each with its sha256: the worker checks them before Python starts.
  const checked = [absolute(data.runtime.pyodide)].concat(Object.keys(data.runtime).sort()
    .filter((key) => key.indexOf("pyodide_") === 0).map((key) => absolute(data.runtime[key])));
  return { pyodide: absolute(data.runtime.pyodide).url, runtime: checked, wheels, files, computes, ...extra };
}

/* A compute answer's lists of floats put back in place: the worker sends each as
   {"$floats": [start, length]} into one Float64Array (scalecore.browser.compute_packed). */
function unpack(value, floats) {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unpack(value[i], floats);
  } else if (value !== null && typeof value === "object") {
    const at = value["$floats"];
    if (at !== undefined) return Array.from(floats.subarray(at[0], at[0] + at[1]));
    for (const key of Object.keys(value)) value[key] = unpack(value[key], floats);
  }
  return value;
}

/* The worker speaks to the page only through a MessageChannel port handed over with the init
   message; the worker keeps its end out of Python's reach (worker-sandbox.js). Anything on the
   worker's own channel (self.postMessage, which console code can call) is not the site's and is
   ignored. Returns the page's end, which also carries the requests. */
function privateChannel(worker, init, onMessage, onBroken) {
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = (event) => onMessage(event.data);
  port1.onmessageerror = onBroken;
  worker.onmessage = null;
  worker.postMessage({ ...init, port: port2 }, [port2]);
  return port1;
}

class LiveClient extends WorkerClient {
  constructor(config) {
    super(config, "Python could not start: ");
    this.spawn();
  }

  spawn() {
    const started = performance.now();
    // The stop signal Pyodide polls (byte 0), then the newest request the stop is meant for
    // (Int32 at 4): the worker clears only a stop meant for requests before the one it starts.
    const stop = this.isolated ? new SharedArrayBuffer(8) : null;
    this.interrupt = stop ? new Uint8Array(stop, 0, 1) : null;
    this.stopTarget = stop ? new Int32Array(stop, 4, 1) : null;
    this.input = this.inputBuffer();
    this.progress = { stage: "download", step: 0, text: "Starting the Python worker\u2026" };
    const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "scalecore-python" });
    this.worker = worker;
    this.awaitReady();
    worker.onerror = (event) => {
      event.preventDefault();
      // After ready, only Python runs there: an error event then is not the site's message.
      if (worker === this.worker && this.progress.stage === "ready") return;
      const failed = new Error("the Python worker failed" + (event.message ? ": " + event.message : "") +
        (event.filename ? " (" + event.filename + ":" + event.lineno + ")" : ""));
      // Offline, a worker that cannot start is one this device did not keep: said so (panels.js).
      const util = globalThis.scalecore && globalThis.scalecore.util;
      this.fail(worker, util && util.unreachable ? util.unreachable("Live mode", failed) : failed);
    };
    this.channel = privateChannel(worker, { type: "init", payload: { ...this.config, interrupt: this.interrupt ? this.interrupt.buffer : null, input: this.input } },
      (message) => this.receive(worker, message, started),
      () => this.fail(worker, new Error("the Python worker sent a message the page cannot read")));
    this.emit(this.progress);
  }

  receiveOwn(message, started) {
    if (message.type !== "ready") return false;
    const ms = performance.now() - started;
    if (this.restarts) timings.restartReadyMs = ms;
    else timings.liveReadyMs = ms;
    timings.liveReadyAt = performance.now();
    timings.liveStartup = message.timings;
    this.becameReady();
    return true;
  }

  /* A compute answer comes as JSON text, its lists of floats apart (unpack). */
  settle(call, message) {
    const received = performance.now();
    let result = message.result;
    try {
      if (message.json !== undefined) result = JSON.parse(message.json);
      if (message.floats) result = unpack(result, message.floats);
    } catch (error) {
      return call.reject(new Error("the Python worker sent an answer the page cannot read: " + error.message));
    }
    if (call.type !== "prepare") {
      timings.lastCall = { type: call.type, ms: received - call.sent, workerMs: message.ms,
        parseMs: performance.now() - received };
    }
    call.resolve(result);
  }

  /* A kind's compute function on each parameter set, in Python: resolves with the results. */
  compute(kind, points) {
    return this.call("compute", { kind, points });
  }

  /* The compute a reader is about to ask for (a live form's fields as typed, panels.js), run
     when Python is ready (typing never starts it): resolves with its results, or null when a
     newer prepare came before it ran or it failed (the compute itself will say why). */
  prepare(kind, points) {
    if (this.progress.stage !== "ready") return Promise.resolve(null);
    return this.call("prepare", { kind, points }).then((results) => {
      if (results) timings.lastPreparedAt = performance.now();
      return results;
    }, () => null);
  }

  /* Stop what is running. On a cross-origin-isolated page Python gets a KeyboardInterrupt
     (its variables survive); elsewhere the worker is terminated and a fresh one started.
     Resolves with {mode: "idle" | "interrupted" | "restarted", reason?}; a restart's reason
     (see StoppedError) is also the StoppedError's that the stopped requests reject with. */
  stop() {
    if (!this.busy && this.progress.stage === "ready") return Promise.resolve({ mode: "idle" });
    if (this.interrupt && this.progress.stage === "ready") {
      const ids = [...this.pending.keys()];
      // Meant for every request sent so far, even one still queued in the worker; the target
      // is stored first, so a worker that clears a stale stop can tell this one is meant for
      // it (worker.js, handle).
      Atomics.store(this.stopTarget, 0, this.nextId - 1);
      Atomics.store(this.interrupt, 0, 2); // SIGINT
      this.cancelInput(); // an input() waiting for the reader returns, and raises KeyboardInterrupt
      return new Promise((resolve) => {
        const asked = performance.now();
        const poll = setInterval(() => {
          if (ids.every((id) => !this.pending.has(id))) {
            clearInterval(poll);
            timings.lastStopMs = performance.now() - asked;
            resolve({ mode: "interrupted" });
          } else if (performance.now() - asked > STUCK_MS) { // stuck outside the interpreter loop
            clearInterval(poll);
            // what went unanswered, for whoever reads why (a test's failure, the page's timings)
            timings.lastStopUnanswered = ids.filter((id) => this.pending.has(id)).map((id) => {
              const request = this.pending.get(id);
              return `${request.type} #${id}, sent ${Math.round(asked - request.sent)} ms before the stop`;
            });
            this.restart("stuck");
            resolve({ mode: "restarted", reason: "stuck" });
          }
        }, 15);
      });
    }
    const reason = this.progress.stage === "ready" ? "not isolated" : "starting";
    this.restart(reason);
    return Promise.resolve({ mode: "restarted", reason });
  }
}

/* The one client of this visit; starts the worker on first use. */
export function connect(manifest, { onProgress } = {}) {
  if (!shared) shared = new LiveClient(runtimeConfig(manifest));
  if (onProgress) shared.onProgress(onProgress);
  return shared;
}

/* A reader's intent to go live (a pointer over or pressing a live control, focus on it, the
   console's editor focused): the worker starts now, with its downloads (the runtime and the
   memory snapshot), so less is left to wait for after the click. No progress is shown yet; the
   control that is then used attaches its own. Returns the client, or null when the site has no
   runtime (the click says why). */
export function prefetch(manifest) {
  // The page is reloading to become cross-origin isolated (isolate.js): what starts now would
  // only be cut off; it starts again on the reloaded page.
  if (globalThis.scalecoreIsolation && globalThis.scalecoreIsolation.reloading) return null;
  try {
    const started = !shared;
    const live = connect(manifest);
    if (started) timings.prefetchedAt = performance.now();
    return live;
  } catch (error) {
    return null;
  }
}

/* connect(), resolved once Python is ready. */
export function client(manifest, options) {
  const live = connect(manifest, options);
  return live.ready();
}

export function existing() {
  return shared;
}

// The page's side of a Python worker, what live mode's client (live.js: Pyodide, worker.js) and
// the console's full stack (fullstack.js: worker-fullstack.js) have in common: requests by id,
// their streamed output and input() answered through shared memory, progress reported to
// listeners, a restart that rejects what was pending. Each subclass starts its own worker
// (spawn: this.worker, this.channel, this.input), reads what only its worker sends (receiveOwn)
// and settles an answer (settle); stop() is each runtime's own.

export const INPUT_BYTES = 65536; // the longest answer to input(), in UTF-8 bytes

/* A request ended because Python was restarted. Its reason: "not isolated" (Stop on a page
   that is not cross-origin isolated), "stuck" (the interrupt went unanswered), "starting"
   (Stop while Python was still starting), "full stack" (the full stack always restarts). */
export class StoppedError extends Error {
  constructor(message, reason) {
    super(message);
    this.reason = reason;
  }
}

export class WorkerClient {
  constructor(config, startFailure) {
    this.config = config;
    this.startFailure = startFailure; // "Python could not start: " ...
    this.listeners = new Set();
    this.restartListeners = new Set();
    this.pending = new Map(); // id -> {resolve, reject, onStream, onInput, type, sent}
    this.nextId = 1;
    this.restarts = 0;
    this.progress = { stage: "download", step: 0, text: "" };
  }

  get isolated() {
    return globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === "function";
  }

  /* A new ready() for a new worker: rejected with what stopped it, never "unhandled". */
  awaitReady() {
    this.readyPromise = new Promise((resolve, reject) => {
      this.settleReady = { resolve, reject };
    });
    this.readyPromise.catch(() => {});
  }

  /* input(): state and length (two Int32), then the answer's UTF-8 bytes (the worker's readLine). */
  inputBuffer() {
    this.waitingInput = false;
    return this.isolated ? new SharedArrayBuffer(8 + INPUT_BYTES) : null;
  }

  receive(worker, message, started) {
    if (worker !== this.worker || !message) return; // from a worker we terminated
    if (message.type === "progress") {
      // An error is final: a download that finishes after a failed check must not cover it.
      // So is ready: a late report of a download must not make a running Python look as if
      // it were starting (Stop would restart it rather than interrupt it).
      if (this.progress.stage === "error" || this.progress.stage === "ready") return;
      this.emit(message);
      if (message.stage === "error") this.fail(worker, new Error(message.text));
      return;
    }
    if (this.receiveOwn(message, started)) return;
    const call = this.pending.get(message.id);
    if (!call) return;
    if (message.type === "stream") {
      if (call.onStream) call.onStream(message.parts, message.cut || 0);
      return;
    }
    if (message.type === "input") {
      this.waitingInput = true;
      if (call.onInput) call.onInput(message.prompt);
      else this.answer(""); // nobody to ask: an empty line
      return;
    }
    this.pending.delete(message.id);
    if (message.error !== undefined) call.reject(new Error(message.error));
    else this.settle(call, message);
  }

  /* What only this runtime's worker sends (its "ready", say): true when handled. */
  receiveOwn() {
    return false;
  }

  settle(call, message) {
    call.resolve(message.result);
  }

  becameReady() {
    this.emit({ stage: "ready", step: 4, text: "Python is ready.", done: true });
    this.settleReady.resolve(this);
  }

  fail(worker, error) {
    if (worker !== this.worker) return;
    this.emit({ stage: "error", step: 0, text: this.startFailure + error.message });
    this.settleReady.reject(error);
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }

  /* Progress listeners: a function, optionally with .node (dropped once the node has left the
     page, so panels of pages swapped away by instant navigation are forgotten). */
  onProgress(listener) {
    this.listeners.add(listener);
    listener(this.progress);
    return () => this.listeners.delete(listener);
  }

  onRestart(listener) {
    this.restartListeners.add(listener);
    return () => this.restartListeners.delete(listener);
  }

  emit(progress) {
    this.progress = progress;
    for (const listener of [...this.listeners]) {
      if (listener.node && !listener.node.isConnected) {
        this.listeners.delete(listener);
        continue;
      }
      listener(progress);
    }
  }

  ready() {
    return this.readyPromise;
  }

  get busy() {
    return this.pending.size > 0;
  }

  /* The reader's answer to the input() the worker waits on (longer answers are cut to
     INPUT_BYTES of UTF-8, at a whole character). */
  answer(text) {
    if (!this.input || !this.waitingInput) return;
    this.waitingInput = false;
    const state = new Int32Array(this.input, 0, 2);
    const bytes = new TextEncoder().encode(String(text));
    let length = Math.min(bytes.length, INPUT_BYTES);
    while (length > 0 && length < bytes.length && (bytes[length] & 0xc0) === 0x80) length -= 1;
    new Uint8Array(this.input, 8).set(bytes.subarray(0, length));
    Atomics.store(state, 1, length);
    Atomics.store(state, 0, 1);
    Atomics.notify(state, 0);
  }

  cancelInput() {
    if (!this.input || !this.waitingInput) return;
    this.waitingInput = false;
    const state = new Int32Array(this.input, 0, 2);
    Atomics.store(state, 0, 2);
    Atomics.notify(state, 0);
  }

  /* Send one request once the worker is ready; resolves with its result. onStream(parts, cut)
     gets console output as it comes, onInput(prompt) an input() to answer (answer()). */
  async call(type, payload, { onStream, onInput } = {}) {
    const worker = this.worker;
    const channel = this.channel;
    await this.readyPromise;
    if (worker !== this.worker) throw new StoppedError("stopped: Python was restarted", this.restartReason);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onStream, onInput, type, sent: performance.now() });
      channel.postMessage({ id, type, payload });
    });
  }

  /* The worker terminated (a busy loop cannot be interrupted) and a new one started; what was
     pending is rejected with a StoppedError of ``reason``. */
  restart(reason) {
    const old = this.worker;
    this.restartReason = reason;
    this.worker = null;
    this.waitingInput = false;
    old.terminate();
    if (this.channel && this.channel !== old) this.channel.close();
    const error = new StoppedError("stopped: Python was restarted", reason);
    this.settleReady.reject(error);
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
    this.restarts += 1;
    this.spawn();
    for (const listener of [...this.restartListeners]) listener();
  }
}

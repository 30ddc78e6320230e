// The Python worker: one module Web Worker running the site's own Pyodide and the core wheel.
//
// Protocol (Pyodide's web-worker pattern): the page sends {id, type, payload}; every message
// awaits the one start-up promise; each is answered {id, result} or {id, error}. Other messages
// the worker sends: {type: "progress", stage, step, text}, {type: "ready", timings},
// {type: "stream", id, stream: "stdout"|"stderr", text} (console output while code runs).
//
//   init         {pyodide, wheel: {url, sha256}, embeddings: {name: {url, sha256}}, interrupt?}
//                all URLs absolute; interrupt is a SharedArrayBuffer when the page is isolated
//   scale-guards {corpus, sentence, seed, d_k}  -> all 8 guard sets, or the unknown words
//   variance     {d, samples, seed, bins}       -> raw and scaled q.k histograms for any d
//   run          {code, session}                -> console code; output streams as it comes
//
// Messages run one at a time, in order. Nothing here fetches from another host: Pyodide's
// files come from the site, and the wheel's sha256 is checked before it is unpacked.
//
// The console's box (worker-sandbox.js): all messages travel over a MessageChannel port the page
// sends with init, out of Python's reach, and once Pyodide has loaded, confine() limits what
// Python can reach to the site's own origin.

import { confine, connectPage } from "./worker-sandbox.js";

let pyodide = null;
let ready = null;
let interrupt = null;
let queue = Promise.resolve();
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
  queue = queue.then(() => handle(id, type, payload));
}

async function handle(id, type, payload) {
  try {
    if (!ready) throw new Error("the Python worker was not started (no init message)");
    await ready;
    const handler = HANDLERS[type];
    if (!handler) throw new Error(`unknown request ${JSON.stringify(type)}`);
    if (interrupt) interrupt[0] = 0; // a stop meant for an earlier request is stale
    post({ id, result: await handler(payload, id) });
  } catch (error) {
    post({ id, error: message(error) });
  }
}

function message(error) {
  if (!error) return "unknown error";
  return error.message || String(error);
}

function progress(stage, step, text) {
  post({ type: "progress", stage, step, text });
}

// ------------------------------------------------------------------------------------ start-up

async function start(config) {
  const t0 = performance.now();
  const timings = {};
  interrupt = config.interrupt ? new Uint8Array(config.interrupt) : null;

  progress("download", 0, "Downloading the Python runtime\u2026");
  const downloads = trackDownloads();
  try {
    const { loadPyodide } = await import(config.pyodide);
    pyodide = await loadPyodide({ indexURL: new URL(".", config.pyodide).href });
  } finally {
    downloads.restore();
  }
  confine(); // before any other Python runs: the console's box (worker-sandbox.js)
  timings.pyodideMs = performance.now() - t0;
  if (interrupt) pyodide.setInterruptBuffer(interrupt);
  pyodide.setStdin({ error: true }); // input() has no keyboard here: a clear EOFError
  pyodide.setStdout({ batched: (text) => stream("stdout", text) });
  pyodide.setStderr({ batched: (text) => stream("stderr", text) });

  progress("verify", 3, "Checking the core (sha256)\u2026");
  let t = performance.now();
  const response = await fetch(config.wheel.url);
  if (!response.ok) throw new Error(`could not download the core wheel ${config.wheel.url} (HTTP ${response.status})`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const actual = await sha256(bytes);
  if (actual !== config.wheel.sha256) {
    throw new Error(`the core wheel failed its check: its sha256 is ${actual}, the manifest says ` +
      `${config.wheel.sha256}. The site's files are inconsistent (a partial upload or a stale cache?); ` +
      "reload the page, and rebuild the site if this persists.");
  }
  // Into site-packages, so `import scalecore` keeps working after an os.chdir().
  const purelib = pyodide.runPython('import sysconfig; sysconfig.get_paths()["purelib"]');
  pyodide.unpackArchive(bytes, "wheel", { extractDir: purelib });
  timings.coreMs = performance.now() - t;

  t = performance.now();
  pyodide.globals.set("_scalecore_embeddings_json", JSON.stringify(config.embeddings || {}));
  await pyodide.runPythonAsync(PRELUDE);
  pyodide.globals.delete("_scalecore_embeddings_json");
  timings.preludeMs = performance.now() - t;
  timings.totalMs = performance.now() - t0;
  progress("ready", 4, "Python is ready.");
  return timings;
}

// The big downloads (the WebAssembly module and the standard library, ~12 MB) are watched
// byte by byte, so the page can show real progress and then say "Starting Python" while the
// module compiles and the interpreter boots (most of the ~4 s on a fresh start).
function trackDownloads() {
  const original = self.fetch;
  const files = new Map(); // url -> {loaded, total, done}
  let last = 0;
  let started = false;
  const report = (force) => {
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
  self.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = String(input && input.url ? input.url : input);
    if (!/\.wasm$|python_stdlib\.zip$/.test(url) || !response.ok || !response.body) return response;
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
  };
  return { restore: () => { self.fetch = original; } };
}

async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// ------------------------------------------------------------------------------------ streams

// Console output, coalesced: a loop printing a million lines sends a message every 40 ms or
// 8 kB, not a million messages. What is left is sent before the run's answer.
const pending = { stdout: "", stderr: "" };
let lastSent = 0;

function stream(name, text) {
  pending[name] += text + "\n";
  const now = performance.now();
  if (now - lastSent > 40 || pending[name].length > 8192) flush();
}

function flush() {
  lastSent = performance.now();
  for (const name of ["stdout", "stderr"]) {
    if (!pending[name]) continue;
    if (streamId !== null) post({ type: "stream", id: streamId, stream: name, text: pending[name] });
    pending[name] = "";
  }
}

// ------------------------------------------------------------------------------------ requests

const HANDLERS = {
  async "scale-guards"({ corpus, sentence, seed, d_k }) {
    const call = pyodide.globals.get("_scalecore_scale_guards");
    try {
      const t = performance.now();
      const answer = JSON.parse(call(corpus, sentence, seed, d_k));
      answer.python_ms = performance.now() - t;
      return answer;
    } finally {
      call.destroy();
    }
  },

  async variance({ d, samples, seed, bins }) {
    const call = pyodide.globals.get("_scalecore_variance");
    try {
      return JSON.parse(call(d, samples, seed, bins));
    } finally {
      call.destroy();
    }
  },

  async run({ code, session }, id) {
    let namespace = sessions.get(session);
    if (!namespace) {
      const make = pyodide.globals.get("_scalecore_namespace");
      namespace = make();
      make.destroy();
      sessions.set(session, namespace);
    }
    const run = pyodide.globals.get("_scalecore_console");
    streamId = id;
    const t = performance.now();
    try {
      const outcome = await run(code, namespace);
      return { outcome, ms: performance.now() - t };
    } finally {
      run.destroy();
      pyodide.runPython("import sys; sys.stdout.flush(); sys.stderr.flush()");
      flush();
      streamId = null;
    }
  },
};

// ------------------------------------------------------------------------------------ Python

const PRELUDE = String.raw`
import hashlib, json, math, sys, traceback

import scalecore
from scalecore.embeddings import EmbeddingTable
from scalecore.experiment import report, run_all, sentence_tokens
from scalecore.variance import dot_product_samples, histogram, summary

_scalecore_sites = json.loads(_scalecore_embeddings_json)
_scalecore_tables = {}


def load_table(corpus):
    """The embedding table this site was built with for a corpus: load_table("demo").

    Fetched once from the site itself (its sha256 checked against the manifest), then kept.
    """
    if corpus in _scalecore_tables:
        return _scalecore_tables[corpus]
    if corpus not in _scalecore_sites:
        raise ValueError(f"unknown corpus {corpus!r}: this site has {', '.join(sorted(_scalecore_sites))}")
    from js import XMLHttpRequest  # synchronous requests are allowed in a worker

    entry = _scalecore_sites[corpus]
    request = XMLHttpRequest.new()
    request.open("GET", entry["url"], False)
    request.send(None)
    if request.status != 200:
        raise OSError(f"could not load {entry['url']} (HTTP {request.status})")
    text = request.responseText
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if digest != entry["sha256"]:
        raise OSError(f"{entry['url']} failed its check: sha256 {digest}, the manifest says {entry['sha256']}")
    table = _scalecore_tables[corpus] = EmbeddingTable.from_json(json.loads(text))
    return table


def _scalecore_scale_guards(corpus, sentence, seed, d_k):
    table = load_table(corpus)
    tokens = sentence_tokens(sentence)
    unknown = table.unknown_words(tokens)
    if unknown:
        return json.dumps({"tokens": tokens, "unknown": unknown, "vocabulary_size": len(table.vocabulary)})
    keep = ("tokens", "scores", "weights", "measures", "settings")
    results = {}
    for guards, result in run_all(table, tokens, int(seed), int(d_k)).items():
        shown = report(result, tokens, table)
        results[guards] = {key: shown[key] for key in keep}
    return json.dumps({"tokens": tokens, "unknown": [], "results": results}, allow_nan=False)


def _scalecore_variance(d, samples, seed, bins):
    # The same computation as the baked lesson (build_tools.bake.variance_data), for any d.
    d, samples, seed, bins = int(d), int(samples), int(seed), int(bins)
    raw = dot_product_samples(d, samples, seed)
    scaled = [value / d ** 0.5 for value in raw]
    reach = 4.0 * d ** 0.5
    return json.dumps({
        "d": d,
        "raw": dict(summary(raw), low=-reach, high=reach, counts=histogram(raw, bins, -reach, reach)),
        "scaled": dict(summary(scaled), low=-4.0, high=4.0, counts=histogram(scaled, bins, -4.0, 4.0)),
    })


def _scalecore_namespace():
    namespace = {"__name__": "__main__", "load_table": load_table, "scalecore": scalecore}
    return namespace


async def _scalecore_console(code, namespace):
    """Run console code like a REPL cell: show the last expression, a traceback of the reader's
    own code only, and say plainly when the run was interrupted or asked to exit."""
    from pyodide.code import eval_code_async

    try:
        value = await eval_code_async(code, globals=namespace, filename="<console>")
        if value is not None:
            print(repr(value))
        return "ok"
    except KeyboardInterrupt:
        print("KeyboardInterrupt: stopped.", file=sys.stderr)
        return "interrupted"
    except SystemExit as stop:
        print(f"SystemExit({stop.code!r}): the console keeps running.", file=sys.stderr)
        return "exit"
    except BaseException as error:
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != "<console>":
            tb = tb.tb_next
        traceback.print_exception(type(error), error, tb)
        return "error"
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
`;

// Run Python code under the project's own Pyodide (build_tools/node_modules/pyodide), in Node, offline.
//
// stdin:  {"wheel": "/abs/path.whl", "sha256": "hex", "code": "python source",
//          "mount"?: "/abs/dir"}   (optional: that host folder, e.g. a built site, read at /mnt/site)
// stdout: one JSON line, either
//         {"result": <json.dumps of the Python variable `result`, or null>, "stdout": "...",
//          "stderr": "...", "timings": {"load_ms": ..., "unpack_ms": ..., "run_ms": ...}}
//         or {"error": "...", "stdout": "...", "stderr": "..."} with a non-zero exit code.
//
// Like the site's worker, it checks the wheel's sha256 before unpackArchive, and it never
// touches the network: fetch is disabled, and Pyodide reads its files from disk.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const PYODIDE_URL = new URL("../../build_tools/node_modules/pyodide/", import.meta.url);
const PYODIDE_DIR = fileURLToPath(PYODIDE_URL);

const captured = { stdout: "", stderr: "" };

let answered = false;

function emit(line, code) {
  if (answered) return;
  answered = true;
  process.stdout.write(line + "\n", () => process.exit(code));
}

function fail(message, code = 1) {
  emit(JSON.stringify({ error: message, ...captured }), code);
}

function writer(stream) {
  const decoder = new TextDecoder();
  return {
    write(buffer) {
      captured[stream] += decoder.decode(buffer, { stream: true });
      return buffer.length;
    },
  };
}

async function readRequest() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  let request;
  try {
    request = JSON.parse(text);
  } catch (error) {
    throw new Error(`stdin is not a JSON request: ${error.message}`);
  }
  for (const key of ["wheel", "sha256", "code"]) {
    if (typeof request?.[key] !== "string") {
      throw new Error(`request field "${key}" must be a string`);
    }
  }
  if (request.mount !== undefined && typeof request.mount !== "string") {
    throw new Error('request field "mount" must be a string when given');
  }
  return request;
}

async function main() {
  const request = await readRequest();

  const bytes = await readFile(request.wheel);
  const actual = createHash("sha256").update(bytes).digest("hex");
  const expected = request.sha256.trim().toLowerCase();
  if (actual !== expected) {
    return fail(
      `sha256 mismatch for ${request.wheel}: expected ${expected}, got ${actual}; ` +
        "refusing to unpack",
      2,
    );
  }

  // Anything that tries to fetch (a CDN package load, say) fails loudly instead.
  globalThis.fetch = async (url) => {
    throw new Error(`network access refused in the test harness: ${url}`);
  };

  const { loadPyodide } = await import(new URL("pyodide.mjs", PYODIDE_URL).href);
  let t = performance.now();
  const pyodide = await loadPyodide({ indexURL: PYODIDE_DIR });
  const load_ms = performance.now() - t;
  pyodide.setStdout(writer("stdout"));
  pyodide.setStderr(writer("stderr"));

  // Unpack into site-packages: the default target is the working directory, which sys.path
  // only sees through its '' entry, so an os.chdir() in user code would hide the package.
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  t = performance.now();
  // A Node Buffer is refused ("Unknown typed array type 'Buffer'"): pass a plain Uint8Array.
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pyodide.unpackArchive(view, "wheel", { extractDir: sitePackages });
  const unpack_ms = performance.now() - t;

  if (request.mount) {
    pyodide.FS.mkdirTree("/mnt/site");
    pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: request.mount }, "/mnt/site");
  }

  const namespace = pyodide.globals.get("dict")();
  namespace.set("__name__", "__main__");
  const dumpResult = pyodide.runPython(
    "def _dump_result(ns):\n" +
      "    import json\n" +
      "    return json.dumps(ns.get('result'), allow_nan=False)\n" +
      "_dump_result",
  );
  t = performance.now();
  try {
    await pyodide.runPythonAsync(request.code, { globals: namespace });
  } catch (error) {
    return fail(error.message);
  }
  const run_ms = performance.now() - t;

  let result;
  try {
    result = dumpResult(namespace);
  } catch (error) {
    return fail(`the Python variable \`result\` is not JSON-serialisable: ${error.message}`);
  }
  // Splice Python's own JSON text in, so that 1.0 stays 1.0 (JSON.parse would make it 1).
  const rest = JSON.stringify({ ...captured, timings: { load_ms, unpack_ms, run_ms } });
  emit(`{"result":${result},${rest.slice(1)}`, 0);
}

// A Python BaseException (SystemExit, KeyboardInterrupt) raised under runPythonAsync rejects
// the awaited promise and is also re-thrown from Pyodide's event loop, which would kill Node
// with no answer: leave that one to the awaiting code, which reports it.
process.on("uncaughtException", (error) => {
  if (error?.constructor?.name === "PythonError") return;
  console.error(error?.stack ?? error);
  fail(error?.message ?? String(error));
});

main().catch((error) => {
  console.error(error?.stack ?? error);
  fail(error?.message ?? String(error));
});

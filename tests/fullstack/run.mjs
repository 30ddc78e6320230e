// Runs console snippets on the full stack's Python in Node 24 (no browser), through the same
// module the console's worker uses (assets/fullstack-python.js). Node 20 cannot: the module uses
// WebAssembly's exception-handling opcodes.
//
//   node run.mjs CONFIG.json   CONFIG: {shim, wasm, stdlib, wheel, files: {site path: local file},
//                                       snippets: [code], answers: [line, ...] | null}
// Prints one JSON line: {runs: [{outcome, stdout, stderr, figures: [{bytes, head}], prompts, ms}], startMs}.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const here = path.dirname(new URL(import.meta.url).pathname);
const config = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));
const { startPython } = await import(pathToFileURL(path.join(here, "../../scalecore_generator/assets/fullstack-python.js")));
const shim = await import(pathToFileURL(path.join(config.shim, "index.js")));

const t0 = performance.now();
const module = new WebAssembly.Module(fs.readFileSync(config.wasm));
const files = { [`/site/wheels/${path.basename(config.wheel)}`]: new Uint8Array(fs.readFileSync(config.wheel)) };
const listing = {};
for (const [sitePath, local] of Object.entries(config.files || {})) {
  files[`/site/files/${sitePath}`] = new Uint8Array(fs.readFileSync(local));
  listing[sitePath] = `/site/files/${sitePath}`;
}
files["/site/files.json"] = new TextEncoder().encode(JSON.stringify(listing));
let current = null;
const decoder = new TextDecoder();
const answers = config.answers ? [...config.answers] : null;
const python = startPython({
  shim, module, stdlib: new Uint8Array(fs.readFileSync(config.stdlib)), files,
  write: (stream, bytes) => { if (current) current[stream] += decoder.decode(bytes); else process.stderr.write(bytes); },
  door: (kind, bytes) => {
    if (kind === "figure") current.figures.push({ bytes: bytes.length, head: Buffer.from(bytes.subarray(0, 8)).toString("hex") });
    else if (kind === "done") current.outcome = decoder.decode(bytes);
    else if (kind === "input") {
      current.prompts.push(decoder.decode(bytes));
      if (!answers) return new Uint8Array([0, ...new TextEncoder().encode("refused")]);
      return new TextEncoder().encode(answers.shift() ?? "");
    }
    return null;
  },
});
const startMs = performance.now() - t0;
const runs = [];
for (const code of config.snippets) {
  current = { outcome: null, stdout: "", stderr: "", figures: [], prompts: [] };
  const t = performance.now();
  python.run(code);
  current.ms = performance.now() - t;
  runs.push(current);
}
process.stdout.write(JSON.stringify({ runs, startMs }) + "\n");

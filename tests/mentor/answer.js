// Answers questions with the mentor's own core, in Node: node answer.js <site> <page> <questions.json>
// prints [{question, answer}] as JSON. The same mentor-core.js and MiniSearch the page loads.
// With <site> given as "--data", <page> is a JSON file of mentor data (a unit test's own module).
"use strict";
const fs = require("fs");
const path = require("path");
const [site, page, questionsFile] = process.argv.slice(2);
const repo = path.resolve(__dirname, "..", "..");
let MiniSearch = require(path.join(repo, "scalecore_generator", "vendor", "node_modules", "minisearch", "dist", "cjs", "index.cjs"));
MiniSearch = MiniSearch.default || MiniSearch;
const core = require(path.join(repo, "scalecore_generator", "theme", "assets", "scalecore-module", "mentor-core.js"));
// Settings other than the page's, to measure them (benchmarks/mentor.py --cv): MENTOR_SETTINGS={"NAME": value}.
if (process.env.MENTOR_SETTINGS) Object.assign(core.settings, JSON.parse(process.env.MENTOR_SETTINGS));
globalThis.scalecoreMentor = {};
let data;
if (site === "--data") {
  data = JSON.parse(fs.readFileSync(page, "utf8"));
} else {
  const stem = page.replace(/\.html$/, "").replace(/\//g, "--");
  require(path.resolve(site, "assets", "scalecore", "mentor", stem + ".js"));
  data = globalThis.scalecoreMentor[page];
}
// What the meaning comes from, as on the page: the sentence encoder (the build's vectors, the
// question embedded by mentor-encoder.js in onnxruntime-web's wasm) where the site has it, else the
// word-piece table (the site's copy, else the package's). MENTOR_EMBEDDINGS: "table" for the table,
// another table's file to measure, or "none" for the keywords alone.
const choice = process.env.MENTOR_EMBEDDINGS || core.settings.EMBEDDINGS; // or {"EMBEDDINGS": ...} in MENTOR_SETTINGS
const encoderFiles = site !== "--data" && data.encoder ? {
  model: path.resolve(site, data.encoder.model), vocab: path.resolve(site, data.encoder.vocab),
  ort: path.join(repo, "scalecore_generator", "vendor", "node_modules", "onnxruntime-web", "dist"),
} : null;
const useModel = !choice && encoderFiles && fs.existsSync(encoderFiles.model) && fs.existsSync(path.join(encoderFiles.ort, "ort.wasm.min.js"));
const table = useModel || choice === "none" ? null : [choice !== "table" && choice,
  site !== "--data" && path.resolve(site, "assets", "scalecore-module", "mentor-embeddings.js"),
  path.join(repo, "scalecore_generator", "theme", "assets", "scalecore-module", "mentor-embeddings.js")]
  .find((file) => file && fs.existsSync(file));
let embeddings = null;
if (table) {
  require(path.resolve(table));
  embeddings = globalThis.scalecoreMentorEmbeddings;
}

async function encoder() {
  const url = require("url");
  const ort = require(path.join(encoderFiles.ort, "ort.wasm.min.js"));
  const { Encoder } = require(path.join(repo, "scalecore_generator", "theme", "assets", "scalecore-module", "mentor-encoder.js"));
  const model = fs.readFileSync(encoderFiles.model); // the site publishes it as model.onnx.gz
  return Encoder.create(ort, encoderFiles.model.endsWith(".gz") ? require("zlib").gunzipSync(model) : model,
    fs.readFileSync(encoderFiles.vocab, "utf8"), {
    paths: { mjs: url.pathToFileURL(path.join(encoderFiles.ort, "ort-wasm-simd-threaded.mjs")).href,
      wasm: url.pathToFileURL(path.join(encoderFiles.ort, "ort-wasm-simd-threaded.wasm")).href },
    maxTokens: data.encoder.max_tokens });
}

(async () => {
  let started = process.hrtime.bigint();
  const model = useModel ? await encoder() : null;
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  // the passages' vectors, where the build wrote them beside the script (as the page fetches them with the model)
  if (useModel && data.encoder.vectors) core.Vectors.attach(data, fs.readFileSync(path.resolve(site, data.encoder.vectors)));
  started = process.hrtime.bigint();
  const mentor = new core.Mentor(data, MiniSearch, useModel ? "model" : embeddings, model ? model.ids : null);
  const indexMs = Number(process.hrtime.bigint() - started) / 1e6;
  const questions = JSON.parse(fs.readFileSync(questionsFile, "utf8"));
  const out = [];
  for (const q of questions) {
    const t = process.hrtime.bigint();
    const vector = model ? await model.embed(mentor.toEmbed(q.question)) : null; // as the page does (mentor.js)
    const answer = mentor.answer(q.question, q.files ? core.filePassages(q.files.name, q.files.pages) : [], vector);
    out.push({ question: q.question, answer, ms: Number(process.hrtime.bigint() - t) / 1e6 });
  }
  process.stdout.write(JSON.stringify({ indexMs, loadMs, embeddings: useModel ? "model" : table || null,
    passages: data.passages.length, answers: out }));
})().catch((error) => { console.error(error); process.exit(1); });

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
// The word-piece embeddings the page loads (the site's copy, else the package's); the variable
// MENTOR_EMBEDDINGS names another table to measure, or "none" for the keywords alone.
const choice = process.env.MENTOR_EMBEDDINGS;
const table = choice === "none" ? null : [choice,
  site !== "--data" && path.resolve(site, "assets", "scalecore-module", "mentor-embeddings.js"),
  path.join(repo, "scalecore_generator", "theme", "assets", "scalecore-module", "mentor-embeddings.js")]
  .find((file) => file && fs.existsSync(file));
let embeddings = null;
if (table) {
  require(path.resolve(table));
  embeddings = globalThis.scalecoreMentorEmbeddings;
}
let started = process.hrtime.bigint();
const mentor = new core.Mentor(data, MiniSearch, embeddings);
const indexMs = Number(process.hrtime.bigint() - started) / 1e6;
const questions = JSON.parse(fs.readFileSync(questionsFile, "utf8"));
const out = questions.map((q) => {
  const t = process.hrtime.bigint();
  const answer = mentor.answer(q.question, q.files ? core.filePassages(q.files.name, q.files.pages) : []);
  return { question: q.question, answer, ms: Number(process.hrtime.bigint() - t) / 1e6 };
});
process.stdout.write(JSON.stringify({ indexMs, embeddings: table || null, passages: data.passages.length, answers: out }));

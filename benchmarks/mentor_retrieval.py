"""Retrieval alone, before any answer is composed: does a sentence encoder find the passages that hold
the key facts better than the static word-piece table? (issue 43, round 4, step 1)

    .venv/bin/python -m benchmarks.mentor_retrieval --site DIR     # DIR: a built site (mkdocs build -d DIR)

Development set only (tests/data/mentor-questions.json, tests/data/mentor-dev-readers.json; never a
held-out file): for each answerable question with key facts, the passages ranked by each method, and
whether the first k together hold every key fact ("all") or any one passage holds one ("any").
Methods: MiniSearch's keywords, the static table (mentor-core.js's Embedder: the passages' cosine),
today's fusion of both (Mentor.fuse), and all-MiniLM-L6-v2 as the site ships it (int8, Python
onnxruntime: scalecore_generator/mentor.py's Encoder) by the passage's own vector, by its nearest
sentence, by their mean, each alone and fused with the keywords by reciprocal rank (k = 10, as the
mentor's). The rankings by words and by the table come from the page's own core, in Node.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SETS = [REPO / "tests" / "data" / "mentor-questions.json", REPO / "tests" / "data" / "mentor-dev-readers.json"]
POINTERS = {"navigation", "goals", "reference"}

DUMP = r"""
const fs = require("fs"), path = require("path");
const [repo, site, qfile] = process.argv.slice(2);
let MiniSearch = require(path.join(repo, "scalecore_generator/vendor/node_modules/minisearch/dist/cjs/index.cjs"));
MiniSearch = MiniSearch.default || MiniSearch;
const core = require(path.join(repo, "scalecore_generator/theme/assets/scalecore-module/mentor-core.js"));
require(path.join(repo, "scalecore_generator/theme/assets/scalecore-module/mentor-embeddings.js"));
globalThis.scalecoreMentor = {};
const questions = JSON.parse(fs.readFileSync(qfile, "utf8"));
const out = {};
for (const page of [...new Set(questions.map((q) => q.page))]) {
  require(path.resolve(site, "assets/scalecore/mentor", page.replace(/\.html$/, "").replace(/\//g, "--") + ".js"));
  const data = globalThis.scalecoreMentor[page];
  const m = new core.Mentor(data, MiniSearch, globalThis.scalecoreMentorEmbeddings);
  const passages = data.passages.map((p) => ({ id: p.id, role: p.role || "text", plain: p.plain,
    embed: (p.section || "") + ". " + (p.label || "") + ". " + p.plain.join(" "),
    full: p.plain.join(" ") + " " + (p.parts ? [p.parts.question, p.parts.answer, p.parts.explanation].join(" ") : "") }));
  const skip = { navigation: 1, goals: 1, reference: 1 };
  out[page] = { passages, questions: questions.filter((q) => q.page === page).map((q) => {
    const vector = m.embedder.embed(q.question);
    const results = m.search(q.question);
    return { question: q.question, table: m.near(vector, data.passages, 30).map((n) => n.passage.id),
      fused: m.fuse(results, vector, []).slice(0, 30).map((e) => e.passage.id),
      words: results.filter((r) => m.byId[r.id] && !skip[m.byId[r.id].role]).slice(0, 30).map((r) => r.id) };
  }) };
}
process.stdout.write(JSON.stringify(out));
"""


def rrf(*lists, k=10):
    score: dict[str, float] = {}
    for ranking in lists:
        for i, item in enumerate(ranking[:30]):
            score[item] = score.get(item, 0) + 1 / (k + i + 1)
    return sorted(score, key=lambda item: -score[item])


def main() -> None:
    sys.path.insert(0, str(REPO))
    from scalecore_generator.mentor import Encoder

    site = Path(sys.argv[sys.argv.index("--site") + 1]).resolve()
    questions = [q for path in SETS for q in json.loads(path.read_text(encoding="utf-8"))["questions"]]
    readers = {q["question"] for q in json.loads(SETS[1].read_text(encoding="utf-8"))["questions"]}
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "dump.js").write_text(DUMP, encoding="utf-8")
        (Path(folder) / "q.json").write_text(json.dumps(questions), encoding="utf-8")
        done = subprocess.run(["node", str(Path(folder) / "dump.js"), str(REPO), str(site), str(Path(folder) / "q.json")],
                              capture_output=True, text=True, check=True)
    dump = json.loads(done.stdout)
    encode = Encoder()
    asked = {(q["page"], q["question"]): q for q in questions}
    results: dict[str, dict] = {}
    for page, found in dump.items():
        passages = {p["id"]: p for p in found["passages"]}
        ids = [p["id"] for p in found["passages"] if p["role"] not in POINTERS]
        own = np.array([encode(passages[i]["embed"]) for i in ids])
        sentences = [np.array([encode(s) for s in passages[i]["plain"]]) for i in ids]
        for row in found["questions"]:
            q = asked[(page, row["question"])]
            if q.get("unanswerable") or q.get("language") or q.get("number") or not q.get("key"):
                continue
            v = np.array(encode(q["question"]))
            by_own, by_sentence = own @ v, np.array([float((s @ v).max()) for s in sentences])
            rank = lambda scores: [ids[i] for i in np.argsort(-scores, kind="stable")]  # noqa: E731
            minilm = {"passage": rank(by_own), "nearest sentence": rank(by_sentence), "mean": rank((by_own + by_sentence) / 2)}
            methods = {"keywords (MiniSearch)": row["words"], "static table": row["table"],
                       "keywords + table (round 3)": row["fused"]}
            methods.update({f"MiniLM, {name}": ranking for name, ranking in minilm.items()})
            methods.update({f"keywords + MiniLM, {name}": rrf(row["words"], ranking) for name, ranking in minilm.items()})
            for group in ("all", "readers" if q["question"] in readers else "ours"):
                for name, ranking in methods.items():
                    for k in (1, 3, 5):
                        top = [passages[i]["full"].lower() for i in ranking[:k]]
                        every = all(any(p.lower() in " ".join(top) for p in item) for item in q["key"])
                        one = any(any(p.lower() in t for p in item) for item in q["key"] for t in top)
                        cell = results.setdefault(group, {}).setdefault(name, {}).setdefault(k, [0, 0, 0])
                        cell[0] += every
                        cell[1] += one
                        cell[2] += 1
    for group, table in results.items():
        n = next(iter(table.values()))[1][2]
        print(f"{group} ({n} answerable questions with key facts): the first k passages hold every key fact / one passage holds one")
        print(f"  {'method':36}" + "".join(f"{'top ' + str(k):>14}" for k in (1, 3, 5)))
        for name, cells in table.items():
            print(f"  {name:36}" + "".join(f"{cells[k][0]:>7}/{cells[k][1]:<6}" for k in (1, 3, 5)))


if __name__ == "__main__":
    main()

"""One core, two runtimes: the core under Pyodide (in Node) reproduces the baked numbers."""

import json


from pyodide_node import core_wheel, run_in_pyodide  # noqa: F401  (core_wheel is a fixture)

SCALE_GUARDS = "api/attention/scale-guards"
TOLERANCE = 1e-9


def close(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def test_pyodide_computes_the_baked_numbers_for_every_guard_set_on_every_corpus(built_site, core_wheel):
    manifest = json.loads((built_site / SCALE_GUARDS / "index.json").read_text())
    seeds = [manifest["seeds"][0], manifest["seeds"][-1]]
    tables = {c["name"]: json.loads((built_site / SCALE_GUARDS / c["embeddings"]["url"]).read_text())
              for c in manifest["corpora"]}
    code = f"""
import json
from scalecore.embeddings import EmbeddingTable
from scalecore.experiment import run_all
tables = json.loads({json.dumps(json.dumps(tables))})
result = {{}}
for name, data in tables.items():
    table = EmbeddingTable.from_json(data)
    for seed in {seeds}:
        for guards, head in run_all(table, {manifest["tokens"]!r}, seed, {manifest["d_k"]}).items():
            result[f"{{name}}/{{seed}}/{{guards}}"] = dict(
                scores=head.scores, weights=head.weights, measures=head.measures.as_dict())
"""
    live = run_in_pyodide(code, core_wheel)["result"]
    assert len(live) == len(tables) * len(seeds) * 8
    for key, numbers in live.items():
        baked = json.loads((built_site / SCALE_GUARDS / manifest["combinations"][key]["json"]["url"]).read_text())
        for part in ("scores", "weights", "measures"):
            assert close(numbers[part], baked[part]), f"{key}: {part} differs from the bake"

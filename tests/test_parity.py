"""One core, two runtimes: the core under Pyodide (in Node) reproduces the baked numbers.

Generic over kinds: every kind in the manifest with a ``compute`` function has a sample of its
baked points recomputed under Pyodide, through scalecore.browser.compute (what live mode calls),
with each point's own ``params``, and compared with the baked JSON.
"""

import json
from pathlib import Path

from pyodide_node import core_wheel, run_in_pyodide  # noqa: F401  (core_wheel is a fixture)

TOLERANCE = 1e-9
SAMPLE = 24  # points per kind at most, besides those needed to cover every axis value


def close(a, b, where=""):
    """None when a matches b (numbers within TOLERANCE), else where they first differ."""
    if isinstance(b, bool) or b is None or isinstance(b, str):
        return None if a == b else f"{where}: {a!r} != {b!r}"
    if isinstance(b, (int, float)):
        if isinstance(a, bool) or not isinstance(a, (int, float)):
            return f"{where}: {a!r} is not a number like {b!r}"
        return None if abs(a - b) <= TOLERANCE * max(1.0, abs(b)) else f"{where}: {a!r} != {b!r}"
    if isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            return f"{where}: lengths or types differ"
        return next((d for d in (close(x, y, f"{where}[{i}]") for i, (x, y) in enumerate(zip(a, b))) if d), None)
    if isinstance(b, dict):
        if not isinstance(a, dict) or a.keys() != b.keys():
            return f"{where}: keys differ: {sorted(a) if isinstance(a, dict) else a!r} vs {sorted(b)}"
        return next((d for d in (close(a[k], b[k], f"{where}.{k}") for k in b) if d), None)
    raise TypeError(f"{where}: unexpected baked value {b!r}")


def sample(kind: dict) -> list[str]:
    """Points covering every value of every axis, then an even spread, the first and last included."""
    paths = list(kind["points"])
    chosen, covered = [], set()
    for path in paths:
        pairs = {(axis, json.dumps(kind["points"][path]["params"].get(axis))) for axis in kind["axes"]}
        if path in (paths[0], paths[-1]) or not pairs <= covered:
            chosen.append(path)
            covered |= pairs
    step = max(1, len(paths) // SAMPLE)
    chosen += [path for path in paths[::step] if path not in chosen]
    return chosen


def recompute_under_pyodide(site: Path, core_wheel: Path) -> dict:
    """Recompute a sample of every kind's baked points under Pyodide in Node and compare them
    with the baked JSON; returns the requests made (kind -> points). The site's own wheels
    (runtime wheel_<package>) are checked against the manifest and unpacked first."""
    manifest = json.loads((site / "api/index.json").read_text())
    kinds = {name: kind for name, kind in manifest["kinds"].items() if kind.get("compute")}
    assert kinds, "no kind in the manifest computes anything"
    requests = {name: {"compute": kind["compute"],
                       "points": {path: kind["points"][path]["params"] for path in sample(kind)}}
                for name, kind in kinds.items()}
    wheels = {key: entry for key, entry in manifest["runtime"].items() if key.startswith("wheel_")}
    code = f"""
import hashlib, io, json, site, zipfile
for entry in json.loads({json.dumps(json.dumps(wheels))}).values():
    data = open("/mnt/site/api/" + entry["url"], "rb").read()
    assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["url"]
    zipfile.ZipFile(io.BytesIO(data)).extractall(site.getsitepackages()[0])
from scalecore import browser, sitedata
sitedata.use(lambda path: open("/mnt/site/" + path, encoding="utf-8").read())
requests = json.loads({json.dumps(json.dumps(requests))})
result = {{}}
for name, request in requests.items():
    paths = list(request["points"])
    values = json.loads(browser.compute(request["compute"], json.dumps([request["points"][p] for p in paths])))
    result[name] = dict(zip(paths, values))
"""
    live = run_in_pyodide(code, core_wheel, mount=site)["result"]
    assert set(live) == set(kinds)
    for name, kind in kinds.items():
        assert set(live[name]) == set(requests[name]["points"])
        for path, value in live[name].items():
            entry = kind["files"][kind["points"][path]["json"]]
            baked = json.loads((site / "api" / entry["url"]).read_text())
            difference = close(value, baked, f"{name}/{path}")
            assert difference is None, f"Pyodide differs from the bake: {difference}"
    return requests


def test_pyodide_computes_the_baked_points_of_every_kind(built_site, core_wheel):
    requests = recompute_under_pyodide(built_site, core_wheel)
    assert len(requests["scale-guards"]["points"]) >= 8  # every guard set, at least


def test_pyodide_computes_a_kind_the_suite_has_never_heard_of(tmp_path, core_wheel):
    """The tutorial site's own kind, computing with the site's own wheel: the same check,
    nothing in it names the kind."""
    from sites import build, copy_site

    folder = copy_site(tmp_path / "tutorial", source=Path(__file__).resolve().parents[1] / "scalecore_generator" / "scaffold")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    requests = recompute_under_pyodide(folder / "site", core_wheel)
    assert sum(len(r["points"]) for r in requests.values()) >= 1

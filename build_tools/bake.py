"""The bake: every corpus x seed x guard set computed once at build time, cached by content.

A *unit* is one (corpus, seed): its 8 guard sets share the input X, so they are computed together
and written together as 8 JSON files, 8 SVG figures and one ``data.js`` (the same data for pages
opened from file://, where fetch is blocked but a classic script tag still loads).

Each unit's files live in the cache under a key that hashes everything they depend on: the
embedding table's identity, the tokens, the seed, d_k and the code (every module of the core and
of the bake). A unit is written to a temporary folder and renamed into place, so a build killed
halfway leaves either a complete unit or a temporary folder that the next build removes, and every
unit is checked against the hashes recorded when it was written before it is used (see
build_tools/cache.py): the cache can always be trusted. Units run in parallel, one process per
core; the workers die with the build.
"""

import hashlib
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from importlib.metadata import version

import scalecore
from build_tools import cache
from build_tools.processes import die_with_parent
from scalecore.embeddings import EmbeddingTable
from scalecore.experiment import report, run_all
from scalecore.guards import all_guard_sets
from scalecore.softmax import jacobian_norm, softmax, softmax_jacobian
from scalecore.variance import dot_product_samples, histogram, summary

SCALE_GUARDS = "api/attention/scale-guards"
VARIANCE = "api/attention/variance"
SOFTMAX = "api/attention/softmax"
EMBEDDINGS = "api/embeddings"
SCHEMA = "scalecore/{}/1"
GUARD_SET_NAMES = tuple(str(g) for g in all_guard_sets())


def dumps(data) -> str:
    """Compact, stable JSON; floats keep their repr, so every value round-trips exactly."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def data_script(key: str, data) -> str:
    """The same data as a classic script: works from file://, where fetch() is refused."""
    return f"(globalThis.scalecoreData=globalThis.scalecoreData||{{}})[{json.dumps(key)}]={dumps(data)};\n"


def code_version() -> str:
    """A hash of the code that produces baked files (the core, the bake, the figures): change any of
    it and every unit re-bakes; the rest of the plugin can change without a re-bake."""
    digest = hashlib.sha256(version("matplotlib").encode())  # metadata only: no slow import
    here = Path(__file__).parent
    sources = sorted(Path(scalecore.__file__).parent.glob("*.py")) + [here / "bake.py", here / "figures.py"]
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Unit:
    """One corpus and one seed: the 8 guard sets baked together."""

    corpus: str
    seed: int

    @property
    def folder(self) -> str:
        return f"{SCALE_GUARDS}/{self.corpus}/{self.seed}"

    @property
    def data_key(self) -> str:
        return f"scale-guards/{self.corpus}/{self.seed}"


def table_id(table: EmbeddingTable) -> str:
    """A hash of the table's content: the vocabulary and every vector, bit for bit."""
    return hashlib.sha256(dumps(table.to_json()).encode()).hexdigest()


def unit_key(unit: Unit, table_hash: str, tokens: list[str], d_k: int, code: str) -> str:
    parts = [code, table_hash, " ".join(tokens), str(unit.seed), str(d_k)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def combination(table: EmbeddingTable, tokens, sentence: str, result, vocabulary_size: int) -> dict:
    """One baked combination: what a panel needs, and the settings that produced it."""
    shown = report(result, tokens, table)
    settings = dict(shown["settings"], vocabulary_size=vocabulary_size)
    return {
        "schema": SCHEMA.format("scale-guards-combination"),
        "corpus": table.corpus,
        "seed": result.seed,
        "guards": str(result.guards),
        "sentence": sentence,
        "tokens": shown["tokens"],
        "scores": shown["scores"],
        "weights": shown["weights"],
        "measures": shown["measures"],
        "settings": settings,
    }


def bake_unit(job: dict) -> str:
    """Compute and write one unit into a cache entry (a worker)."""
    from build_tools.figures import heatmap_svg

    target = Path(job["target"])
    table = EmbeddingTable.from_json(job["table"])
    tokens, seed = job["tokens"], job["seed"]
    everything = {}
    with cache.writing(target) as folder:
        for guards, result in run_all(table, tokens, seed, job["d_k"]).items():
            data = combination(table, tokens, job["sentence"], result, job["vocabulary_size"])
            everything[guards] = data
            (folder / f"{guards}.json").write_text(dumps(data), encoding="utf-8")
            title = f"{table.corpus}, seed {seed}, guards: {guards}"
            (folder / f"{guards}.svg").write_bytes(heatmap_svg(tokens, data["weights"], data["measures"], title))
        (folder / "data.js").write_text(data_script(job["data_key"], everything), encoding="utf-8")
    return str(target)


@dataclass
class BakeReport:
    files: dict[str, Path]  # site path -> file in the cache
    units: int
    cached: int
    seconds: float


def bake_grid(corpora: list[str], seeds: list[int], tables: dict[str, EmbeddingTable], tokens: list[str],
              sentence: str, d_k: int, vocabulary_size: int, cache_dir: Path, workers: int, log) -> BakeReport:
    """Every (corpus, seed) unit from the cache, baking only the missing ones, in parallel."""
    started = time.monotonic()
    root = Path(cache_dir) / "bake"
    root.mkdir(parents=True, exist_ok=True)
    cache.remove_abandoned(root)
    code = code_version()
    jobs, files, cached = [], {}, 0
    table_hashes = {corpus: table_id(tables[corpus]) for corpus in corpora}
    for corpus in corpora:
        for seed in seeds:
            unit = Unit(corpus, seed)
            target = root / unit_key(unit, table_hashes[corpus], tokens, d_k, code)
            for name in [f"{g}.{ext}" for g in GUARD_SET_NAMES for ext in ("json", "svg")] + ["data.js"]:
                files[f"{unit.folder}/{name}"] = target / name
            if cache.usable(target, log):
                cached += 1
                continue
            jobs.append(dict(target=str(target), table=tables[corpus].to_json(), tokens=tokens, seed=seed,
                             d_k=d_k, sentence=sentence, vocabulary_size=vocabulary_size, data_key=unit.data_key))
    total = len(corpora) * len(seeds)
    log.info(f"bake: {total} units of 8 guard sets; {cached} from the cache, {len(jobs)} to compute")
    if jobs:
        _run(jobs, workers, total, cached, started, log)
    return BakeReport(files=files, units=total, cached=cached, seconds=time.monotonic() - started)


def _run(jobs, workers, total, cached, started, log):
    done = cached
    if workers == 1 or len(jobs) == 1:
        results = map(bake_unit, jobs)
        pool = None
    else:
        pool = ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent, initargs=(os.getpid(),))
        results = pool.map(bake_unit, jobs)
    try:
        for _ in results:
            done += 1
            log.info(f"bake: {done}/{total} units ({done * 8}/{total * 8} combinations), "
                     f"{time.monotonic() - started:.1f} s")
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def variance_data(dims: list[int], samples: int, seed: int = 0, bins: int = 40) -> dict:
    """q . k samples summarised for each d: raw and divided by sqrt(d), with histograms.

    The raw histogram spans +-4 sqrt(d) (its own scale, to show the shape) and also a fixed
    +-4 range is given for the scaled one, so the reader sees both the growth and its cure.
    """
    rows = []
    for d in dims:
        raw = dot_product_samples(d, samples, seed)
        scaled = [value / d ** 0.5 for value in raw]
        reach = 4.0 * d ** 0.5
        rows.append({
            "d": d,
            "raw": dict(summary(raw), low=-reach, high=reach, counts=histogram(raw, bins, -reach, reach)),
            "scaled": dict(summary(scaled), low=-4.0, high=4.0, counts=histogram(scaled, bins, -4.0, 4.0)),
        })
    return {"schema": SCHEMA.format("variance"), "samples": samples, "seed": seed, "bins": bins, "dims": rows}


def softmax_data() -> dict:
    """The worked examples of the saturation lesson, computed by the core (never typed in)."""
    examples = []
    for scores in ([1.0, 2.0, 3.0], [1.0, 5.0, 10.0], [10.0, 50.0, 100.0]):
        weights = softmax(scores)
        examples.append({"scores": scores, "weights": weights, "jacobian": softmax_jacobian(weights),
                         "gradient": jacobian_norm(weights)})
    sweep = []
    for step in range(0, 41):
        factor = 0.25 * step  # scores [1, 2, 3] multiplied by 0 ... 10
        weights = softmax([factor * s for s in (1.0, 2.0, 3.0)])
        sweep.append({"factor": factor, "weights": weights, "gradient": jacobian_norm(weights)})
    return {"schema": SCHEMA.format("softmax"), "examples": examples, "sweep": sweep}


def bake_lessons(dims: list[int], samples: int, cache_dir: Path, log) -> dict[str, Path]:
    """The variance and softmax lessons' data and figures, cached like a unit."""
    key = hashlib.sha256(f"{code_version()}\0{dims}\0{samples}".encode()).hexdigest()[:32]
    target = Path(cache_dir) / "bake" / f"lessons-{key}"
    names = ["index.json", "index.js"] + [f"d-{d}.svg" for d in dims]
    files = {f"{VARIANCE}/{name}": target / "variance" / name for name in names}
    files.update({f"{SOFTMAX}/{name}": target / "softmax" / name for name in ("index.json", "index.js")})
    if cache.usable(target, log):
        return files
    from build_tools.figures import histogram_svg  # matplotlib: imported only when baking

    with cache.writing(target) as folder:
        (folder / "variance").mkdir()
        (folder / "softmax").mkdir()
        variance = variance_data(dims, samples)
        (folder / "variance" / "index.json").write_text(dumps(variance), encoding="utf-8")
        (folder / "variance" / "index.js").write_text(data_script("variance", variance), encoding="utf-8")
        for row in variance["dims"]:
            raw = row["raw"]
            width = (raw["high"] - raw["low"]) / len(raw["counts"])
            edges = [raw["low"] + i * width for i in range(len(raw["counts"]) + 1)]
            title = f"q . k for d = {row['d']}: variance {raw['variance']:.3g}"
            svg = histogram_svg(edges, raw["counts"], title, "q . k")
            (folder / "variance" / f"d-{row['d']}.svg").write_bytes(svg)
        data = softmax_data()
        (folder / "softmax" / "index.json").write_text(dumps(data), encoding="utf-8")
        (folder / "softmax" / "index.js").write_text(data_script("softmax", data), encoding="utf-8")
    return files

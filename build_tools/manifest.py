"""The static API's manifest: the one file clients read to find every other file.

Every URL in it is relative to the manifest itself (``new URL(url, manifestUrl)`` in a browser),
so the site works under any subpath, and every file carries its sha256.
"""

import hashlib
from pathlib import Path

from build_tools.bake import GUARD_SET_NAMES, SCALE_GUARDS, SCHEMA, Unit

MANIFEST = f"{SCALE_GUARDS}/index.json"
MANIFEST_SCRIPT = f"{SCALE_GUARDS}/index.js"


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def relative(site_path: str, start: str = SCALE_GUARDS) -> str:
    """A site path as a URL relative to the folder ``start`` (both relative to the site root)."""
    here, there = start.split("/"), site_path.split("/")
    common = 0
    while common < min(len(here), len(there) - 1) and here[common] == there[common]:
        common += 1
    return "/".join([".."] * (len(here) - common) + there[common:])


def entry(site_path: str, files: dict[str, Path]) -> dict:
    return {"url": relative(site_path), "sha256": sha256_file(files[site_path])}


def build_manifest(*, version, settings, sentence, tokens, corpora, seeds, files, runtime, variance_dims) -> dict:
    """``corpora``: name -> dict(title, counts, embeddings site path); ``files``: site path -> file."""
    combinations = {}
    for corpus in corpora:
        for seed in seeds:
            unit = Unit(corpus, seed)
            for guards in GUARD_SET_NAMES:
                combinations[f"{corpus}/{seed}/{guards}"] = {
                    "json": entry(f"{unit.folder}/{guards}.json", files),
                    "svg": entry(f"{unit.folder}/{guards}.svg", files),
                }
    return {
        "schema": SCHEMA.format("scale-guards-manifest"),
        "version": version,
        "d_model": settings["d_model"],
        "d_k": settings["d_k"],
        "recipe": settings["recipe"],
        "vocabulary_size": settings["vocabulary_size"],
        "sentence": sentence,
        "tokens": list(tokens),
        "guard_sets": list(GUARD_SET_NAMES),
        "seeds": list(seeds),
        "corpora": [
            {
                "name": name,
                "title": info["title"],
                "sentences": info["counts"]["sentences"],
                "tokens": info["counts"]["tokens"],
                "vocabulary": info["counts"]["vocabulary"],
                "embeddings": entry(info["embeddings"], files),
                "scripts": {str(seed): entry(f"{Unit(name, seed).folder}/data.js", files) for seed in seeds},
            }
            for name, info in corpora.items()
        ],
        "combinations": combinations,
        "lessons": {
            "variance": entry("api/attention/variance/index.json", files),
            "variance_figures": {str(d): entry(f"api/attention/variance/d-{d}.svg", files) for d in variance_dims},
            "softmax": entry("api/attention/softmax/index.json", files),
        },
        "runtime": {key: entry(path, files) for key, path in runtime.items()},
    }

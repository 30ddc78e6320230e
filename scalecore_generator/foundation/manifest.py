"""The static API's manifest, ``api/index.json``: the one file clients read to find every other.

It lists the runtime (Pyodide and the wheels live mode installs), the corpora with their embedding
tables, and every kind the site uses: its panel script, its schema, its grid (axes, which of them
live mode may set freely), every baked point with the parameters that produced it, and every file
with its sha256. Every URL is relative to the manifest itself (``new URL(url, manifestUrl)`` in a
browser), so the site works under any subpath. Clients never build a path by hand.
"""

from pathlib import Path

MANIFEST = "api/index.json"
MANIFEST_SCRIPT = "api/index.js"  # the same data as a classic script, for pages opened from disk
SCHEMA = "scalecore/site-manifest/2"
# What the pages load: the manifest without the listing of every point and file (which only
# clients of the static API need), so a page with panels does not download a few hundred kB
# to find its next data.js.
PAGE_MANIFEST = "api/panels.json"
PAGE_MANIFEST_SCRIPT = "api/panels.js"
PAGE_SCHEMA = "scalecore/page-manifest/1"
LISTINGS = ("points", "files")  # per kind: in the site manifest only


def relative(site_path: str, start: str = "api") -> str:
    """A site path as a URL relative to the folder ``start`` (both relative to the site root)."""
    here, there = start.split("/"), site_path.split("/")
    common = 0
    while common < min(len(here), len(there) - 1) and here[common] == there[common]:
        common += 1
    return "/".join([".."] * (len(here) - common) + there[common:])


def entry(site_path: str, files: dict[str, Path], digest) -> dict:
    """``digest``: a file's sha256 (the build's cache.Digests.of)."""
    return {"url": relative(site_path), "sha256": digest(files[site_path])}


def kind_entry(kind, bake, served: dict[str, str], files: dict[str, Path], digest) -> dict:
    """One kind in the manifest. ``served``: role ('script', 'style', 'schema', or
    'modules/<name>.js' for each of its own ES modules, listed under ``modules``) -> site path."""
    described = {"label": kind.label}
    for role, path in sorted(served.items()):
        group, _, name = role.partition("/")
        if name:
            described.setdefault(group, {})[name] = entry(path, files, digest)
        else:
            described[role] = entry(path, files, digest)
    if bake is None:
        return described
    prefix = f"api/{kind.name}/"
    described.update({
        "compute": kind.compute,
        "axes": {axis: list(values) for axis, values in bake.grid.axes.items()},
        "script_axes": list(bake.grid.script_axes),
        "live_axes": list(bake.grid.live_axes),
        "points": {path: {"params": point["params"], "json": point["json"].removeprefix(prefix)}
                   for path, point in bake.points.items()},
        "scripts": {group: entry(path, files, digest) for group, path in bake.groups.items()},
        "files": {path.removeprefix(prefix): entry(path, files, digest) for path in sorted(bake.files)},
    })
    return described


def build_manifest(*, version, settings, sentence, tokens, seeds, corpora, files, runtime, kinds, digest,
                   runtime_details=None) -> dict:
    """``corpora``: name -> dict(title, counts, embeddings site path); ``files``: site path -> file;
    ``runtime``: key -> site path, or None for an entry made wholly of its details (the full
    stack's files, published as parts); ``kinds``: name -> (Kind, KindBake or None, served files);
    ``runtime_details``: key -> more fields of that runtime entry (the snapshot's staleness key)."""
    return {
        "schema": SCHEMA,
        "version": version,
        "settings": settings,
        "sentence": sentence,
        "tokens": list(tokens),
        "seeds": list(seeds),
        "corpora": [
            {
                "name": name,
                "title": info["title"],
                "sentences": info["counts"]["sentences"],
                "tokens": info["counts"]["tokens"],
                "vocabulary": info["counts"]["vocabulary"],
                "embeddings": entry(info["embeddings"], files, digest),
            }
            for name, info in corpora.items()
        ],
        "runtime": {key: {**(entry(path, files, digest) if path is not None else {}),
                          **(runtime_details or {}).get(key, {})}
                    for key, path in runtime.items()},
        "kinds": {name: kind_entry(kind, bake, served, files, digest) for name, (kind, bake, served) in sorted(kinds.items())},
    }


def for_pages(manifest: dict) -> dict:
    """The site manifest as pages need it: everything but each kind's points and files."""
    return {**manifest, "schema": PAGE_SCHEMA, "site_manifest": relative(MANIFEST),
            "kinds": {name: {key: value for key, value in kind.items() if key not in LISTINGS}
                      for name, kind in manifest["kinds"].items()}}

"""What a warm build need not derive again: the build's memos, each versioned by the code that
derives it, and the key of everything a kind's panels are rendered from (``KindKeys``)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from scalecore_generator.foundation import cache


def build_memos(folder: Path, log, digest) -> dict[str, cache.Memo]:
    """What a warm build need not derive again (foundation/cache.Memo), each versioned by the code
    that derives it: the modules each source imports (the bake's keys), each page's mentor
    reading and each module's mentor script, the values pages quote, the mentor's facts, the
    HTML of the authors' texts in blocks (blocks/base.py), each page's panels
    (blocks/remembered.py), each page with its off-screen boxes (pages/offscreen.py), the web
    app's icons (builder/offline.py), the kinds' files found sound (kinds/registry.py), what the
    embedding tables give the site (builder/tables.py), the sha256 of the wheels built
    (runtime/wheel.py), of each corpus's text and metadata together (builder/corpora.py), and the
    search indexes with readable formulas (builder/disk_search.py).
    Each memo is read when first used. ``digest(path)``: a file's sha256 (the build's ledger)."""
    from scalecore import embeddings
    from scalecore_generator import mentor
    from scalecore_generator.blocks import base, expand, remembered, views
    from scalecore_generator.builder import bake, corpora, disk_search, offline, points
    from scalecore_generator.kinds import kind, options, registry
    from scalecore_generator.pages import offscreen, quotes
    from scalecore_generator.runtime import wheel

    # what each source imports, under its sha256: content-addressed, so only the parser versions it
    imports = cache.Memo(folder / "imports.json", log, code_version((Path(points.__file__),), digest))
    kept = cache.Memo(folder / "code.json", log, "1")  # the versions below, as the last build found them
    version = CodeVersions(digest, kept)

    return {"imports": imports, "code": kept,
            "mentor": cache.Memo(folder / "mentor.json", log, version(mentor)),
            "readings": cache.Memo(folder / "readings.json", log, version(mentor)),
            "quotes": cache.Memo(folder / "quotes.json", log, version(quotes, mentor)),
            "facts": cache.Memo(folder / "facts.json", log, version(quotes, mentor)),
            "markdown": cache.Memo(folder / "markdown.json", log, version(base)),
            "panels": cache.Memo(folder / "panels.json", log, version(base, expand, remembered, kind, options, views,
                                                                     base.SHARED_TEMPLATES / "panel.html", views.VIEWS)
                                 + " " + remembered.libraries()),
            "offscreen": cache.Memo(folder / "offscreen.json", log, version(offscreen)),
            "app": cache.Memo(folder / "app.json", log, version(offline)),
            "kinds": cache.Memo(folder / "kinds.json", log, version(registry)),
            "tables": cache.Memo(folder / "tables.json", log, version(bake, embeddings)),
            "wheels": cache.Memo(folder / "wheels.json", log, version(wheel)),
            "corpora": cache.Memo(folder / "corpora.json", log, version(corpora)),
            "search": cache.Memo(folder / "search.json", log, version(disk_search, mentor))}


class CodeVersions:
    """``versions(*parts)``: a hash of the code a memo's values are derived by: each module part
    with every module of its package it imports, directly or not, at any depth, in a function
    too (builder/points.module_closure, as a kind's code version is found), and each file part
    as it is (a template). A change to any of them starts that memo empty; listing the modules
    by hand missed the helpers they call. Files are hashed through the build's ledger: a warm
    build reads none of them."""

    def __init__(self, digest, kept: cache.Memo):
        # what each module imports, parsed only when a file of the packages changed (kept below);
        # not kept itself: a build that takes the kept versions would drop its entries, and
        # rewrite the memo each time
        self._imports, self._digest = cache.Memo(None, None), digest
        self._modules: dict[str, tuple] = {}  # module -> (its file, the modules of its package it imports)
        # The versions of the last build, kept under the identity of every file of the packages
        # (one walk of their folders): a warm build finds no closure.
        self._kept, self._tree = kept, _tree_identity()

    def _module(self, name: str) -> tuple:
        """(file, imported) of one module, once per build, whatever memos share it."""
        if name not in self._modules:
            from scalecore_generator.builder import points

            path = points._module_file(name)
            imported = () if path is None else tuple(
                other for other in self._imports.get(self._digest(path), lambda: points._imports(path.read_bytes()))
                if other.split(".")[0] == name.split(".")[0])
            self._modules[name] = (path, imported)
        return self._modules[name]

    def _closure(self, name: str) -> set[Path]:
        seen, todo, files = set(), [name], set()
        while todo:
            module = todo.pop()
            if module in seen:
                continue
            seen.add(module)
            path, imported = self._module(module)
            if path is not None:
                files.add(path)
                todo += imported
        return files

    def __call__(self, *parts) -> str:
        key = json.dumps([self._tree, [getattr(part, "__name__", None) or _package_name(part) for part in parts]])
        return self._kept.get(hashlib.sha256(key.encode()).hexdigest(), lambda: self._version(parts))

    def _version(self, parts) -> str:
        files = set()
        for part in parts:
            files.update(self._closure(part.__name__) if hasattr(part, "__name__") else (Path(part),))
        return code_version(files, self._digest)


def _tree_identity() -> str:
    """Every file of the two packages with its identity (size, times, inode), hashed: a file
    changed, added or removed gives another value."""
    import scalecore
    import scalecore_generator

    found = []
    todo = [os.path.dirname(scalecore.__file__), os.path.dirname(scalecore_generator.__file__)]
    while todo:
        with os.scandir(todo.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in ("__pycache__", "node_modules", "wheels"):
                        todo.append(entry.path)
                elif entry.name.endswith((".py", ".html", ".js", ".json")):
                    stat = entry.stat()
                    found.append((entry.path, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino))
    return hashlib.sha256(repr(sorted(found)).encode()).hexdigest()


def code_version(files, digest) -> str:
    """The files' names (from their package's folder, not this machine's) and sha256, hashed."""
    named = sorted([_package_name(path), digest(path)] for path in files)
    return hashlib.sha256(json.dumps(named).encode()).hexdigest()


def _package_name(path: Path) -> str:
    """``scalecore_generator/builder/memos.py`` for a file of an installed or checked-out package."""
    text = Path(path).as_posix()
    for top in ("/scalecore_generator/", "/scalecore/"):
        if top in text:
            return text[text.rindex(top) + 1:]
    return Path(path).name


class KindKeys:
    """Everything of a kind that its panels are rendered from besides their blocks
    (blocks/remembered.py), as one hash: ``keys(name)``."""

    def __init__(self, build):
        self.build = build
        self._keys = {}

    def __call__(self, name: str) -> str:
        """The files of the kind's folder and of the site's packages, its view of the site, its
        baked entries (named by the hash of what made them) and its scripts."""
        build = self.build
        if name not in self._keys:
            site, baked = build.site(name), build.baked.get(name)
            seen = [self._files_key(build.kinds[name].folder), self._packages_key,
                    site.corpora, site.titles, site.seeds, site.settings, site.options, build.served.get(name),
                    sorted(target.name for target in baked.entries.values()) if baked else None]
            self._keys[name] = hashlib.sha256(json.dumps(seen, sort_keys=True).encode()).hexdigest()
        return self._keys[name]

    @functools.cached_property
    def _packages_key(self) -> list:
        """The files of the site's packages: one walk a build, whatever the kinds."""
        return [self._files_key(package) for package in self.build.packages]

    def _files_key(self, folder: Path) -> list:
        """Each file under ``folder`` (its path there, its sha256 from the ledger)."""
        found = []
        for top, folders, files in os.walk(folder):
            folders[:] = sorted(f for f in folders if f != "__pycache__")
            found += [(os.path.relpath(os.path.join(top, f), folder), self.build.digests.of(os.path.join(top, f)))
                      for f in sorted(files) if not f.endswith(".pyc")]
        return found

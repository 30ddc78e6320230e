"""What a warm build need not derive again: the build's memos, each versioned by the code that
derives it, and the key of everything a kind's panels are rendered from (``KindKeys``)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from scalecore_generator.foundation import cache


def build_memos(folder: Path, log) -> dict[str, cache.Memo]:
    """What a warm build need not derive again (foundation/cache.Memo), each versioned by the code
    that derives it: the modules each source imports (the bake's keys), each page's mentor
    reading and each module's mentor script, the values pages quote, the mentor's facts, the
    HTML of the authors' texts in blocks (blocks/base.py), each page's panels
    (blocks/remembered.py), each page with its off-screen boxes (pages/offscreen.py), the web app's icons (builder/offline.py), the kinds' files found sound
    (kinds/registry.py), what the embedding tables give the site (builder/tables.py), the sha256 of
    the wheels built (runtime/wheel.py), and of each corpus's text and metadata together
    (builder/corpora.py). Each memo is read when first used."""
    from scalecore import embeddings
    from scalecore_generator import mentor
    from scalecore_generator.blocks import base, expand, remembered, views
    from scalecore_generator.builder import bake, corpora, offline
    from scalecore_generator.kinds import registry
    from scalecore_generator.pages import offscreen
    from scalecore_generator.kinds import kind, options
    from scalecore_generator.pages import quotes
    from scalecore_generator.runtime import wheel

    # a module (or a file) versions several
    source = functools.cache(lambda module: Path(getattr(module, "__file__", module)).read_bytes())

    def version(*modules):
        return hashlib.sha256(b"".join(source(module) for module in modules)).hexdigest()

    return {"imports": cache.Memo(folder / "imports.json", log, version(bake)),
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
            "corpora": cache.Memo(folder / "corpora.json", log, version(corpora))}


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

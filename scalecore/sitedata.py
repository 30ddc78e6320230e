"""The site's own data files, read the same way wherever the core runs.

A computation that needs a corpus's embedding table asks :func:`embeddings`; where the bytes come
from is the runtime's business: the build points :func:`use` at the files it is about to publish,
and live mode in the browser at the site's URLs (checked against the manifest's sha256, see
scalecore/browser.py). So one function computes a baked point and its live twin.
"""

import json

_reader = None
_tables: dict = {}


def use(reader) -> None:
    """Read site files with ``reader(site_path) -> str`` from now on (forgetting what was read)."""
    global _reader
    _reader = reader
    _tables.clear()


def read(site_path: str) -> str:
    """The text of a site file, e.g. ``read("api/embeddings/demo.json")``."""
    if _reader is None:
        raise RuntimeError("no site to read from: call scalecore.sitedata.use(reader) first")
    return _reader(site_path)


def embeddings(corpus: str):
    """The embedding table this site was built with for ``corpus`` (read once, then kept)."""
    from scalecore.embeddings import EmbeddingTable

    if corpus not in _tables:
        _tables[corpus] = EmbeddingTable.from_json(json.loads(read(f"api/embeddings/{corpus}.json")))
    return _tables[corpus]

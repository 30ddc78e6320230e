"""Search in a site opened from disk (file://): its search index as a classic script.

A page opened from disk may not fetch Material's search index nor start its search worker, so the
build writes the same index a second time as a classic script, search/search_index.js
(``var __index = ...``, the format of Material's own offline plugin), which
scalecore_generator/assets/disk-search.js loads and searches in the page. SiteBuild.finish writes
it into every built site once the search plugin has written its index (the plain ``site/`` folder
opened from disk searches too), and the offline bundle (builder/bundle.py) adds it to a site that
lacks it. The same index gives the same bytes.

The search plugins index a page before its math is typeset (pages/formulas.py), so their index
holds each formula's TeX, and a result's snippet showed it raw (``\\(\\sqrt{d_k}\\)``). Both
indexes, MkDocs' (search/search_index.json, ``docs``) and Zensical's (search.json, ``items``), are
written again (by files(), which SiteBuild.finish calls once they are written) with each formula as the plain text the mentor quotes it in (``√d_k``; TeX shown as
code, in ``<code>`` or ``<pre>``, is left as it is), so what a reader sees in a snippet is what
the page shows, and the words of a formula (d_k, softmax, Var) are still found.
"""

import hashlib
import json
import os
import re
from pathlib import Path

SEARCH_INDEX = "search/search_index.json"
SEARCH_SCRIPT = "search/search_index.js"
ZENSICAL_INDEX = "search.json"
CODE = re.compile(r"(<(code|pre)\b[^>]*>.*?</\2\s*>)", re.S | re.I)  # TeX shown as code stays TeX


def readable(text: str) -> str:
    """An index's text with every formula outside code as plain text (mentor.tex_to_text)."""
    if "\\(" not in text and "\\[" not in text:
        return text
    from scalecore_generator.mentor import MATH, tex_to_text

    parts = CODE.split(text)
    # split() keeps each code span and its tag name: [text, span, name, text, span, name, ...]
    return "".join(part if i % 3 else MATH.sub(lambda m: tex_to_text(m.group(1) or m.group(2)), part)
                   for i, part in enumerate(parts) if i % 3 != 2)


def _readable_entries(entries: list) -> bool:
    """Each entry's title and text made readable in place; True when any changed."""
    changed = False
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        for field in ("title", "text"):
            if isinstance(entry.get(field), str):
                made = readable(entry[field])
                if made != entry[field]:
                    entry[field], changed = made, True
    return changed


def script(index: dict) -> bytes:
    """The index as a classic script; ``</`` escaped, so no text in it can end a script element."""
    text = json.dumps(index, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f"var __index = {text};\n".encode("utf-8")


def _index(path: Path, entries: str) -> dict | None:
    """A search index in a search plugin's format (a dict with a list under ``entries``), or None."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) and isinstance(data.get(entries), list) else None


def _json(data: dict) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _readable_text(raw: bytes, entries: str) -> str | None:
    """The index ``raw`` as written again with readable formulas, or None when it is not an index
    in the plugins' format or has no formula to change."""
    data = json.loads(raw)
    if not (isinstance(data, dict) and isinstance(data.get(entries), list)) or not _readable_entries(data[entries]):
        return None
    return _json(data).decode("utf-8")


def make_readable(site: Path, memo=None) -> None:
    """The search plugins' indexes in ``site`` written again, in place, where a formula's TeX is
    in them (see above); left as they are otherwise. Each is replaced by a new file, never
    written through: a staged build's unchanged files are links to the published site's.
    ``memo`` (foundation/cache.Memo): the readable index under the sha256 of the plugin's, so a
    rebuild whose pages did not change turns no formula into text again (a few hundred of them:
    the largest part of this step)."""
    for name, entries in ((SEARCH_INDEX, "docs"), (ZENSICAL_INDEX, "items")):
        path = Path(site) / name
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if memo is None:
            text = _readable_text(raw, entries)
        else:
            text = memo.get(f"{name}:{hashlib.sha256(raw).hexdigest()}", lambda: _readable_text(raw, entries))
        if text is not None:
            fresh = path.with_name(path.name + ".readable")
            fresh.write_bytes(text.encode("utf-8"))
            os.replace(fresh, path)


def files(site: Path, memo=None) -> dict[str, bytes]:
    """What a copy of ``site`` read from disk needs to search: the script of its search index
    (none when the site has no index in the search plugins' format: a list of ``docs``). The
    indexes are made readable first (make_readable, with ``memo``), so the script is the index as
    written."""
    make_readable(site, memo)
    data = _index(Path(site) / SEARCH_INDEX, "docs")
    return {} if data is None else {SEARCH_SCRIPT: script(data)}

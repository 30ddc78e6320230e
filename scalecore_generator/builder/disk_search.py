"""Search in a site opened from disk (file://): its search index as a classic script.

A page opened from disk may not fetch Material's search index nor start its search worker, so the
build writes the same index a second time as a classic script, search/search_index.js
(``var __index = ...``, the format of Material's own offline plugin), which
scalecore_generator/assets/disk-search.js loads and searches in the page. SiteBuild.finish writes
it into every built site once the search plugin has written its index (the plain ``site/`` folder
opened from disk searches too), and the offline bundle (builder/bundle.py) adds it to a site that
lacks it. The same index gives the same bytes.
"""

import json
from pathlib import Path

SEARCH_INDEX = "search/search_index.json"
SEARCH_SCRIPT = "search/search_index.js"


def script(index: dict) -> bytes:
    """The index as a classic script; ``</`` escaped, so no text in it can end a script element."""
    text = json.dumps(index, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f"var __index = {text};\n".encode("utf-8")


def files(site: Path) -> dict[str, bytes]:
    """What a copy of ``site`` read from disk needs to search: the script of its search index
    (none when the site has no index in the search plugins' format: a list of ``docs``)."""
    index = Path(site) / SEARCH_INDEX
    if not index.is_file():
        return {}
    data = json.loads(index.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("docs"), list):
        return {}
    return {SEARCH_SCRIPT: script(data)}

"""A module page's mentor data, as the classic script the page loads (readable from file://), and
the files the mentor ships: its theme scripts and the libraries it loads on demand."""

from __future__ import annotations

import json
import posixpath

from scalecore_generator.mentor.encoder import (
    encode_passages,
    encoder_assets,
    encoder_available,
)
from scalecore_generator.mentor.facts import column_names, corpora_words
from scalecore_generator.mentor.formulas import _typeset
from scalecore_generator.mentor.passages import Page

SCRIPT_FOLDER = "assets/scalecore/mentor"  # one classic script per module page: works from file://
GLOBAL = "scalecoreMentor"


def data_script(module: Page, sources: list[Page], fact_tree: dict, panels: dict[str, str],
                code: str, typeset=None, axes: dict[str, list[str]] | None = None, memo=None,
                vectors: bytearray | None = None) -> str:
    """The mentor's data for one module page, as a classic script (readable from file://, like
    the panels' data). ``panels`` maps a kind to the page#anchor of the panel that shows it;
    ``typeset(tex, display)`` gives a formula's markup as the pages have it; ``axes`` a kind to
    its grid's axis names, in the order of a fact's path, so a "See it in the panel" link can
    carry the state the fact was baked in (the panels' address, panels.js). ``vectors``: where
    the passages' vectors go, the bytes of one binary file (vectors_path) that the page fetches
    with the sentence encoder (int8, 388 bytes a row, not base64 in the script: a quarter less,
    and nothing to parse where the encoder cannot run); without it they travel in the script."""
    passages, math = _typeset([p for page in sources for p in page.passages], typeset, memo)
    data = {
        "schema": "scalecore/mentor/2",
        "module": {"code": code, "title": module.title, "page": module.url},
        "outline": module.outline,
        "passages": passages,
        "math": math,
        "pages": {page.url: page.title for page in sources},
        "facts": fact_tree,
        "panels": panels,
        "axes": {kind: list(names) for kind, names in sorted((axes or {}).items()) if kind in panels},
        "corpora": corpora_words(fact_tree.get("corpus", {})),
        # what the panels' tables call the measures, {kind: {measure: [column name]}}: a reader names them so
        "labels": column_names([table for page in sources for table in page.tables], fact_tree),
    }
    if encoder_available():
        data["encoder"] = encode_passages(passages, math, vectors)
        if vectors is not None:
            data["encoder"]["vectors"] = vectors_path(module.url)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    text = text.replace("</", "<\\/")  # a passage can never close the script it travels in
    return f"(globalThis.{GLOBAL}=globalThis.{GLOBAL}||{{}})[{json.dumps(module.url)}]={text};\n"


# The theme's scripts of the mentor (module.js loads them when a page's mentor box nears the
# viewport): a site whose pages all leave the mentor out does not ship them.
THEME_SCRIPTS = ("assets/scalecore-module/mentor.js", "assets/scalecore-module/mentor-core.js",
                 "assets/scalecore-module/mentor-words.js", "assets/scalecore-module/mentor-meaning.js",
                 "assets/scalecore-module/mentor-numbers.js",
                 "assets/scalecore-module/mentor-embeddings.js", "assets/scalecore-module/mentor-encoder.js")


def script_path(page_url: str) -> str:
    """Where a module page's mentor data goes: assets/scalecore/mentor/<page path>.js."""
    stem = posixpath.splitext(page_url)[0] or "index"
    return f"{SCRIPT_FOLDER}/{stem.replace('/', '--')}.js"


def vectors_path(page_url: str) -> str:
    """Where a module page's passage vectors go: beside its script, .vectors.bin."""
    return script_path(page_url).removesuffix(".js") + ".vectors.bin"


def assets(node_modules, cache=None, digest=None) -> dict:
    """Site path -> file of the libraries the mentor loads on demand, from the npm packages pinned
    in build_tools/package-lock.json: MiniSearch (the search) and pdf.js (a reader's PDF, read in
    its own worker). Missing packages leave the mentor without them, and it says so when used.
    pdf.js's ES modules are served as .js: every static host (and python -m http.server) sends
    .js as JavaScript, which a module script requires, while .mjs is unknown to some."""
    wanted = {
        "assets/scalecore/vendor/minisearch.js": node_modules / "minisearch" / "dist" / "umd" / "index.js",
        "assets/scalecore/vendor/pdfjs/pdf.min.js": node_modules / "pdfjs-dist" / "build" / "pdf.min.mjs",
        "assets/scalecore/vendor/pdfjs/pdf.worker.min.js": node_modules / "pdfjs-dist" / "build" / "pdf.worker.min.mjs",
        "assets/scalecore/vendor/pdfjs/LICENSE": node_modules / "pdfjs-dist" / "LICENSE",
        "assets/scalecore/vendor/minisearch.LICENSE.txt": node_modules / "minisearch" / "LICENSE.txt",
    }
    return {site: source for site, source in wanted.items() if source.is_file()} | encoder_assets(node_modules, cache, digest)

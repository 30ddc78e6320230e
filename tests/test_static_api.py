"""The static API of the real site: built once per session, then every file checked.

The build uses the repository's mkdocs.yml and cache (.cache/scalecore), so it takes seconds when
the cache is warm, and writes into a temporary folder: the developer's site/ is never touched.

Checked here: every baked JSON file against its JSON Schema (scalecore_generator/schemas/), the shapes
JSON Schema cannot express (T x T matrices, weight rows summing to 1, vector table length), the
manifest against the grid of mkdocs.yml and against the files (each URL relative, inside the
site, present, with its sha256), the data scripts against the JSON, the figures (well-formed XML
without dates), and that no file of the site makes the browser ask another host for anything.
"""

import base64
import fnmatch
import hashlib
import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from xml.etree import ElementTree

import pytest
import yaml
from jsonschema import Draft202012Validator

from scalecore_generator.adapters.mkdocs.config import ScalecoreConfig
from sites import REPO, build, environment

SCHEMAS = REPO / "scalecore_generator" / "schemas"
API = "api"
GUARD_SETS = ["none", "norm", "init", "scale", "norm+init", "norm+scale", "init+scale", "norm+init+scale"]


# --------------------------------------------------------------------------------------------
# The site, built once
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("static-api") / "site"
    done = build(REPO, "-f", "mkdocs.yml", "-d", str(target), env=environment(None))
    assert done.returncode == 0, f"the site did not build:\n{done.describe()}"
    return target


def _config() -> dict:
    """mkdocs.yml, read without constructing MkDocs' and pymdownx's custom YAML tags."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    return yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)


def _plugin_options() -> dict:
    for entry in _config().get("plugins", []):
        if isinstance(entry, dict) and "scalecore" in entry:
            return entry["scalecore"] or {}
    raise AssertionError("mkdocs.yml does not use the scalecore plugin")


@pytest.fixture(scope="session")
def manifest(site) -> dict:
    return json.loads((site / API / "index.json").read_text(encoding="utf-8"))


def _validator(name: str, site: Path | None = None) -> Draft202012Validator:
    """A site-level schema by name (scalecore_generator/schemas/<name>.schema.json), or a kind's, served
    by the site at api/<kind>/schema.json (name "kind:<kind>")."""
    if name.startswith("kind:"):
        path = site / API / name.removeprefix("kind:") / "schema.json"
    else:
        path = SCHEMAS / f"{name}.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _schema_for(site_path: str, manifest: dict) -> str | None:
    """Which schema a JSON file of the API follows: the manifest, an embedding table, or a point
    of a kind the manifest lists (the kind's own schema). None: a file no schema covers."""
    if site_path in (f"{API}/index.json", f"{API}/panels.json"):
        return "manifest"
    if fnmatch.fnmatchcase(site_path, "api/embeddings/*.json"):
        return "embeddings"
    for name, kind in manifest["kinds"].items():
        prefix = f"{API}/{name}/"
        if site_path == f"{prefix}schema.json":
            return "json-schema"
        if site_path.startswith(prefix) and "schema" in kind and \
                site_path.removeprefix(prefix) in {p["json"] for p in kind.get("points", {}).values()}:
            return f"kind:{name}"
    return None


# --------------------------------------------------------------------------------------------
# Schemas and shapes
# --------------------------------------------------------------------------------------------


def test_the_schemas_are_valid_draft_2020_12(site, manifest):
    names = sorted(path.name for path in SCHEMAS.glob("*.schema.json"))
    assert names == ["embeddings.schema.json", "manifest.schema.json"]
    for name in names:
        _validator(name.removesuffix(".schema.json"))
    for name, kind in manifest["kinds"].items():
        if "schema" in kind:
            _validator(f"kind:{name}", site)


def test_every_baked_json_validates_against_its_schema(site, manifest):
    checked, problems = {}, []
    validators = {}
    for path in sorted((site / "api").rglob("*.json")):
        site_path = path.relative_to(site).as_posix()
        name = _schema_for(site_path, manifest)
        if name is None:
            problems.append(f"{site_path}: no schema covers this file")
            continue
        if name == "json-schema":
            continue  # checked by test_the_schemas_are_valid_draft_2020_12
        validator = validators.setdefault(name, _validator(name, site))
        data = json.loads(path.read_text(encoding="utf-8"))
        for error in validator.iter_errors(data):
            where = "/".join(map(str, error.absolute_path))
            problems.append(f"{site_path} ({name}): at '{where}': {error.message[:300]}")
        checked[name] = checked.get(name, 0) + 1
    assert not problems, "\n".join(problems[:40])
    with_schema = {f"kind:{name}" for name, kind in manifest["kinds"].items() if "schema" in kind and "points" in kind}
    assert set(checked) == {"manifest", "embeddings"} | with_schema, checked


def _kind(manifest, name):
    return manifest["kinds"][name]


def _point(site, manifest, kind, path):
    entry = _kind(manifest, kind)
    return _json(site / API / entry["files"][entry["points"][path]["json"]]["url"])


def test_a_schema_rejects_what_it_should(manifest, site):
    """The schemas are strict: an unknown key, a bad guard name or a missing measure fails."""
    combination = _validator("kind:scale-guards", site)
    data = _point(site, manifest, "scale-guards", f"{manifest['corpora'][0]['name']}/{manifest['seeds'][0]}/none")
    assert combination.is_valid(data)
    assert not combination.is_valid(dict(data, extra=1))
    assert not combination.is_valid(dict(data, guards="scale+norm"))
    assert not combination.is_valid(dict(data, measures={k: v for k, v in data["measures"].items() if k != "gradient"}))
    assert not combination.is_valid(dict(data, weights=[[1.5] * len(data["tokens"])] * len(data["tokens"])))
    wrong_url = json.loads(json.dumps(manifest))
    wrong_url["corpora"][0]["embeddings"]["url"] = "/api/embeddings/demo.json"
    assert not _validator("manifest").is_valid(wrong_url)


def test_the_variance_figures_are_those_of_the_lesson_data(site, manifest):
    variance = _point(site, manifest, "variance", "index")
    figures = sorted(name for name in _kind(manifest, "variance")["files"] if name.endswith(".svg"))
    assert figures == sorted(f"d-{row['d']}.svg" for row in variance["dims"])


def test_combinations_are_t_by_t_and_agree_with_the_manifest(site, manifest):
    tokens = manifest["tokens"]
    size = len(tokens)
    for key, point in _kind(manifest, "scale-guards")["points"].items():
        corpus, seed, guards = key.split("/")
        data = _point(site, manifest, "scale-guards", key)
        assert (data["corpus"], data["seed"], data["guards"]) == (corpus, int(seed), guards), key
        assert point["params"] == dict(corpus=corpus, seed=int(seed), guards=guards, sentence=manifest["sentence"],
                                       d_k=manifest["settings"]["d_k"],
                                       vocabulary_size=manifest["settings"]["vocabulary_size"]), key
        assert data["tokens"] == tokens and data["sentence"] == manifest["sentence"], key
        for name in ("scores", "weights"):
            assert len(data[name]) == size and all(len(row) == size for row in data[name]), f"{key}: {name} not T x T"
        for row in data["weights"]:
            assert abs(sum(row) - 1.0) < 1e-9, f"{key}: a weight row sums to {sum(row)}"
        settings = data["settings"]
        assert (settings["corpus"], settings["seed"], settings["guards"]) == (corpus, int(seed), guards), key
        for name in ("d_model", "d_k", "recipe", "vocabulary_size"):
            assert settings[name] == manifest["settings"][name], f"{key}: settings.{name}"


def test_embedding_tables_hold_vocabulary_times_d_model_floats(site, manifest):
    for corpus in manifest["corpora"]:
        table = json.loads((site / API / corpus["embeddings"]["url"]).read_text(encoding="utf-8"))
        assert table["corpus"] == corpus["name"]
        assert (table["d_model"], table["recipe"]) == (manifest["settings"]["d_model"], manifest["settings"]["recipe"])
        assert len(table["vocabulary"]) <= manifest["settings"]["vocabulary_size"]
        raw = base64.b64decode(table["vectors"], validate=True)
        assert len(raw) == 4 * len(table["vocabulary"]) * table["d_model"], corpus["name"]
        assert all(map(lambda v: v == v, struct.unpack(f"<{len(raw) // 4}f", raw))), "NaN in the vectors"
        assert set(manifest["tokens"]) <= set(table["vocabulary"]), f"{corpus['name']} lacks a shared word"


# --------------------------------------------------------------------------------------------
# The manifest: the grid, and every file it lists
# --------------------------------------------------------------------------------------------


def test_the_manifest_lists_the_whole_grid_of_mkdocs_yml(site, manifest):
    options = _plugin_options()
    names = [corpus["name"] for corpus in manifest["corpora"]]
    if options.get("corpora"):
        assert names == options["corpora"]
    assert manifest["seeds"] == options.get("seeds", dict(ScalecoreConfig._schema)["seeds"].default)
    kind = _kind(manifest, "scale-guards")
    assert kind["axes"] == {"corpus": names, "seed": manifest["seeds"], "guards": GUARD_SETS}
    expected = {f"{c}/{s}/{g}" for c in names for s in manifest["seeds"] for g in GUARD_SETS}
    assert set(kind["points"]) == expected
    assert sorted(kind["scripts"]) == sorted(f"{c}/{s}" for c in names for s in manifest["seeds"])


def test_every_kind_holds_exactly_the_files_the_manifest_lists(site, manifest):
    for name, kind in manifest["kinds"].items():
        if "files" not in kind:
            continue
        folder = site / API / name
        on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {"schema.json"}
        assert on_disk == set(kind["files"]), name
        assert {p["json"] for p in kind["points"].values()} <= set(kind["files"]), name


def _file_entries(node, where=""):
    """Every {url, sha256} object in the manifest (some say more: the memory snapshot's key),
    with where it sits."""
    if isinstance(node, dict):
        if {"url", "sha256"} <= set(node):
            yield where, node
            return
        for key, value in node.items():
            yield from _file_entries(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _file_entries(value, f"{where}/{index}")


def test_every_manifest_url_is_relative_resolves_inside_the_site_and_has_its_sha256(site, manifest):
    entries = list(_file_entries(manifest))
    # a runtime entry is one file, or (the full stack's two big files) the parts it is published as
    expected = len(manifest["corpora"]) + sum(len(entry.get("parts", [entry]))
                                              for entry in manifest["runtime"].values())
    for kind in manifest["kinds"].values():
        expected += sum(1 for role in ("script", "style", "schema") if role in kind) + len(kind.get("modules", {}))
        expected += len(kind.get("scripts", {})) + len(kind.get("files", {}))
    assert len(entries) == expected
    root = site.resolve()
    base = (site / API).resolve()
    for where, entry in entries:
        url = entry["url"]
        assert re.fullmatch(r"[A-Za-z0-9._+\-/]+", url), f"{where}: {url!r} is not a plain relative URL"
        assert not url.startswith("/") and "//" not in url and "\\" not in url, f"{where}: {url!r}"
        target = (base / PurePosixPath(url)).resolve()
        assert target.is_relative_to(root), f"{where}: {url!r} leaves the site"
        assert target.is_file(), f"{where}: {url!r} is missing"
        assert hashlib.sha256(target.read_bytes()).hexdigest() == entry["sha256"], f"{where}: {url!r} sha256"


def test_the_manifest_script_and_data_scripts_carry_the_json(site, manifest):
    assert _script_data(site / API / "index.js") == ("manifest", manifest)
    for name, kind in manifest["kinds"].items():
        for group, entry in kind.get("scripts", {}).items():
            key, data = _script_data(site / API / entry["url"])
            assert key == (f"{name}/{group}" if group else name)
            inside = {path: point for path, point in kind["points"].items()
                      if not group or path.startswith(group + "/")}
            assert len(data) == len(inside), key
            for path, point in inside.items():
                inner = path.removeprefix(group + "/") if group else path
                assert data[inner] == _json(site / API / kind["files"][point["json"]]["url"]), f"{key}/{inner}"


_SCRIPT = re.compile(
    r'\(globalThis\.scalecoreData=globalThis\.scalecoreData\|\|\{\}\)\[(?P<key>"[^"\\]*")\]=(?P<data>.*);\n',
    re.S,
)


def _script_data(path: Path):
    """(key, data) of a classic data script; it must be exactly the assignment, nothing else."""
    match = _SCRIPT.fullmatch(path.read_text(encoding="utf-8"))
    assert match, f"{path} is not a Scalecore data script"
    return json.loads(match["key"]), json.loads(match["data"])


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------


def test_svgs_are_well_formed_and_carry_no_date(site):
    svgs = sorted(site.rglob("*.svg"))
    assert svgs
    for path in svgs:
        text = path.read_text(encoding="utf-8")
        root = ElementTree.fromstring(text.encode("utf-8"))  # raises on malformed XML
        assert root.tag.endswith("}svg"), f"{path}: root element {root.tag}"
        for element in root.iter():
            assert not element.tag.endswith("}date"), f"{path}: has a date element"
        assert not re.search(r"\b(19|20)\d\d-[01]\d-[0-3]\d", text), f"{path}: contains a date"


# --------------------------------------------------------------------------------------------
# No other host
# --------------------------------------------------------------------------------------------

TEXT_FILES = {".html", ".js", ".mjs", ".css", ".json", ".xml", ".svg", ".map", ".txt", ".webmanifest"}
URL = re.compile(r"https?://[^\s\"'`<>()\\]*", re.I)
LOOPBACK = re.compile(r"https?://(127\.0\.0\.1|localhost|\[::1\])([:/]|$)", re.I)
# A namespace name (an identifier that is never fetched): xmlns attributes, also inside CSS data
# URIs, and the namespace argument of the DOM's *NS functions or an XML writer's constant.
NAMESPACE = re.compile(
    r"""(xmlns(:[\w-]+)?\s*=\s*|createElementNS\(\s*|[sg]etAttributeNS\(\s*|\b[A-Z_]*NS\s*=\s*|"xmlns"\s*,\s*)"""
    r"""(["'`]|%22|%27|\\["'])?$"""
)


@dataclass(frozen=True)
class Known:
    """An absolute URL in a file we ship but did not write, that the site never requests.

    The URL itself is not written here (this repository names no other host): ``sha256`` is the
    start of the hex sha256 of the URL as the scan reads it; a failing test prints the URL.
    """

    files: str  # glob of the site paths it appears in
    sha256: str
    why: str
    when: str = ""  # a site setting that would make it a request; the test checks it is off


PDFJS_NAMESPACE = "pdf.js: an XML namespace name an XFA form, XMP or XFDF document is matched against (an identifier)"
PDFJS_LINK = ("pdf.js: the template that makes a 'www.' text of the PDF a link target, only for its own annotation "
              "layer, which the mentor never renders")

KNOWN = [
    Known("assets/javascripts/bundle.*.min.js", "3c2fc52d6a0bfe2c",
          "Material's ResizeObserver polyfill, loaded only by browsers without ResizeObserver "
          "(every browser the site supports has it)"),
    Known("assets/javascripts/bundle.*.min.js", "c2d2e7181765174a",
          "Material's Mermaid loader, run only on a page with a Mermaid diagram", when="mermaid"),
    Known("assets/javascripts/bundle.*.min.js", "c6422ba36fe10704",
          "Material's source-repository facts (GitHub repository), fetched only with repo_url", when="repo_url"),
    Known("assets/javascripts/bundle.*.min.js", "19e3eede1a71d79e",
          "Material's source-repository facts (GitHub user), fetched only with repo_url", when="repo_url"),
    Known("assets/javascripts/bundle.*.min.js", "d99416e847a78830",
          "Material's source-repository facts (GitLab), fetched only with repo_url", when="repo_url"),
    Known("assets/javascripts/workers/search.*.min.js", "a8b1fd2dc3d3a558",
          "text of a console warning about an invalid search query (a link for the developer)"),
    Known("assets/pyodide/pyodide.mjs", "4a573bd0ba2fd5fd",
          "Pyodide's default package address, used only by loadPackage; the worker passes "
          "indexURL and loads the core as a wheel with unpackArchive", when="loadPackage"),
    Known("assets/pyodide/pyodide.asm.mjs", "6965e0c8075d3b07",
          "Emscripten's socket shim turns a host name given by Python code into a URL; nothing "
          "in the site opens a socket"),
    Known("assets/scalecore/models/mentor-encoder/ort.wasm.min.js", "02f88520044e9c17",
          "onnxruntime-web: the text of a console warning that names a guide to cross-origin isolation "
          "(a link for the developer; nothing fetches it)"),
    # pdf.js reads a reader's PDF in the mentor; it requests nothing but the site's own files.
    Known("assets/scalecore/vendor/pdfjs/pdf*.min.js", "dd47c910e24e3a8b",
          "pdf.js: the SVG namespace name, passed to createElementNS through a constant"),
    Known("assets/scalecore/vendor/pdfjs/pdf.min.js", "bcd2c12f8f1222ce", PDFJS_LINK),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "58f25cb167c2582a", PDFJS_LINK),
    Known("assets/scalecore/vendor/pdfjs/pdf.min.js", "f0e6a6a97042a4f1",
          "pdf.js: a base for parsing a relative link of the PDF into a URL object (never fetched)"),
    Known("assets/scalecore/vendor/pdfjs/pdf.min.js", "5c3ef2eacec70902",
          "pdf.js: a base for parsing a relative link of the PDF into a URL object (never fetched)"),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "9fa9f9197a359bae", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "62b4325454a51466", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "dd1ebdcff2bc1bd6", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "f39db5ddb33dd712", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "ba9976c6c9d32c23", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "27058239115e1d32", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "ed7842569bd538ac", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "baf35131962faa97", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "ee02d69eebe98025", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "998de7f1fc52eaaf", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "0e110a9a1c480844", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "59fcc7c2e7dadd1f", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "9b75d7e18086811f", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "bc2f6dc7c808cac2", PDFJS_NAMESPACE),
    Known("assets/scalecore/vendor/pdfjs/pdf.worker.min.js", "a5efc28052ae7f27", PDFJS_NAMESPACE),
]


def _spans(pattern: str, text: str, flags=re.S | re.I) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(pattern, text, flags)]


def _never_requested(suffix: str, text: str) -> list[tuple[int, int]]:
    """Parts of a file whose URLs are text, not requests: comments (licence banners), the DTD
    identifier of a DOCTYPE, an SVG's RDF metadata, and links a reader may follow (<a href>)."""
    spans = []
    if suffix in {".js", ".mjs", ".css"}:
        for start, end in _spans(r"/\*.*?\*/", text):
            line_start = text.rfind("\n", 0, start) + 1
            if not text[line_start:start].strip() or text[start:start + 3] in ("/*!", "/**"):
                spans.append((start, end))  # a comment on its own line, or a licence banner
        spans += _spans(r"^[ \t]*//[^\n]*", text, re.M)
        spans += _spans(r"\\3c\s*!--.*?--(>|\\3e)", text)  # an XML comment inside a CSS data URI
    if suffix in {".svg", ".xml", ".html"}:
        spans += _spans(r"<!DOCTYPE[^>]*>", text) + _spans(r"<!--.*?-->", text)
        spans += _spans(r"<metadata>.*?</metadata>", text)
    if suffix == ".html":
        spans += _spans(r"<a\s[^>]*>", text)
    if suffix == ".txt":  # plain text (licence notices): a browser shows it, it fetches nothing it names
        spans.append((0, len(text)))
    return spans


def _outside_urls(site: Path) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(unexplained URLs as (file, url, context), outbound links as (file, url))."""
    unexplained, links = [], []
    for path in sorted(site.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_FILES:
            continue
        site_path = path.relative_to(site).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".map":  # the sources a map embeds are read by developer tools only
            data = json.loads(text)
            data.pop("sourcesContent", None)
            text = json.dumps(data)
        skip = _never_requested(path.suffix, text)
        for match in URL.finditer(text):
            url, start = match.group(0), match.start()
            if LOOPBACK.match(url) or NAMESPACE.search(text[max(0, start - 40):start]):
                continue
            if any(a <= start < b for a, b in skip):
                if path.suffix == ".html" and re.search(r"<a\s[^>]*$", text[max(0, start - 300):start]):
                    links.append((site_path, url))
                continue
            context = text[max(0, start - 80):match.end() + 40].replace("\n", " ")
            unexplained.append((site_path, url, context))
    return unexplained, links


def _digest(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:16]


def _is_known(site_path: str, url: str) -> bool:
    return any(fnmatch.fnmatchcase(site_path, k.files) and _digest(url) == k.sha256 for k in KNOWN)


def test_no_file_asks_another_host_for_anything(site):
    unexplained, links = _outside_urls(site)
    unknown = [(f, u, c) for f, u, c in unexplained if not _is_known(f, u)]
    report = "\n".join(f"{f}: {u} (sha256 {_digest(u)})\n    ...{c}..." for f, u, c in unknown[:30])
    assert not unknown, f"{len(unknown)} absolute URLs to other hosts that nothing explains:\n{report}"
    # Outbound links are allowed (a reader may follow them; nothing loads them), but only in <a>.
    assert all(f.endswith(".html") for f, _ in links)


def test_known_urls_are_still_there_and_still_never_requested(site):
    """The list above stays narrow: each entry still matches a URL in the site, and the setting
    that would turn it into a request is off."""
    unexplained, _ = _outside_urls(site)
    for known in KNOWN:
        assert any(fnmatch.fnmatchcase(f, known.files) and _digest(u) == known.sha256 for f, u, _ in unexplained), \
            f"stale entry: {known.files} {known.sha256} ({known.why})"
    config = _config()
    assert not config.get("repo_url"), "repo_url makes Material fetch repository facts from another host"
    fences = [ext for ext in config.get("markdown_extensions", []) if isinstance(ext, dict)]
    custom = [fence for ext in fences for fence in (ext.get("pymdownx.superfences") or {}).get("custom_fences", [])]
    assert not any(fence.get("name") == "mermaid" for fence in custom), "Mermaid diagrams load Mermaid from a CDN"
    # Pyodide loads packages only from the site's own lock file, which names files of the site
    # (the console's offline wheels, scalecore_generator/runtime/pyodide.py), and from no mirror unless one is set.
    for path in (site / "assets" / "scalecore").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert "micropip" not in text, f"{path.name} would install packages from an index"
        calls = set(re.findall(r"\bloadPackage\w*", text))
        assert calls <= ({"loadPackagesFromImports"} if path.name == "worker.js" else set()), (path.name, calls)
    lock = json.loads((site / "assets" / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
    for name, package in lock["packages"].items():
        assert "/" not in package["file_name"] and (site / "assets" / "pyodide" / package["file_name"]).is_file(), name
    assert json.loads((site / "assets" / "pyodide" / "packages.json").read_text(encoding="utf-8"))["mirror"] is None


def test_the_theme_loads_no_web_font_and_the_pages_no_outside_resource(site):
    """What a browser would load on its own from the HTML: scripts, styles, images, fonts."""
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"<(script|link|img|iframe|source|video|audio|embed|object)\b[^>]*>", text, re.I):
            tag = match.group(0)
            for url in re.findall(r"""\b(?:src|href|data|srcset|poster)\s*=\s*["']([^"']*)["']""", tag, re.I):
                assert not re.match(r"([a-z][a-z0-9+.-]*:)?//", url, re.I) or url.startswith("data:"), \
                    f"{page.relative_to(site)}: {tag}"


def test_pages_load_the_manifest_without_its_listings(site, manifest):
    pages = _json(site / API / "panels.json")
    assert pages["schema"] == "scalecore/page-manifest/1" and pages["site_manifest"] == "index.json"
    assert {k: v for k, v in pages.items() if k not in ("schema", "site_manifest", "kinds")} == \
        {k: v for k, v in manifest.items() if k not in ("schema", "kinds")}
    for name, kind in manifest["kinds"].items():
        assert pages["kinds"][name] == {k: v for k, v in kind.items() if k not in ("points", "files")}, name
    script = (site / API / "panels.js").read_text(encoding="utf-8")
    assert json.loads(script[script.index("=", script.index("]")) + 1:].rstrip().rstrip(";")) == pages
    size = (site / API / "panels.json").stat().st_size
    assert size < (site / API / "index.json").stat().st_size / 4, size
    named = [url for page in sorted(site.rglob("*.html"))
             for url in re.findall(r'data-scalecore-manifest="([^"]*)"', page.read_text(encoding="utf-8"))]
    assert named and all(url.endswith("api/panels.json") for url in named), set(named)

"""What the build writes for offline reading (scalecore_generator/builder/offline.py), and for search
from disk (scalecore_generator/builder/disk_search.py, which the bundle adds to a site built without
it: scalecore_generator/builder/bundle.py), on a small folder: no browser (tests/test_offline.py
reads a real site offline in Chromium)."""

import hashlib
import json
import struct
import zipfile
import zlib

from scalecore_generator.builder import bundle, disk_search, offline


def _site(tmp_path):
    site = tmp_path / "site"
    for path, text in {"index.html": "<h1>home</h1>", "guide/a page.html": "<h1>a</h1>",
                       "assets/pyodide/pyodide.asm.wasm": "wasm", "assets/scalecore/core-1-py3-none-any.whl": "whl",
                       "assets/javascripts/bundle.js.map": "{}", "sitemap.xml": "<urlset/>",
                       "search/search_index.json": json.dumps({"docs": [{"location": "index.html", "title": "</script>",
                                                                         "text": "home"}]})}.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text, encoding="utf-8")
    return site


def test_the_listing_has_every_file_with_its_digest_and_the_runtime_marked(tmp_path):
    site = _site(tmp_path)
    found = offline.write(site)
    files = found["files"]
    assert set(files) == {"index.html", "guide/a page.html", "assets/pyodide/pyodide.asm.wasm",
                          "assets/scalecore/core-1-py3-none-any.whl", "search/search_index.json"}
    assert files["index.html"] == {"sha256": hashlib.sha256(b"<h1>home</h1>").hexdigest(), "bytes": 13}
    assert files["assets/pyodide/pyodide.asm.wasm"]["runtime"] is True
    assert files["assets/scalecore/core-1-py3-none-any.whl"]["runtime"] is True
    assert json.loads((site / offline.LISTING).read_text(encoding="utf-8")) == found


def test_the_version_follows_the_files_and_the_worker_carries_it(tmp_path):
    site = _site(tmp_path)
    first = offline.write(site)["version"]
    assert offline.write(site)["version"] == first  # deterministic: the same files, the same version
    assert f'const BUILD = "{first}";' in (site / offline.WORKER).read_text(encoding="utf-8")
    (site / "index.html").write_text("<h1>home, again</h1>", encoding="utf-8")
    second = offline.write(site)["version"]
    assert second != first
    assert f'const BUILD = "{second}";' in (site / offline.WORKER).read_text(encoding="utf-8")


def test_writing_the_listing_never_writes_through_a_hard_link(tmp_path):
    site = _site(tmp_path)
    offline.write(site)
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in (offline.LISTING, offline.WORKER):
        (copy / name).hardlink_to(site / name)
    before = (site / offline.LISTING).read_bytes()
    (copy / "new.html").write_text("new", encoding="utf-8")
    offline.write(copy)
    assert (site / offline.LISTING).read_bytes() == before


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_web_manifest_uses_relative_urls_and_its_icons_exist(tmp_path):
    files = offline.app_files("Scalecore", "Why softmax must stay in range")
    manifest = json.loads(files[offline.WEB_MANIFEST])
    assert manifest["start_url"] == "./" and manifest["scope"] == "./"
    for icon in manifest["icons"]:
        assert not icon["src"].startswith(("/", "http")) and icon["src"] in files
        if icon["type"] == "image/png":
            size = int(icon["sizes"].split("x")[0])
            assert _png_size(files[icon["src"]]) == (size, size)
    assert offline.app_files("Scalecore", "Why softmax must stay in range") == files  # byte for byte
    from scalecore_generator.foundation.cache import Memo

    memo = Memo(tmp_path / "app.json", None, "v")
    assert offline.app_files("Scalecore", "Why softmax must stay in range", memo) == files  # drawn, kept
    memo.save()
    kept = Memo(tmp_path / "app.json", None, "v")
    assert "icons" in kept.values
    assert offline.app_files("Scalecore", "Why softmax must stay in range", kept) == files  # from the memo


def test_an_installed_sites_short_name_is_whole_words():
    """12 characters at most, cut at a word: a chemistry author's "Reaction rates" was "Reaction rat"."""
    def short(name):
        return json.loads(offline.app_files(name, "A lesson")[offline.WEB_MANIFEST])["short_name"]

    assert [short(name) for name in ("Reaction rates", "Scalecore", "My lessons", "Supercalifragilistic")] == \
        ["Reaction", "Scalecore", "My lessons", "Supercalifra"]


def test_the_plain_icon_has_round_corners_and_the_maskable_one_fills_its_square():
    def pixel(data: bytes, x: int, y: int) -> bytes:
        size = _png_size(data)[0]
        raw = zlib.decompress(data[data.index(b"IDAT") + 4:])  # one IDAT chunk, then its CRC and IEND
        row = raw[y * (size * 4 + 1) + 1:(y + 1) * (size * 4 + 1)]
        return row[x * 4:x * 4 + 4]

    files = offline.icons()
    plain, maskable = files[f"{offline.ICONS}/icon-512.png"], files[f"{offline.ICONS}/icon-maskable-512.png"]
    assert pixel(plain, 0, 0)[3] == 0 and pixel(maskable, 0, 0) == bytes(offline.INDIGO) + b"\xff"
    assert pixel(plain, 256, 256) == bytes(offline.INDIGO) + b"\xff" or pixel(plain, 256, 256) == b"\xff" * 4


def test_the_bundle_carries_the_search_index_as_a_classic_script(tmp_path):
    site = _site(tmp_path)
    archive = bundle.make_bundle(site, tmp_path / "site.zip")
    with zipfile.ZipFile(archive) as opened:
        script = opened.read(bundle.SEARCH_SCRIPT).decode("utf-8")
        assert bundle.SEARCH_INDEX in opened.namelist()
    assert script.startswith("var __index = ") and script.endswith(";\n")
    assert "</script>" not in script  # a title cannot end the script early
    data = json.loads(script[len("var __index = "):-2])
    assert data == json.loads((site / bundle.SEARCH_INDEX).read_text(encoding="utf-8"))


def test_the_full_stacks_parts_are_listed_as_the_stack_and_a_gzip_file_is_a_file(tmp_path):
    site = _site(tmp_path)
    for name in ("assets/fullstack/python.wasm.part-1.gz", "assets/fullstack/python.wasm.part-2.gz",
                 "assets/fullstack/shim/index.js", "assets/pyodide/snapshot.bin.gz", "data/words.txt",
                 "data/words.txt.gz"):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_bytes(b"x")
    files = offline.listing(site)["files"]
    for name in ("assets/fullstack/python.wasm.part-1.gz", "assets/fullstack/python.wasm.part-2.gz",
                 "assets/fullstack/shim/index.js"):
        assert files[name]["runtime"] is True and files[name]["stack"] is True  # what the worker fetches
    assert "stack" not in files["assets/pyodide/snapshot.bin.gz"]
    assert "data/words.txt" in files and "data/words.txt.gz" in files  # an author's file and its gzip: both served


def test_the_search_script_is_the_index_as_a_classic_script_and_deterministic(tmp_path):
    site = tmp_path / "site"
    index = {"config": {"lang": ["en"]}, "docs": [{"location": "index.html", "title": "</script> é", "text": "home"}]}
    (site / "search").mkdir(parents=True)
    (site / disk_search.SEARCH_INDEX).write_text(json.dumps(index), encoding="utf-8")
    made = disk_search.files(site)[disk_search.SEARCH_SCRIPT]
    assert made == disk_search.files(site)[disk_search.SEARCH_SCRIPT]
    text = made.decode("utf-8")
    assert text.startswith("var __index = ") and text.endswith(";\n") and "</script>" not in text
    assert json.loads(text[len("var __index = "):-2]) == index
    (site / disk_search.SEARCH_INDEX).write_text(json.dumps({"items": []}), encoding="utf-8")  # not this format
    assert disk_search.files(site) == {}
    assert disk_search.files(tmp_path / "no site") == {}

"""The site as an installable web app that reads offline: the listing of every file the service
worker may keep, the worker itself, the web manifest and its icons. Written into the finished site
(``write``), after every other file, because the listing is of the site as published.

``offline.json`` lists each file with its sha256 and size, and whether it belongs to the live
runtime (Pyodide, the wheels, the memory snapshot, the mentor's model: most of the bytes, which a
reader only downloads on request). Its own digest is the build's version: the service worker
(``coi-serviceworker.js`` at the site root, the path the site has always served for cross-origin
isolation, so a reader's registration carries over) is this package's service-worker.js with that
version written in, so each new build is a new worker for the browser, which installs it beside
the old one and swaps the caches only when the new one is complete (see the worker's comments).

Everything is deterministic: the same site gives the same listing, worker and icons, byte for byte.
"""

import hashlib
import json
import os
import struct
import zlib
from pathlib import Path

from scalecore_generator.foundation.cache import sha256_file

LISTING = "offline.json"
WORKER = "coi-serviceworker.js"  # at the site root: its scope is the whole site (a subpath stays one)
WEB_MANIFEST = "manifest.webmanifest"
ICONS = "assets/scalecore/icons"
WORKER_SOURCE = Path(__file__).with_name("service-worker.js")
# What a development build (mkdocs serve) serves in the worker's place: no page taken, and a
# worker a built site left on the same origin replaced and unregistered (see the file).
STEP_ASIDE_SOURCE = Path(__file__).with_name("service-worker-step-aside.js")
SERVE_MARKER = "scalecore-serve"  # a <meta> name on a development build's pages: register no worker
VERSION_SLOT = '"__SCALECORE_BUILD__"'
# The live runtime and the optional models: downloaded for offline use only when asked.
RUNTIME_PREFIXES = ("assets/pyodide/", "assets/fullstack/", "assets/scalecore/models/",
                    "assets/scalecore/vendor/wllama/", "assets/scalecore/vendor/pdfjs/")
# The console's full scientific stack (scalecore_generator/runtime/fullstack.py): its two big files
# are published as gzip parts (python.wasm.part-1.gz, ...), files like any other here: what the
# worker fetches, so what it caches. No file of the site is a precompressed copy of another.
FULL_STACK = "assets/fullstack/"
# Source maps (only a browser's developer tools ask for them) and the sitemaps (for crawlers; they
# hold the deployed site's absolute URLs, which a host may write for itself): never cached.
NOT_LISTED = (".map", "sitemap.xml", "sitemap.xml.gz")
INDIGO, WHITE = (0x3F, 0x51, 0xB5), (0xFF, 0xFF, 0xFF)  # Material's "indigo", the site's primary colour


def is_runtime(site_path: str) -> bool:
    return site_path.startswith(RUNTIME_PREFIXES) or site_path.endswith(".whl")


def _read(path: str) -> tuple[str, int]:
    return sha256_file(Path(path)), os.stat(path).st_size


def listing(site: Path, describe=_read, also: dict[str, tuple[str, int]] | None = None,
            scripted: frozenset[str] = frozenset()) -> dict:
    """Every file of the site the worker may serve from its cache, with its sha256 and size
    (``describe(path)``: the build's cache.Digests.sized, which knows both of an unchanged file
    from one stat). ``also``: files the site will hold that are not in it yet, with their sha256
    and size (site path -> both): the folders a staged site takes whole at its swap. ``scripted``:
    the author's files the site allows scripts in (pages/author_files.py), which the worker
    serves without its policy for files (service-worker.js, ``isolated``)."""
    own = {LISTING, WORKER}
    also = also or {}
    found = _site_files(os.fspath(site))
    everything = found.keys() | also.keys()
    files = {}
    for site_path in sorted(everything):
        if site_path in own or site_path.endswith(NOT_LISTED) or site_path.startswith("."):
            continue
        sha256, size = also[site_path] if site_path in also else describe(found[site_path])
        entry = {"sha256": sha256, "bytes": size}
        if is_runtime(site_path):
            entry["runtime"] = True
        if site_path in scripted:
            entry["scripts"] = True
        if site_path.startswith(FULL_STACK):
            entry["stack"] = True  # the console's full scientific stack: most of the runtime's bytes, a choice of its own
        files[site_path] = entry
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode("utf-8")).hexdigest()
    return {"schema": "scalecore/offline/1", "version": digest[:20], "files": files}


def _site_files(site: str) -> dict[str, str]:
    """Every file under ``site``: its site path (with /) -> its path. Strings, not Paths: for the
    thousand files of a site with its runtime, making and sorting Path objects took longer than
    the walk; and the directory's own entries say what is a file, without a stat each."""
    found = {}

    def walk(folder: str, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    walk(entry.path, prefix + entry.name + "/")
                elif entry.is_file():
                    found[prefix + entry.name] = entry.path

    walk(site, "")
    return found


def worker(version: str, serving: bool = False) -> str:
    """The service worker's script for this build; ``serving``: a development build's, which
    steps aside."""
    if serving:
        return STEP_ASIDE_SOURCE.read_text(encoding="utf-8")
    source = WORKER_SOURCE.read_text(encoding="utf-8")
    if VERSION_SLOT not in source:
        raise ValueError(f"{WORKER_SOURCE} has no {VERSION_SLOT} to write the build's version into")
    return source.replace(VERSION_SLOT, json.dumps(version), 1)


def web_manifest(name: str, description: str) -> dict:
    """Relative URLs only: the manifest's own URL is their base, so the app works under any subpath."""
    return {
        "name": name,
        "short_name": short_name(name),
        "description": description or name,
        "start_url": "./",
        "scope": "./",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#%02x%02x%02x" % INDIGO,
        "icons": [
            {"src": f"{ICONS}/icon.svg", "sizes": "any", "type": "image/svg+xml"},
            {"src": f"{ICONS}/icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": f"{ICONS}/icon-512.png", "sizes": "512x512", "type": "image/png"},
            {"src": f"{ICONS}/icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        ],
    }


# The icon: three bars of rising height (a scale) on the site's indigo. Drawn here, by hand,
# because it is four rectangles: a drawing library would be a dependency for a few lines.
BARS = ((0.22, 0.58), (0.42, 0.40), (0.62, 0.24))  # (left, top) as fractions; each bar 0.16 wide, to 0.78


def _row_span(y: int, size: int, radius: int) -> tuple[int, int]:
    """Where row ``y`` of a square with rounded corners starts and ends."""
    dy = max(radius - y, y - (size - 1 - radius), 0)
    if dy == 0:
        return 0, size
    inset = radius - int((radius * radius - dy * dy) ** 0.5)
    return inset, size - inset


def icon_rows(size: int, maskable: bool) -> list[bytes]:
    """RGBA rows, drawn a span at a time. The maskable icon fills its square (the launcher cuts its
    own shape) and keeps the bars inside the safe zone; the plain one has rounded corners."""
    scale = 0.8 if maskable else 1.0  # the safe zone of a maskable icon is the centre 80 %
    bars = [(round(size * (0.5 + (left - 0.5) * scale)), round(size * (0.5 + (top - 0.5) * scale)),
             round(size * 0.16 * scale), round(size * (0.5 + 0.28 * scale))) for left, top in BARS]
    radius = 0 if maskable else round(size * 0.18)
    clear, back, bar = b"\0\0\0\0", bytes(INDIGO) + b"\xff", bytes(WHITE) + b"\xff"
    rows = []
    for y in range(size):
        start, end = _row_span(y, size, radius)
        row, x = bytearray(clear * start), start
        for left, top, width, bottom in bars:
            if top <= y < bottom:
                row += back * (left - x) + bar * width
                x = left + width
        row += back * (end - x) + clear * (size - end)
        rows.append(bytes(row))
    return rows


def png(rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    size = len(rows)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    raw = b"".join(b"\0" + row for row in rows)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def svg_icon() -> str:
    bars = "".join(f'<rect x="{left * 512:g}" y="{top * 512:g}" width="{0.16 * 512:g}" height="{(0.78 - top) * 512:g}" '
                   f'fill="#fff"/>' for left, top in BARS)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" '
            f'rx="92" fill="#{"%02x%02x%02x" % INDIGO}"/>{bars}</svg>\n')


def icons() -> dict[str, bytes]:
    return {
        f"{ICONS}/icon.svg": svg_icon().encode("utf-8"),
        f"{ICONS}/icon-192.png": png(icon_rows(192, maskable=False)),
        f"{ICONS}/icon-512.png": png(icon_rows(512, maskable=False)),
        f"{ICONS}/icon-maskable-512.png": png(icon_rows(512, maskable=True)),
    }


def app_files(name: str, description: str, memo=None) -> dict[str, bytes]:
    """The manifest and its icons: files of the site like any other (listed, cached, hashed).
    ``memo``: the build's (cache.Memo, versioned by this module), which keeps the icons' PNG
    bytes: compressing them at zlib's best level is not a warm build's work."""
    text = json.dumps(web_manifest(name, description), indent=1, ensure_ascii=False) + "\n"
    if memo is None:
        drawn = icons()
    else:
        import base64

        kept = memo.get("icons", lambda: {path: base64.b64encode(data).decode("ascii") for path, data in icons().items()})
        drawn = {path: base64.b64decode(data) for path, data in kept.items()}
    return {WEB_MANIFEST: text.encode("utf-8"), **drawn}


def write(site: Path, describe=_read, also: dict[str, tuple[str, int]] | None = None, serving: bool = False,
          scripted: frozenset[str] = frozenset()) -> dict:
    """The listing and the worker, written last into the finished site; returns the listing.
    ``serving``: a development build, whose worker steps aside (``worker``); ``scripted``: see
    ``listing``."""
    found = listing(site, describe, also, scripted)
    _replace(site / LISTING, json.dumps(found, sort_keys=True, separators=(",", ":")) + "\n")
    _replace(site / WORKER, worker(found["version"], serving))
    return found


def _replace(path: Path, text: str) -> None:
    """A new file in the old one's place: a server reading it sees one or the other, and a file
    this path was linked to (a copy of the site made with hard links) is left as it was."""
    staged = path.with_name(f".{path.name}.tmp")
    staged.write_text(text, encoding="utf-8")
    staged.replace(path)


def short_name(name: str) -> str:
    """The name an installed site shows under its icon (12 characters at most, the manifest's
    advice): whole words ("Reaction rates" -> "Reaction", not "Reaction rat")."""
    if len(name) <= 12:
        return name
    words = name[:13].rsplit(" ", 1)[0] if " " in name[:13] else ""
    return words.rstrip() or name[:12].rstrip()

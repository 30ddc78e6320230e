"""The offline bundle: the built site as one zip, to copy anywhere and open with no network.

    python -m scalecore_generator.builder.bundle [SITE_DIR] [ZIP_PATH]      (defaults: site, scalecore-site.zip)

The zip is byte-reproducible like the site itself: entries sorted, one timestamp for all
(SOURCE_DATE_EPOCH, else 1980-01-01), fixed permissions. Unzipped, its pages open from disk
(file://) with every baked panel working; live mode and the console need it served over http:
``python3 -m http.server -d <folder> 8000``.

Search works from disk too: the build writes the search index as a classic script,
search/search_index.js (builder/disk_search.py), which scalecore_generator/assets/disk-search.js
searches in the page; the bundle adds it to a site built without it.
"""

import os
import re
import sys
import time
import zipfile
from pathlib import Path

from scalecore_generator.builder.disk_search import SEARCH_INDEX, SEARCH_SCRIPT  # noqa: F401 (the tests name them here)
from scalecore_generator.builder.disk_search import files as disk_files
from scalecore_generator.errors import ScalecoreError


def _stamp() -> tuple[int, int, int, int, int, int]:
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    return max(time.gmtime(epoch)[:6], (1980, 1, 1, 0, 0, 0))


RELATIVE_FOLDER_LINK = re.compile(r'href="(?![a-z][a-z0-9+.-]*:|/)([^"#?]*/)"')


def folder_page_link(site: Path) -> str | None:
    """A link of the home page to a page built as a folder (``use_directory_urls: true``), which
    a browser opening the unzipped bundle from disk shows as a folder listing, not the page."""
    home = (Path(site) / "index.html").read_text(encoding="utf-8", errors="replace")
    return next((href for href in RELATIVE_FOLDER_LINK.findall(home)
                 if href not in ("./", "../") and (Path(site) / href / "index.html").is_file()), None)


class NotBundleable(ScalecoreError):
    """A folder whose zip would not read from disk: the message says why and the fix."""


def check_bundleable(site: Path) -> None:
    """A built site (its index.html), whose pages are files (not folders: ``use_directory_urls``)."""
    if not (site / "index.html").is_file():
        raise NotBundleable(f"{site} has no index.html: there is no built site to bundle. Fix: build it first "
                            "(scalecore build, or mkdocs build), or name the site's folder: scalecore bundle SITE ZIP")
    link = folder_page_link(site)
    if link:
        raise NotBundleable(f"{site} was built with use_directory_urls: true: its links name folders (e.g. {link}), "
                            "which a browser does not open as pages from disk. Fix: set use_directory_urls: false in "
                            "mkdocs.yml and build again (or serve the site as it is, e.g. python3 -m http.server -d "
                            "site 8000)")


def make_bundle(site: Path, target: Path) -> Path:
    site, target = Path(site), Path(target)
    check_bundleable(site)
    temporary = target.with_name(f".{target.name}.tmp")
    stamp = _stamp()
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        entries = {path.relative_to(site).as_posix(): path for path in site.rglob("*") if path.is_file()}
        added = {name: data for name, data in disk_files(site).items() if name not in entries}  # a site built without it
        for name in sorted(set(entries) | set(added)):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, added[name] if name in added else entries[name].read_bytes(), compresslevel=9)
    os.replace(temporary, target)
    return target


def main(argv: list[str]) -> int:
    site = Path(argv[0]) if argv else Path("site")
    target = Path(argv[1]) if len(argv) > 1 else Path("scalecore-site.zip")
    try:
        made = make_bundle(site, target)
    except NotBundleable as error:
        raise SystemExit(f"bundle: {error}") from None
    print(f"{made} ({made.stat().st_size / 1e6:.1f} MB): unzip it, open index.html, or serve it with "
          f"python3 -m http.server -d <folder> 8000 for live mode")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Under ``mkdocs serve``, the last site that built stays served while a rebuild fails.

MkDocs empties the dev server's site folder before every rebuild (``clean_directory``, after the
plugins' ``on_pre_build``), and writes the pages one by one: a rebuild that stopped on a page's
mistake left every address answering 404 (a fresh author lost the page they were fixing, and the
navigation with it). ``mkdocs build`` is staged and swapped whole (builder/site_swap.py); the dev
server needs less: the folder is moved aside before MkDocs empties it, moved back if the rebuild
fails, and dropped once one works. A move is a rename on the same disk, and a dropped folder (a
thousand files) is deleted in a thread, so a rebuild does not wait for it.
"""

import atexit
import os
import shutil
import threading
import uuid
from pathlib import Path


_ASIDE: set[Path] = set()  # removed when the dev server stops, as it removes its own folder
_REMOVING: list[threading.Thread] = []


@atexit.register
def _clean_up() -> None:
    for remover in _REMOVING:
        remover.join()
    for aside in _ASIDE:
        shutil.rmtree(aside, ignore_errors=True)


class LastGoodSite:
    def __init__(self, site_dir: Path):
        self.site = Path(site_dir)
        self.aside = self.site.with_name(self.site.name + ".last-good")
        _ASIDE.add(self.aside)

    def set_aside(self) -> None:
        """Before MkDocs empties the site folder: what is served moves aside, whole."""
        _drop(self.aside)
        if self.site.is_dir() and any(self.site.iterdir()):
            os.replace(self.site, self.aside)
            self.site.mkdir()

    def put_back(self) -> bool:
        """The rebuild failed: the last site that built is served again. True if there was one."""
        if not self.aside.is_dir():
            return False
        _drop(self.site)
        os.replace(self.aside, self.site)
        return True

    def drop(self) -> None:
        """The rebuild worked: the old site goes."""
        _drop(self.aside)


def _drop(path: Path) -> None:
    if not path.exists():
        return
    trash = path.with_name(f"{path.name}.{uuid.uuid4().hex[:8]}.removed")
    os.replace(path, trash)
    remover = threading.Thread(target=shutil.rmtree, args=(trash,), kwargs={"ignore_errors": True}, daemon=True)
    remover.start()
    _REMOVING[:] = [*(thread for thread in _REMOVING if thread.is_alive()), remover]

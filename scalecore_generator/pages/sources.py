"""The author's docs folder, checked before MkDocs reads it, so that what would otherwise end in
a traceback or in hundreds of lines about the wrong thing is one message that names the file:

- a Markdown file that is not UTF-8 (MkDocs reads pages as UTF-8 and stops with a traceback):
  an error with the file, the line and the column of the first byte that is not;
- a symbolic link that leads back into a folder it is in (``ln -s . docs/loop``: MkDocs walks
  it over and over, warning about every page it finds again): an error naming the link;
- a page larger than ``LARGE`` bytes: a warning with its name and size (a 50 MB page builds for
  minutes with over a gigabyte of memory, and no reader can use it).
"""

import os
from pathlib import Path
from scalecore_generator.errors import ScalecoreError

LARGE = 5 * 2**20  # bytes of Markdown above which a page is reported


class SourceError(ScalecoreError):
    """A file of the docs folder MkDocs cannot read well: the message names it and the fix."""


def markdown_files(docs: Path) -> list[Path]:
    """Every .md file under ``docs``, links followed, refusing a link that loops."""
    found = []

    def walk(folder: Path, seen: tuple[str, ...]) -> None:
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=True):
                real = os.path.realpath(path)
                if real in seen:
                    raise SourceError(f"{path}: a symbolic link to {real}, a folder it is in, so the docs folder "
                                      "never ends (MkDocs would read its pages again and again). Fix: remove the "
                                      "link, or point it at a folder outside the docs folder's own tree.")
                walk(path, seen + (real,))
            elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=True):
                found.append(path)

    walk(docs, (os.path.realpath(docs),))
    return found


def check(docs: Path, log, strict: bool = False) -> None:
    """Raise SourceError for a file MkDocs cannot read; warn about a page too large to read, or,
    in a strict build (which that warning would fail anyway), stop before minutes of rendering."""
    if not docs.is_dir():
        return
    for path in markdown_files(docs):
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
            raise SourceError(f"{path}:{line}:{column}: not UTF-8 (the byte 0x{data[error.start]:02x} there); "
                              "MkDocs reads every page as UTF-8. Fix: save the file as UTF-8 (for a Latin-1 "
                              f"file: iconv -f latin1 -t utf-8 {path.name} -o {path.name}.utf8, then replace it).") \
                from None
        if len(data) > LARGE:
            message = (f"{path}: {len(data) / 1e6:.1f} MB of Markdown, over the {LARGE // 2**20} MiB a page may have: "
                       "a page this large takes minutes to build "
                       "and is too heavy to read. Fix: split it into several pages.")
            if strict:
                raise SourceError(message + " (strict: true stops the build here, before rendering it; the "
                                  "previous site stays.)")
            log.warning(message)

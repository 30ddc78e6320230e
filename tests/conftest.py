"""Shared fixtures: small corpora written to temporary folders in the real on-disk format."""

import pytest

from scalecore.corpus import load_corpus

TOML = """title = "{title}"
source = "written for the tests"
licence = "CC0"
extraction = "written by hand"
"""


@pytest.fixture
def make_corpus(tmp_path):
    """make_corpus(name, text) -> a loaded Corpus stored under tmp_path/corpora/name."""

    def make(name: str, text: str, title: str = "Test corpus"):
        folder = tmp_path / "corpora" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "text.txt").write_text(text, encoding="utf-8")
        (folder / "corpus.toml").write_text(TOML.format(title=title), encoding="utf-8")
        return load_corpus(folder)

    return make

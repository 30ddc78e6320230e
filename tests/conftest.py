"""Shared fixtures: small corpora written to temporary folders in the real on-disk format."""

import pytest

pytest_plugins = ["browser"]  # the shared Chromium fixture (tests/browser.py)

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


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The real site, built once per test session with the repository's cache (fast when warm)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    target = tmp_path_factory.mktemp("site") / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(target)],
                          cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
    return target

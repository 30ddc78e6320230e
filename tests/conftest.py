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
def real_tables(tmp_path_factory):
    """A cache folder holding the real embedding tables: each shipped corpus's (demo, wordnet,
    kjv), at the lesson's default settings, as ``cached_embeddings`` and ``python -m scalecore
    --cache`` look them up. Learning them is about a minute (kjv's eigendecomposition most of
    it); learned once per session, on every core, and shared by the tests that compute with the
    real tables. A test that writes into its cache works on a copy (shutil.copytree)."""
    import os

    from scalecore.corpus import SHIPPED, VOCABULARY_SIZE, load_corpora
    from scalecore.experiment import Settings
    from scalecore_generator.builder.bake import learn_tables

    cache = tmp_path_factory.mktemp("real-tables")
    settings = Settings()
    corpora = load_corpora(SHIPPED)
    learn_tables([(corpus, settings.d_model, cache, settings.recipe, VOCABULARY_SIZE) for corpus in corpora.values()],
                 os.cpu_count() or 1)
    return cache


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


# --------------------------------------------------------------------------------------------
# Tiers: `-m "not browser and not build"` runs the fast tier (the core, the units of the
# generator, the pages' checks) in about a minute; the whole suite is what CI runs.
# --------------------------------------------------------------------------------------------

BROWSER_FIXTURES = {"chromium", "visit"}
# Modules whose tests build sites or run Pyodide in Node without a fixture that says so.
SLOW_MODULES = {"test_new_site", "test_serve", "test_pyodide_node", "test_parity", "test_snapshot", "test_wheel",
                "test_warm_build", "test_build_reliability", "test_cache_pruning", "test_offline_bundle",
                "test_engines"}


def pytest_collection_modifyitems(items):
    import sites

    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        module = getattr(item, "module", None)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        builds = module is not None and (
            module.__name__ in SLOW_MODULES or "built_site" in names
            or getattr(module, "build", None) is sites.build or getattr(module, "copy_site", None) is sites.copy_site)
        if builds:
            item.add_marker(pytest.mark.build)

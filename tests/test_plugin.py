"""The plugin on the tiny fixture site (tests/sites/base): reproducible output, the cache, and
builds that are killed or fail.

Every build is a real ``mkdocs build`` in a subprocess, in a copy of the fixture. The module's
first build (``cold``) is shared: tests copy its folder (sources, site and cache) and go on
from there.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from sites import CACHE, build, build_command, copy_site, edit, environment, stamps, tree

UNITS = "api/scale-guards"


def bake_line(build_result) -> str:
    lines = [line for line in build_result.lines("INFO") if re.match(r"scalecore: bake: \d+ groups? of", line)]
    assert len(lines) == 1, build_result.describe()
    return lines[0]


def succeeded(result):
    assert result.returncode == 0, result.describe()
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture(scope="module")
def cold(tmp_path_factory):
    """The fixture site after one clean build: (folder, its site tree)."""
    folder = copy_site(tmp_path_factory.mktemp("cold") / "base")
    result = succeeded(build(folder))
    assert bake_line(result) == "scalecore: bake: 2 groups of 16 points in 1 kind; 0 from the cache, 2 to compute"
    return folder, tree(folder / "site")


def from_cold(cold, tmp_path):
    folder, _ = cold
    return copy_site(tmp_path / "base", source=folder)


# --------------------------------------------------------------------------------------------
# Reproducible builds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source_date_epoch", ["1700000000", None], ids=["SOURCE_DATE_EPOCH set", "unset"])
def test_two_clean_builds_in_different_folders_are_byte_identical(tmp_path, source_date_epoch):
    sites = []
    for name in ("first", "second"):
        folder = copy_site(tmp_path / name / "base")
        succeeded(build(folder, env=environment(source_date_epoch)))
        assert not list(folder.glob(".site.partial*"))
        sites.append(tree(folder / "site"))
    assert sites[0] == sites[1]
    assert "api/index.json" in sites[0] and f"{UNITS}/small/0/norm+init+scale.svg" in sites[0]


# --------------------------------------------------------------------------------------------
# The cache
# --------------------------------------------------------------------------------------------


def test_a_second_build_with_nothing_changed_bakes_nothing(cold, tmp_path):
    folder = from_cold(cold, tmp_path)
    before = stamps(folder / CACHE)
    result = succeeded(build(folder))
    assert bake_line(result) == "scalecore: bake: 2 groups of 16 points in 1 kind; 2 from the cache, 0 to compute"
    assert stamps(folder / CACHE) == before  # not one cache file or folder written
    assert tree(folder / "site") == cold[1]


def test_a_warm_build_starts_no_node_and_publishes_the_cached_baked_files(cold, tmp_path):
    """What a warm build would otherwise spend its time on: Node (figures, views, math) comes
    from the cache's records, and the baked files are the cache entries' bytes, copied (never
    linked: the site shares no byte with the cache), not baked again."""
    folder = from_cold(cold, tmp_path)
    calls, wrapper = tmp_path / "node-calls", tmp_path / "bin" / "node"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{calls}"\nexec "{shutil.which("node")}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    succeeded(build(folder, env=environment(PATH=f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")))
    assert not calls.exists(), calls.read_text(encoding="utf-8")
    assert tree(folder / "site") == cold[1]
    published = folder / "site" / UNITS / "small" / "0" / "none.json"
    cached = [path for path in (folder / CACHE / "bake").rglob("none.json") if path.read_bytes() == published.read_bytes()]
    assert cached and not any(path.samefile(published) for path in cached)


def test_a_rebuild_links_what_it_published_unchanged_and_replaces_what_was_edited(cold, tmp_path):
    """A warm build gives the new site the previous site's file (a hard link) when neither it nor
    its source changed since (the ledger .site.digests.json says so without reading it); a
    published file edited in place is not trusted: the next build publishes the source's bytes."""
    folder = from_cold(cold, tmp_path)
    succeeded(build(folder))  # the copy's first build: the ledger it found names the cold folder's site
    published = folder / "site" / UNITS / "small" / "0" / "none.json"
    inode = published.stat().st_ino
    succeeded(build(folder))
    assert published.stat().st_ino == inode and published.stat().st_nlink == 1  # the old site's name is gone
    assert tree(folder / "site") == cold[1]
    original = published.read_bytes()
    with open(published, "r+b") as edited:
        edited.write(b"X")
    succeeded(build(folder))
    assert published.read_bytes() == original and published.stat().st_ino != inode
    assert tree(folder / "site") == cold[1]


def test_changing_one_corpus_rebakes_only_that_corpus(cold, tmp_path):
    folder = from_cold(cold, tmp_path)
    bake = folder / CACHE / "bake"
    before = stamps(folder / CACHE)
    units_before = {p.name for p in bake.iterdir()}
    corpus = folder / "corpora" / "small"
    with open(corpus / "text.txt", "a", encoding="utf-8") as text:
        text.write("The dog looked at the old boat.\n")
    edit(corpus / "corpus.toml", "sentences = 6\ntokens = 63\nvocabulary = 31",
         "sentences = 7\ntokens = 70\nvocabulary = 31")

    result = succeeded(build(folder))
    assert bake_line(result) == "scalecore: bake: 2 groups of 16 points in 1 kind; 1 from the cache, 1 to compute"
    new_units = {p.name for p in bake.iterdir()} - units_before
    assert len(new_units) == 1
    new_unit = new_units.pop()
    after = stamps(folder / CACHE)
    # Everything that existed is untouched, except the folders that gained an entry and the copy
    # of small's table that the site serves ...
    changed = {path for path, stamp in before.items() if after.get(path) != stamp and not path.startswith("pages/")}
    # (the conversion of a page that quotes small's numbers is replaced: adapters/mkdocs/converted_pages.py;
    # and the rendered fallback views, which show small's new numbers, the ledger of which
    # entries this build used, and the memos of what pages quote and say, of the pages' panels and
    # off-screen boxes, what the embedding tables give the site and the corpora's digests,
    # scalecore_generator/foundation/cache/)
    assert changed <= {"bake", "corpora", "embeddings", "site/api/embeddings", "site/api/embeddings/small.json",
                       "views.json", "usage.json", "pages", "memo", "memo/quotes.json", "memo/mentor.json", "memo/panels.json",
                       "memo/offscreen.json", "memo/tables.json", "memo/corpora.json"}
    # ... and what is new is small's unit, its embedding table and its verification record.
    added = set(after) - set(before)
    outside_the_unit = sorted(path for path in added if path.split("/")[:2] != ["bake", new_unit]
                              and not path.startswith("pages/"))
    assert len(outside_the_unit) == 2
    assert outside_the_unit[0].startswith("corpora/small-") and outside_the_unit[1].startswith("embeddings/small-")
    site = tree(folder / "site")
    old = cold[1]
    for path in old:
        if path.startswith((f"{UNITS}/tiny/", "api/variance/", "api/embeddings/tiny.json")):
            assert site[path] == old[path], path
    assert site[f"{UNITS}/small/0/none.json"] != old[f"{UNITS}/small/0/none.json"]
    assert site["api/embeddings/small.json"] != old["api/embeddings/small.json"]


# --------------------------------------------------------------------------------------------
# Killed and failed builds
# --------------------------------------------------------------------------------------------


def test_a_build_killed_mid_bake_is_harmless(cold, tmp_path):
    """SIGKILL (no clean-up code runs) in the middle of the bake: the previous site stays, the
    next build succeeds, leaves no temporary folder and gives exactly what a clean build gives."""
    folder = from_cold(cold, tmp_path)
    slow = "seeds: [0, 1, 2, 3]\n      workers: 2"
    edit(folder / "mkdocs.yml", "seeds: [0]", slow)
    process = subprocess.Popen(build_command(), cwd=folder, env=environment(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = []
    try:
        for line in process.stderr:
            seen.append(line)
            if re.search(r"scalecore: bake: \d+/\d+ points \(3/6 groups\)", line):
                os.killpg(process.pid, signal.SIGKILL)  # the build and its bake workers
                break
        else:
            pytest.fail("the build ended before it could be killed:\n" + "".join(seen))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL

    bake = folder / CACHE / "bake"
    assert tree(folder / "site") == cold[1], "the killed build changed the previous site"
    # What a build killed at any moment may leave: a half-written unit in a temporary folder.
    (bake / f".tmp-0123456789abcdef0123456789abcdef-{process.pid}").mkdir(exist_ok=True)
    (bake / f".tmp-0123456789abcdef0123456789abcdef-{process.pid}" / "none.json").write_text("{\"half")
    time.sleep(0.2)  # let the orphaned workers' deaths be noticed

    result = succeeded(build(folder))
    assert re.fullmatch(r"scalecore: bake: 8 groups of 64 points in 1 kind; [3-7] from the cache, [1-5] to compute",
                        bake_line(result)), bake_line(result)
    assert not list(bake.glob(".tmp-*")), "a temporary folder survived the next build"

    clean = copy_site(tmp_path / "clean" / "base")
    edit(clean / "mkdocs.yml", "seeds: [0]", "seeds: [0, 1, 2, 3]\n      workers: 1")
    succeeded(build(clean))
    assert tree(folder / "site") == tree(clean / "site")


def test_a_failed_build_leaves_the_previous_site_and_the_cache_as_they_were(cold, tmp_path):
    folder = from_cold(cold, tmp_path)
    cache_files, cache_stamps = tree(folder / CACHE), stamps(folder / CACHE)
    # Fails late: after the bake and after every page is written to the staging folder (a broken
    # link is a warning, and the site is strict).
    (folder / "docs" / "lesson.md").write_text("# Lesson\n\nSee [the next lesson](next.md).\n", encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1, result.describe()
    assert result.lines("WARNING") == [  # at its line, with a fix (site.PageLinkLines)
        "docs/lesson.md:3: Doc file 'lesson.md' contains a link 'next.md', but the target is not found among "
        "documentation files. Fix: link to a page of the site by its .md file, relative to this page, e.g. 'index.md', "
        "or create docs/next.md."
    ], result.describe()
    assert "Aborted with 1 warnings in 'strict' mode!" in result.stdout or \
        "Aborted with 1 warnings in strict mode!" in result.stdout, result.describe()
    assert "Traceback" not in result.stderr
    assert tree(folder / "site") == cold[1]
    assert not list(folder.glob(".site.partial*"))
    assert tree(folder / CACHE) == cache_files and stamps(folder / CACHE) == cache_stamps

    # The fix is the only thing the next build needs.
    (folder / "docs" / "next.md").write_text("# Next\n", encoding="utf-8")
    succeeded(build(folder))
    assert "next/index.html" in tree(folder / "site")


def test_a_page_links_to_the_builds_own_files_as_to_any_file_of_the_site(cold, tmp_path):
    """The baked data and the manifest are written by the build, not copied by MkDocs, yet a
    page's link to one is checked like any link (strict: a link to a file the site does not have
    stops the build, naming it)."""
    folder = from_cold(cold, tmp_path)
    point = sorted(path for path in cold[1] if path.startswith(f"{UNITS}/") and path.endswith(".json"))[0]
    lesson = folder / "docs" / "lesson.md"
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(text + f"\n[The manifest](api/index.json) and [one point]({point}).\n", encoding="utf-8")
    succeeded(build(folder))
    html = (folder / "site" / "lesson" / "index.html").read_text(encoding="utf-8")
    assert 'href="../api/index.json"' in html and f'href="../{point}"' in html

    lesson.write_text(text + f"\n[A point never baked]({UNITS}/nowhere.json).\n", encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1, result.describe()
    [warning] = result.lines("WARNING")
    assert warning.startswith(f"docs/lesson.md:{text.count(chr(10)) + 2}: Doc file 'lesson.md' contains a link "
                              f"'{UNITS}/nowhere.json', but the target is not found among documentation files. Fix: "
                              "link to a file the build writes, by its path relative to this page, e.g. "
                              f"'{UNITS}/"), result.describe()


# --------------------------------------------------------------------------------------------
# Other plugins
# --------------------------------------------------------------------------------------------

# A site's own hook, as any other plugin: what it finds of the panels' fallbacks in the page's
# content (what a search plugin indexes) and in the page's HTML when it is written.
SPY = '''
import json
from pathlib import Path

def on_page_context(context, page, config, nav):
    _note(page, "content", page.content)

def on_post_page(output, page, config):
    _note(page, "output", output)
    _note(page, "content afterwards", page.content)  # as a feed or blog plugin reads it

def _note(page, moment, html):
    seen = Path(__file__).with_name("seen.json")
    notes = json.loads(seen.read_text()) if seen.exists() else {}
    notes.setdefault(page.file.src_uri, {})[moment] = {
        "fallbacks": html.count("<scalecore-fallback"), "tables": html.count("<table"), "length": len(html)}
    seen.write_text(json.dumps(notes))
'''


def test_other_plugins_get_the_fallbacks_in_the_written_page_not_in_the_indexed_content(cold, tmp_path):
    """The panels' fallbacks are left out of every search index (data-search-exclude): a search
    plugin need not parse them, so the page's content holds them back while the plugins read it
    for their indexes (``on_page_context``). Then it has them again: the page the theme renders,
    another plugin's ``on_post_page`` (here a site's own hook), and the page's content as a feed
    plugin reads it later; the published page is the one a build without the hook writes."""
    folder = from_cold(cold, tmp_path)
    (folder / "spy.py").write_text(SPY, encoding="utf-8")
    edit(folder / "mkdocs.yml", "nav:\n", "hooks:\n  - spy.py\n\nnav:\n")
    succeeded(build(folder))
    lesson = json.loads((folder / "seen.json").read_text())["lesson.md"]
    assert lesson["content"]["fallbacks"] == lesson["output"]["fallbacks"] > 0
    assert lesson["content"]["tables"] == 0 < lesson["output"]["tables"]
    assert lesson["content afterwards"]["tables"] == lesson["output"]["tables"]
    assert tree(folder / "site") == cold[1]

"""The plugin configures what its features need (scalecore_generator/adapters/mkdocs/features.py):
a site that names only the plugin gets the theme overrides, the Markdown extensions of the
blocks, callouts and math, fonts from the site itself and a light and a dark palette; a site
whose own settings keep a feature from working gets an error with mkdocs.yml's line and the fix,
and its previous site stays as it was."""

import json
import re
import shutil

import pytest

from sites import build, copy_site, edit, tree

MINIMAL = """site_name: Minimal
site_url: ""
use_directory_urls: false
strict: true

theme:
  name: material

plugins:
  - scalecore:
      corpora: [tiny]
      seeds: [0]
      d_model: 8
      d_k: 4
      vocabulary_size: 32
      live: false
"""

PAGE = """---
code: T1.features.01
title: "Features"
description: "Callouts, math and a self-check with nothing configured."
audience: [guest]
---

# Features

A formula: \\(p_i = e^{s_i}\\).

!!! abstract "Concept"
    A callout.

/// self-check
question: What is one plus one?
answer: Two.
explanation: One and one make two.
///
"""


def line_of(path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def minimal(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("features") / "site")
    (folder / "mkdocs.yml").write_text(MINIMAL, encoding="utf-8")
    for page in (folder / "docs").glob("*.md"):
        page.unlink()
    (folder / "docs" / "index.md").write_text(PAGE, encoding="utf-8")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    return folder, result


def test_a_site_that_names_only_the_plugin_gets_every_feature(minimal):
    folder, result = minimal
    html = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert 'class="scalecore-module"' in html, "no module header: the theme overrides are missing"
    assert '<div class="admonition abstract">' in html, "the callout printed as text"
    assert "<math" in html and '<span class="arithmatex">\\(' not in html, "the formula was not typeset"
    assert 'details class="scalecore-selfcheck"' in html
    assert "fonts.googleapis" not in html and "fonts.gstatic" not in html
    assert html.count('name="__palette"') == 2, "no light and dark palette"
    assert "configured for its features: its theme overrides; the Markdown extensions admonition" in result.stderr


def test_the_sites_own_palette_wins(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    edit(folder / "mkdocs.yml", "  name: material\n", "  name: material\n  palette:\n    scheme: slate\n")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    html = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert 'data-md-color-scheme="slate"' in html and 'name="__palette"' not in html


def test_a_google_font_stops_the_build_with_the_fix_and_keeps_the_site(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    before = tree(folder / "site")
    edit(folder / "mkdocs.yml", "  name: material\n", "  name: material\n  font:\n    text: Lato\n")
    result = build(folder)
    assert result.returncode != 0
    assert result.errors == [
        f"scalecore: {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'theme:')}: theme.font names "
        "{'text': 'Lato'}, which Material fetches from Google Fonts: the site's Content-Security-Policy blocks it "
        "and offline readers cannot reach it. Fix: set font: false (the reader's system fonts), and serve your "
        "own font with extra_css."], result.describe()
    assert tree(folder / "site") == before


def test_arithmatex_without_generic_output_is_an_error_naming_the_line(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    (folder / "mkdocs.yml").write_text(MINIMAL + "\nmarkdown_extensions:\n  - pymdownx.arithmatex\n", encoding="utf-8")
    result = build(folder)
    assert result.returncode != 0
    where = f"{folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'markdown_extensions:')}"
    assert result.errors == [
        f"scalecore: {where}: pymdownx.arithmatex needs generic: True (the build typesets its output). Fix: write "
        "'- pymdownx.arithmatex: {generic: true}', or leave the extension out and the plugin adds it."], \
        result.describe()


def test_another_theme_is_an_error_naming_the_line(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    edit(folder / "mkdocs.yml", "  name: material\n", "  name: mkdocs\n")
    result = build(folder)
    assert result.returncode != 0
    assert result.errors == [
        f"scalecore: {folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'theme:')}: the theme is 'mkdocs'; "
        "Scalecore's pages (module header, cards, mentor) extend Material's templates. Fix: set theme: "
        "{name: material}."], result.describe()


def test_a_link_to_a_missing_anchor_stops_a_strict_build(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    before = tree(folder / "site")
    (folder / "docs" / "other.md").write_text("# Other\n\nSee [the concept](index.md#no-such-heading).\n",
                                              encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1
    assert result.lines("WARNING") == [  # at its line (site.PageLinkLines)
        "docs/other.md:3: Doc file 'other.md' contains a link 'index.md#no-such-heading', but the doc 'index.md' does "
        "not contain an anchor '#no-such-heading'. Fix: link to a heading the page has (its anchor is the heading's "
        "words, lowercase, joined by '-')."], result.describe()  # no anchor there close to it
    assert tree(folder / "site") == before


def test_a_folder_style_link_and_a_missing_image_stop_a_strict_build_with_their_fixes(minimal, tmp_path):
    # "../other/" is a 404 on a site whose pages are files: MkDocs says so at INFO level only
    # (a fresh author's build passed); a missing image got the advice for a page.
    folder = copy_site(tmp_path / "site", source=minimal[0])
    (folder / "docs" / "img").mkdir()
    (folder / "docs" / "img" / "orbit.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "docs" / "other.md").write_text("# Other\n\nSee [the concept](index/).\n\n![An orbit](img/orbits.png)\n",
                                              encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1
    assert result.lines("WARNING") == [
        "docs/other.md:3: Doc file 'other.md' contains an unrecognized relative link 'index/', it was left as is. "
        "Fix: link to a page of the site by its .md file, relative to this page, e.g. 'index.md'.",
        "docs/other.md:5: Doc file 'other.md' contains a link 'img/orbits.png', but the target is not found among "
        "documentation files. Fix: link to a file under docs/ by its path relative to this page, e.g. "
        "'img/orbit.png', or add the file as docs/img/orbits.png."], result.describe()


# --------------------------------------------------------------------------------------------
# Nothing the author did not mean runs (pages/author_scripts.py)
# --------------------------------------------------------------------------------------------

HOSTILE_TITLE = "</title><script>alert('title')</script>"


def test_an_inline_script_in_a_pages_markdown_stops_the_build_with_its_line(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    before = tree(folder / "site")
    edit(folder / "docs" / "index.md", "A formula:", "<script>alert('body')</script>\n\nA formula:")
    result = build(folder)
    assert result.returncode == 1
    line = line_of(folder / "docs" / "index.md", "alert('body')")
    assert result.errors[-1] == (
        f"scalecore: docs/index.md:{line}: an inline <script> in the page's Markdown; the site's "
        "Content-Security-Policy would run it like the theme's own scripts. Fix: move the code into a .js file "
        "under docs/ and add it with extra_javascript, or allow this page's inline scripts with the plugin option "
        "allow_inline_scripts: [index.md]."), result.describe()
    assert tree(folder / "site") == before


def test_an_allowed_inline_script_is_listed_and_allowed_by_the_policy(minimal, tmp_path):
    import base64
    import hashlib

    folder = copy_site(tmp_path / "site", source=minimal[0])
    edit(folder / "docs" / "index.md", "A formula:", "<script>console.log('mine')</script>\n\nA formula:")
    edit(folder / "mkdocs.yml", "      live: false\n", "      live: false\n      allow_inline_scripts: [index.md]\n")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    body = "console.log('mine')"
    digest = hashlib.sha256(body.encode()).hexdigest()[:12]
    assert f"scalecore: docs/index.md: allowed 1 inline script (allow_inline_scripts): line " \
           f"{line_of(folder / 'docs' / 'index.md', body)} (sha256 {digest})" in result.lines("INFO")
    html = (folder / "site" / "index.html").read_text(encoding="utf-8")
    allowed = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
    assert f"'sha256-{allowed}'" in html


def test_a_title_with_markup_is_text_and_runs_nothing(minimal, tmp_path, chromium):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    edit(folder / "docs" / "index.md", 'title: "Features"', f'title: "{HOSTILE_TITLE}"')
    result = build(folder)
    assert result.returncode == 0, result.describe()
    html = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html
    assert "<title>&lt;/title&gt;&lt;script&gt;alert('title')&lt;/script&gt; - Minimal</title>" in html
    page = chromium.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        page.goto((folder / "site" / "index.html").as_uri())
        page.wait_for_timeout(300)
        assert page.title() == HOSTILE_TITLE + " - Minimal"  # shown as the author wrote it, as text
    finally:
        page.close()
    assert dialogs == []


# --------------------------------------------------------------------------------------------
# A docs folder MkDocs cannot read well (pages/sources.py)
# --------------------------------------------------------------------------------------------


def test_a_page_that_is_not_utf8_names_its_line_and_column(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    before = tree(folder / "site")
    (folder / "docs" / "latin.md").write_bytes("# Notes\n\nCaf\xe9 au lait\n".encode("latin-1"))
    result = build(folder)
    assert result.returncode == 1
    page = folder / "docs" / "latin.md"
    assert result.errors == [
        f"scalecore: {page}:3:4: not UTF-8 (the byte 0xe9 there); MkDocs reads every page as UTF-8. Fix: save the "
        "file as UTF-8 (for a Latin-1 file: iconv -f latin1 -t utf-8 latin.md -o latin.md.utf8, then replace it)."], \
        result.describe()
    assert "Traceback" not in result.stderr and tree(folder / "site") == before


def test_a_link_that_loops_back_into_the_docs_is_named(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    (folder / "docs" / "loop").symlink_to(".", target_is_directory=True)
    result = build(folder)
    assert result.returncode == 1
    assert result.errors == [
        f"scalecore: {folder / 'docs' / 'loop'}: a symbolic link to {folder / 'docs'}, a folder it is in, so the docs "
        "folder never ends (MkDocs would read its pages again and again). Fix: remove the link, or point it at a "
        "folder outside the docs folder's own tree."], result.describe()
    assert len(result.stderr.splitlines()) < 10, "the loop must be one message, not a page of warnings"


BIG_PAGE = "# Big\n\n" + ("word " * 20 + "\n\n") * 60_000  # 6.1 MB (5.8 MiB) of Markdown


def test_a_very_large_page_stops_a_strict_build_before_it_renders_and_publishes_nothing(minimal, tmp_path):
    """Issue 46: a strict build that fails publishes nothing, and a page past the limit stops it
    at once (not after minutes of rendering); the previous site stays as it was."""
    folder = copy_site(tmp_path / "site", source=minimal[0])
    assert build(folder).returncode == 0
    before = tree(folder / "site")
    (folder / "docs" / "big.md").write_text(BIG_PAGE, encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1
    assert result.errors == [
        f"scalecore: {folder / 'docs' / 'big.md'}: 6.1 MB of Markdown, over the 5 MiB a page may have: a page this "
        "large takes minutes to build and "
        "is too heavy to read. Fix: split it into several pages. (strict: true stops the build here, before "
        "rendering it; the previous site stays.)"], result.describe()
    assert "Traceback" not in result.stderr and tree(folder / "site") == before


def test_a_very_large_page_is_a_warning_when_the_build_is_not_strict(minimal, tmp_path):
    folder = copy_site(tmp_path / "site", source=minimal[0])
    (folder / "docs" / "big.md").write_text(BIG_PAGE, encoding="utf-8")
    mkdocs_yml = folder / "mkdocs.yml"
    mkdocs_yml.write_text(mkdocs_yml.read_text(encoding="utf-8").replace("strict: true", "strict: false"), encoding="utf-8")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    assert f"scalecore: {folder / 'docs' / 'big.md'}: 6.1 MB of Markdown, over the 5 MiB a page may have: a page this large takes minutes to " \
           "build and is too heavy to read. Fix: split it into several pages." in result.lines("WARNING")


def test_a_warning_logged_while_the_build_is_configured_keeps_a_strict_build_from_publishing(minimal, tmp_path):
    """A warning the plugin logs before any page is read (here: a hook of the site's own, on
    MkDocs' logger, at on_config) is counted: the strict build fails and the previous site stays."""
    folder = copy_site(tmp_path / "site", source=minimal[0])
    assert build(folder).returncode == 0
    before = tree(folder / "site")
    (folder / "warn_early.py").write_text(  # before the plugin's own on_config (a higher priority)
        "import logging\n\nfrom mkdocs.plugins import event_priority\n\n\n@event_priority(100)\n"
        "def on_config(config):\n    logging.getLogger('mkdocs.hooks').warning('early warning')\n",
        encoding="utf-8")
    mkdocs_yml = folder / "mkdocs.yml"
    mkdocs_yml.write_text(mkdocs_yml.read_text(encoding="utf-8") + "hooks:\n  - warn_early.py\n", encoding="utf-8")
    (folder / "docs" / "new.md").write_text("# New\n", encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1, result.describe()
    assert tree(folder / "site") == before


def test_a_site_with_no_corpora_of_its_own_uses_the_shipped_ones(tmp_path):
    """A new site's attention panel needs no corpus folder: `demo` comes with the package."""
    folder = copy_site(tmp_path / "site")
    shutil.rmtree(folder / "corpora")
    (folder / "mkdocs.yml").write_text(MINIMAL.replace("corpora: [tiny]", "corpora: [demo]").replace("      vocabulary_size: 32\n", ""), encoding="utf-8")
    for page in (folder / "docs").glob("*.md"):
        page.unlink()
    (folder / "docs" / "index.md").write_text("# Guards\n\n/// scale-guards\ncorpus: demo\nguards: init+scale\n///\n",
                                              encoding="utf-8")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    manifest = json.loads((folder / "site" / "api" / "index.json").read_text(encoding="utf-8"))
    assert [corpus["name"] for corpus in manifest["corpora"]] == ["demo"]
    assert (folder / "site" / "api" / "embeddings" / "demo.json").is_file()

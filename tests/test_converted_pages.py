"""A page whose Markdown and inputs did not change is not converted again (the MkDocs adapter's
converted_pages.py): each check builds a site as an author does, and compares what the reader gets
with what converting every page gives."""

import re
import shutil

import pytest

from sites import CACHE, build, copy_site, edit, line_of, tree



def _counts(done) -> tuple[int, int]:
    """(taken from the cache, converted) as ``mkdocs build -v`` says them."""
    found = re.search(r"pages: (\d+) taken from the cache, (\d+) converted", done.stderr)
    assert found, done.describe()
    return int(found[1]), int(found[2])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("converted") / "site")
    edit(folder / "mkdocs.yml", "  - pymdownx.superfences\n",
         "  - pymdownx.superfences\n  - toc:\n      permalink: true\n"
         "  - pymdownx.snippets:\n      base_path: [!relative $config_dir]\n      check_paths: true\n")
    (folder / "parts").mkdir()
    (folder / "parts" / "aside.md").write_text("An aside, *included* from a file.\n", encoding="utf-8")
    edit(folder / "docs" / "lesson.md", "Without the guards:\n",
         "## With an aside\n\n--8<-- \"parts/aside.md\"\n\nWithout the guards:\n")
    done = build(folder, "-v")
    assert done.returncode == 0, done.describe()
    assert _counts(done) == (0, 2)
    return folder


def test_a_rebuild_takes_every_unchanged_page_and_the_site_is_the_one_converting_gives(site, tmp_path):
    converted = tree(site / "site")
    again = build(site, "-v")
    assert again.returncode == 0, again.describe()
    assert _counts(again) == (2, 0)
    assert tree(site / "site") == converted  # the HTML, the table of contents, the search index: the same bytes

    fresh = copy_site(tmp_path / "fresh", site)
    shutil.rmtree(fresh / CACHE / "pages")
    done = build(fresh, "-v")
    assert done.returncode == 0 and _counts(done) == (0, 2), done.describe()
    assert tree(fresh / "site") == converted


def test_an_edited_page_is_converted_again_and_only_it(site):
    edit(site / "docs" / "lesson.md", "in two corpora.", "in two small corpora.")
    done = build(site, "-v")
    assert done.returncode == 0, done.describe()
    assert _counts(done) == (1, 1)
    assert "in two small corpora." in (site / "site" / "lesson" / "index.html").read_text(encoding="utf-8")


def test_a_page_is_converted_again_when_a_file_its_conversion_read_changed(site):
    (site / "parts" / "aside.md").write_text("A rewritten aside.\n", encoding="utf-8")
    done = build(site, "-v")
    assert done.returncode == 0, done.describe()
    assert _counts(done) == (1, 1)
    page = (site / "site" / "lesson" / "index.html").read_text(encoding="utf-8")
    assert "A rewritten aside." in page and "An aside" not in page


def test_what_a_conversion_warned_is_warned_again_and_a_strict_build_still_fails(tmp_path):
    folder = copy_site(tmp_path / "site")
    edit(folder / "mkdocs.yml", "strict: true", "strict: false")
    index = folder / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nSee [the missing page](missing.md).\n", encoding="utf-8")
    first = build(folder, "-v")
    assert first.returncode == 0, first.describe()
    warned = [line for line in first.lines("WARNING") if "missing.md" in line]
    assert warned, first.describe()

    again = build(folder, "-v")
    assert again.returncode == 0 and _counts(again)[0] == 2, again.describe()
    assert [line for line in again.lines("WARNING") if "missing.md" in line] == warned

    before = tree(folder / "site")
    strict = build(folder, "--strict")
    assert strict.returncode != 0, strict.describe()  # the warning, said from the cache, fails it
    assert [line for line in strict.lines("WARNING") if "missing.md" in line] == warned
    assert tree(folder / "site") == before  # and the site it would have replaced stays


def test_a_site_with_an_extension_that_may_note_what_it_converts_elsewhere_converts_every_page(tmp_path):
    folder = copy_site(tmp_path / "site")
    (folder / "noting.py").write_text(
        "from markdown.extensions import Extension\n\n\n"
        "class Noting(Extension):\n    def extendMarkdown(self, md):\n        pass\n\n\n"
        "def makeExtension(**settings):\n    return Noting(**settings)\n", encoding="utf-8")
    edit(folder / "mkdocs.yml", "  - pymdownx.superfences\n", "  - pymdownx.superfences\n  - noting\n")
    for _ in range(2):
        done = build(folder, "-v")
        assert done.returncode == 0, done.describe()
        assert _counts(done) == (0, 2)
        assert "the Markdown extension noting may keep what it converts outside the page" in done.stderr


def test_a_conversion_that_sets_more_than_mkdocs_page_render_does_is_not_kept(tmp_path):
    from types import SimpleNamespace

    from scalecore_generator.adapters.mkdocs.converted_pages import _converted

    def convert(config, files, extra):
        page.content, page.toc, page.present_anchor_ids, page._title_from_render = "<p>x</p>", [], set(), None
        if extra:
            page.footnotes = ["noted by another MkDocs or a plugin's wrapper"]

    page = SimpleNamespace(file=SimpleNamespace(src_uri="a.md"))
    assert _converted(page, lambda config, files: convert(config, files, False), {}, [], str)["content"] == "<p>x</p>"
    page = SimpleNamespace(file=SimpleNamespace(src_uri="a.md"))
    assert _converted(page, lambda config, files: convert(config, files, True), {}, [], str) is None


def test_an_icon_changed_in_a_folder_the_extensions_settings_name_converts_every_page_that_shows_it(tmp_path):
    # Material loads each icon once per process: only the first page that shows it opens its file
    folder = copy_site(tmp_path / "site")
    edit(folder / "mkdocs.yml", "  - pymdownx.superfences\n",
         "  - pymdownx.superfences\n  - pymdownx.emoji:\n"
         "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
         "      emoji_generator: !!python/name:material.extensions.emoji.to_svg\n"
         "      options:\n        custom_icons: [icons]\n")
    icon = folder / "icons" / "brand" / "dot.svg"
    icon.parent.mkdir(parents=True)
    icon.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><circle r="1"/></svg>', encoding="utf-8")
    for page in ("index.md", "lesson.md"):
        path = folder / "docs" / page
        path.write_text(path.read_text(encoding="utf-8") + "\nA dot :brand-dot: here.\n", encoding="utf-8")
    assert build(folder, "-v").returncode == 0
    icon.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><rect width="2" height="2"/></svg>',
                    encoding="utf-8")
    done = build(folder, "-v")
    assert done.returncode == 0 and _counts(done) == (0, 2), done.describe()
    for page in ("index.html", "lesson/index.html"):
        html = (folder / "site" / page).read_text(encoding="utf-8")
        assert '<rect width="2" height="2"' in html and "<circle" not in html, page


def test_a_snippet_not_found_is_the_pages_line_and_the_fix_not_a_traceback(site, tmp_path):
    folder = copy_site(tmp_path / "site", site)
    before = tree(folder / "site")
    edit(folder / "docs" / "lesson.md", '--8<-- "parts/aside.md"', '--8<-- "parts/asides.md"')
    done = build(folder)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.describe()
    line = next(number for number, text in enumerate((folder / "docs" / "lesson.md").read_text().splitlines(), 1)
                if "asides.md" in text)
    assert done.errors == [
        f"docs/lesson.md:{line}: Snippet at path 'parts/asides.md' could not be found (pymdownx.snippets, converting the "
        f"page). Fix: correct that line, or the extension's settings under markdown_extensions "
        f"({folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', 'markdown_extensions:')})."], done.describe()
    assert tree(folder / "site") == before

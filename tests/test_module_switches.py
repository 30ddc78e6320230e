"""What ends a module page (issue 47.9): "Ask the mentor" and "My notes" are site options (the
plugin's ``mentor`` and ``notes``, on by default) and page options (front matter ``mentor:`` and
``notes:``, which win); a value that is not true or false stops the build with its line."""

import json
from pathlib import Path

from sites import build, copy_site, edit, line_of

TUTORIAL = Path(__file__).resolve().parents[1] / "scalecore_generator" / "scaffold"
LESSON = Path("docs") / "lessons" / "temperature.md"
MENTOR, NOTES = 'class="scalecore-mentor"', 'class="scalecore-notes"'
# What only the mentor uses: its scripts, its embedding table, the search and PDF libraries.
MENTOR_FILES = ("assets/scalecore-module/mentor.js", "assets/scalecore-module/mentor-core.js",
                "assets/scalecore-module/mentor-words.js", "assets/scalecore-module/mentor-meaning.js",
                "assets/scalecore-module/mentor-numbers.js",
                "assets/scalecore-module/mentor-embeddings.js", "assets/scalecore/vendor/minisearch.js",
                "assets/scalecore/vendor/pdfjs/pdf.min.js", "assets/scalecore/mentor/lessons--temperature.js")


def built(tmp_path, options: str = "", front_matter: str = ""):
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    if options:
        edit(folder / "mkdocs.yml", "packages: [mylessons]", f"packages: [mylessons]\n      {options}")
    if front_matter:
        edit(folder / LESSON, "audience: [guest, it-ml, language-pro]\n",
             f"audience: [guest, it-ml, language-pro]\n{front_matter}\n")
    return folder, build(folder)


def lesson_html(folder):
    return (folder / "site" / "lessons" / "temperature.html").read_text(encoding="utf-8")


def test_by_default_a_module_page_ends_with_the_mentor_and_the_notes(tmp_path):
    folder, result = built(tmp_path)
    assert result.returncode == 0, result.describe()
    html = lesson_html(folder)
    assert MENTOR in html and NOTES in html
    assert [path for path in MENTOR_FILES if not (folder / "site" / path).is_file()] == []


def test_the_site_turns_the_mentor_off_and_a_page_turns_its_notes_off(tmp_path):
    folder, result = built(tmp_path, "mentor: false", "notes: false")
    assert result.returncode == 0, result.describe()
    html = lesson_html(folder)
    assert MENTOR not in html and NOTES not in html
    assert 'class="scalecore-module"' in html  # the rest of the module page stays
    # and the site ships none of the mentor's files (5.5 MB of embeddings), nor lists them offline
    site = folder / "site"
    assert [path for path in MENTOR_FILES if (site / path).exists()] == []
    assert not any("mentor" in path for path in json.loads((site / "offline.json").read_text())["files"])


def test_a_page_keeps_its_mentor_when_the_site_has_none(tmp_path):
    folder, result = built(tmp_path, "mentor: false\n      notes: false", "mentor: true")
    assert result.returncode == 0, result.describe()
    html = lesson_html(folder)
    assert MENTOR in html and NOTES not in html
    assert [path for path in MENTOR_FILES if not (folder / "site" / path).is_file()] == []


def test_a_switch_that_is_not_true_or_false_names_its_line(tmp_path):
    folder, result = built(tmp_path, "", "notes: maybe")
    assert result.returncode == 1
    assert result.errors[-1] == (f"scalecore: docs/lessons/temperature.md:{line_of(folder / LESSON, 'notes: maybe')}: "
                                 "key 'notes' must be true or false (whether the page ends with \"My notes\"), got "
                                 "'maybe'")


def test_a_site_without_module_pages_ships_no_mentor(tmp_path):
    """The mentor is on by default, but only a module page shows it: a site with none (the
    bare template's, or this one with its lesson made a plain page) ships none of its files
    (38 MB with the sentence encoder)."""
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    edit(folder / LESSON, "code: L1.softmax.01\n", "")
    edit(folder / LESSON, "audience: [guest, it-ml, language-pro]\n", "")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    site = folder / "site"
    assert [path for path in MENTOR_FILES if (site / path).exists()] == []
    assert not [path.name for path in site.rglob("*") if "mentor" in path.name or path.suffix == ".onnx"]

"""A site names its own readers (the plugin option ``audiences``): a physics site's module pages
are for students and teachers, not for the first site's guests, practitioners and linguists (a
fresh-eyes author's physics lesson was refused 'students'). Its pages' chips, the audience switch
and the side notes it shows or hides all follow the option; a mistake in it is named at its line."""

import pytest

from browser import StaticServer, wait_hydrated
from sites import build, copy_site, edit
from test_kinds_tutorial import TUTORIAL

from scalecore_generator.pages.module_meta import check_callouts, check_module_meta

READERS = {"students": {"label": "Students", "short": "Students", "callout": "student", "title": "For students"},
           "teachers": {"label": "Teachers & tutors", "short": "Teachers", "callout": "teacher",
                        "title": "For teachers"}}
OPTION = ("      audiences:\n"
          "        students: {label: Students, short: Students, callout: student, title: For students}\n"
          "        teachers: {label: Teachers & tutors, short: Teachers, callout: teacher, title: For teachers}\n")
META = {"code": "B1", "title": "T", "description": "D", "audience": ["students"]}


def test_a_page_names_the_sites_own_readers():
    check_module_meta(META, "docs/m.md", audiences=READERS)
    with pytest.raises(ValueError) as error:
        check_module_meta({**META, "audience": ["guest"]}, "docs/m.md", audiences=READERS)
    assert str(error.value) == ("docs/m.md: key 'audience': 'guest' is not one of students, teachers. Fix: write one of "
                                "them, or name 'guest' among the site's readers: the plugin option audiences in "
                                "mkdocs.yml (scalecore guide authoring)")
    with pytest.raises(ValueError, match=r"'student' is the callout type of the 'students' readers' side notes: write "
                                         r"'students' here"):
        check_module_meta({**META, "audience": ["student"]}, "docs/m.md", audiences=READERS)


def test_a_side_note_for_readers_the_page_does_not_list_is_named():
    """A teachers' page with a students' note: the switch (one audience) would show it to everyone."""
    page = "# T\n\n!!! teacher \"For teachers\"\n    Fine.\n\n!!! student \"For students\"\n    Shown to all.\n"
    check_callouts(page, "docs/t.md", 0, READERS, ["students", "teachers"])
    check_callouts(page, "docs/t.md", 0, READERS, None)  # not a module page: its notes are for anyone
    with pytest.raises(ValueError) as error:
        check_callouts(page, "docs/t.md", 4, READERS, ["teachers"])
    assert str(error.value) == ("docs/t.md:10: '!!! student' is a side note for the students readers, whom this page's "
                                "audience (teachers) does not list: the audience switch would show it to everyone. Fix: "
                                "add students to the page's audience, or make it a plain note ('!!! note')")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = copy_site(tmp_path_factory.mktemp("audiences") / "physics", source=TUTORIAL)
    config = (folder / "mkdocs.yml").read_text(encoding="utf-8")  # the readers `scalecore new` names, replaced
    written = config[config.index("      audiences:\n"):config.index("perspective\"}\n") + len("perspective\"}\n")]
    edit(folder / "mkdocs.yml", written, OPTION)
    lesson = folder / "docs" / "lessons" / "temperature.md"
    edit(lesson, "audience: [guest, it-ml, language-pro]", "audience: [students, teachers]")
    text = lesson.read_text(encoding="utf-8")
    for old, new in (("guest", "student"), ("practitioner", "teacher"), ("linguist", "teacher")):
        text = text.replace(f"!!! {old} ", f"!!! {new} ").replace(f"??? {old} ", f"??? {new} ")
    lesson.write_text(text + '\n!!! student "For students"\n    A note for students.\n\n'
                             '!!! teacher "For teachers"\n    A note for teachers.\n', encoding="utf-8")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    server = StaticServer(folder / "site")
    yield folder, server
    server.close()


def test_the_page_shows_its_readers_and_the_switch_shows_their_notes(site, visit):
    _, server = site
    page, _ = visit(server.url + "lessons/temperature.html")
    wait_hydrated(page)
    chips = page.locator(".scalecore-module__audience li").all_text_contents()
    assert chips == ["Students", "Teachers & tutors"], chips
    student = page.locator(".admonition.student").filter(has_text="A note for students.")
    teacher = page.locator(".admonition.teacher").filter(has_text="A note for teachers.")
    page.get_by_role("radio", name="Students").check()
    assert student.is_visible() and not teacher.is_visible()
    page.get_by_role("radio", name="Teachers").check()
    assert teacher.is_visible() and not student.is_visible()
    page.get_by_role("radio", name="Everyone").check()
    assert teacher.is_visible() and student.is_visible()
    # each readers' notes in a colour of their own (they were all Material's grey note)
    colours = [box.evaluate("box => getComputedStyle(box).borderLeftColor") for box in (student, teacher)]
    grey = page.locator(".admonition.abstract").first.evaluate("box => getComputedStyle(box).borderLeftColor")
    assert len({*colours, grey}) == 3, (colours, grey)


def test_a_mistake_in_the_option_is_named_at_its_line(site, tmp_path):
    folder, _ = site
    broken = copy_site(tmp_path / "broken", source=folder)
    edit(broken / "mkdocs.yml", "callout: teacher, title: For teachers}", "callout: a teacher, title: For teachers}")
    result = build(broken)
    assert result.returncode == 1
    [error] = [line for line in result.errors if "audiences" in line]
    assert "the audience 'teachers' has the callout 'a teacher', which is not a word" in error, error
    assert "Fix: write one word, e.g. callout: teachers." in error, error
    assert "mkdocs.yml:" in error

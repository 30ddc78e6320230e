"""The path through the modules: a section page lists its modules in code order, every module
links back up to it, and the cards before and after each module lead to real pages.

Read from the built site (tests/conftest.py's ``built_site``) with the small DOM of
tests/test_site_pages.py; the section check itself (scalecore_generator.pages.module_meta) is unit-tested too.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

import pytest
import yaml

from scalecore_generator.pages.module_meta import check_section_meta, section_of
from test_site_pages import parse

DOCS = Path(__file__).resolve().parent.parent / "docs"


def front_matter(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


def module_sources() -> dict[str, dict]:
    """docs page (as built, x.html) -> front matter, for every module page of the docs."""
    found = {}
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n"):
            meta = front_matter(path)
            if "code" in meta:
                found[path.relative_to(DOCS).with_suffix(".html").as_posix()] = meta
    return found


def target(page: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), href.split("#")[0]))


@pytest.fixture(scope="module")
def section(built_site) -> tuple[str, dict]:
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n") and "section" in front_matter(path):
            return path.relative_to(DOCS).with_suffix(".html").as_posix(), front_matter(path)
    pytest.fail("the docs have no section page")


def test_the_section_lists_its_modules_in_code_order_with_code_audience_and_purpose(built_site, section):
    page, meta = section
    modules = {p: m for p, m in module_sources().items() if section_of(m["code"]) == meta["section"]}
    assert len(modules) >= 3
    root = parse(built_site / page)
    items = root.find_all("li", "scalecore-section__module")
    shown = [(item.find_all("code", "scalecore-section__code")[0].text(),
              target(page, item.find_all("a", "scalecore-section__link")[0].attrs["href"])) for item in items]
    expected = sorted((m["code"], p) for p, m in modules.items())
    assert shown == expected
    for item, (code, built) in zip(items, expected):
        assert item.find_all("p", "scalecore-section__purpose")[0].text().strip() == modules[built]["description"].strip()
        chips = [chip.text().strip() for chip in item.find_all("li", "scalecore-chip")]
        assert len(chips) == len(modules[built]["audience"])


def test_every_module_goes_up_a_level_to_its_section(built_site, section):
    page, meta = section
    for built, module in module_sources().items():
        if section_of(module["code"]) != meta["section"]:
            continue
        links = [a for a in parse(built_site / built).find_all("a") if a.attrs.get("rel") == "up"]
        assert links, f"{built} has no 'Go up a level' link"
        assert target(built, links[0].attrs["href"]) == page
        assert meta["title"] in links[0].text()


def test_the_cards_before_and_after_every_module_link_to_real_pages(built_site):
    titles = {m["title"]: p for p, m in module_sources().items()}
    for built, module in module_sources().items():
        root = parse(built_site / built)
        absent = root.find_all(cls="scalecore-card--absent")
        assert not absent, f"{built}: a card says 'not on this site': {[a.text().strip() for a in absent]}"
        wanted = module.get("prerequisites") or []
        wanted = [wanted] if isinstance(wanted, str) else wanted
        after = module.get("next") or []
        after = [after] if isinstance(after, str) else after
        cards = [target(built, a.attrs["href"]) for a in root.find_all("a", "scalecore-card__link")]
        for title in wanted + after:
            assert titles[title] in cards, f"{built}: no card to {title!r}"


def test_each_module_but_the_last_continues_to_the_next_and_the_last_goes_back_up(built_site, section):
    page, meta = section
    ordered = sorted((m["code"], p, m) for p, m in module_sources().items() if section_of(m["code"]) == meta["section"])
    titles = {m["title"]: p for _, p, m in ordered}
    for (code, built, module), following in zip(ordered, ordered[1:] + [None]):
        nav = parse(built_site / built).find_all("nav", "scalecore-module-next")
        assert nav, f"{built} has no 'Where next'"
        hrefs = [target(built, a.attrs["href"]) for a in nav[0].find_all("a")]
        if following is None:
            assert hrefs == [page], f"the last module {built} should lead back to the section"
        else:
            assert titles[module["next"]] == following[1], f"{code}'s next is not the module after it"
            assert hrefs == [following[1]]


@pytest.mark.parametrize(("meta", "problem"), [
    ({"section": "P10.attention", "title": "T", "description": "D"}, "not a section code"),
    ({"section": "P10", "title": "T"}, "'description' is missing"),
    ({"section": "P10", "code": "P10.a", "title": "T", "description": "D"}, "not both"),
    ({"section": "P10", "title": "", "description": "D"}, "is not a text"),
])
def test_a_wrong_section_front_matter_names_the_page_the_line_and_the_problem(meta, problem):
    source = "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n# T\n"
    with pytest.raises(ValueError) as caught:
        check_section_meta(meta, "docs/s.md", source)
    message = str(caught.value)
    assert problem in message
    assert message.startswith("docs/s.md:")


def test_a_page_without_section_is_left_alone():
    check_section_meta({"title": "Home"}, "docs/index.md")
    check_section_meta({}, "docs/x.md")

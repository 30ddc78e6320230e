"""A module page's front matter, checked at build time.

A page is a module page when its front matter has ``code``; the theme (scalecore_generator/theme/) then
renders its header from these keys, so a typo must stop the build, not quietly hide a card:

    code: P10.attention.04                        letters, digits, '.', '-' and '_'
    title: "Keeping Softmax in Its Range"         the page's title
    description: "..."                            one or two sentences (the meta description)
    audience: [guest, it-ml, language-pro]        who it is written for, at least one
    prerequisites: [Multi-Head Attention]         titles of modules to read first (may be [])
    next: Encoder Block                           the title of the module to read next (or a list)

Prerequisites and next are page titles: the theme links each to the page of this site with that
title. A title that matches no page is a build error naming the closest titles, unless the page
lists it under ``external`` (a module that lives elsewhere on purpose): the theme then shows it
as "not on this site".

    external: [Transformer Decoder]               titles of prerequisites or next not on this site

Two switches say what ends the page; each defaults to the plugin option of its name:

    mentor: false                                 no "Ask the mentor" on this page
    notes: false                                  no "My notes" on this page

A page whose front matter has ``section`` is a section page: it holds the modules whose code
starts with its code and a dot (``section: P10`` holds P10.attention.03, P10.attention.04...).
The theme lists them in the order of their codes, with their audience and description, and
gives each of them a "Go up a level" link back to it:

    section: P10                                  the first part of its modules' codes
    title: "Transformer Architecture"
    description: "..."

Messages name the page (and the line when the source is given) and the key:
``docs/modules/x.md:5: key 'audience': 'gueest' is not one of guest, it-ml, language-pro``.
"""

from __future__ import annotations

import difflib
import re

# Who a module page is written for (its front matter's ``audience``): each code's name on the page
# (``label``; ``short`` in the audience switch), and the admonition type of the side notes written
# for those readers (``callout``, which the switch shows or hides), with the title such a note
# carries (``title``): the front matter names readers, the callouts name a perspective. A site
# names its own readers with the plugin option ``audiences``; these are the default.
DEFAULT_AUDIENCES = {
    "guest": {"label": "Guests", "short": "Guests", "callout": "guest", "title": "In plain words"},
    "it-ml": {"label": "IT and ML practitioners", "short": "IT & ML", "callout": "practitioner",
              "title": "For practitioners"},
    "language-pro": {"label": "Language professionals", "short": "Language pros", "callout": "linguist",
                     "title": "From a linguist's perspective"},
}
AUDIENCE_KEYS = ("label", "short", "callout", "title")
ADMONITION = re.compile(r"^(?P<indent>\s*)(?P<marker>!!!|\?\?\?\+?)[ \t]+(?P<type>[^\s\"]+)")
REQUIRED = ("code", "title", "description", "audience")
OPTIONAL = ("prerequisites", "next", "external")
SWITCHES = {"mentor": '"Ask the mentor"', "notes": '"My notes"'}  # true or false; default: the plugin's option
KEYS = REQUIRED + OPTIONAL + tuple(SWITCHES)
MODULE_ONLY = ("code", "audience", "prerequisites", "next", "external")  # keys that make a page a module page
# Front-matter keys MkDocs and Material read themselves: never mistaken for a misspelt module key.
OTHER_KNOWN = ("template", "hide", "icon", "status", "subtitle", "search", "tags", "comments", "authors",
               "date", "categories", "draft", "slug", "links", "readtime", "pin", "social", "toc_depth")
CODE = re.compile(r"^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$")


def any_module_page_shows(docs, key: str, default: bool) -> bool:
    """Some module page under ``docs`` shows the switch ``key`` of SWITCHES: its front matter's
    ``key: true``, or no ``key`` and the site's option ``default`` on. A quick pass on the sources
    that parses a page's front matter only when it names a module's ``code``; a site without
    module pages shows none (and ships none of what the switch needs)."""
    import yaml
    from pathlib import Path

    for page in sorted(Path(docs).rglob("*.md")):
        try:
            text = page.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        front = text.split("\n---", 1)[0] if text.startswith("---") else ""
        if "code:" not in front:
            continue
        try:
            meta = yaml.safe_load(front[3:]) or {}
        except yaml.YAMLError:
            continue  # the page's own check says what is wrong, with its line
        if isinstance(meta, dict) and meta.get("code") and meta.get(key, default) is True:
            return True
    return False


def section_of(code: str) -> str:
    """The code of the section a module belongs to: 'P10.attention.04' -> 'P10'."""
    return str(code).split(".", 1)[0]


def check_section_meta(meta: dict, page: str, source: str | None = None) -> None:
    """Raise ValueError naming ``page`` and the key when a section page's front matter is wrong."""
    meta = meta or {}
    if "section" not in meta:
        return

    def fail(key: str, problem: str) -> None:
        line = _line(source, key)
        raise ValueError(f"{page}:{line}: {problem}" if line else f"{page}: {problem}")

    code = meta["section"]
    if not isinstance(code, str) or not CODE.match(code) or "." in code:
        fail("section", f"key 'section': {code!r} is not a section code: use letters, digits, '-' or '_' "
                        "(no '.': the section is the first part of its modules' codes), e.g. section: P10")
    if "code" in meta:
        fail("section", "a page is a section page (section:) or a module page (code:), not both")
    for key in ("title", "description"):
        if key not in meta:
            fail("section", f"key {key!r} is missing: a section page needs section, title and description")
        _text(meta[key], key, fail)


def is_module(meta: dict | None) -> bool:
    """Whether the theme renders a module header for a page with this front matter."""
    return bool(meta) and "code" in meta


def check_module_meta(meta: dict, page: str, source: str | None = None, audiences: dict = DEFAULT_AUDIENCES) -> None:
    """Raise ValueError naming ``page`` and the key when a module page's front matter is wrong.

    Pages without any module key are left alone. ``source`` (the page's markdown with its front
    matter) is optional: when given, messages carry the key's line, ``page:line: ...``.
    """
    meta = meta or {}
    present = [key for key in MODULE_ONLY if key in meta]
    if not present:
        return

    def fail(key: str | None, problem: str) -> None:
        line = _line(source, key) if key else None
        where = f"{page}:{line}" if line else page
        raise ValueError(f"{where}: {problem}")

    if "code" not in meta:
        fail(present[0], f"key {present[0]!r} belongs to a module page, which needs a 'code' too "
                         "(e.g. code: P10.attention.04); add it, or remove the module keys")
    for key in meta:
        if key in KEYS or key in OTHER_KNOWN:
            continue
        close = difflib.get_close_matches(str(key), KEYS, n=1, cutoff=0.75)
        if close:
            fail(key, f"unknown key {key!r}: did you mean {close[0]!r}?")
    for key in REQUIRED:
        if key not in meta:
            fail(None, f"key {key!r} is missing: a module page needs {', '.join(REQUIRED)}")

    code = meta["code"]
    if not isinstance(code, str) or not CODE.match(code):
        fail("code", f"key 'code': {code!r} is not a module code: use letters, digits and '.', '-' or '_' "
                     "between them, e.g. P10.attention.04")
    for key in ("title", "description"):
        _text(meta[key], key, fail)

    audience = meta["audience"]
    if isinstance(audience, str):
        audience = [audience]  # one audience may be written without brackets
    codes = list(audiences)
    if not isinstance(audience, list) or not audience:
        fail("audience", f"key 'audience' must be a list of one or more of {', '.join(codes)}, "
                         f"e.g. audience: [{', '.join(codes[:2])}]; got {meta['audience']!r}")
    for value in audience:
        if value not in audiences:
            code = _audience_of_callout(value, audiences)
            close = difflib.get_close_matches(str(value), codes, n=1)
            hint = (f" ({value!r} is the callout type of the {code!r} readers' side notes: write {code!r} here)"
                    if code else f" (did you mean {close[0]!r}?)" if close else
                    f". Fix: write one of them, or name {value!r} among the site's readers: the plugin option "
                    "audiences in mkdocs.yml (scalecore guide authoring)")
            fail("audience", f"key 'audience': {value!r} is not one of {', '.join(codes)}{hint}")
    repeated = sorted({value for value in audience if audience.count(value) > 1})
    if repeated:
        fail("audience", f"key 'audience': {', '.join(map(repr, repeated))} listed more than once")

    for key in OPTIONAL:
        if key not in meta:
            continue
        value = meta[key]
        titles = [value] if isinstance(value, str) else value
        if not isinstance(titles, list):
            fail(key, f"key {key!r} must be a page title or a list of page titles, got {value!r}")
        for title in titles:
            _text(title, key, fail, what="a page title")
        stripped = [title.strip() for title in titles]
        if len(set(stripped)) != len(stripped):
            fail(key, f"key {key!r}: a title is listed more than once")
    for key, part in SWITCHES.items():
        if key in meta and not isinstance(meta[key], bool):
            fail(key, f"key {key!r} must be true or false (whether the page ends with {part}), got {meta[key]!r}")


def _audience_of_callout(value, audiences: dict) -> str | None:
    return next((code for code, audience in audiences.items() if audience["callout"] == value and code != value), None)


def listed_audience(meta: dict | None) -> list | None:
    """The readers a module page lists (its front matter's audience, one written alone as a list);
    None for a page that is no module page (its side notes are for anyone)."""
    if not is_module(meta):
        return None
    audience = meta.get("audience")
    return [audience] if isinstance(audience, str) else list(audience or [])


def check_callouts(markdown: str, page: str, line_offset: int = 0, audiences: dict = DEFAULT_AUDIENCES,
                   listed: list | None = None) -> None:
    """An admonition typed with an audience code (``!!! it-ml``) instead of its callout type
    (``!!! practitioner``) would never be shown or hidden by the audience switch, nor would, on a
    module page, the side note of readers its front matter does not list (``listed``): a
    ValueError with the page, the line and what to write."""
    from scalecore_generator.foundation.text import fenced_lines

    callouts = {code: audience["callout"] for code, audience in audiences.items()}
    codes = {code for code, callout in callouts.items() if callout != code}
    unlisted = {callout: code for code, callout in callouts.items() if listed is not None and code not in listed}
    words = [re.escape(word) for word in sorted(codes | set(unlisted))]
    if not words or not re.search(rf"(?:!!!|\?\?\?)\+?[ \t]+(?:{'|'.join(words)})", markdown):
        return  # no admonition names an audience anywhere (fenced or not): every page but a mistaken one
    for number, (line, fenced) in enumerate(zip(markdown.split("\n"), fenced_lines(markdown)), start=1 + line_offset):
        match = None if fenced else ADMONITION.match(line)
        said = match and _callout_problem(match["type"], match["marker"], audiences, listed)
        if said:
            raise ValueError(f"{page}:{number}: {said}")


CALLOUT_SLOTS = 3  # the stylesheet's colours for readers' side notes (module.css: .scalecore-callout-1..3)


def mark_callouts(markdown: str, audiences: dict) -> str:
    """Each readers' side note (``!!! student "For students"``) with the class of its readers' place
    among the site's (``scalecore-callout-1`` for the first, ...), which the stylesheet colours: a
    site's own readers' notes were all one grey. Python-Markdown's admonitions (and pymdownx's
    details) take a second class after the type."""
    from scalecore_generator.foundation.text import fenced_lines

    slots = {audience["callout"]: place % CALLOUT_SLOTS + 1 for place, audience in enumerate(audiences.values())}
    words = "|".join(re.escape(callout) for callout in sorted(slots))
    if not words or not re.search(rf"(?:!!!|\?\?\?)\+?[ \t]+(?:{words})\b", markdown):
        return markdown
    lines = markdown.split("\n")
    for number, fenced in enumerate(fenced_lines(markdown)):
        match = None if fenced else ADMONITION.match(lines[number])
        if match and match["type"] in slots:
            lines[number] = lines[number][:match.end()] + f" scalecore-callout-{slots[match['type']]}" + \
                lines[number][match.end():]
    return "\n".join(lines)


def _callout_problem(typed: str, marker: str, audiences: dict, listed: list | None) -> str | None:
    """What is wrong with an admonition of type ``typed`` on a page for ``listed`` readers, if anything."""
    callouts = {code: audience["callout"] for code, audience in audiences.items()}
    if typed in callouts and callouts[typed] != typed:
        callout = callouts[typed]
        return (f"'{marker} {typed}' names the audience {typed!r}, not a callout type: the side notes for {typed} "
                f"readers are '{marker} {callout}' admonitions. Fix: write '{marker} {callout} "
                f"\"{audiences[typed]['title']}\"' (the audience codes {', '.join(callouts)} go in front matter; their "
                f"callouts are {', '.join(callouts.values())})")
    code = next((code for code, callout in callouts.items() if callout == typed), None)
    if listed is not None and code is not None and code not in listed:
        return (f"'{marker} {typed}' is a side note for the {code} readers, whom this page's audience "
                f"({', '.join(listed)}) does not list: the audience switch would show it to everyone. Fix: add {code} "
                f"to the page's audience, or make it a plain note ('{marker} note')")
    return None


def _text(value, key: str, fail, what: str = "a text") -> None:
    if not isinstance(value, str) or not value.strip():
        fail(key, f"key {key!r}: {value!r} is not {what}; write it in quotes if it holds ':' or '#'")


def _line(source: str | None, key: str) -> int | None:
    """The 1-based line of ``key:`` in the front matter that opens ``source``."""
    if not source:
        return None
    lines = source.lstrip("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for number, text in enumerate(lines[1:], start=2):
        if text.strip() in ("---", "..."):
            return None
        if re.match(rf"{re.escape(key)}\s*:", text):
            return number
    return None


def titles_of(value) -> list[str]:
    """A prerequisites, next or external value as a list of titles."""
    return [value] if isinstance(value, str) else list(value or [])


def check_neighbours(modules: dict[str, tuple[dict, str]], titles: dict[str, list[str]]) -> None:
    """Raise ValueError for a prerequisite or next title that names no other page of the site
    (and is not listed under ``external``). ``modules``: page -> (front matter, source);
    ``titles``: page -> its titles, matched as the theme matches them (case and spaces aside)."""
    for page, (meta, source) in sorted(modules.items()):
        known = {title.strip().lower(): title for other, names in titles.items() if other != page for title in names}
        external = {title.strip().lower() for title in titles_of(meta.get("external"))}
        for key in ("prerequisites", "next"):
            for title in titles_of(meta.get(key)):
                wanted = title.strip().lower()
                if wanted in known or wanted in external:
                    continue
                close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.5)
                hint = f"; the closest titles are {', '.join(repr(known[c]) for c in close)}" if close else ""
                line = _line(source, key)
                where = f"{page}:{line}" if line else page
                raise ValueError(f"{where}: key {key!r}: {title!r} is not the title of another page of this "
                                 f"site{hint}. Fix: correct the title, or list it under 'external:' if that "
                                 "module lives elsewhere on purpose")

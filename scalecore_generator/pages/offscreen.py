"""Let the browser skip the style and layout of what a reader has not scrolled to yet.

A module page is long: three guard panels, a dozen self-checks, formulas, notes for three kinds of
reader, about 2,600 elements in all. On a phone-class CPU (Lighthouse's 4x throttling) Chromium
spent 2.3-2.5 s of main-thread time recalculating style and layout for all of them while the page
loaded, several times over (every parser chunk, then again when Material's script rewrites the
links and sets the palette), against 0.6-0.8 s for a plain Material page of 750 elements: that,
not our scripts, was most of the page's total blocking time.

``content-visibility: auto`` tells the browser it may skip a box's contents while the box is off
screen, and it keeps the contents in the document: find-in-page, anchors, the keyboard's focus,
screen readers and search engines all still see them, and the browser renders the box as it
nears the viewport. So the build wraps each run of blocks *between* two headings in
``<div class="scalecore-offscreen">`` boxes of about a screen's height each, cut between blocks;
the stylesheet (assets/scalecore.css) gives those boxes ``content-visibility: auto``.

Why between headings and not around whole sections: Material's table of contents reads every
heading's position as the page loads. A heading inside a skipped box forces that box's layout,
one box at a time; measured on the first module page, wrapping whole sections made the style and
layout work 1.7x *larger* than wrapping nothing, while wrapping only the runs between headings
made it 2.3x smaller (Lighthouse, mobile, 2 runs each).

A skipped box has no size of its own, so each carries an estimate of its height
(``contain-intrinsic-block-size: auto <estimate>px``): the scrollbar and the table of contents are
about right before the reader gets there, and once a box has been rendered the browser keeps its
real size (the ``auto``). The estimate is a rough model of a column of text, figures and tables,
fitted to the heights Chromium measured for the boxes of the module pages and four guides at
phone width (tests/test_offscreen.py holds it to its tolerance). Scroll anchoring keeps what the reader sees
still while an estimate above it is replaced by the real height.

Written by hand, with a tokenizer of a few regular expressions: no library wraps an HTML
fragment's top-level runs, a DOM parser would reserialise (and alter) the author's HTML, and the
standard library's html.parser took four times as long (0.25 s against 0.065 s a build, under
cProfile).
"""

from __future__ import annotations

import re

CLASS = "scalecore-offscreen"
OPENING = f'<div class="{CLASS}"'  # how each box starts: wrap writes it, first_screen finds it
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SMALLEST_RUN = 1500  # characters of HTML: below this, skipping saves less than the box costs
SCREEN = 800  # px: about a phone's screen, the height a box is cut to (see boxes_of)

# The height model, px per feature, fitted (least squares on the relative error) to the heights of
# the boxes of the three module pages and four guides at 412 px, a phone (median error 12 %); at
# 1280 px it overestimates by about a fifth, which scroll anchoring absorbs.
PER_CHARACTER = 0.33
PER_BLOCK = 20
PER_FIGURE = 68
PER_TABLE_ROW = 63
PER_CODE_LINE = 6.4

_TAG = re.compile(r"<[^>]+>")
_BLOCKS = re.compile(r"<(?:p|li|div|details|summary|pre|h[1-6]|fieldset|figure|blockquote|math)\b")
_FIGURES = re.compile(r"<(?:svg|img|canvas)\b[^>]*?(?:viewBox|src|width)")
_ROWS = re.compile(r"<tr\b")
_CODE = re.compile(r"<pre\b.*?</pre>", re.S)
_HIDDEN = re.compile(r"<(script|style|template)\b.*?</\1>", re.S)
_CLOSED_DETAILS = re.compile(r"(<details\b(?![^>]*\bopen\b)[^>]*>\s*(?:<summary\b.*?</summary>)?).*?</details>", re.S)


# A tag, its quoted attribute values allowed to hold ">", or a comment, or a raw-text element
# (script, style: their text is not markup) whole.
_TOKEN = re.compile(r"""<!--.*?-->|<(script|style|textarea)\b(?:[^>"']+|"[^"]*"|'[^']*')*>.*?</\1\s*>"""
                    r"""|<(/?)([a-zA-Z][^\s/>]*)((?:[^>"']+|"[^"]*"|'[^']*')*)>""", re.S | re.I)


def top_level_starts(html: str) -> list[tuple[int, str]]:
    """The offset and tag name of each element of the fragment that is not inside another.

    An end tag closes the innermost open element of its name and every element opened inside
    it (as a browser closes them); an end tag with nothing to close is ignored."""
    starts, open_tags = [], []
    for token in _TOKEN.finditer(html):
        raw_text, closing, name, rest = token.groups()
        if raw_text:
            if not open_tags:
                starts.append((token.start(), raw_text.lower()))
            continue
        if name is None:
            continue  # a comment
        name = name.lower()
        if closing:
            if name in open_tags:
                del open_tags[len(open_tags) - 1 - open_tags[::-1].index(name):]
            continue
        if not open_tags:
            starts.append((token.start(), name))
        if name not in VOID and not rest.rstrip().endswith("/"):
            open_tags.append(name)
    return starts


def estimate(fragment: str) -> int:
    """A rough height, in px, of a run of blocks in the content column at phone width: its text,
    its blocks, figures, table rows and lines of code (closed <details> count as their summary)."""
    visible = _CLOSED_DETAILS.sub(r"\1", _HIDDEN.sub("", fragment))
    text = re.sub(r"\s+", " ", _TAG.sub(" ", visible)).strip()
    code_lines = sum(block.count("\n") for block in _CODE.findall(visible))
    return round(PER_CHARACTER * len(text) + PER_BLOCK * len(_BLOCKS.findall(visible))
                 + PER_FIGURE * len(_FIGURES.findall(visible)) + PER_TABLE_ROW * len(_ROWS.findall(visible))
                 + PER_CODE_LINE * code_lines)


def first_screen(page: str) -> str:
    """The finished page's content up to its first off-screen box: what the browser lays out for
    its first paint (the boxes after it are skipped until the reader nears them)."""
    start = page.find("<article")
    if start < 0:
        return ""
    box = page.find(OPENING, start)
    return page[start:box if box >= 0 else len(page)]


def wrap(html: str) -> str:
    """The content with each long enough run of blocks between two top-level headings wrapped in
    boxes the browser may skip while they are off screen, about a screen high each (see
    boxes_of). What comes before the first heading (the top of the page, on screen as it opens)
    is left as it is."""
    starts = top_level_starts(html)
    ends = [offset for offset, _ in starts[1:]] + [len(html)]  # each element ends where the next starts
    headings = [index for index, (_, tag) in enumerate(starts) if tag in HEADINGS]
    pieces, done = [], 0
    for heading, following in zip(headings, headings[1:] + [len(starts)]):
        blocks = [html[ends[index]:ends[index + 1]] for index in range(heading, following - 1)]
        runs = boxes_of(blocks)
        # The first screen under the page's title is on screen as it opens: it is never skipped
        # (its formulas are what the early math-font request looks for, math_font.preloaded).
        opening = runs[:1] if heading == headings[0] and starts[heading][1] == "h1" else []
        pieces += [html[done:ends[heading]], *opening, *(_box(run) for run in runs[len(opening):])]
        done = ends[following - 1]
    pieces.append(html[done:])
    return "".join(pieces)


def boxes_of(blocks: list[str]) -> list[str]:
    """The run of blocks between two headings cut, between its blocks, into runs of about a
    screen's height (SCREEN, estimated), the last one taking a remainder too short to skip.

    Why not one box for the whole run: a box is rendered whole once any of it nears the viewport,
    so the section under the first heading, often several screens long, was styled and laid out
    in full, again at every chunk the parser handed over while the page loaded (the softmax page's
    first section is about 4,500 px high at phone width)."""
    runs, current, height = [], [], 0
    for block in blocks:
        current.append(block)
        height += estimate(block)
        if height >= SCREEN:
            runs.append("".join(current))
            current, height = [], 0
    rest = "".join(current)
    if runs and len(rest.strip()) < SMALLEST_RUN:
        runs[-1] += rest
    elif rest:
        runs.append(rest)
    return runs


def _box(run: str) -> str:
    if len(run.strip()) < SMALLEST_RUN:
        return run
    body = run.rstrip()
    tail = run[len(body):]
    return (f'{OPENING} style="contain-intrinsic-block-size: auto {estimate(body)}px">'
            f"{body}</div>{tail}")

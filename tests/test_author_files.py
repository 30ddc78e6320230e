"""An author's own SVG, HTML and XML files carry no script onto the site's origin
(scalecore_generator/pages/author_files.py; issue 46, item 2).

What a file carries is found with a parser, as a browser reads it; a file with a script stops the
build with its file, line and fix, and the previous site stays; the site allows one by name
(``allow_inline_scripts``) and the build lists what it allowed; a figure without script builds
as before.
"""

from __future__ import annotations

import gzip

import pytest

from scalecore_generator.pages.author_files import findings
from sites import build, copy_site, edit, tree

SVG = 'xmlns="http://www.w3.org/2000/svg"'
XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"'
FIGURE = f'<svg {SVG} width="40" height="20" viewBox="0 0 40 20">\n<style>rect {{ fill: #c33 }}</style>\n' \
         '<rect width="40" height="20"/>\n<a href="https://example.org/"><text y="15">ok</text></a>\n</svg>\n'

CARRIERS = {  # file name -> (text, the first finding's line and words)
    "script.svg": (f'<svg {SVG}>\n<rect/>\n<script>alert(1)</script>\n</svg>', (3, "a <script> element")),
    "handler.svg": (f'<svg {SVG} onload="alert(1)"/>', (1, "an event handler (onload=) on <svg>")),
    "link.svg": (f'<svg {SVG} {XLINK}>\n<a xlink:href=" java&#x09;script:alert(1)"><text>x</text></a></svg>',
                 (2, "a javascript: URL (xlink:href=) on <a>")),
    "foreign.svg": (f'<svg {SVG}><foreignObject>\n<div xmlns="http://www.w3.org/1999/xhtml">\n'
                    '<script>alert(1)</script></div></foreignObject></svg>', (3, "a <script> element")),
    "animated.svg": (f'<svg {SVG}><a><animate attributeName="href" values="x;javascript:alert(1)"/></a></svg>',
                     (1, "a javascript: URL (values=) on <animate>")),
    "set.svg": (f'<svg {SVG}><set attributeName="onmouseover" to="alert(1)"/></svg>',
                (1, "an animation of an event handler (attributeName='onmouseover') on <set>")),
    "xslt.svg": (f'<?xml-stylesheet type="text/xsl" href="x.xsl"?>\n<svg {SVG}/>',
                 (1, "an XSLT stylesheet (<?xml-stylesheet?>)")),
    "entity.svg": (f'<!DOCTYPE svg [<!ENTITY s "<script>alert(1)</script>">]>\n<svg {SVG}>\n&s;</svg>',
                   (3, "a <script> element")),
    "broken.svg": (f'<svg {SVG}>\n<script>alert(1)</script><rect></svg>', (2, "a <script> element")),
    "page.html": ("<!doctype html>\n<p>hi</p>\n<img src=x onerror=alert(1)>", (3, "an event handler (onerror=) on <img>")),
    "comment.html": ("<p>hi</p>\n<!--><script>alert(1)</script><!-- -->", (2, "a <script> element")),
    "srcdoc.html": ('<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
                    (1, "a document with a script in <iframe srcdoc>")),
    "refresh.html": ('<meta http-equiv="refresh" content="0; URL=javascript:alert(1)">',
                     (1, "a javascript: URL (content=) on <meta>")),
    "style.html": ("<style>a{}</style ><script>alert(1)</script>", (1, "a <script> element")),
    "doc.xhtml": ('<html xmlns="http://www.w3.org/1999/xhtml"><body><script>alert(1)</script></body></html>',
                  (1, "a <script> element")),
    "feed.xml": ('<?xml version="1.0"?>\n<feed><h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script></feed>',
                 (2, "a <script> element")),
}


@pytest.mark.parametrize("name", sorted(CARRIERS))
def test_a_script_in_an_author_file_is_found_with_its_line(tmp_path, name):
    text, first = CARRIERS[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert findings(tmp_path / name)[0] == first


def test_a_figure_and_files_of_other_kinds_carry_nothing(tmp_path):
    (tmp_path / "figure.svg").write_text(FIGURE, encoding="utf-8")
    (tmp_path / "styled.svg").write_text(f'<?xml-stylesheet type="text/css" href="a.css"?>\n{FIGURE}', encoding="utf-8")
    (tmp_path / "notes.txt").write_text("<script>alert(1)</script>", encoding="utf-8")
    (tmp_path / "plain.html").write_text('<p title="javascript: the language">Learn <a href="a.html">it</a></p>',
                                         encoding="utf-8")
    assert [findings(tmp_path / name) for name in ("figure.svg", "styled.svg", "notes.txt", "plain.html")] == [[]] * 4


def test_a_packed_or_utf16_svg_is_read_too(tmp_path):
    text = f'<svg {SVG}>\n<script>alert(1)</script></svg>'
    (tmp_path / "packed.svgz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "wide.svg").write_bytes(text.encode("utf-16"))
    assert findings(tmp_path / "packed.svgz") == findings(tmp_path / "wide.svg") == [(2, "a <script> element")]


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    """The fixture site, built once, with a figure of the author's (no script) shown on a page."""
    folder = copy_site(tmp_path_factory.mktemp("author-files") / "site")
    (folder / "docs" / "figures").mkdir()
    (folder / "docs" / "figures" / "drawn.svg").write_text(FIGURE, encoding="utf-8")
    edit(folder / "docs" / "index.md", "A page without panels.", "A page without panels.\n\n![A figure](figures/drawn.svg)")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    return folder


@pytest.mark.build
def test_an_svg_with_a_script_stops_the_build_with_file_line_and_fix(fixture_site, tmp_path):
    folder = copy_site(tmp_path / "site", source=fixture_site)
    before = tree(folder / "site")
    assert "figures/drawn.svg" in before
    (folder / "docs" / "evil.svg").write_text(f'<svg {SVG}>\n<rect/>\n<script>localStorage.clear()</script>\n'
                                              '<rect onclick="alert(1)"/></svg>\n', encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1
    assert result.errors[-1] == (
        "scalecore: docs/evil.svg:3: a <script> element (and 1 more) in a file the site publishes as it is: opened, "
        "linked or framed, it would run on the site's origin, where no page's Content-Security-Policy covers it, and "
        "could read what readers keep there (notes, the mentor's files). Fix: remove the script (a figure needs "
        "none), or move the code into a .js file under docs/ and add it with extra_javascript, or allow this file's "
        "scripts with the plugin option allow_inline_scripts: [evil.svg]."), result.describe()
    assert tree(folder / "site") == before


@pytest.mark.build
def test_every_refused_file_is_named_and_an_allowed_one_is_listed(fixture_site, tmp_path):
    folder = copy_site(tmp_path / "site", source=fixture_site)
    (folder / "docs" / "demo").mkdir()
    (folder / "docs" / "demo" / "widget.html").write_text("<!doctype html>\n<button onclick=\"go()\">Go</button>\n"
                                                          '<script src="widget.js"></script>\n', encoding="utf-8")
    (folder / "docs" / "evil.svg").write_text(f'<svg {SVG} onload="alert(1)"/>\n', encoding="utf-8")
    result = build(folder)
    assert result.returncode == 1
    assert result.errors[-1].startswith(
        "scalecore: docs/demo/widget.html:2: an event handler (onclick=) on <button> (and 1 more) in a file the site "
        "publishes as it is; docs/evil.svg:1: an event handler (onload=) on <svg> in a file the site publishes as it "
        "is: opened,"), result.describe()
    assert result.errors[-1].endswith("allow_inline_scripts: [demo/widget.html, evil.svg]."), result.describe()

    edit(folder / "mkdocs.yml", "      live: false\n",
         "      live: false\n      allow_inline_scripts: [demo/widget.html, evil.svg]\n")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    assert ("scalecore: docs/demo/widget.html: allowed 2 scripts (allow_inline_scripts): line 2: an event handler "
            "(onclick=) on <button>; line 3: a <script> element") in result.lines("INFO")
    assert "scalecore: docs/evil.svg: allowed 1 script (allow_inline_scripts): line 1: an event handler (onload=) " \
           "on <svg>" in result.lines("INFO")
    assert (folder / "site" / "evil.svg").is_file()


# --------------------------------------------------------------------------------------------
# The service worker's policy for files that are not pages (builder/service-worker.js, isolated)
# --------------------------------------------------------------------------------------------

STEAL = "<script>localStorage.setItem('stolen', document.domain + ':' + (localStorage.getItem('notes') || ''))</script>"
INTERACTIVE = f'<svg {SVG}><script>localStorage.setItem("allowed", "ran")</script></svg>\n'
CONTROLLED = "() => !!navigator.serviceWorker.controller"
FIGURES = """() => [...document.querySelectorAll('img, svg.inline')].map(e => e.tagName === 'IMG'
    ? e.complete && e.naturalWidth : e.getBoundingClientRect().width > 0)"""


@pytest.fixture(scope="module")
def served_site(fixture_site, tmp_path_factory):
    """The fixture site with a figure shown as <img> and inline, and an SVG whose script the site
    allows; after the build, an SVG with a script put in the published folder by other means."""
    from browser import StaticServer

    folder = copy_site(tmp_path_factory.mktemp("served") / "site", source=fixture_site)
    (folder / "docs" / "interactive.svg").write_text(INTERACTIVE, encoding="utf-8")
    inline = FIGURE.replace("<svg ", '<svg class="inline" ').replace("\n", "")
    edit(folder / "docs" / "index.md", "![A figure](figures/drawn.svg)",
         f"![A figure](figures/drawn.svg)\n\n<div>{inline}</div>")
    edit(folder / "mkdocs.yml", "      live: false\n", "      live: false\n      allow_inline_scripts: [interactive.svg]\n")
    result = build(folder)
    assert result.returncode == 0, result.describe()
    (folder / "site" / "evil.svg").write_text(f"<svg {SVG}>{STEAL}</svg>\n", encoding="utf-8")
    server = StaticServer(folder / "site")
    yield folder, server
    server.close()


@pytest.mark.browser
def test_the_worker_serves_files_that_are_not_pages_with_a_policy_that_runs_nothing(chromium, served_site):
    folder, server = served_site
    context = chromium.new_context(service_workers="allow")
    try:
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function(CONTROLLED, timeout=20_000)
        page.evaluate("localStorage.setItem('notes', 'a reader wrote this')")
        page.reload()
        page.wait_for_load_state("networkidle")
        assert page.evaluate(FIGURES) == [40, True], "a figure no longer draws under the worker"

        opened = page.goto(server.url + "evil.svg")
        page.wait_for_timeout(300)
        page.goto(server.url + "interactive.svg")  # allowed by name: it runs as its host serves it
        page.wait_for_timeout(300)
        page.goto(server.url)
        assert page.evaluate("[localStorage.getItem('stolen'), localStorage.getItem('allowed')]") == [None, "ran"]
        assert "sandbox" in opened.all_headers().get("content-security-policy", ""), opened.all_headers()

        context.set_offline(True)  # the worker's cached copy: the same policy, the figure drawn
        page.reload()
        assert page.evaluate(FIGURES) == [40, True]
        offline_svg = page.evaluate("""async () => {
            const answer = await fetch('figures/drawn.svg');
            return [answer.status, answer.headers.get('content-security-policy')];
        }""")
        assert offline_svg[0] == 200 and "sandbox" in offline_svg[1], offline_svg
    finally:
        context.close()

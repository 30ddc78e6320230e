"""What an author's own files may not carry onto the site's origin: scripts.

An SVG, HTML or XML file under docs/ is published as it is, on the site's origin, where no page
policy covers it: opened, linked or framed, a script in it runs as the site, and can read what
readers keep there (their notes in localStorage, the mentor's files in IndexedDB) and change the
site's pages. So each such file is parsed, as a browser reads it: SVG and XML with the standard
library's XML parser (expat), HTML with its HTML tokenizer (html.parser), and XML that is not
well-formed with the tokenizer too (a browser runs what comes before the first error). A file
that carries a script is a build error naming the file, the line and the fix, unless the site
allows that file by name (the plugin option ``allow_inline_scripts``, as for pages:
pages/author_scripts.py); then the build says what it allowed. A script is:

- a ``<script>`` element, in any namespace (an SVG's, or HTML's inside a ``<foreignObject>``);
- an event handler attribute (``onload=``, ``onclick=``...);
- a ``javascript:`` URL in an attribute (``href``, ``xlink:href``, ``src``, a refresh's ``url=``,
  or among the values an SVG animation sets), or an animation that sets an ``on*`` attribute;
- an ``<iframe srcdoc>`` whose document carries one of these;
- an XSLT stylesheet (``<?xml-stylesheet type="text/xsl"?>``), which writes a document of its
  own, scripts included.

What html.parser takes for a comment, a declaration or a processing instruction is read again as
HTML: where it ends a comment later than a browser does (``<!-->``), what follows is not hidden.
"""

from __future__ import annotations

import gzip
import html
import re
from html.parser import HTMLParser
from pathlib import Path
from xml.parsers import expat

from scalecore_generator.pages.author_scripts import AuthorScriptError

# Files a browser opens as a document that can run script: HTML, and XML of any kind (Chromium
# renders an XML document with its XHTML and SVG elements, scripts included).
HTML_SUFFIXES = {".html", ".htm", ".shtml"}
XML_SUFFIXES = {".svg", ".svgz", ".xhtml", ".xht", ".xml", ".xsl", ".xslt", ".rss", ".atom", ".mml"}
SUFFIXES = HTML_SUFFIXES | XML_SUFFIXES
ANIMATIONS = {"set", "animate", "animatetransform", "animatemotion", "animatecolor"}
# The attributes a browser follows as a URL (a refresh's content; the values an animation sets).
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "data", "poster", "background", "codebase", "cite",
                  "longdesc", "usemap", "icon", "manifest", "ping", "lowsrc", "dynsrc", "content",
                  "to", "from", "values", "by"}
# A browser drops tabs and line breaks from a URL and strips control characters and spaces around it.
URL_NOISE = re.compile(r"[\t\n\r]")
JAVASCRIPT = re.compile(r"(?:^|;|url\s*=\s*['\"]?)\s*javascript:")
MOST_BYTES = 64 * 2**20  # an .svgz is read this far, decompressed: a bomb is refused, not unpacked


def scripted(path: Path) -> bool:
    """Whether ``path`` is a file this module reads (by its name)."""
    return path.suffix.lower() in SUFFIXES


def _javascript(value: str) -> bool:
    cleaned = URL_NOISE.sub("", value).strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12"
                                             "\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ").lower()
    return bool(JAVASCRIPT.search(cleaned))


def _element_findings(tag: str, attrs: list[tuple[str, str | None]], line: int) -> list[tuple[int, str]]:
    """What one start tag carries: ``(line, what)`` for each script."""
    local = tag.rsplit(":", 1)[-1].rsplit(" ", 1)[-1].lower()
    found = []
    if local == "script":
        found.append((line, "a <script> element"))
    for name, value in attrs:
        attribute = name.rsplit(":", 1)[-1].rsplit(" ", 1)[-1].lower()
        if name.startswith("xmlns"):
            continue
        if attribute.startswith("on"):
            found.append((line, f"an event handler ({name}=) on <{local}>"))
        elif value and attribute in URL_ATTRIBUTES and _javascript(value):
            found.append((line, f"a javascript: URL ({name}=) on <{local}>"))
        elif value and attribute == "srcdoc" and html_findings(html.unescape(value)):
            found.append((line, f"a document with a script in <{local} srcdoc>"))
        elif value and local in ANIMATIONS and attribute == "attributename" and value.strip().lower().startswith("on"):
            found.append((line, f"an animation of an event handler (attributeName={value!r}) on <{local}>"))
    return found


class _Tokens(HTMLParser):
    """Every start tag of an HTML text, with its line; what it skips read again."""

    def __init__(self, first_line: int = 1):
        super().__init__(convert_charrefs=True)
        self.first_line = first_line
        self.found: list[tuple[int, str]] = []

    def line(self) -> int:
        return self.first_line + self.getpos()[0] - 1

    def handle_starttag(self, tag, attrs):
        self.found.extend(_element_findings(tag, attrs, self.line()))

    handle_startendtag = handle_starttag

    def _again(self, text: str):
        if "<" in text:
            self.found.extend(html_findings(text, self.line()))

    def handle_comment(self, data):
        self._again(data)

    def handle_decl(self, decl):
        self._again(decl)

    def unknown_decl(self, data):
        self._again(data)

    def handle_pi(self, data):
        self._again(data)
        self._stylesheet(data)

    def handle_data(self, data):
        if self.cdata_elem == "style":  # a <style>'s text: a browser may end it sooner than html.parser
            self._again(data)

    def _stylesheet(self, data: str):
        target, _, rest = data.partition(" ")
        if target == "xml-stylesheet" and _transforms(rest):
            self.found.append((self.line(), "an XSLT stylesheet (<?xml-stylesheet?>)"))


def _transforms(pseudo_attributes: str) -> bool:
    """Whether an ``<?xml-stylesheet?>`` names anything but CSS (XSLT writes a document of its own)."""
    kind = re.search(r"""\btype\s*=\s*["']([^"']*)["']""", pseudo_attributes)
    href = re.search(r"""\bhref\s*=\s*["']([^"']*)["']""", pseudo_attributes)
    if kind:
        return kind[1].strip().lower() != "text/css"
    return not (href and href[1].lower().split("?")[0].endswith(".css"))


def html_findings(text: str, first_line: int = 1) -> list[tuple[int, str]]:
    """The scripts of an HTML text: ``(line, what)``, in order."""
    tokens = _Tokens(first_line)
    tokens.feed(text)
    tokens.close()
    return sorted(set(tokens.found))


def xml_findings(data: bytes) -> list[tuple[int, str]] | None:
    """The scripts of an XML document (SVG, XHTML...), or None where it is not well-formed."""
    parser = expat.ParserCreate()
    found: list[tuple[int, str]] = []

    def start(tag, attrs):
        found.extend(_element_findings(tag, list(attrs.items()), parser.CurrentLineNumber))

    def instruction(target, data):
        if target == "xml-stylesheet" and _transforms(data):
            found.append((parser.CurrentLineNumber, "an XSLT stylesheet (<?xml-stylesheet?>)"))

    parser.StartElementHandler = start
    parser.ProcessingInstructionHandler = instruction
    try:
        parser.Parse(data, True)
    except expat.ExpatError:
        return None
    return sorted(set(found))


def _text(data: bytes) -> str:
    """Bytes as a browser would read them for markup: by their BOM, else as UTF-8 (every byte the
    markup is made of reads the same in any ASCII-compatible encoding)."""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if data.startswith(bom):
            return data.decode(codec, errors="replace")
    return data.decode("utf-8", errors="replace")


def findings(path: Path) -> list[tuple[int, str]]:
    """The scripts ``path`` carries, ``(line, what)`` in order; none for a file of another kind."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        return []
    if suffix == ".svgz":
        with gzip.open(path) as packed:
            data = packed.read(MOST_BYTES + 1)
        if len(data) > MOST_BYTES:
            return [(1, f"more than {MOST_BYTES // 2**20} MB once decompressed (not read)")]
    else:
        data = path.read_bytes()
    if suffix in XML_SUFFIXES:
        found = xml_findings(data)
        if found is not None:
            return found
    return html_findings(_text(data))


def check_files(files: dict[str, Path], where_of, allowed: set[str], log) -> frozenset[str]:
    """Refuse (or, for the files the site allows by name, list) the scripts in the author's files:
    ``files`` maps a path under docs/ (as the option names it) to the file, ``where_of`` gives the
    name messages use (``docs/evil.svg``). Every refused file is named, each with its first script.
    Returns the files allowed that carry scripts."""
    refused, allowed_scripts = [], set()
    for name, path in sorted(files.items()):
        if not scripted(path):
            continue
        found = findings(path)
        if not found:
            continue
        where = where_of(name)
        if name in allowed:
            listed = "; ".join(f"line {line}: {what}" for line, what in found)
            log.info(f"{where}: allowed {len(found)} script{'s' * (len(found) != 1)} (allow_inline_scripts): {listed}")
            allowed_scripts.add(name)
            continue
        line, what = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        refused.append((f"{where}:{line}: {what}{more} in a file the site publishes as it is", name))
    if not refused:
        return frozenset(allowed_scripts)
    problems = "; ".join(problem for problem, name in refused)
    names = ", ".join(name for problem, name in refused)
    raise AuthorScriptError(
        f"{problems}: opened, linked or framed, it would run on the site's origin, where no page's "
        "Content-Security-Policy covers it, and could read what readers keep there (notes, the mentor's files). "
        "Fix: remove the script (a figure needs none), or move the code into a .js file under docs/ and add it with "
        f"extra_javascript, or allow this file's scripts with the plugin option allow_inline_scripts: [{names}].")

"""The mentor wired into a site build: every page read as it renders, each module page's mentor
data written with the site (from the build's memo when its pages did not change)."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable

from scalecore_generator.mentor.encoder import ENCODER_PIN, encoder_available
from scalecore_generator.mentor.facts import FACTS_FORM, corpora_words, facts
from scalecore_generator.mentor.passages import READING_FORM, Page, read_page
from scalecore_generator.mentor.script import data_script, script_path, vectors_path


class Collector:
    """Reads every page as it renders, and writes each module page's mentor data with the site.

    Module pages are those with a ``code`` in their front matter; their sources are the page
    itself and the pages its ``prerequisites`` name (by title, as the header cards do)."""

    def __init__(self, memo=None, readings=None):
        self.pages: dict[str, Page] = {}  # url -> its reading (with a memo: read when a script needs it)
        self.unread: dict[str, Callable[[], Page]] = {}  # url -> its reading, from the memo or made
        self.titles: dict[str, str] = {}
        self.meta: dict[str, dict] = {}
        self.memo = memo  # a scalecore_generator.foundation.cache.Memo: each module's script, each formula's reading
        self.readings = readings if readings is not None else memo  # a page's reading, under the hash of its HTML
        self.keys: dict[str, str] = {}  # url -> that hash (with the memo only)

    def read(self, html: str, url: str, title: str, meta: dict) -> None:
        """Note a rendered page. With the memo, it is read only when a module's script has to be
        made again (a warm build reads no page: its scripts come from the memo, under the
        hashes of their pages' HTML)."""
        self.titles[url] = title
        self.meta[url] = dict(meta or {})
        if self.memo is None:
            self.pages[url] = read_page(html, url, title)
            return

        def reading():
            page = read_page(html, url, title)
            return {"passages": page.passages, "outline": page.outline, "panels": page.panels, "tables": page.tables}

        # READING_FORM: what a reading holds (round 8: the panels' tables), so a warm build does not take an older one
        key = self.keys[url] = hashlib.sha256(f"{READING_FORM}\0{url}\0{title}\0{html}".encode()).hexdigest()
        self.unread[url] = lambda: Page(url=url, title=title, **self.readings.get(key, reading))
        self.readings.keep(key)

    def page(self, url: str) -> Page:
        if url not in self.pages:
            self.pages[url] = self.unread.pop(url)()
        return self.pages[url]

    def _by_title(self) -> dict[str, str]:
        titles = {}
        for url, title in self.titles.items():
            for name in (self.meta[url].get("title"), title):
                if name:
                    titles.setdefault(str(name), url)
        return titles

    def modules(self) -> list[str]:
        return sorted(url for url, meta in self.meta.items() if meta.get("code"))

    def scripts(self, tree: dict, typeset=None, axes: dict[str, list[str]] | None = None,
                typesetter: str | None = None, only: set[str] | None = None,
                offers: Callable[[str, dict], dict] | None = None) -> dict[str, str | bytes]:
        """Site path -> text of every module page's mentor data script, and bytes of its passages'
        vectors where the encoder made them (script.vectors_path) (``only``: of these site
        paths, the pages that show the mentor); ``typeset(tex, display)``
        gives a formula's markup (the build's typesetter, whose cache already holds each one,
        ``typesetter`` its version); ``axes``: each kind's axis names (see data_script);
        ``offers(kind, options)``: the axes' values a panel with these options can show, where
        not all (Kind.offers), so that a number links to a panel that can show its state."""
        from scalecore_generator.pages.module_meta import titles_of

        titles = self._by_title()
        out = {}
        for url in self.modules():
            if only is not None and script_path(url) not in only:
                continue
            meta = self.meta[url]
            prerequisites = [titles[t] for t in titles_of(meta.get("prerequisites")) if t in titles]
            sources = [url] + [p for p in dict.fromkeys(prerequisites) if p != url]

            def write(typeset, url=url, sources=sources, code=str(meta["code"])):
                pages = [self.page(source) for source in sources]
                panels: dict[str, list[dict]] = {}  # each kind's panels, this page's first
                for page in pages:
                    for panel in page.panels:
                        if panel["kind"] not in tree:  # a kind that baked no number is never linked to
                            continue
                        offered = offers(panel["kind"], panel.get("options") or {}) if offers else {}
                        panels.setdefault(panel["kind"], []).append(
                            {"link": f"{page.url}#{panel['anchor']}", "offers": offered or {}})
                # The numbers of the kinds this page shows: a prerequisite's numbers are its mentor's.
                shown = {panel["kind"] for panel in pages[0].panels} | {"corpus", "settings"}
                vectors = bytearray()
                text = data_script(pages[0], pages, facts(tree, shown), panels, code, typeset, axes, self.memo, vectors)
                return {"text": text, "vectors": base64.b64encode(vectors).decode("ascii")}

            key = self._script_key(url, sources, tree, str(meta["code"]), axes, typesetter)
            made = write(typeset) if key is None else self._remembered(key, write, typeset)
            out[script_path(url)] = made["text"]
            if made["vectors"]:
                out[vectors_path(url)] = base64.b64decode(made["vectors"])
        return out

    def _script_key(self, url, sources, tree, code, axes, typesetter) -> str | None:
        """What a module's script is made of, hashed: the readings of its pages (by the hash of
        their HTML: the panels it links to and the kinds whose numbers it holds follow from
        them), the facts it may hold (by the key of each kind's cache entries, or their values),
        the kinds' axes, its code and the typesetter's version; None when a part has no such key."""
        kinds = getattr(tree, "key", None)
        if kinds is None or any(source not in self.keys for source in sources):
            return None
        facts_key = {name: kinds(name) or tree[name] for name in sorted(tree)}
        seen = [url, code, [self.keys[source] for source in sources], facts_key, FACTS_FORM,
                corpora_words(tree["corpus"]) if "corpus" in tree else [],  # their shipped titles and descriptions
                {kind: list(names) for kind, names in sorted((axes or {}).items())}, typesetter,
                json.loads(ENCODER_PIN.read_text(encoding="utf-8"))["files"] if encoder_available() else None]
        return "script:" + hashlib.sha256(json.dumps(seen, sort_keys=True).encode("utf-8")).hexdigest()

    def _remembered(self, key: str, write, typeset) -> dict:
        """A module's script from the memo (writing its JSON was most of the mentor's time in a
        warm build). What making it would have asked of the typesetter and of the formulas' memo
        is asked again, so that both keep what the site uses."""
        asked: list[list] = []

        def recorded(tex, display):
            asked.append([tex, display])
            return typeset(tex, display)

        kept = self.memo.get(key, lambda: {**write(recorded if typeset else None), "formulas": asked})
        for tex, display in kept["formulas"]:
            markup = typeset(tex, display) if typeset else ""
            self.memo.keep("formula:" + hashlib.sha256(json.dumps([tex, markup]).encode("utf-8")).hexdigest())
        return kept

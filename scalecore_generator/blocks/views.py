"""The shared views, run at build time: the same JavaScript that draws a chart in the page draws
its baked figure and its no-JS fallback, so they cannot drift (scalecore_generator/assets/views.js).

``figures([("heatmap", spec), ...])`` renders a batch of standalone SVG files (the bake: one
Node process per worker draws every group it bakes). A build's ``Views`` serve the templates
while pages render: one Node process for the whole build answers line by line (a page has
hundreds of numbers; starting Node for each would cost seconds), and a memo kept across builds
answers what an earlier build rendered. Node is already required (the
npm packages); nothing here is fetched.
"""

import atexit
import contextlib
import hashlib
import json
from pathlib import Path
from scalecore_generator.errors import ScalecoreError

VIEWS = Path(__file__).resolve().parents[1] / "assets" / "views.js"
BATCH = r"""
const fs = require("fs"), vm = require("vm"), readline = require("readline");
vm.runInThisContext(fs.readFileSync(process.argv[1], "utf8"), { filename: process.argv[1] });
const V = globalThis.scalecoreViews;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let answer;
  try {
    answer = { markup: JSON.parse(line).map(([view, spec, file]) => {
      const markup = V[view](spec);
      return file ? V.standalone(markup) : markup;
    }) };
  } catch (error) {
    answer = { error: String(error && error.message || error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""


class ViewError(ScalecoreError):
    """Node is missing or a view failed: the message says which and the fix."""


_batch = None  # (pid, hash of views.js, LineServer): one Node process per bake worker


def _batch_server():
    """This process's Node process for batches of figures, started on first use. A bake worker
    draws the figures of many groups: one Node for all of them, not one per group (Node's
    start-up was a tenth of a cold bake). A forked worker starts its own."""
    import os

    from scalecore_generator.foundation.node import LineServer, NodeError

    global _batch
    here = (os.getpid(), _views_hash())
    if _batch is not None and (_batch[:2] != here or _batch[2].process.poll() is not None):
        if _batch[0] == here[0]:  # views.js edited under mkdocs serve: draw with the new one
            _batch[2].close()
        _batch = None
    if _batch is None:
        try:
            server = LineServer(BATCH, [str(VIEWS)], "drawing the figures (scalecore_generator/assets/views.js)")
        except NodeError as error:
            raise ViewError(str(error)) from None
        _batch = (*here, server)
        atexit.register(server.close)
    return _batch[2]


def render(calls: list[tuple[str, dict]], as_files: bool = False) -> list[str]:
    """The markup of each (view, spec), drawn by views.js in this process's Node process."""
    from scalecore_generator.foundation.node import NodeError

    if not calls:
        return []
    try:
        answer = _batch_server().ask([[view, spec, as_files] for view, spec in calls])
    except NodeError as error:
        raise ViewError(str(error)) from None
    if "error" in answer:
        raise ViewError(f"a view of scalecore_generator/assets/views.js failed in Node: {answer['error']}")
    return answer["markup"]


def figures(calls: list[tuple[str, dict]]) -> list[bytes]:
    """Each (view, spec) as the bytes of a standalone SVG file."""
    return [markup.encode("utf-8") for markup in render(calls, as_files=True)]


SERVER = r"""
const fs = require("fs"), vm = require("vm"), readline = require("readline");
vm.runInThisContext(fs.readFileSync(process.argv[1], "utf8"), { filename: process.argv[1] });
const V = globalThis.scalecoreViews;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let answer;
  try {
    const [view, spec] = JSON.parse(line);
    answer = { markup: V[view](...(Array.isArray(spec) ? spec : [spec])) };
  } catch (error) {
    answer = { error: String(error && error.message || error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""


class _Server:
    """One Node process running views.js (see scalecore_generator/foundation/node.py)."""

    def __init__(self):
        from scalecore_generator.foundation.node import LineServer, NodeError

        try:
            self.lines = LineServer(SERVER, [str(VIEWS)], "drawing the panels' fallbacks (scalecore_generator/assets/views.js)")
        except NodeError as error:
            raise ViewError(str(error)) from None

    def ask(self, view: str, spec) -> str:
        from scalecore_generator.foundation.node import NodeError

        try:
            answer = self.lines.ask([view, spec])
        except NodeError as error:
            raise ViewError(str(error)) from None
        if "error" in answer:
            raise ViewError(f"the view {view!r} of scalecore_generator/assets/views.js failed: {answer['error']}")
        return answer["markup"]

    def close(self):
        self.lines.close()


KEYS = "sha256 of the request"  # how the memo names a request (request_key), part of its version


def request_key(name: str, spec) -> str:
    """A request as the memo names it: the hash of its JSON. A figure's request holds the whole
    markup of its view (Views.figure): as keys, those were a third of the memo's megabytes,
    read on every warm build."""
    text = json.dumps([name, spec], sort_keys=True, allow_nan=False, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Views:
    """The shared views of one build: each view's markup from the build's memo or from one Node
    process, started on first use and closed with the build.

    The memo (``memo_file``, kept across builds) holds each request's markup under the hash of
    views.js, so an edited view renders again; it carries its own hash (a damaged one is
    reported and rendered again) and keeps, when saved, exactly the requests this build made,
    so it stays bounded. A warm build that renders the same views starts no Node at all."""

    def __init__(self, memo_file: Path | None = None, log=None):
        self.memo_file = Path(memo_file) if memo_file is not None else None
        self.log = log
        self.version = f"{_views_hash()} {KEYS}"
        self._memo: dict[str, str] | None = None  # read on first use (memo)
        self.loaded: set[str] = set()  # what the memo held when the build started
        self.used: set[str] = set()  # the requests this build made: what the memo keeps
        self.kept: set[str] = set()  # requests an earlier render made, kept without asking them (keep)
        self.asked: set[str] | None = None  # where recording() notes the requests
        self.server = None

    @property
    def memo(self) -> dict[str, str]:
        """Each request's markup, as earlier builds rendered it: read when a view is first asked
        for, so a build whose panels all come from their own memo (blocks/remembered.py) reads
        none of its megabytes."""
        if self._memo is None:
            from scalecore_generator.foundation.cache import read_record

            self._memo = {}
            data = read_record(self.memo_file, self.log) if self.memo_file is not None else None
            if isinstance(data, dict) and data.get("views") == self.version and isinstance(data.get("markup"), dict):
                self._memo.update(data["markup"])
            self.loaded = set(self._memo)
        return self._memo

    def view(self, name: str, spec) -> str:
        """The markup of one view (or one number: ``view("number", [value, spec])``)."""
        key = request_key(name, spec)
        self.used.add(key)
        if self.asked is not None:
            self.asked.add(key)
        memo = self.memo
        if key not in memo:
            if self.server is None:
                self.server = _Server()
            memo[key] = self.server.ask(name, spec)
        return memo[key]

    def figure(self, name: str, spec) -> str:
        """One view as the text of a standalone SVG file."""
        return self.view("standalone", self.view(name, spec))

    @contextlib.contextmanager
    def recording(self, asked: set[str]):
        """``with views.recording(asked):`` every request made meanwhile is noted in ``asked``, so
        a render taken later from a memo can keep them (keep)."""
        outer, self.asked = self.asked, asked
        try:
            yield asked
        finally:
            self.asked = outer
            if outer is not None:
                outer.update(asked)

    def keep(self, keys) -> None:
        """Keep these requests' markup for later builds, as if asked again (without reading the memo)."""
        self.kept.update(keys)

    def save(self) -> None:
        """Keep what this build rendered or kept, and only that, when it differs from what the
        memo held (best effort: the memo only saves time). A build that never read the memo
        leaves it as it is."""
        if self.memo_file is None or self._memo is None:
            return
        keys = self.used | (self.kept & self._memo.keys())
        if keys == self.loaded:
            return
        from scalecore_generator.foundation.cache import write_record

        try:
            write_record(self.memo_file, {"views": self.version,
                                          "markup": {key: self._memo[key] for key in sorted(keys)}})
            self.loaded = keys
        except OSError:
            pass

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None


_unbuilt: Views | None = None


def unbuilt() -> Views:
    """The views for code that runs outside any build (a test, a script): no memo; its Node
    process is closed when Python exits. A build has its own (SiteBuild.views)."""
    global _unbuilt
    if _unbuilt is None:
        _unbuilt = Views()
        atexit.register(_unbuilt.close)
    return _unbuilt


def view(name: str, spec) -> str:
    """``unbuilt().view(name, spec)``: a view outside a build (a kind renders through its panel's)."""
    return unbuilt().view(name, spec)



def _views_hash() -> str:
    return hashlib.sha256(VIEWS.read_bytes()).hexdigest()

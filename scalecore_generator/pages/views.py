"""The shared views, run at build time: the same JavaScript that draws a chart in the page draws
its baked figure and its no-JS fallback, so they cannot drift (scalecore_generator/assets/views.js).

``figures([("heatmap", spec), ...])`` renders a batch of standalone SVG files (the bake: one
Node process per worker draws every group it bakes). ``view(name, spec)`` serves the templates
while pages render: one Node process for the whole build answers line by line (a page has
hundreds of numbers; starting Node for each would cost seconds). Node is already required (the
npm packages); nothing here is fetched.
"""

import atexit
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

    from scalecore_generator.build.node import LineServer, NodeError

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
    from scalecore_generator.build.node import NodeError

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
    """One Node process running views.js (see scalecore_generator/build/node.py)."""

    def __init__(self):
        from scalecore_generator.build.node import LineServer, NodeError

        try:
            self.lines = LineServer(SERVER, [str(VIEWS)], "drawing the panels' fallbacks (scalecore_generator/assets/views.js)")
        except NodeError as error:
            raise ViewError(str(error)) from None
        self.views = _views_hash()  # the views.js this process runs

    def ask(self, view: str, spec) -> str:
        from scalecore_generator.build.node import NodeError

        try:
            answer = self.lines.ask([view, spec])
        except NodeError as error:
            raise ViewError(str(error)) from None
        if "error" in answer:
            raise ViewError(f"the view {view!r} of scalecore_generator/assets/views.js failed: {answer['error']}")
        return answer["markup"]

    def close(self):
        self.lines.close()


_server = None
_memo: dict[str, str] = {}  # request -> markup, kept across builds (see use_cache)
_memo_file: Path | None = None
_loaded: set[str] = set()  # the requests the cache held when the build started
_used: set[str] = set()  # the requests this build made: what the cache keeps (so it stays bounded)


def use_cache(path: Path, log) -> None:
    """Keep rendered views in ``path`` across builds: a warm build that renders the same views
    starts no Node at all. The record carries its own hash (a damaged one is reported and
    rendered again) and the hash of views.js, so an edited view renders again."""
    from scalecore_generator.build.cache import read_record

    global _memo_file, _server
    if _server is not None and _server.views != _views_hash():  # views.js edited under mkdocs serve
        _server.close()
        _server = None
    _memo_file = Path(path)
    _memo.clear()
    _used.clear()
    data = read_record(_memo_file, log)
    if isinstance(data, dict) and data.get("views") == _views_hash() and isinstance(data.get("markup"), dict):
        _memo.update(data["markup"])
    _loaded.clear()
    _loaded.update(_memo)


def save_cache() -> None:
    """Keep what this build rendered, and only that, when it differs from what the cache held
    (best effort: the cache only saves time)."""
    if _memo_file is None or _used == _loaded:
        return
    from scalecore_generator.build.cache import write_record

    try:
        write_record(_memo_file, {"views": _views_hash(), "markup": {key: _memo[key] for key in sorted(_used)}})
        _loaded.clear()
        _loaded.update(_used)
    except OSError:
        pass


def figure(name: str, spec) -> str:
    """One view as the text of a standalone SVG file (from the memo, or the build's Node process)."""
    return view("standalone", view(name, spec))


def _views_hash() -> str:
    import hashlib

    return hashlib.sha256(VIEWS.read_bytes()).hexdigest()


def view(name: str, spec) -> str:
    """The markup of one view (or one number: ``view("number", [value, spec])``), from the memo or
    the build's one Node process, started on first use."""
    global _server
    key = json.dumps([name, spec], sort_keys=True, allow_nan=False, ensure_ascii=False)
    _used.add(key)
    if key in _memo:
        return _memo[key]
    if _server is None:
        _server = _Server()
        atexit.register(_server.close)
    markup = _memo[key] = _server.ask(name, spec)
    return markup

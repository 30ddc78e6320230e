"""The shared views, run at build time: the same JavaScript that draws a chart in the page draws
its baked figure, so the two cannot drift (build_tools/assets/views.js).

One Node process renders a whole batch: ``render([("heatmap", spec), ...])`` returns the markup
of each, and ``figure(...)`` the same as a standalone SVG file. Node is already required (the
npm packages); nothing here is fetched.
"""

import json
import shutil
import subprocess
from pathlib import Path

VIEWS = Path(__file__).resolve().parent / "assets" / "views.js"
RUNNER = r"""
const fs = require("fs"), vm = require("vm");
vm.runInThisContext(fs.readFileSync(process.argv[1], "utf8"), { filename: process.argv[1] });
const V = globalThis.scalecoreViews;
const calls = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(calls.map(([view, spec, file]) => {
  const markup = V[view](spec);
  return file ? V.standalone(markup) : markup;
})));
"""


class ViewError(Exception):
    """Node is missing or a view failed: the message says which and the fix."""


def render(calls: list[tuple[str, dict]], as_files: bool = False) -> list[str]:
    """The markup of each (view, spec), drawn by views.js in one Node process."""
    if not calls:
        return []
    node = shutil.which("node")
    if node is None:
        raise ViewError("the figures are drawn by build_tools/assets/views.js in Node, and node is not on PATH. "
                        "Fix: install Node.js 20 or newer (bash build_tools/dev.sh sets up the rest).")
    payload = json.dumps([[view, spec, as_files] for view, spec in calls])
    done = subprocess.run([node, "-e", RUNNER, str(VIEWS)], input=payload, capture_output=True, text=True,
                          timeout=300, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ViewError(f"a view of build_tools/assets/views.js failed in Node: {last}")
    return json.loads(done.stdout)


def figures(calls: list[tuple[str, dict]]) -> list[bytes]:
    """Each (view, spec) as the bytes of a standalone SVG file."""
    return [markup.encode("utf-8") for markup in render(calls, as_files=True)]

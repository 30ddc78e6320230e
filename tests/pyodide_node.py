"""Run code under the project's Pyodide in Node, with the core wheel unpacked, from pytest.

Import from a test module::

    from pyodide_node import core_wheel, run_in_pyodide  # core_wheel is a fixture

``run_in_pyodide(code, wheel)`` returns the harness's JSON answer (``result``, ``stdout``,
``stderr``, ``timings``); see ``tests/pyodide/run.mjs``. Without ``node`` or
``node_modules/pyodide`` (``npm ci`` not run) the tests are skipped with the reason, except
in CI (``CI=true``), where that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # build_tools lives at the repository root
    sys.path.insert(0, str(ROOT))

from scalecore_generator.runtime.wheel import build_wheel, sha256_of  # noqa: E402

HARNESS = ROOT / "tests" / "pyodide" / "run.mjs"
PYODIDE_DIR = ROOT / "build_tools" / "node_modules" / "pyodide"
#: A cold Pyodide load takes about 2 s here; this only catches a hung process.
TIMEOUT_S = 180


def missing_runtime() -> str | None:
    """Why the Pyodide-in-Node tests cannot run here, or None when they can."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not (PYODIDE_DIR / "pyodide.mjs").is_file():
        return f"{PYODIDE_DIR.relative_to(ROOT)} is missing (run `npm ci` at the repo root)"
    return None


def require_runtime() -> None:
    """Skip when node or node_modules/pyodide is missing; fail instead when CI=true."""
    reason = missing_runtime()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"Pyodide-in-Node tests cannot run in CI: {reason}", pytrace=False)
    pytest.skip(f"Pyodide-in-Node tests skipped: {reason}")


def _tail(text: str, limit: int = 8000) -> str:
    """The end of a long output (a Node crash prints Pyodide's whole minified source line)."""
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit} characters cut ...]{text[-limit:]}"


def run_harness(request: dict, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """Send one request to run.mjs and return the finished process (no checks)."""
    require_runtime()
    return subprocess.run(
        ["node", str(HARNESS)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )


def run_in_pyodide(code: str, wheel: Path, *, sha256: str | None = None,
                   timeout: float = TIMEOUT_S, mount: Path | None = None) -> dict:
    """Run ``code`` under Pyodide in Node with ``wheel`` unpacked; return the harness's answer.

    The Python variable ``result`` comes back (through ``json.dumps``) as ``answer["result"]``.
    ``sha256`` defaults to the wheel's real digest. ``mount``, a host folder (a built site, say),
    is readable inside at ``/mnt/site``. Raises AssertionError, with the error and
    the process's stderr, when the harness reports an error or exits non-zero.
    """
    request = {
        "wheel": str(Path(wheel).resolve()),
        "sha256": sha256 if sha256 is not None else sha256_of(wheel),
        "code": code,
    }
    if mount is not None:
        request["mount"] = str(Path(mount).resolve())
    process = run_harness(request, timeout=timeout)
    lines = process.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        answer = {}
    if process.returncode != 0 or "error" in answer or "result" not in answer:
        raise AssertionError(
            f"Pyodide harness failed (exit {process.returncode}): "
            f"{answer.get('error', '<no JSON answer>')}\n"
            f"--- stdout ---\n{_tail(process.stdout)}\n--- stderr ---\n{_tail(process.stderr)}"
        )
    return answer


@pytest.fixture(scope="session")
def core_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scalecore wheel, built once per session with scalecore_generator.runtime.wheel."""
    return build_wheel(ROOT / "scalecore", tmp_path_factory.mktemp("core-wheel"))

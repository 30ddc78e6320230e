"""The core wheel under the project's own Pyodide, in Node (tests/pyodide/run.mjs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyodide_node import ROOT, core_wheel, run_harness, run_in_pyodide  # noqa: F401 (fixture)

from scalecore_generator.runtime.wheel import read_version, sha256_of  # noqa: E402

PROBE = """
import json, sys, site
import scalecore
public = {name: type(getattr(scalecore, name)).__name__ for name in scalecore.__all__}
print("hello from", sys.platform)
result = {
    "version_info": list(sys.version_info[:3]),
    "platform": sys.platform,
    "scalecore_version": scalecore.__version__,
    "scalecore_file": scalecore.__file__,
    "site_packages": site.getsitepackages()[0],
    "public": public,
    "floats": [1.0, 0.1 + 0.2, -0.0],
}
"""


@pytest.fixture(scope="module")
def probe(core_wheel: Path) -> dict:
    """One Pyodide run that gathers the facts the tests below check."""
    return run_in_pyodide(PROBE, core_wheel)


def test_python_inside_is_3_14(probe: dict) -> None:
    assert probe["result"]["platform"] == "emscripten"
    assert probe["result"]["version_info"][:2] == [3, 14]


def test_wheel_unpacks_and_imports(probe: dict) -> None:
    result = probe["result"]
    assert result["scalecore_version"] == read_version(ROOT / "scalecore")
    assert result["scalecore_file"] == f"{result['site_packages']}/scalecore/__init__.py"


def test_public_names_resolve(probe: dict) -> None:
    import scalecore  # the CPython side, from the repository root

    assert sorted(probe["result"]["public"]) == sorted(scalecore.__all__)


def test_stdout_result_and_timings_come_back(probe: dict) -> None:
    assert probe["stdout"] == "hello from emscripten\n"
    assert probe["stderr"] == ""
    # Python's own JSON text is passed through: 1.0 stays a float.
    assert probe["result"]["floats"] == [1.0, 0.30000000000000004, -0.0]
    assert isinstance(probe["result"]["floats"][0], float)
    assert set(probe["timings"]) == {"load_ms", "unpack_ms", "run_ms"}
    assert all(value > 0 for value in probe["timings"].values())


def test_missing_result_is_null(core_wheel: Path) -> None:
    assert run_in_pyodide("x = 1", core_wheel)["result"] is None


def test_wrong_sha256_is_refused(core_wheel: Path) -> None:
    with pytest.raises(AssertionError, match="sha256 mismatch .* refusing to unpack"):
        run_in_pyodide("result = 1", core_wheel, sha256="0" * 64)


def test_tampered_wheel_is_refused(core_wheel: Path, tmp_path: Path) -> None:
    data = bytearray(core_wheel.read_bytes())
    data[len(data) // 2] ^= 0xFF
    tampered = tmp_path / core_wheel.name
    tampered.write_bytes(bytes(data))
    process = run_harness(
        {"wheel": str(tampered), "sha256": sha256_of(core_wheel), "code": "result = 1"}
    )
    assert process.returncode == 2
    answer = json.loads(process.stdout)
    assert answer["error"] == (
        f"sha256 mismatch for {tampered}: expected {sha256_of(core_wheel)}, "
        f"got {sha256_of(tampered)}; refusing to unpack"
    )


def test_python_errors_fail_with_the_traceback(core_wheel: Path) -> None:
    with pytest.raises(AssertionError, match=r"(?s)Traceback.*ValueError: boom"):
        run_in_pyodide("print('before')\nraise ValueError('boom')", core_wheel)


def test_unserialisable_result_is_an_error(core_wheel: Path) -> None:
    with pytest.raises(AssertionError, match="not JSON-serialisable"):
        run_in_pyodide("result = float('nan')", core_wheel)


@pytest.mark.parametrize("code", [
    "import sys\nsys.exit(3)",
    "import asyncio, sys\nawait asyncio.sleep(0)\nsys.exit(0)",
    "raise KeyboardInterrupt",
])
def test_base_exceptions_are_reported_not_fatal(core_wheel: Path, code: str) -> None:
    # Pyodide also re-throws these from its event loop; the harness must still answer.
    process = run_harness({"wheel": str(core_wheel), "sha256": sha256_of(core_wheel),
                           "code": code})
    assert process.returncode == 1
    answer = json.loads(process.stdout)
    last_line = answer["error"].rstrip().splitlines()[-1]
    assert last_line.startswith(("SystemExit", "KeyboardInterrupt"))

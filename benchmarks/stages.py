"""Where a build's time goes, stage by stage: ``python -m benchmarks.stages -f mkdocs.yml -d DIR``.

Runs one ``mkdocs build`` in this process with every stage of the engine-free build
(scalecore_generator/builder/site_build.py: configure, stage, prepare and its parts, expand, read,
restore, finish_page, publish, finish) and every hook of the MkDocs adapter timed, and prints one
JSON object: the seconds of each (summed over its calls), how many calls, the time to import the
generator, and the whole build. benchmarks/build.py runs it on a warm cache and reports what
Scalecore adds to a rebuild, stage by stage. Measures only; asserts nothing.
"""

import argparse
import collections
import functools
import importlib
import json
import sys
import time


# The parts of the stages that cost most on a warm build (each timed where the build calls it:
# ``from module import name`` elsewhere would keep the untimed function).
PARTS = [
    ("scalecore_generator.kinds.registry", "discover"),
    ("scalecore_generator.builder.site_build", "build_memos"),
    ("scalecore_generator.builder.bake", "bake_kinds"),
    ("scalecore_generator.builder.offline", "write"),
    ("scalecore_generator.builder.offline", "app_files"),
    ("scalecore_generator.builder.site_swap:StagedSite", "commit"),
    ("scalecore_generator.foundation.cache", "finish_build"),
    ("scalecore_generator.blocks", "expand_blocks"),  # as site_build imports it
    ("scalecore_generator.blocks.remembered:RememberedPanels", "panels"),
    ("scalecore_generator.builder.site_build", "default_source_date_epoch"),  # as site_build imports it
    ("scalecore_generator.mentor:Collector", "scripts"),
    ("scalecore_generator.pages.frontend", "minified"),
    ("scalecore_generator.runtime.pyodide", "collect"),
    ("scalecore_generator.mentor:Collector", "read"),
    ("scalecore_generator.builder.corpora", "load_for_build"),
    ("scalecore_generator.kinds.site_kinds", "usage"),
    ("scalecore_generator.builder.site_build", "build_manifest"),
    ("scalecore_generator.builder.page_pipeline", "expand_quotes"),
]


def _timed(owner, name: str, totals, calls, label: str) -> None:
    function = getattr(owner, name)

    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals[label] += time.perf_counter() - started
            calls[label] += 1

    setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-f", "--config-file", required=True)
    parser.add_argument("-d", "--site-dir", required=True)
    arguments = parser.parse_args()

    started = time.perf_counter()
    from scalecore_generator.adapters.mkdocs import plugin
    from scalecore_generator.builder.page_pipeline import PagePipeline
    from scalecore_generator.builder.publisher import Publisher
    from scalecore_generator.builder.site_build import SiteBuild
    imported = time.perf_counter() - started

    totals, calls = collections.Counter(), collections.Counter()
    for owner, prefix in ((SiteBuild, "build"), (PagePipeline, "build"), (Publisher, "publish")):
        for name, value in list(vars(owner).items()):
            if callable(value) and not name.startswith("__") and type(value).__name__ == "function":
                _timed(owner, name, totals, calls, f"{prefix}.{name}")
    for where, name in PARTS:
        module_name, _, owner = where.partition(":")
        module = importlib.import_module(module_name)
        label = owner or module_name.rsplit(".", 1)[-1]
        _timed(getattr(module, owner) if owner else module, name, totals, calls, f"{label}.{name}")
    hooks = plugin.ScalecorePlugin
    for name, value in list(vars(hooks).items()):
        if name.startswith("on_") and type(value).__name__ == "function":  # not CombinedEvent
            _timed(hooks, name, totals, calls, f"mkdocs.{name}")

    from mkdocs.__main__ import cli

    sys.argv = ["mkdocs", "build", "-q", "-f", arguments.config_file, "-d", arguments.site_dir]
    try:
        cli()
    except SystemExit as leaving:
        if leaving.code:
            raise
    whole = time.perf_counter() - started
    print(json.dumps({"whole": whole, "import": imported,
                      "stages": {label: {"seconds": totals[label], "calls": calls[label]} for label in totals}}))


if __name__ == "__main__":
    main()

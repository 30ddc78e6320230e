"""The generator's low layer: what every wing above stands on, and which imports none of them.

    cache/        the build cache (entries written atomically and checked when used, memos, the
                  digest ledger, the usage ledger that keeps it bounded, the per-user cache)
    disk.py       a disk error explained in the author's terms; atomic writes
    node.py       the JavaScript runtime the build runs (the system's Node, or one from a wheel)
    processes.py  child processes that die with the build
    manifest.py   the static API's file names (api/index.json and its classic-script twin)
    text.py       Markdown text as every wing reads it: code fences, stable ids

Above it: kinds/, then blocks/, then pages/, runtime/ and mentor/, then builder/ (the site
build and its executors), then adapters/ (the only modules that import an engine). Named so that
no tool takes it for build output (black and import-graph tools skip folders named build/).
"""

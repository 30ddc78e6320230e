"""Scalecore's site generator: it bakes every kind's grid with the core (``scalecore``), expands the
authors' blocks, ships the browser runtime, and is wired into an engine by an adapter.

    build/      the bake, its cache, the manifest, the corpora for a build, staging and swap
    kinds/      the kind contract, how kinds are found, and the built-in kinds (one folder each)
    blocks/     the authors' panel blocks in Markdown
    pages/      what happens to a page: quotes, math and its font, views, CSP, minified assets
    runtime/    what live mode ships: Pyodide's files, the wheels, the memory snapshot
    mentor/     the mentor's passages and facts
    adapters/   the engines: MkDocs (the plugin, its options, what its features need)
    assets/, theme/, schemas/   the browser's scripts and styles, the theme overrides, JSON Schemas
    vendor/     every third-party file the build runs or the site ships, pinned by sha256
    scaffold/   the site 'scalecore new' writes
"""

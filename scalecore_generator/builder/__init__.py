"""The site build: the steps every engine's adapter drives, and what they need besides the wings
below them.

    site_build.py   the build's steps, in the order an adapter calls them (SiteBuild)
    engine_site.py  what the build knows of the engine: its configuration, each page
    page_pipeline.py  each page's steps (expand, restore, read, finish_page)
    publisher.py    the one place the build writes the site's files, and the swap
    memos.py        what a warm build need not derive again; the kinds' keys
    tables.py       the corpora's embedding tables; live_runtime.py, Pyodide, snapshot, full stack
    site_swap.py    the staged site and its atomic swap into place
    bake.py         the bake's plan: every kind's grid counted, taken from the cache or computed
    points.py       one group of points: its code version, how it is computed and checked
    cluster.py      the executor that bakes the groups on a Dask cluster (local processes: bake.py)
    corpora.py      the site's corpora, read and cached for the build
    offline.py      the offline listing, the service worker (service-worker.js; a dev build's
                    service-worker-step-aside.js), the web manifest and icons
    hosts.py        the static hosts' limits, checked before the swap
    disk_search.py  search from a site opened from disk; bundle.py, the site as one zip

It imports every wing below it (foundation/, kinds/, blocks/, pages/, runtime/, mentor/) and no
engine: adapters/ drive it.
"""

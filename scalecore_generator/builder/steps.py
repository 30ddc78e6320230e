"""The order of a build's steps, written once for every engine.

Each adapter drives the steps from its engine's own order: MkDocs calls them from its events
(adapters/mkdocs/plugin.py), Zensical's adapter around and after ``zensical.build``
(adapters/zensical/build.py). The engines differ in when they write their files (MkDocs before
its pages, Zensical after), so the order is a set of "comes after" rules rather than one line,
and ``Steps`` holds every adapter to them: a step taken before what it needs stops the build
with the adapter's mistake named, instead of a site built from half-made parts.
"""

from __future__ import annotations

# step -> the steps that must have been taken before it
AFTER: dict[str, tuple[str, ...]] = {
    "configure": (),
    "stage": ("configure",),  # a staged build only (the dev server writes in place)
    "prepare": ("configure",),  # the bake, the runtime, the manifest
    "check_author_files": ("prepare",),
    "theme_files": ("prepare",),
    "write_files": ("prepare",),
    "expand": ("prepare",),  # per page: its blocks, quotes and tables
    "restore": ("expand",),  # per page: its panels back
    "read": ("restore",),  # per page: the mentor's passages
    "check_neighbours": ("read",),  # once every page is read
    "finish_page": ("prepare",),  # the theme's own pages (404.html: before any page is read)
    "finish_a_page": ("check_neighbours",),  # a page of the site, with its module header and cards
    "finish": ("write_files",),  # the figures, the mentor, the offline listing; the swap
}


class StepOutOfOrder(RuntimeError):
    """An adapter took a step before a step it needs: the adapter's mistake, not the author's."""


class Steps:
    """The steps one build has taken, checked against ``AFTER`` as each is taken."""

    def __init__(self):
        self.taken: set[str] = set()

    def take(self, step: str) -> None:
        missing = [needed for needed in AFTER[step] if needed not in self.taken]
        if missing:
            raise StepOutOfOrder(f"the build's step {step!r} was taken before {', '.join(map(repr, missing))} "
                                 "(builder/steps.py gives the order): the engine's adapter calls them out of order")
        self.taken.add(step)

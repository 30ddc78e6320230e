"""The one kind of error the generator raises for something an author can fix.

Every mistake the build finds (a block, a kind folder, a corpus, the configuration, a missing
vendored file, a full disk) is a ``ScalecoreError`` whose text is the whole message: where (the
file and line, when there is one), what is wrong, and ``Fix:`` what to do. The build raises
it wherever it finds the mistake; an engine adapter turns it into its engine's own error once, at
its edge (adapters/mkdocs/plugin.py: MkDocs' ``PluginError``; adapters/zensical: a message and
exit status 1), so no module of the build names an engine, and no reader of a message sees a
traceback.

The subclasses (BlockError, KindError, BakeError...) stay, each in its module, for the tests and
for the few places that handle one kind of mistake differently (a snapshot that cannot be made
is a notice, not a stop).
"""


class ScalecoreError(Exception):
    """A mistake the author can fix: ``str()`` names where, what, and the fix."""

    def engine_message(self) -> str:
        """The text an engine shows: prefixed once with ``scalecore:``, whoever raised it."""
        text = str(self)
        return text if text.startswith("scalecore:") else f"scalecore: {text}"


class BuildError(ScalecoreError):
    """A mistake found by the build itself rather than by one of its parts (the core's
    ValueError about a corpus or a setting, re-raised with the option's line)."""

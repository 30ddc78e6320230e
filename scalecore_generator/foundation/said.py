"""Lines a long-lived process says once: ``mkdocs serve`` runs every rebuild in one process (and
loads the plugin again for each), and a line that would be the same at each save (the features
configured, why live mode has no memory snapshot there) is said at the first only."""

_SAID: set[str] = set()


def once(say, line: str) -> None:
    """``say(line)``, unless this process has said that line already."""
    if line not in _SAID:
        _SAID.add(line)
        say(line)

"""How far a long bake has got: points done, the rate, the time left.

A group is the unit of work the executors hand out, but one group can hold every point of a kind,
so counting groups told an author baking a slow kind "0/1 groups, 10 s" and nothing else. The
workers count *points* instead, in one integer in shared memory (:func:`points_counter`, handed to
each local worker by :func:`count_in_worker`); a Dask cluster's workers are on other machines, so
there a group's points count when the group lands.

In a terminal the bake draws one line, redrawn in place; in a log (CI, a file, ``-q`` turned
off) it writes a line when a group lands and, while nothing lands, one every ``EVERY_S`` seconds.
Written by hand rather than with a progress-bar library: the line shares standard error with the
engine's logger, must fall back to log lines off a terminal, and counts points from other
processes, which none of click's, tqdm's or rich's bars does without the same glue.
"""

import logging
import multiprocessing
import shutil
import sys
import threading
import time

_counter = None  # this worker's shared point count (set by count_in_worker), or None


def points_counter():
    """An integer every local worker process adds its finished points to."""
    return multiprocessing.Value("q", 0)


def count_in_worker(counter) -> None:
    """Set in a worker process (and in the build's own, for a bake it runs itself)."""
    global _counter
    _counter = counter


def point_done() -> None:
    """One more point computed, in whatever process computed it."""
    if _counter is not None:
        with _counter.get_lock():
            _counter.value += 1


class BakeProgress:
    """The bake's progress line. ``counter``: the shared point count (None when only landed groups
    count); ``stream``: where a terminal's line is drawn; ``clock``: seconds, for the tests."""

    EVERY_S = 10.0  # off a terminal: a line this often while no group lands
    REDRAW_S = 0.25  # in a terminal: the line redrawn this often
    SHOW_AFTER_S = 1.0  # a bake done sooner draws no line at all

    def __init__(self, points: int, groups: int, log, counter=None, stream=None, clock=time.monotonic):
        self.points, self.groups, self.log, self.counter = points, groups, log, counter
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.started = self.last_said = clock()
        self.groups_done, self.points_landed, self.pending = 0, 0, ""
        self.drawn = False
        self.in_terminal = _is_terminal(self.stream) and _speaks_info(log)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._tick, name="scalecore-bake-progress", daemon=True)
        self.thread.start()

    # -------------------------------------------------------------------------------- what it says

    def done(self) -> int:
        """Points computed so far: the workers' count, or the landed groups' when that is more
        (a cluster's workers do not reach the shared count)."""
        counted = self.counter.value if self.counter is not None else 0
        return min(self.points, max(counted, self.points_landed))

    def line(self) -> str:
        done, elapsed = self.done(), self.clock() - self.started
        parts = [f"bake: {done:,}/{self.points:,} points ({self.groups_done}/{self.groups} groups), {elapsed:.0f} s"]
        if done and elapsed >= 1:
            rate = done / elapsed
            parts.append(f"{_rate(rate)} points/s")
            if done < self.points:
                parts.append(f"about {_duration((self.points - done) / rate)} left")
        if self.pending:
            parts.append(f"computing {self.pending}")
        return "; ".join(parts)

    # ----------------------------------------------------------------------------------- its events

    def group_landed(self, points: int, pending: str) -> None:
        """A group is done: its points count even if no worker counted them."""
        self.groups_done += 1
        self.points_landed += points
        self.pending = pending
        if not self.in_terminal:
            self._say()

    def computing(self, pending: str) -> None:
        self.pending = pending

    def stop(self) -> None:
        """The bake is over (done or failed): the line is cleared (the build says the total)."""
        self.stopped.set()
        self.thread.join(timeout=2)
        self._clear()

    # ---------------------------------------------------------------------------------- its drawing

    def _tick(self) -> None:
        wait = self.REDRAW_S if self.in_terminal else min(1.0, self.EVERY_S / 3)
        while not self.stopped.wait(wait):
            now = self.clock()
            if self.in_terminal:
                if now - self.started >= self.SHOW_AFTER_S:
                    self._draw()
            elif now - self.last_said >= self.EVERY_S:
                self._say()

    def _say(self) -> None:
        self.last_said = self.clock()
        self.log.info(self.line())

    def _draw(self) -> None:
        width = shutil.get_terminal_size((100, 24)).columns - 1
        text = f"{_bar(self.done(), self.points)} {self.line()}"
        if len(text) > width:
            text = text[:max(width - 1, 0)] + "…"
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self.drawn = True

    def _clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def _bar(done: int, total: int, width: int = 20) -> str:
    filled = round(width * done / total) if total else width
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _rate(per_second: float) -> str:
    return f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.2g}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _speaks_info(log) -> bool:
    """A build run quiet (``mkdocs build -q``) draws no line either."""
    enabled = getattr(log, "isEnabledFor", None)
    return enabled is None or enabled(logging.INFO)

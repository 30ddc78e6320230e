"""Processes of a build: whether a pid is still alive, and pool workers that die with the build.

Temporary folders and staging folders carry the pid of the build that writes them, so a later
build can tell a folder that is still being written from one a killed build left behind.
"""

import ctypes
import os
import signal
import sys
import threading
import time


def process_is_gone(pid: str) -> bool:
    """True when ``pid`` names no living process (a killed build), or is not a pid at all."""
    if not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    try:  # Linux: a killed process that nobody has reaped yet (a zombie) is gone too
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def die_with_parent(parent: int, signal_number: int = signal.SIGKILL) -> None:
    """A pool worker's initializer: end this process when the build that started it dies.

    A SIGKILLed build runs no clean-up code, and ``ProcessPoolExecutor`` workers would go on
    (each holding a corpus table, ~180 MB) until their queue breaks. Linux delivers SIGKILL to
    the worker the moment its parent dies (``PR_SET_PDEATHSIG``); elsewhere a daemon thread
    notices the parent's pid change within a second. ``parent`` is the build's pid
    (``initargs=(os.getpid(),)``). ``signal_number``: another signal than SIGKILL, for a process
    that has something to end first (the snapshot helper's Chromium): its handler does that.
    """
    if sys.platform.startswith("linux"):
        try:
            pr_set_pdeathsig = 1
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal_number, 0, 0, 0)
        except (OSError, AttributeError):
            pass

    def die():
        if signal_number == signal.SIGKILL:
            os._exit(1)
        os.kill(os.getpid(), signal_number)

    if os.getppid() != parent:  # the parent died before the signal was armed
        die()
        return

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        die()

    threading.Thread(target=watch, name="scalecore-parent-watch", daemon=True).start()

"""Run ``mkdocs build`` with disk faults injected: a disk that is full or read-only under a path.

    python tests/faults.py --full PATTERN --read-only PATTERN --set module:NAME=PATH
                           --term-after-moves PATTERN:N -- [mkdocs args]

Real faults need privileges a test run does not have (a tiny filesystem image needs mount; the
tests run as root, which ignores file modes), so the writer's system calls are wrapped instead:
opening a file for writing, creating a folder, renaming or removing anything *inside* a folder
that matches PATTERN (a path, or a glob such as ``site/.site.partial-*``) raises the OSError the
kernel would (ENOSPC, EROFS); the matching folder itself can still be created. Reading is untouched. Pool workers are forked from
this process and inherit the wrappers. ``--set`` points a module's path attribute elsewhere
(e.g. the plugin's npm folder, to simulate a checkout without ``npm ci``). ``--term-after-moves``
sends this process SIGTERM right after the Nth rename of a path inside a folder matching PATTERN
(a CI job's timeout, at an exact step: the swap's carrying of folders out of ``site``, say).
"""

import argparse
import builtins
import errno
import fnmatch
import importlib
import io
import os
import shutil
import sys
from pathlib import Path

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def install(full: list[str], read_only: list[str]) -> None:
    rules = [(os.path.abspath(p), errno.ENOSPC) for p in full] + [(os.path.abspath(p), errno.EROFS) for p in read_only]

    def check(path) -> None:
        try:
            target = os.path.abspath(os.fsdecode(path))
        except TypeError:  # a file descriptor
            return
        parents = [str(parent) for parent in Path(target).parents]
        for pattern, code in rules:
            if any(fnmatch.fnmatchcase(parent, pattern) for parent in parents):
                raise OSError(code, os.strerror(code), target)

    def wrap(function, *, when=lambda *a, **k: True, paths=(0,)):
        def wrapped(*args, **kwargs):
            if when(*args, **kwargs):
                for index in paths:
                    if index < len(args):
                        check(args[index])
            return function(*args, **kwargs)
        return wrapped

    def writes_mode(file, mode="r", *args, **kwargs):
        return any(flag in mode for flag in "wax+")

    def writes_flags(path, flags, *args, **kwargs):
        return bool(flags & WRITE_FLAGS)

    builtins.open = wrap(builtins.open, when=writes_mode)
    io.open = builtins.open
    os.open = wrap(os.open, when=writes_flags)
    for name in ("mkdir", "rmdir", "remove", "unlink"):
        setattr(os, name, wrap(getattr(os, name)))
    for name in ("rename", "replace", "link", "symlink"):
        setattr(os, name, wrap(getattr(os, name), paths=(0, 1)))
    shutil.copyfile = wrap(shutil.copyfile, paths=(1,))


def term_after_moves(rule: str) -> None:
    import signal

    pattern, count = rule.rsplit(":", 1)
    pattern, left = os.path.abspath(pattern), [int(count)]
    rename = os.rename

    def renamed(source, target, *args, **kwargs):
        rename(source, target, *args, **kwargs)
        if any(fnmatch.fnmatchcase(str(parent), pattern) for parent in Path(os.path.abspath(source)).parents):
            left[0] -= 1
            if left[0] == 0:
                os.kill(os.getpid(), signal.SIGTERM)

    os.rename = renamed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="append", default=[])
    parser.add_argument("--read-only", action="append", default=[])
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--term-after-moves", action="append", default=[])
    parser.add_argument("mkdocs", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    for assignment in args.set:
        target, value = assignment.split("=", 1)
        module, attribute = target.split(":")
        setattr(importlib.import_module(module), attribute, Path(value))
    install(args.full, args.read_only)
    for rule in args.term_after_moves:
        term_after_moves(rule)
    from mkdocs.__main__ import cli

    sys.argv = ["mkdocs", "build", *[a for a in args.mkdocs if a != "--"]]
    cli()


if __name__ == "__main__":
    main()

"""``scalecore``: the generator's commands, and the core's.

    scalecore new DIR                      write a small working site into DIR (a new folder)
    scalecore cache [--dir D] [--prune] [--check]
                                           a site's build cache: its size, what is stale, what is damaged
    scalecore build [--engine E] [-f F] [-d D] [--strict]
                                           build the site with MkDocs (default) or Zensical
    scalecore corpora | table | head | multihead | encoder ...
                                           the core's commands (python -m scalecore --help)

A mistake is one line on stderr with the fix, and exit code 2: never a traceback.
"""

import argparse
import shutil
import sys
from pathlib import Path

from scalecore import cli as core_cli
from scalecore_generator.errors import ScalecoreError

SCAFFOLD = Path(__file__).resolve().parent / "scaffold"
USAGE_ERROR = 2
OWN = ("new", "cache", "build")
ENGINES = ("mkdocs", "zensical")
BUILD_FAILED = 1


class CommandError(ScalecoreError):
    """A command cannot run as asked: the message says why and what to do."""


def new_site(target: Path) -> list[Path]:
    """Copy the scaffold (scalecore_generator/scaffold: the smallest site that shows each feature:
    a built-in panel, a site-local kind with its package, a module page with self-checks, the
    console) into ``target``, which must not exist or be empty. Returns the files written."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise CommandError(f"{target} already exists and is not empty: nothing was written. "
                           "Fix: name a new folder, e.g. scalecore new my-site")
    files = sorted(p for p in SCAFFOLD.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    target.mkdir(parents=True, exist_ok=True)
    for source in files:
        destination = target / source.relative_to(SCAFFOLD)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    return [target / source.relative_to(SCAFFOLD) for source in files]


def cmd_new(args) -> int:
    written = new_site(args.dir)
    print(f"scalecore: wrote a new site in {args.dir} ({len(written)} files). Next:")
    print(f"  cd {args.dir}")
    print("  mkdocs serve      # write, with the browser reloading on every change")
    print("  mkdocs build      # the site, in site/: open site/index.html, or serve the folder")
    return 0


def cmd_cache(args) -> int:
    from scalecore_generator.build import cache

    if args.keep_builds < 1:
        raise CommandError("--keep-builds must be at least 1")
    root = args.dir
    if not root.is_dir():
        raise CommandError(f"no cache at {root} (build the site first, or pass --dir)")
    found = cache.every_entry(root)
    stale = cache.stale(root, args.keep_builds)
    total = cache.folder_size(root)
    print(f"cache {root}: {total / 2**20:.1f} MB, {len(found)} entries; "
          f"{len(stale)} unused in the last {args.keep_builds} builds ({sum(map(cache.folder_size, stale)) / 2**20:.1f} MB)")
    if args.prune:
        try:
            with cache.exclusive(root):
                freed = cache.remove_entries(cache.stale(root, args.keep_builds))
        except cache.CacheBusy as busy:
            raise CommandError(f"{busy}: nothing was removed; try again when it has finished") from None
        print(f"removed {len(stale)} entries, {freed / 2**20:.1f} MB")
    if args.check:
        return _check_cache(root, found)
    return 0


def _check_cache(root: Path, found: list[Path]) -> int:
    """Read every byte of every entry against its record. A build trusts a file it read before
    while no write has touched it since (build/cache/digests.py); this finds what no write made
    (a disk's own decay). A damaged entry is removed: the next build bakes it again."""
    from scalecore_generator.build import cache

    damaged = []
    try:
        with cache.exclusive(root):
            for folder in found:
                problem = cache.damage(folder)
                if problem is not None:
                    damaged.append(folder)
                    print(f"damaged: {folder.relative_to(root)}: {problem}; removed, the next build makes it again")
            cache.remove_entries(damaged)
    except cache.CacheBusy as busy:
        raise CommandError(f"{busy}: nothing was checked; try again when it has finished") from None
    print(f"checked {len(found)} entries: {len(damaged)} damaged")
    return 1 if damaged else 0


def cmd_build(args) -> int:
    """The site built by the chosen engine. MkDocs runs as its own command (its plugin is the
    adapter); Zensical runs inside this process, around the build (adapters/zensical)."""
    if not args.config_file.is_file():
        raise CommandError(f"no {args.config_file} here. Fix: run this in the site's folder, or pass -f path/to/mkdocs.yml")
    if args.engine == "mkdocs":
        import subprocess

        command = [sys.executable, "-m", "mkdocs", "build", "-f", str(args.config_file)]
        command += ["--strict"] if args.strict else []
        command += ["-d", str(args.site_dir)] if args.site_dir else []
        return subprocess.run(command).returncode
    import logging

    from scalecore_generator.adapters.zensical.build import build

    logging.basicConfig(level=logging.INFO, format="INFO    -  scalecore: %(message)s")
    try:
        site = build(args.config_file, strict=args.strict, site_dir=args.site_dir)
    except ScalecoreError as error:
        print(f"ERROR   -  {error.engine_message()}", file=sys.stderr)
        return BUILD_FAILED
    print(f"scalecore: the site is in {site} (built with Zensical)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scalecore", description="Scalecore: a static site generator with "
                                     "precomputed interactives. The core's commands (corpora, table, head, "
                                     "multihead, encoder) are listed by 'python -m scalecore --help'.")
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new", help="write a small working site into a new folder")
    new.add_argument("dir", type=Path, help="the folder to create (it must not exist, or be empty)")
    kept = commands.add_parser("cache", help="a site's build cache: its size, and what no recent build used")
    kept.add_argument("--dir", type=Path, default=Path(".cache/scalecore"),
                      help="the cache folder (the plugin's cache_dir; default .cache/scalecore)")
    kept.add_argument("--keep-builds", type=int, default=10,
                      help="entries unused for this many builds are stale (the plugin's cache_keep_builds)")
    kept.add_argument("--prune", action="store_true", help="remove the stale entries (not while a build runs)")
    kept.add_argument("--check", action="store_true",
                      help="read every file of every entry against its record; remove the damaged ones")
    built = commands.add_parser("build", help="build the site with MkDocs (the default) or Zensical")
    built.add_argument("--engine", choices=ENGINES, default="mkdocs",
                       help="the engine that renders the pages (docs/guide/engines.md says what works under each)")
    built.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="the site's mkdocs.yml")
    built.add_argument("-d", "--site-dir", type=Path, default=None, help="where to write the site (default: site_dir)")
    built.add_argument("--strict", action="store_true", help="stop on warnings")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] not in OWN and not argv[0].startswith("-"):
        return core_cli.main(argv)
    try:
        args = build_parser().parse_args(argv)
        return {"new": cmd_new, "cache": cmd_cache, "build": cmd_build}[args.command](args)
    except (CommandError, OSError) as error:
        print(f"scalecore: error: {error}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())

"""``scalecore``: the generator's commands, and the core's.

    scalecore --version                    the installed version
    scalecore new [--template T] DIR       write a small working site into DIR (a new folder): a lesson
                                           site (the default), a bare site, or one kind's folder
    scalecore cache [--dir D] [--prune] [--check]
                                           a site's build cache: its size, what is stale, what is damaged
    scalecore build [--engine E] [-f F] [-d D] [--strict]
                                           build the site with MkDocs (default) or Zensical
    scalecore serve [-f F] [-a ADDR]       MkDocs' dev server: write, and the browser reloads
    scalecore bundle [SITE] [ZIP]          the built site as one zip, to open from disk anywhere
    scalecore corpora | table | head | multihead | encoder ...
                                           the core's commands (python -m scalecore --help)

A mistake is one line on stderr with the fix, and exit code 2: never a traceback.
"""

import argparse
import os
import shutil
import sys
from pathlib import Path

from scalecore import cli as core_cli
from scalecore_generator.errors import ScalecoreError

HERE = Path(__file__).resolve().parent
SCAFFOLD = HERE / "scaffold"
# scalecore new --template: what each writes (a kind's files name it by the folder's name)
TEMPLATES = {"lesson": SCAFFOLD, "bare": HERE / "scaffold_bare", "kind": HERE / "scaffold_kind"}
KIND_PLACEHOLDER = "__KIND__"
USAGE_ERROR = 2
OWN = ("new", "cache", "build", "serve", "bundle")
# Material prints its end-of-life notice when it is imported by a command named mkdocs, unless
# this is set: the commands that run MkDocs for an author set it (docs/guide/new-site.md says so)
QUIET_MATERIAL = {"NO_MKDOCS_2_WARNING": "1"}
ENGINES = ("mkdocs", "zensical")
BUILD_FAILED = 1


class CommandError(ScalecoreError):
    """A command cannot run as asked: the message says why and what to do."""


def new_site(target: Path, template: str = "lesson") -> list[Path]:
    """Copy a template into ``target``, which must not exist or be empty. Returns the files
    written. ``lesson`` (scalecore_generator/scaffold: the smallest site that shows each feature:
    a built-in panel, a site-local kind with its package, a module page with self-checks, the
    console); ``bare`` (mkdocs.yml and one page with one built-in panel); ``kind`` (one kind's
    folder, named by ``target``'s name, to put in a site's kinds/)."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        example = ("scalecore new --template kind kinds/my-other-kind" if template == "kind"
                   else f"scalecore new{'' if template == 'lesson' else ' --template ' + template} my-site")
        raise CommandError(f"{target} already exists and is not empty: nothing was written. "
                           f"Fix: name a new folder, e.g. {example}")
    if template == "kind":
        from scalecore_generator.kinds.registry import NAME

        if not NAME.fullmatch(target.name):
            raise CommandError(f"{target.name!r} is not a kind name: the folder's name is the kind's name (authors "
                               "write it after '///'), lower-case letters, digits and '-', starting with a letter. "
                               "Fix: e.g. scalecore new --template kind kinds/my-kind")
    source = TEMPLATES[template]
    files = sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    target.mkdir(parents=True, exist_ok=True)
    for path in files:
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if template == "kind":
            destination.write_text(path.read_text(encoding="utf-8").replace(KIND_PLACEHOLDER, target.name),
                                   encoding="utf-8")
        else:
            shutil.copyfile(path, destination)
    return [target / path.relative_to(source) for path in files]


def cmd_new(args) -> int:
    written = new_site(args.dir, args.template)
    if args.template == "kind":
        name = args.dir.name
        print(f"scalecore: wrote the kind {name!r} in {args.dir} ({len(written)} files). Next:")
        print(f"  it belongs in the kinds/ folder beside a site's mkdocs.yml (the plugin option kinds_dir)")
        print(f"  use it on a page:  /// {name}")
        print("  the guide 'Write your own interactive' explains each file")
        return 0
    print(f"scalecore: wrote a new {args.template} site in {args.dir} ({len(written)} files). Next:")
    print(f"  cd {args.dir}")
    print("  scalecore serve   # write, with the browser reloading on every change (mkdocs serve)")
    print("  scalecore build   # the site, in site/: open site/index.html, or serve the folder (mkdocs build)")
    return 0


def cmd_cache(args) -> int:
    from scalecore_generator.foundation import cache

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
    while no write has touched it since (foundation/cache/digests.py); this finds what no write made
    (a disk's own decay). A damaged entry is removed: the next build bakes it again."""
    from scalecore_generator.foundation import cache

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
        return subprocess.run(command, env={**os.environ, **QUIET_MATERIAL}).returncode
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


def cmd_serve(args) -> int:
    """MkDocs' dev server, as ``mkdocs serve`` (without Material's end-of-life notice)."""
    import subprocess

    if not args.config_file.is_file():
        raise CommandError(f"no {args.config_file} here. Fix: run this in the site's folder, or pass -f path/to/mkdocs.yml")
    command = [sys.executable, "-m", "mkdocs", "serve", "-f", str(args.config_file)]
    command += ["-a", args.dev_addr] if args.dev_addr else []
    try:
        return subprocess.run(command, env={**os.environ, **QUIET_MATERIAL}).returncode
    except KeyboardInterrupt:
        return 0


def cmd_bundle(args) -> int:
    """The built site as one zip (builder/bundle.py): unzipped, its pages open from disk."""
    from scalecore_generator.builder.bundle import make_bundle

    if not (args.site / "index.html").is_file():
        raise CommandError(f"{args.site} has no index.html: there is no built site to bundle. Fix: build it first "
                           "(scalecore build, or mkdocs build), or name the site's folder: scalecore bundle SITE ZIP")
    made = make_bundle(args.site, args.zip)
    print(f"scalecore: {made} ({made.stat().st_size / 1e6:.1f} MB): unzip it and open index.html; live mode and the "
          "console need it served: python3 -m http.server -d <folder> 8000")
    return 0


def version() -> str:
    """The installed distribution's version (the core's own when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version("scalecore")
    except metadata.PackageNotFoundError:
        import scalecore

        return scalecore.__version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scalecore", description="Scalecore: a static site generator with "
                                     "precomputed interactives. The core's commands (corpora, table, head, "
                                     "multihead, encoder) are listed by 'python -m scalecore --help'.")
    parser.add_argument("--version", action="version", version=f"scalecore {version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new", help="write a small working site (or one kind's folder) into a new folder")
    new.add_argument("dir", type=Path, help="the folder to create (it must not exist, or be empty); for a kind, "
                                            "kinds/<name> in a site: the folder's name is the kind's")
    new.add_argument("--template", choices=tuple(TEMPLATES), default="lesson",
                     help="lesson: a site with a lesson, a kind of its own and its package (the default); "
                          "bare: mkdocs.yml and one page with one built-in panel; kind: one kind's folder")
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
    served = commands.add_parser("serve", help="MkDocs' dev server: the browser reloads on every change")
    served.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="the site's mkdocs.yml")
    served.add_argument("-a", "--dev-addr", default=None, help="IP:PORT to serve on (default: MkDocs' 127.0.0.1:8000)")
    bundled = commands.add_parser("bundle", help="the built site as one zip, to open from disk anywhere")
    bundled.add_argument("site", type=Path, nargs="?", default=Path("site"), help="the built site (default: site)")
    bundled.add_argument("zip", type=Path, nargs="?", default=Path("scalecore-site.zip"),
                         help="the zip to write (default: scalecore-site.zip)")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] not in OWN and not argv[0].startswith("-"):
        return core_cli.main(argv)
    try:
        args = build_parser().parse_args(argv)
        return {"new": cmd_new, "cache": cmd_cache, "build": cmd_build, "serve": cmd_serve,
                "bundle": cmd_bundle}[args.command](args)
    except (CommandError, OSError) as error:
        print(f"scalecore: error: {error}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())

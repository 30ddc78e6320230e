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
    scalecore guide [NAME] [--html DIR] [--open]
                                           the guides, shipped with the package: list them, print
                                           one, or write them all as HTML (and open it)
    scalecore corpora | table | head | multihead | encoder ...
                                           the core's commands (python -m scalecore --help)

A mistake is one line on stderr with the fix, and exit code 2: never a traceback.
"""

import argparse
import os
import re
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
OWN = ("new", "cache", "build", "serve", "bundle", "guide")
# Material prints its end-of-life notice when it is imported by a command named mkdocs, unless
# this is set: the commands that run MkDocs for an author set it (scalecore guide new-site says so)
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
                   else f"scalecore new{'' if template == 'lesson' else ' --template ' + template} my-other-site")
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
        print("  scalecore guide kinds   # explains each file")
        return 0
    print(f"scalecore: wrote a new {args.template} site in {args.dir} ({len(written)} files). Next:")
    print(f"  cd {args.dir}")
    print("  mkdocs serve      # write: the browser reloads on every change")
    print("  mkdocs build      # the site, in site/ (strict: true, so any warning stops it)")
    print("  scalecore guide   # the guides, offline: " + ("scalecore guide kinds explains the site's own kind"
                                                           if args.template == "lesson" else
                                                           "scalecore guide kinds says how to add a kind of your own"))
    print("  (scalecore serve and scalecore build run the same without Material's end-of-life notice)")
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


# MkDocs' command line with its settings' messages given their mkdocs.yml line (adapters/mkdocs/command.py).
MKDOCS_COMMAND = "scalecore_generator.adapters.mkdocs.command"


def cmd_build(args) -> int:
    """The site built by the chosen engine. MkDocs runs as its own command (its plugin is the
    adapter); Zensical runs inside this process, around the build (adapters/zensical)."""
    if not args.config_file.is_file():
        raise CommandError(f"no {args.config_file} here. Fix: run this in the site's folder, or pass -f path/to/mkdocs.yml")
    if args.engine == "mkdocs":
        command = [sys.executable, "-m", MKDOCS_COMMAND, "build", "-f", str(args.config_file)]
        command += ["--strict"] if args.strict else []
        command += ["-d", str(args.site_dir)] if args.site_dir else []
        return _become(command)
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
    if not args.config_file.is_file():
        raise CommandError(f"no {args.config_file} here. Fix: run this in the site's folder, or pass -f path/to/mkdocs.yml")
    command = [sys.executable, "-m", MKDOCS_COMMAND, "serve", "-f", str(args.config_file)]
    command += ["-a", args.dev_addr] if args.dev_addr else []
    return _become(command)


def _become(command: list[str]) -> int:
    """Run MkDocs' own command with Material's notice turned off. On POSIX this process becomes
    MkDocs (exec): a SIGTERM sent to `scalecore serve` reaches the server itself (as a child it
    kept running, holding the port); elsewhere, a child process."""
    env = {**os.environ, **QUIET_MATERIAL}
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(command[0], command, env)
    import subprocess

    try:
        return subprocess.run(command, env=env).returncode
    except KeyboardInterrupt:
        return 0


def cmd_bundle(args) -> int:
    """The built site as one zip (builder/bundle.py): unzipped, its pages open from disk."""
    from scalecore_generator.builder.bundle import NotBundleable, make_bundle

    try:
        made = make_bundle(args.site, args.zip)
    except NotBundleable as error:
        raise CommandError(str(error)) from None
    print(f"scalecore: {made} ({made.stat().st_size / 1e6:.1f} MB): unzip it and open index.html; live mode and the "
          "console need it served: python3 -m http.server -d <folder> 8000")
    return 0


# The guides (the repository's docs/guide, which this folder links to; the wheel carries them as
# files): `scalecore guide NAME` prints one, so a message can name a guide every author has.
GUIDES = HERE / "guide"
FRONT_MATTER = re.compile(r"\A---\n(?P<meta>.*?)\n---\n", re.S)
SNIPPET = re.compile(r'^--8<-- "(?P<path>[^"]+)"\s*$', re.M)
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]+)\]\((?P<target>[^)\s]+)\)")


def guide_names() -> dict[str, tuple[str, str]]:
    """name -> (title, description) of every guide, by file name."""
    if not GUIDES.is_dir():
        raise CommandError(f"the guides are not installed ({GUIDES} is missing). Fix: reinstall scalecore "
                           "(pip install --force-reinstall 'scalecore[site]'), which carries them")
    found = {}
    for path in sorted(GUIDES.glob("*.md")):
        meta = FRONT_MATTER.match(path.read_text(encoding="utf-8"))
        fields = dict(re.findall(r'^(title|description):\s*"(.*)"\s*$', meta["meta"], re.M)) if meta else {}
        found[path.stem] = (fields.get("title", path.stem), fields.get("description", ""))
    return found


def _guide_links(text: str, names, rewrite) -> str:
    """Each Markdown link outside code given to ``rewrite(text, target)``."""
    from scalecore_generator.foundation.text import fenced_lines
    from scalecore_generator.pages.quotes import CODE_SPAN

    lines = text.split("\n")
    for number, (line, fenced) in enumerate(zip(lines, fenced_lines(text))):
        if fenced or "](" not in line:
            continue
        spans = [match.span() for match in CODE_SPAN.finditer(line)]
        lines[number] = LINK.sub(lambda m: m[0] if any(a <= m.start() < b for a, b in spans)
                                 else rewrite(m["text"], m["target"]), line)
    return "\n".join(lines)


def _guide_of(target: str, names) -> tuple[str | None, str]:
    """A link's guide (its name, or None for another page) and its anchor."""
    path, _, anchor = target.partition("#")
    stem = path.removesuffix(".md")
    return (stem if path.endswith(".md") and "/" not in path and stem in names else None), anchor


def _generated_tables() -> dict:
    """The tables the build writes into the guides ({{ scalecore: options }}...), made the same way;
    without the site's packages installed, a line that says how to get them."""
    def options():
        from scalecore_generator.adapters.mkdocs.config import reference

        return reference()

    def kind_settings():
        from scalecore_generator.adapters.mkdocs.config import kind_settings_reference
        from scalecore_generator.kinds.registry import discover

        return kind_settings_reference(discover())

    def guarded(table):
        def made():
            try:
                return table()
            except ImportError as error:
                return f"(this table needs the site's packages: pip install 'scalecore[site]'; {error})"
        return made

    return {"options": guarded(options), "kind-settings": guarded(kind_settings)}


def guide_markdown(name: str) -> str:
    """A guide's Markdown as its page shows it: the files it quotes (``--8<--``) put in, the tables
    the build writes made, its front matter out."""
    from scalecore_generator.pages.generated import expand_generated

    names = guide_names()
    if name not in names:
        import difflib

        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise CommandError(f"no guide named {name!r}{hint}: the guides are {', '.join(names)}. "
                           "Fix: scalecore guide NAME, with one of those names")
    text = (GUIDES / f"{name}.md").read_text(encoding="utf-8")
    text = FRONT_MATTER.sub("", text, count=1)

    def quoted(match):
        path = HERE.parent / match["path"]  # the snippets' paths are the package's own files
        return path.read_text(encoding="utf-8").rstrip("\n") if path.is_file() else match[0]

    text = SNIPPET.sub(quoted, text)
    return expand_generated(text, _generated_tables(), f"{name}.md", check=False)


def guide_text(name: str) -> str:
    """A guide for the terminal: its Markdown, with each link to another guide as the command
    that prints it, and links to pages of Scalecore's own site as their text alone."""
    names = guide_names()
    title = names.get(name, ("",))[0]

    def rewrite(text, target):
        other, anchor = _guide_of(target, names)
        if other is not None:
            return f"{text} (scalecore guide {other})"
        return text if not re.match(r"[a-z][a-z0-9+.-]*:", target) else f"{text} ({target})"

    return f"{title}: scalecore guide {name}\n\n" + _guide_links(guide_markdown(name), names, rewrite).strip() + "\n"


def write_guides_html(folder: Path) -> Path:
    """Every guide as an HTML page in ``folder`` (with an index), linked to each other: a copy to
    read in a browser, offline. Returns the index."""
    try:
        import markdown
    except ImportError:
        raise CommandError("writing the guides as HTML needs Python-Markdown. Fix: pip install 'scalecore[site]', "
                           "or read them in the terminal: scalecore guide NAME") from None
    import html

    names = guide_names()
    folder.mkdir(parents=True, exist_ok=True)
    style = ("body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}"
             "pre{background:#f4f4f4;padding:.6rem;overflow:auto}code{font-size:.9em}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .4rem;vertical-align:top}"
             ".admonition{border-left:4px solid #88a;padding:0 .8rem;margin:1rem 0}")

    def page(title, body):
        return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
                f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{style}</style></head>'
                f'<body><p><a href="index.html">Scalecore guides</a></p>\n{body}\n</body></html>\n')

    def rewrite(text, target):
        other, anchor = _guide_of(target, names)
        if other is not None:
            return f"[{text}]({other}.html{'#' + anchor if anchor else ''})"
        return f"[{text}]({target})" if re.match(r"[a-z][a-z0-9+.-]*:", target) else text

    for name, (title, _) in names.items():
        source = _guide_links(guide_markdown(name), names, rewrite)
        body = markdown.markdown(source, extensions=["tables", "fenced_code", "admonition", "toc", "attr_list",
                                                     "md_in_html"])
        (folder / f"{name}.html").write_text(page(title, body), encoding="utf-8")
    items = "\n".join(f'<li><a href="{name}.html">{html.escape(title)}</a>: {html.escape(description)}</li>'
                      for name, (title, description) in names.items())
    index = folder / "index.html"
    index.write_text(page(f"Scalecore {version()}: guides", f"<h1>Scalecore {version()}: guides</h1>\n<ul>\n{items}\n</ul>"),
                     encoding="utf-8")
    return index


def cmd_guide(args) -> int:
    if args.html is not None or args.open:
        if args.name is not None:
            raise CommandError("--html and --open write every guide. Fix: scalecore guide --html DIR, or "
                               f"scalecore guide {args.name} to print that one")
        folder = args.html if args.html is not None else Path.home() / ".cache" / "scalecore" / f"guide-{version()}"
        index = write_guides_html(folder)
        print(f"scalecore: the guides are in {index}")
        if args.open:
            import webbrowser

            webbrowser.open(index.resolve().as_uri())
        return 0
    if args.name is None:
        names = guide_names()
        width = max(map(len, names))
        print(f"The guides of Scalecore {version()} (scalecore guide NAME prints one; "
              "scalecore guide --open shows them all in a browser):")
        for name, (title, description) in names.items():
            print(f"  {name:<{width}}  {title}: {description}")
        return 0
    text = guide_text(args.name)
    if sys.stdout.isatty():
        import pydoc

        pydoc.pager(text)
    else:
        sys.stdout.write(text)
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
                       help="the engine that renders the pages ('scalecore guide engines' says what works under each)")
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
    guide = commands.add_parser("guide", help="the guides: list them, print one, or write them as HTML")
    guide.add_argument("name", nargs="?", default=None, help="the guide to print (without one: the list of guides)")
    guide.add_argument("--html", type=Path, default=None, metavar="DIR",
                       help="write every guide as an HTML page into DIR (with an index.html)")
    guide.add_argument("--open", action="store_true",
                       help="write them as HTML (into --html DIR, else ~/.cache/scalecore) and open them in a browser")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] not in OWN and not argv[0].startswith("-"):
        return core_cli.main(argv)
    try:
        args = build_parser().parse_args(argv)
        return {"new": cmd_new, "cache": cmd_cache, "build": cmd_build, "serve": cmd_serve,
                "bundle": cmd_bundle, "guide": cmd_guide}[args.command](args)
    except (CommandError, OSError) as error:
        print(f"scalecore: error: {error}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())

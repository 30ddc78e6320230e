"""The site's own scripts and styles as a reader's browser gets them: minified, and the styles in
one stylesheet.

Why: on a phone every render-blocking stylesheet is a round trip before the first paint, and the
page linked six of them (two Material's, four ours, plus one per panel of a kind with a style).
Now Scalecore adds one: the theme's module styles, the accessibility fixes, the math's stylesheet,
the panels' shared styles and every used kind's ``style.css``, in that order, so a kind's rules
can refine the shared ones. Every script and style that comes from this repository, the theme or
a kind folder (the site's own included) is minified by esbuild (npm esbuild-wasm, vendored in
scalecore_generator/vendor): comments and whitespace go and the syntax is shortened, but every
name stays as written, so a stack trace from a reader's browser names the functions of the source
(renaming would save a fifth more, 0.5 kB a file compressed). Each file is minified alone, never
bundled: a classic script's globals and a module's exports are what other files use. Material's
files and npm packages' files are shipped as their authors built them.

esbuild runs once per build for everything that changed (one process), and each result is kept in
the cache under the hash of its source and of esbuild's version, checked on reading, so a warm
build starts no process. esbuild's output depends only on its input, so builds stay
byte-identical.

A kind's scripts (``assets/scalecore/kinds/<name>/panel.js`` and its ``modules/``) are served with
a source map beside them (``panel.js.map``, named by a ``//# sourceMappingURL`` comment, holding
the source as written): an error in a reader's browser shows in the console, and in the browser's
developer tools, at the kind's file and line (``kinds/<name>/panel.js:42``), not at
``panel.js:1:719``. A browser fetches a map only when its developer tools are open; the offline
listing leaves maps out (builder/offline.py).
"""

import functools
import hashlib
import json
import os
import posixpath
import shutil
import re
import subprocess
import tempfile
import time
from pathlib import Path

from scalecore_generator.foundation.cache import content_name, content_named, sha256_file
from scalecore_generator.foundation.node import NodeError, executable
from scalecore_generator.vendor import NODE_MODULES
from scalecore_generator.errors import ScalecoreError

ESBUILD = NODE_MODULES / "esbuild-wasm"  # esbuild compiled to WebAssembly: one file for every platform
ESBUILD_PACKAGE = ESBUILD / "package.json"
STYLESHEET = "assets/scalecore/scalecore.min.css"  # the one stylesheet Scalecore adds to a page
MINIFIED = (".js", ".css")
# esbuild's transform options (what its command line spells --minify-whitespace --minify-syntax
# --charset=utf8 --legal-comments=inline): part of every cached result's key.
OPTIONS = {"minifyWhitespace": True, "minifySyntax": True, "charset": "utf8", "legalComments": "inline"}
# The Node side: esbuild-wasm's JavaScript API on each file, alone (never bundled). Its command
# line would do the same, but under Node 20 the Go runtime of its CLI runs out of memory on start.
# Answers one JSON line: the files made, or the first error with its file, line and column.
SCRIPT = r"""
const [esbuildMain, requestPath] = process.argv.slice(1);
const fs = require("fs"), esbuild = require(esbuildMain);
const {files, options} = JSON.parse(fs.readFileSync(requestPath, "utf8"));
(async () => {
  for (const [source, target, label, mapName] of files) {
    const loader = source.endsWith(".css") ? "css" : "js";
    try {
      const mapped = mapName ? {sourcemap: "external"} : {};
      const made = await esbuild.transform(fs.readFileSync(source, "utf8"), {...options, ...mapped, loader, sourcefile: label, logLevel: "silent"});
      fs.writeFileSync(target, mapName ? `${made.code}//# sourceMappingURL=${mapName}\n` : made.code);
      if (mapName) fs.writeFileSync(`${target}.map`, made.map);
    } catch (error) {
      const first = (error.errors || [])[0];
      const where = first && first.location ? `${first.location.file}:${first.location.line}:${first.location.column}` : null;
      process.stdout.write(JSON.stringify({error: first ? first.text : String(error), where}) + "\n");
      process.exit(1);
    }
  }
  process.stdout.write(JSON.stringify({done: files.length}) + "\n");
  esbuild.stop && esbuild.stop();
})();
"""

MAPPED = "assets/scalecore/kinds/"  # the kinds' scripts (kinds/site_kinds.ASSET_SITE): served with a source map
KEEP_UNUSED = 7 * 24 * 3600  # seconds an unused cached result is kept (another site may share the cache)
# A relative url() in a stylesheet: the bundle lives in another folder, so it is rebased. A data:
# URL, an absolute one and a fragment stay as written. (esbuild's bundler would resolve these
# only by reading the fonts from disk and copying them itself; the site already serves them.)
URL = re.compile(r"""url\(\s*(['"]?)(?![a-z][a-z0-9+.-]*:|/|#)([^'")]+)\1\s*\)""", re.IGNORECASE)


class FrontendError(ScalecoreError):
    """esbuild is missing or refused a file: the message names the file and the fix."""


def rebased(css: str, from_site_path: str, to_site_path: str = STYLESHEET) -> str:
    """``css`` as it reads when moved from ``from_site_path`` to ``to_site_path``: its relative
    url()s point at the same files."""
    here, there = posixpath.dirname(from_site_path), posixpath.dirname(to_site_path)

    def move(match: re.Match) -> str:
        quote, target = match.group(1), match.group(2)
        moved = posixpath.relpath(posixpath.normpath(posixpath.join(here, target)), there or ".")
        return f"url({quote}{moved}{quote})"

    return URL.sub(move, css)


def bundle(pieces: list[tuple[str, str]]) -> str:
    """One stylesheet from (site path, css) pieces, in order, each rebased to STYLESHEET and
    headed by where it came from (the heading goes when it is minified)."""
    return "".join(f"/* {site_path} */\n{rebased(css, site_path)}\n" for site_path, css in pieces)


def version() -> str:
    try:
        return json.loads(ESBUILD_PACKAGE.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise FrontendError(f"esbuild-wasm is missing ({ESBUILD_PACKAGE} cannot be read). Fix: reinstall scalecore "
                            "(pip install --force-reinstall 'scalecore[site]'); in its repository, run "
                            "bash build_tools/dev.sh build.") from None


class Minifier:
    """Minified copies of the site's own scripts and styles, kept in ``cache_dir``."""

    def __init__(self, cache_dir: Path, digest=None):
        self.cache_dir = cache_dir
        # digest(path): a file's sha256, the build's ledger's (foundation/cache.Digests.of), which
        # knows it without reading: a warm build read and hashed every source and every cached
        # result again (6 MB, most of this step's time) only to find them unchanged.
        self.digest = digest or sha256_file
        self.esbuild = version()
        self.used: set[Path] = set()
        self.fresh: Path | None = None  # this build's new results: moved into the cache if it succeeds

    def _key(self, suffix: str, sha256: str) -> str:
        """The cache key of a source whose bytes have this sha256."""
        return hashlib.sha256(f"esbuild {self.esbuild} {json.dumps(OPTIONS, sort_keys=True)} {suffix}\n{sha256}".encode()).hexdigest()[:32]

    def minify(self, sources: dict[str, bytes | Path], labels: dict[str, str] | None = None,
               mapped: frozenset[str] | set[str] = frozenset()) -> dict[str, Path]:
        """Site path -> a cached file holding that source minified. What is not cached yet is
        minified in one esbuild run; ``sources`` maps site paths to their bytes or their file,
        ``labels`` names where each came from, for esbuild's messages and the source maps. A site
        path in ``mapped`` gets its source map too, at ``<site path>.map``."""
        labels = labels or {}
        found: dict[str, Path] = {}
        missing: dict[str, tuple[str, bytes | Path]] = {}
        names = os.listdir(self.cache_dir) if self.cache_dir.is_dir() else []  # listed once, not a glob a file
        for site_path, source in sorted(sources.items()):
            suffix = Path(site_path).suffix
            sha = hashlib.sha256(source).hexdigest() if isinstance(source, bytes) else self.digest(source)
            if site_path in mapped:  # the map names the source: its label is part of the key
                key = self._key(f"{suffix} map {labels.get(site_path, site_path)}", sha)
                cached, cached_map = self._cached(key, suffix, names), self._cached(key, ".map", names)
                if cached is not None and cached_map is not None:
                    found[site_path], found[f"{site_path}.map"] = cached, cached_map
                    continue
            else:
                key = self._key(suffix, sha)
                cached = self._cached(key, suffix, names)
                if cached is not None:
                    found[site_path] = cached
                    continue
            missing[site_path] = (key, source)
        if missing:
            found.update(self._run(missing, labels, mapped))
        self.used.update(path for path in found.values() if path.parent == self.cache_dir)
        return found

    def _cached(self, key: str, suffix: str, names: list[str]) -> Path | None:
        """The cached result for ``key`` whose bytes still match its name (content_named, checked
        through the ledger's digest), or None."""
        found = content_named(self.cache_dir, key, suffix, names, digest=self.digest)
        return found[0] if found is not None else None

    def commit(self) -> None:
        """After a successful build: keep its new results in the cache, and remove results it did
        not use that are older than a week, so the folder holds about one site's files (another
        site sharing the cache makes its own again, in one esbuild run). A failed build calls
        discard() instead and leaves the cache as it was."""
        if self.fresh is not None:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            for made in sorted(self.fresh.iterdir()):
                target = self.cache_dir / made.name
                shutil.move(str(made), str(target.with_name(f"{target.name}.{os.getpid()}.partial")))
                target.with_name(f"{target.name}.{os.getpid()}.partial").replace(target)
                self.used.add(target)
            self.discard()
        now = time.time()
        for old in self.cache_dir.glob("*.*.*"):
            try:
                if old not in self.used and now - old.stat().st_mtime > KEEP_UNUSED:
                    old.unlink()
            except OSError:
                pass

    def discard(self) -> None:
        if self.fresh is not None:
            shutil.rmtree(self.fresh, ignore_errors=True)
            self.fresh = None

    def _run(self, missing: dict[str, tuple[str, bytes | Path]], labels: dict[str, str],
             mapped: frozenset[str] | set[str] = frozenset()) -> dict[str, Path]:
        """esbuild on every file in ``missing`` at once (site path -> (key, source)). Each file is
        named by its key in a scratch folder, so two files of the same name cannot collide."""
        if self.fresh is None:
            self.fresh = Path(tempfile.mkdtemp(prefix="scalecore-minified-"))
        with tempfile.TemporaryDirectory(prefix="minify-", dir=self.fresh.parent) as scratch:
            given, made = Path(scratch) / "in", Path(scratch) / "out"
            given.mkdir()
            names = {}
            for site_path, (key, source) in missing.items():
                name = key + Path(site_path).suffix
                (given / name).write_bytes(source if isinstance(source, bytes) else Path(source).read_bytes())
                names[site_path] = name
            made.mkdir()
            request = Path(scratch) / "request.json"
            request.write_text(json.dumps({"options": OPTIONS, "files": [
                [str(given / name), str(made / name), labels.get(site_path, site_path),
                 posixpath.basename(site_path) + ".map" if site_path in mapped else None]
                for site_path, name in sorted(names.items())]}), encoding="utf-8")
            try:
                node = executable("minifying the site's scripts")
                # esbuild-wasm starts its service as "node bin/esbuild": the same Node, first on PATH.
                env = {**os.environ, "PATH": os.pathsep.join([str(Path(node).parent), os.environ.get("PATH", "")])}
                result = subprocess.run([node, "-e", SCRIPT, str(ESBUILD / "lib" / "main.js"), str(request)],
                                        capture_output=True, text=True, timeout=300, env=env)
            except NodeError as error:
                raise FrontendError(str(error)) from None
            except (OSError, subprocess.TimeoutExpired) as error:
                raise FrontendError(f"esbuild could not run ({error}). Fix: run the build again; if it persists, "
                                    "reinstall scalecore.") from None
            answer = _last_json(result.stdout)
            if result.returncode != 0 or "done" not in answer:
                if answer.get("where"):
                    raise FrontendError(f"{answer['where']}: {answer['error']} (esbuild cannot minify it). "
                                        f"Fix: {_syntax_fix(answer['where'])}")
                said = answer.get("error") or (result.stderr or result.stdout).strip()[-500:] or "no message"
                raise FrontendError(f"esbuild could not run ({said}), so the site's scripts cannot be minified. "
                                    "Fix: run the build again; if it persists, reinstall scalecore.")
            found = {}
            for site_path, name in names.items():
                data = (made / name).read_bytes()
                key, suffix = name.rsplit(".", 1)
                target = self.fresh / content_name(key, data, "." + suffix)
                target.write_bytes(data)
                found[site_path] = target
                if site_path in mapped:
                    source_map = (made / f"{name}.map").read_bytes()
                    target = self.fresh / content_name(key, source_map, ".map")
                    target.write_bytes(source_map)
                    found[f"{site_path}.map"] = target
            return found

def _last_json(stdout: str) -> dict:
    try:
        return json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}


def is_own(source: Path, own: list[Path]) -> bool:
    """A script or style from one of the ``own`` folders (not an npm package's, not Material's)."""
    if source.suffix not in MINIFIED:
        return False
    real = source.resolve() if source.is_symlink() else _real_folder(source.parent) / source.name
    # Compared part by part: Path.is_relative_to (Python 3.11) raises and catches an error for
    # each folder a file is not in.
    return any(real.parts[:len(root.parts)] == root.parts for root in map(_real_folder, own))


@functools.lru_cache(maxsize=4096)
def _real_folder(folder: Path) -> Path:
    """A folder's real path, symbolic links followed, worked out once per folder and build: a
    site's theme has some 1,900 scripts and styles in about a hundred folders, and resolving each
    file's path on its own cost far more. From its parent's, known already for the next folder of
    the same tree: one lstat a folder (the bake's hundred cache entries were each resolved from
    the root)."""
    parent = folder.parent
    if parent == folder or not folder.is_absolute() or folder.name in ("", ".", ".."):
        return folder.resolve()
    here = _real_folder(parent) / folder.name
    return here.resolve() if here.is_symlink() else here


def minified(files: dict[str, Path], own: list[Path], minifier: Minifier) -> dict[str, Path]:
    """Site path -> minified copy, for each of ``files`` (site path -> source) that is ours.
    Called before the manifest is written, so the sha256 it gives a kind's script is the served one's.
    The first step of every build: the folders' real paths are worked out again from here."""
    _real_folder.cache_clear()
    ours = {site_path: source for site_path, source in files.items() if is_own(source, own)}
    return minifier.minify(dict(ours),
                           {site_path: shown(source) for site_path, source in ours.items()},
                           {site_path for site_path in ours if site_path.startswith(MAPPED) and site_path.endswith(".js")})


def shown(source: Path) -> str:
    """A source file as messages and source maps name it: relative to the site's folder
    (``kinds/<name>/panel.js``), or, for the generator's own, to the installed package's
    folder (``scalecore_generator/kinds/softmax/panel.js``), never the machine's paths."""
    relative = os.path.relpath(source)
    if not relative.startswith(".."):
        return relative.replace(os.sep, "/")
    package = Path(__file__).resolve().parents[1]
    try:
        return Path(source).resolve().relative_to(package.parent).as_posix()
    except ValueError:
        return Path(source).name


def theme_files(ours: dict[str, Path], served_text, stylesheet: list[str], texts: dict[str, str],
                minifier: Minifier) -> dict[str, Path]:
    """The engine's copies of our theme's scripts and styles (``ours``: site path -> the file the
    engine serves there, from our folders, not minified yet) minified, and the one stylesheet,
    made of ``stylesheet``'s site paths in order: site path -> the file to serve there. A piece's
    text is what the site serves at that path (``served_text(path)``, None when it serves
    nothing there; so a theme that overrides one is honoured), or ``texts[path]`` for one
    written later in the build."""
    pieces = {path: texts[path] if path in texts else served_text(path) for path in stylesheet}
    missing = [path for path, text in pieces.items() if text is None]
    if missing:
        raise FrontendError(f"the stylesheet needs {missing[0]}, which the site does not serve. Fix: check that "
                            "theme.custom_dir in mkdocs.yml is scalecore_generator/theme or a folder that extends it.")
    sources: dict[str, bytes | Path] = dict(ours)
    sources[STYLESHEET] = bundle(list(pieces.items())).encode("utf-8")
    labels = {uri: os.path.relpath(path) for uri, path in ours.items()}
    return minifier.minify(sources, labels)


def _syntax_fix(where: str) -> str:
    """The fix of a syntax error at ``file:line:column``. One at the file's last line is most often
    a bracket or brace left open far above it: the parser only finds out at the end."""
    try:
        path, line, _ = where.rsplit(":", 2)
        line, last = int(line), len(Path(path).read_text(encoding="utf-8").rstrip().splitlines())
    except (ValueError, OSError):
        return "correct the script or stylesheet at that line."
    if line >= last:
        return ("that line is the file's end, where the parser found out: look above it for a '{', '(' or '[' "
                "opened and not closed (or one closed twice), and correct it.")
    return "correct the script or stylesheet at that line."

"""What the browser's Python can import, and the site's own code checked against it at build time.

Live mode runs a kind's compute function in Pyodide, in the reader's browser. The bake runs the
same function in CPython, where numpy may well be installed: a module of the site's package that
imports numpy bakes, and then fails in every reader's browser (``ModuleNotFoundError``). So the
build reads the site's packages (their source, never importing them) and stops with the file,
the line and the fix for an import the browser cannot satisfy.

What the browser has:

- Pyodide's standard library: the modules in its ``python_stdlib.zip`` and those compiled into
  ``pyodide.asm.wasm`` (each has a ``PyInit_<name>`` there), read from the files the site ships,
  so a module Pyodide leaves out (``tkinter``, ``readline``) is named as missing;
- the core (``scalecore``), the site's own packages (the option ``packages``) and the console's
  offline wheels (``vendor/browser-wheels.lock``), as the site serves them.

What is checked: the imports that run when live mode imports a compute function's module, that is
the module's top level (class bodies included), the packages' ``__init__`` modules above it and,
transitively, every module of the site's packages those import; the body of the compute function
itself, and of each function of its module it calls by name (transitively: an import moved into a
helper the compute function calls runs in the browser all the same). Not checked, because the
browser never runs them: an import inside a function live mode does not call (build-time helpers),
under ``if TYPE_CHECKING:``, or in a ``try`` whose ``except`` catches ImportError (the module's own
fallback).
"""

from __future__ import annotations

import ast
import functools
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from scalecore_generator.errors import ScalecoreError

# Modules of CPython itself (no PyInit_ entry: they are made by the interpreter) and Pyodide's own
ALWAYS = frozenset({"sys", "builtins", "marshal", "_imp", "_warnings", "_frozen_importlib",
                    "_frozen_importlib_external", "_io", "_thread", "_weakref", "js", "pyodide_js"})
CORE = "scalecore"
GUARDING = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


class BrowserImportError(ScalecoreError):
    """Code that live mode runs imports what the browser's Python does not have."""


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    module: str  # the top-level name that is missing
    statement: str  # "import numpy as np", as written
    # the compute functions whose run reaches it ('lessons.walk:compute'; none known: every module is checked)
    via: tuple[str, ...] = field(default=(), compare=False)
    # where the code live mode runs uses the names it binds: 'compute uses np (line 9)'
    used: tuple[str, ...] = field(default=(), compare=False)
    # a top-level import of a compute function's module that nothing live mode runs there uses:
    # 'helpers' (functions live mode does not call use it), 'nothing' (nothing in the module uses it)
    unused_live: str = field(default="", compare=False)


@functools.lru_cache(maxsize=4)
def pyodide_stdlib(folder: Path) -> frozenset[str]:
    """The top-level modules of Pyodide's Python (``folder``: the npm package's files)."""
    names = set(ALWAYS)
    with zipfile.ZipFile(folder / "python_stdlib.zip") as archive:
        for entry in archive.namelist():
            top, _, rest = entry.partition("/")
            names.add(top if rest else re.sub(r"\.(py|pyc|so)$", "", top))
    names.update(name.decode("ascii") for name in
                 re.findall(rb"PyInit_([A-Za-z0-9_]+)", (folder / "pyodide.asm.wasm").read_bytes()))
    names.discard("site-packages")
    return frozenset(names)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _guards_imports(handler: ast.ExceptHandler) -> bool:
    """An ``except`` that catches a failed import (bare, ImportError, ModuleNotFoundError, ...)."""
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((isinstance(t, ast.Name) and t.id in GUARDING) or (isinstance(t, ast.Attribute) and t.attr in GUARDING)
               for t in caught)


def run_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of ``body`` that run when it runs, unguarded (see the module's text):
    not inside a function, under ``if TYPE_CHECKING``, or in a try that catches ImportError."""
    found = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        elif isinstance(node, ast.ClassDef):
            found += run_imports(node.body)
        elif isinstance(node, ast.If):
            found += run_imports(node.orelse) if _is_type_checking(node.test) else run_imports(node.body + node.orelse)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            if not any(_guards_imports(handler) for handler in node.handlers):
                found += run_imports(node.body)
            for handler in node.handlers:
                found += run_imports(handler.body)
            found += run_imports(node.orelse + node.finalbody)
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
            found += run_imports(node.body + getattr(node, "orelse", []))
        elif type(node).__name__ == "Match":
            for case in node.cases:
                found += run_imports(case.body)
    return found


class Packages:
    """The site's packages as the browser gets them: module name -> source file."""

    def __init__(self, folders: list[Path]):
        self.folders = {Path(folder).name: Path(folder) for folder in folders}

    def file(self, module: str) -> Path | None:
        top, *rest = module.split(".")
        if top not in self.folders:
            return None
        base = self.folders[top].joinpath(*rest)
        for candidate in (base / "__init__.py", base.with_suffix(".py") if rest else None):
            if candidate is not None and candidate.is_file():
                return candidate
        return None

    def every_module(self) -> list[str]:
        names = []
        for top, folder in sorted(self.folders.items()):
            for path in sorted(folder.rglob("*.py")):
                parts = path.relative_to(folder).with_suffix("").parts
                if any(part == "__pycache__" or part.startswith(".") for part in parts):
                    continue
                names.append(".".join((top, *parts[:-1])) if parts[-1] == "__init__" else ".".join((top, *parts)))
        return names


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """``from .x import y`` in ``module`` as the absolute name it imports from."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join(parts + ([node.module] if node.module else []))


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _called(function, functions: dict) -> list[str]:
    """The functions of the same module that ``function`` calls by name (``helper(...)``)."""
    return sorted({node.func.id for node in ast.walk(function) if isinstance(node, ast.Call)
                   and isinstance(node.func, ast.Name) and node.func.id in functions and node.func.id != function.name})


def _bound(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The names an import statement binds: 'np' for 'import numpy as np', 'numpy' for 'import numpy.linalg'."""
    if isinstance(node, ast.Import):
        return {alias.asname or alias.name.split(".")[0] for alias in node.names}
    return {alias.asname or alias.name for alias in node.names if alias.name != "*"}


def _uses(names: set[str], tree: ast.Module, running: set[str]) -> tuple[str, ...]:
    """Where the code live mode runs in a module (its top level, and the functions ``running``) uses
    one of ``names``: "the module's top level uses np (line 4)", 'compute uses np (line 9, 10)'."""
    functions = _functions(tree)
    parts = [("the module's top level", [node for node in tree.body if node not in functions.values()])]
    parts += [(name, [functions[name]]) for name in sorted(running & set(functions))]
    found = []
    for label, nodes in parts:
        hits = [node for top in nodes for node in ast.walk(top) if isinstance(node, ast.Name) and node.id in names]
        if hits:
            found.append(f"{label} uses {', '.join(sorted({node.id for node in hits}))} (line "
                         f"{', '.join(map(str, sorted({node.lineno for node in hits})))})")
    return tuple(found)


def check(packages: list[Path], computes: list[str] | None, available: set[str] | frozenset[str]) -> list[Problem]:
    """The imports live mode would run that the browser cannot satisfy, in the order found.

    ``computes``: the kinds' ``package.module:function``; those in the site's packages are the
    roots (None: every module of the packages, for a caller that does not know the kinds).
    ``available``: the top-level modules the browser has."""
    site = Packages(packages)
    available = set(available) | set(site.folders)
    roots: list[tuple[str, str | None, str | None]] = []  # (module, function whose body runs too, its compute)
    if computes is None:
        roots = [(name, None, None) for name in site.every_module()]
    else:
        for compute in computes:
            module, _, function = compute.partition(":")
            if module.split(".")[0] in site.folders:
                roots.append((module, function or None, compute))
    found: dict[Problem, tuple[set, set]] = {}  # each problem -> (the computes reaching it, its uses)
    running: dict[str, set[str]] = {}  # module -> the functions of it live mode runs
    seen, todo = set(), []
    for module, function, compute in roots:
        parts = module.split(".")
        todo += [(".".join(parts[:i]), None, compute) for i in range(1, len(parts))] + [(module, function, compute)]
    while todo:
        module, function, compute = todo.pop(0)
        if (module, function, compute) in seen:
            continue
        seen.add((module, function, compute))
        path = site.file(module)
        if path is None:
            continue
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source, filename=str(path))
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue  # the bake names a module that cannot be read or parsed
        functions = _functions(tree)
        if function is None:
            body = tree.body
        else:  # the function's own body, the functions of the module it calls, and the module's top level
            todo.append((module, None, compute))
            running.setdefault(module, set()).add(function)
            body = list(functions[function].body) if function in functions else []
            if function in functions:
                todo += [(module, name, compute) for name in _called(functions[function], functions)]
        lines = source.splitlines()
        for node in run_imports(body):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                base = _absolute(node, module, path.name == "__init__.py")
                names = [base] + [f"{base}.{alias.name}" for alias in node.names if site.file(f"{base}.{alias.name}")]
            for name in names:
                top = name.split(".")[0]
                if top in site.folders:
                    todo.append((name, None, compute))
                elif top and top not in available:
                    statement = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else name
                    problem = Problem(path, node.lineno, top, statement)
                    via, uses = found.setdefault(problem, (set(), set()))
                    via.update([compute] if compute else [])
                    if function is None:  # a top-level import: which running functions use it
                        uses.add((module, frozenset(_bound(node))))
    problems = []
    for problem, (via, uses) in found.items():
        used, anywhere, known = [], [], bool(uses)
        for module, names in sorted(uses, key=lambda use: (use[0], sorted(use[1]))):
            tree = ast.parse(site.file(module).read_text(encoding="utf-8"))
            used += _uses(set(names), tree, running.get(module, set()))
            anywhere += _uses(set(names), tree, set(_functions(tree)))
            known = known and module in running  # the functions live mode runs there are known
        unused_live = "" if used or not known else "helpers" if anywhere else "nothing"
        problems.append(Problem(problem.path, problem.line, problem.module, problem.statement, via=tuple(sorted(via)),
                                used=tuple(dict.fromkeys(used)), unused_live=unused_live))
    return problems


def message(problems: list[Problem], computes: list[str] | None, offline: list[str], distributed: set[str]) -> str:
    """One message for every problem found, each with its file and line, and the fixes."""
    def one(p: Problem) -> str:
        text = f"{p.path}:{p.line}: {p.statement!r}: {p.module} is not available in the browser's Python"
        text += " (Pyodide's distribution has it, but a site serves none of those packages)" if p.module in distributed else ""
        if p.used:
            text += f"; {'; '.join(p.used)}, and live mode runs that"
        elif p.unused_live == "helpers":
            text += "; only functions live mode does not call use it"
        elif p.unused_live == "nothing":
            text += "; nothing in its module uses it"
        return text

    via = sorted({compute for p in problems for compute in p.via})
    runs = (f"live mode runs {', '.join(via)} there" if via
            else "live mode and the console import the site's packages there")
    what = f"in {', '.join(via)} and what it calls and imports" if via else "in the site's packages"
    names = ", ".join(sorted({p.module for p in problems}))
    if all(p.unused_live == "nothing" for p in problems):
        fix = "remove the import (or put it under 'if TYPE_CHECKING:' for type hints)"
    elif all(p.unused_live for p in problems):
        fix = (f"move the import into the functions that use {names} (live mode never calls them, so the browser "
               "never runs the import), under 'if TYPE_CHECKING:', or into try/except ImportError with a fallback; "
               "remove it where nothing uses it")
    else:
        fix = (f"compute with the standard library (math, statistics, random) instead of {names} {what} (an import "
               "moved into the compute function, or into a function it calls, fails in the browser all the same); "
               f"{names} may stay only where live mode never goes: inside a function it never calls (a build-time "
               "helper), under 'if TYPE_CHECKING:', or in try/except ImportError with a fallback")
    return (f"{'; '.join(map(one, problems))}. The build computes with your Python, but {runs}, with Pyodide's "
            f"standard library, the core ({CORE}), the site's packages and the console's offline wheels "
            f"({', '.join(offline)}): every reader's browser would fail with ModuleNotFoundError. Fix: {fix}. Or "
            "set 'live: false' for the scalecore plugin (no live mode, no console)")


def check_or_stop(packages: list[Path], computes: list[str] | None, pyodide: Path, offline: dict[str, list[str]],
                  distributed: set[str] = frozenset()) -> None:
    """Raise BrowserImportError naming every import live mode would fail on. ``offline``: each
    offline wheel's name -> the modules it provides; ``distributed``: modules Pyodide's
    distribution has that the site does not serve (the message says so)."""
    if not packages:
        return
    available = pyodide_stdlib(pyodide) | {CORE} | {name for names in offline.values() for name in names}
    problems = check(packages, computes, available)
    if problems:
        raise BrowserImportError(f"scalecore: {message(problems, computes, sorted(offline), distributed)}.")

"""The house as its folders say it is (issue 44): the generator's wings in layers, each importing
only the layers below it, and no cycle, counted on the real tree from the modules' own imports
(every import, those inside functions too).

    foundation/ (with errors.py, vendor/)          the low layer: cache, disk, node, processes,
                                                   the static API's names, Markdown text
    kinds/                                         the kind contract and the built-in kinds
    blocks/                                        the authors' Markdown blocks and the views
    pages/, runtime/, mentor/                      what a page and the browser's Python need
    builder/                                       the site build, the bake and its executors,
                                                   offline and hosts
    adapters/, cli.py, __main__.py                 the engines' adapters and the command line

The README's layout table states the same layers.
"""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "scalecore_generator"
LAYERS = [
    ("errors", "vendor", "foundation"),
    ("kinds",),
    ("blocks",),
    ("pages", "runtime", "mentor"),
    ("builder",),
    ("adapters", "cli", "__main__"),
]
# Not the generator's code: the files `scalecore new` writes (their imports are an author's).
NOT_CODE = ("scaffold", "scaffold_kind", "vendor/node_modules")


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted((REPO / PACKAGE).rglob("*.py")):
        relative = path.relative_to(REPO / PACKAGE).as_posix()
        if relative.startswith(NOT_CODE) or "/examples/" in relative or relative.rsplit("/", 1)[-1].startswith("starter"):
            continue
        parts = [PACKAGE, *path.relative_to(REPO / PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(known: dict[str, Path]) -> set[tuple[str, str]]:
    """(importer, imported) for every import of one generator module by another."""
    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name if name and name != PACKAGE else None

    edges = set()
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            else:
                continue
            for target in targets:
                found = resolve(target) if target.startswith(PACKAGE) else None
                if found and found != name and not name.startswith(found + "."):
                    edges.add((name, found))
    return edges


def layer(module: str) -> int:
    wing = module.split(".")[1]
    for number, wings in enumerate(LAYERS):
        if wing in wings:
            return number
    raise AssertionError(f"{module} is in no layer: add its wing to LAYERS and to the README's layout table")


def test_every_module_is_in_a_layer_and_imports_only_layers_below_or_its_own():
    known = modules()
    assert len(known) > 60, "the generator's modules were not found"
    back = sorted(f"{a} -> {b}" for a, b in imports(known) if a != PACKAGE and layer(b) > layer(a))
    assert back == [], "imports from a lower layer back up:\n" + "\n".join(back)


def test_no_cycle_between_modules():
    known = modules()
    graph = {name: set() for name in known}
    for a, b in imports(known):
        graph[a].add(b)
    cycles, index, low, stack, on_stack = [], {}, {}, [], set()

    def visit(node):  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert cycles == []


def test_the_readme_states_the_layers():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for wings in LAYERS:
        for wing in wings:
            if wing in ("errors", "vendor", "__main__", "cli", "mentor"):
                continue
            assert f"`scalecore_generator/{wing}/`" in readme, wing


# The engines (MkDocs, its fork ProperDocs, Zensical, Material): only their adapters import them
# (issue 44, item 2), so a kind, a block or the build runs under whichever engine an adapter wires in.
ENGINES = ("mkdocs", "properdocs", "zensical", "material")
ADAPTERS = "scalecore_generator/adapters/"


def engine_imports(path: Path) -> list[str]:
    """'line: module' for every import of an engine in ``path``: import statements anywhere (in
    functions too) and importlib.import_module / __import__ of a constant name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if not node.level else []
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and \
                isinstance(node.args[0].value, str) and \
                (getattr(node.func, "attr", None) == "import_module" or getattr(node.func, "id", None) == "__import__"):
            names = [node.args[0].value]
        else:
            continue
        found += [f"{node.lineno}: {name}" for name in names if name.partition(".")[0] in ENGINES]
    return found


def test_no_module_outside_the_adapters_imports_an_engine():
    """The core, the kinds (built-in, and those `scalecore new` writes), the blocks, the pages, the
    runtime and the build import no engine; a kind's options are Scalecore's own types."""
    sources = [path for folder in ("scalecore", PACKAGE) for path in sorted((REPO / folder).rglob("*.py"))
               if "node_modules" not in path.parts]
    assert len(sources) > 80, "the modules were not found"
    outside = [path for path in sources if not path.relative_to(REPO).as_posix().startswith(ADAPTERS)]
    found = [f"{path.relative_to(REPO)}:{hit}" for path in outside for hit in engine_imports(path)]
    assert found == [], "engine imports outside scalecore_generator/adapters/:\n" + "\n".join(found)
    inside = [hit for path in sources if path not in outside for hit in engine_imports(path)]
    assert inside, "the adapters import no engine: the check finds nothing"

"""The plugin's import graph: no loop anywhere, and the glue's layers in order.

The graph has one node per module of the repository (every package of the plugin, the Cat's
files, the benches, the examples and the tests) and one arrow per import statement, wherever it
stands: at module level, inside a function (an import moved into a function to dodge a loop is
still a loop a reader has to follow), and under ``if TYPE_CHECKING:`` (the type checker and the
reader see that arrow too; no module needs one to break a loop). Relative imports are resolved;
the tests' ``codemem.`` imports are read as the repository's own. ``from package import name``
points at ``package.name`` when that is a module, else at the package. A core's entry point
(``memory``, ``codegen``, ``llm``: lazy names, ``llm/exports.py``) points at every module of its
``_EXPORTS`` table, which it imports on first use.

Not drawn: the implicit import of a module's parent packages (``import a.b.c`` runs
``a/b/__init__.py`` first). A package's ``__init__`` that re-exports its own modules would
otherwise be a loop with each of them, and such a face is read as the package's table of
contents, not as a dependency of the modules below it.

Two kinds of loop fail (what the repository's top level leaves out: ``TOOLING``):

- a module loop: ``a`` imports ``b`` ... imports ``a``;
- a package loop: inside a package, drawing each sub-package as one node beside the package's
  own modules, the parts import each other in a ring (``memory/codeindex/`` imports
  ``memory/retrieval/``, which imports ``memory/codeindex/``; or ``codegen/sandbox/`` ->
  ``codegen/defaults.py`` -> ``codegen/sandbox/``), even when no single module loops. A
  sub-package importing its parent's modules (``memory/commits/`` -> ``memory/errors.py``) is
  not one, as long as those modules do not import the sub-package.
"""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterable, Iterator, Mapping

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: the cores' entry points: lazy tables of names, each name's module imported on first use
ENTRY_POINTS = ("memory", "codegen", "llm")
Graph = Mapping[str, set[str]]
#: the repository's tooling beside the plugin: checked for module loops and for rings inside
#: each of them, but not as parts of the repository's top level, where they reuse each other's
#: harnesses across suites (a bench drives the integration layer's Cat, a unit test checks a
#: bench's corpus, an integration test replays the unit tour) without any module looping
TOOLING = ("tests", "bench", "examples")


def module_files() -> dict[str, pathlib.Path]:
    """Dotted name -> file, for every ``.py`` of the repository (hidden folders left out)."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if any(part.startswith(".") for part in rel.parts) or rel.parts[:2] == ("tests",
                                                                                 "golden"):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _package_of(name: str, path: pathlib.Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _targets(node: ast.ImportFrom | ast.Import, package: str) -> Iterator[str]:
    """Dotted names an import statement may reach (a module, or a module's name)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name.removeprefix("codemem.")
        return
    if node.level:
        base = package.split(".") if package else []
        base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
        target = ".".join([*base, *(node.module or "").split(".")]).strip(".")
    else:
        target = (node.module or "").removeprefix("codemem")
        target = target.removeprefix(".")
        if node.module and not node.module.startswith("codemem"):
            target = node.module
    for alias in node.names:
        yield f"{target}.{alias.name}" if target else alias.name
    yield target


def _exports(tree: ast.Module, package: str) -> Iterator[str]:
    """The modules of an entry point's ``_EXPORTS`` table (``".store.support"`` and so on)."""
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                node.target.id == "_EXPORTS" and isinstance(node.value, ast.Dict):
            for value in node.value.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    yield package + value.value


def import_graph(files: Mapping[str, pathlib.Path]) -> dict[str, set[str]]:
    """Module -> the repository's modules it imports (see the module's docstring)."""
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = _package_of(name, path)
        arrows: set[str] = set()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            statement = list(_targets(node, package))
            if isinstance(node, ast.Import):
                arrows.update(t for t in statement if t in files)
                continue
            *names, target = statement
            modules = [n for n in names if n in files]
            arrows.update(modules)
            if len(modules) < len(names) and target in files:
                arrows.add(target)
        if name in ENTRY_POINTS:
            arrows.update(m for m in _exports(tree, name) if m in files)
        arrows.discard(name)
        graph[name] = arrows
    return graph


def _path(graph: Graph, start: str, goal: Iterable[str], allowed: set[str] | None = None
          ) -> list[str] | None:
    """A shortest import path from ``start`` to a module of ``goal`` (breadth first), moving
    only through ``allowed`` modules between the two ends when given."""
    goals = set(goal)
    previous: dict[str, str] = {}
    frontier, seen = [start], {start}
    while frontier:
        following = []
        for module in frontier:
            for nxt in sorted(graph.get(module, ())):
                if nxt in goals:
                    chain = [nxt, module]
                    while chain[-1] != start:
                        chain.append(previous[chain[-1]])
                    return chain[::-1]
                if nxt not in seen and (allowed is None or nxt in allowed):
                    seen.add(nxt)
                    previous[nxt] = module
                    following.append(nxt)
        frontier = following
    return None


def module_loops(graph: Graph) -> list[list[str]]:
    """One loop (``a, b, ..., a``) through each strongly connected group of modules."""
    loops, covered = [], set()
    for module in sorted(graph):
        if module in covered:
            continue
        back = _path(graph, module, {module})
        if back:
            loops.append(back)
            covered.update(back)
    return loops


def _unit(module: str, package: str) -> str:
    """The part of ``package`` that holds ``module``: a module of its own or a sub-package."""
    rest = module[len(package) + 1:] if package else module
    head = rest.split(".")[0]
    return f"{package}.{head}" if package else head


def package_loops(graph: Graph) -> list[str]:
    """Loops between the parts of each package (its modules and its sub-packages, each
    sub-package drawn as one node), each with the imports that make its arrows."""
    packages = {m.rsplit(".", i)[0] for m in graph for i in range(1, m.count(".") + 1)}
    found = []
    for package in ["", *sorted(packages)]:
        inside = [m for m in graph if m.startswith(package + ".")] if package else [
            m for m in graph if m.split(".")[0] not in TOOLING]
        parts: dict[str, set[str]] = {}
        witness: dict[tuple[str, str], tuple[str, str]] = {}
        for module in inside:
            for target in graph[module]:
                if target == package or (package and not target.startswith(package + ".")):
                    continue
                a, b = _unit(module, package), _unit(target, package)
                if a != b:
                    parts.setdefault(a, set()).add(b)
                    witness.setdefault((a, b), (module, target))
        for loop in module_loops(parts):
            arrows = [" imports ".join(witness[pair]) for pair in zip(loop, loop[1:], strict=False)]
            found.append(" -> ".join(loop) + " (" + "; ".join(arrows) + ")")
    return found


def test_the_graph_sees_imports_wherever_they_stand():
    files = module_files()
    graph = import_graph(files)
    assert {"hooks", "app.entry", "memory.codebase", "codegen.loop", "llm.reader",
            "tests.unit.test_import_graph"} <= set(graph)
    assert "app.chat.routing" in graph["app.entry"]  # a relative import
    assert "memory.codebase" in graph["memory"]  # an entry point's lazy table
    assert "memory.codebase" in graph["tests.unit.memory.codebase.helpers"]  # codemem.
    inside_functions = {m for m in graph["memory.commits.backend"]}
    assert "memory.commits.dulwich_backend" in inside_functions  # imported in a function


def test_the_loop_finders_find_loops():
    graph = {"p.a": {"p.b"}, "p.b": {"q.c"}, "q.c": {"p.a"}, "q.d": set()}
    assert module_loops(graph) == [["p.a", "p.b", "q.c", "p.a"]]
    assert package_loops(graph) == [
        "p -> q -> p (p.b imports q.c; q.c imports p.a)"]
    graph = {"p.a": {"q.c"}, "q.c": {"p.b"}, "p.b": set()}  # no module loop, one package loop
    assert module_loops(graph) == []
    assert package_loops(graph) == ["p -> q -> p (p.a imports q.c; q.c imports p.b)"]
    graph = {"p.x.a": {"p.y.c"}, "p.y.c": {"p.x.b"}, "p.x.b": set()}  # between sub-packages
    assert package_loops(graph) == [
        "p.x -> p.y -> p.x (p.x.a imports p.y.c; p.y.c imports p.x.b)"]
    graph = {"p.s.a": {"p.errors"}, "p.errors": set(), "p.b": {"p.s.a"}}  # child -> parent
    assert module_loops(graph) == [] and package_loops(graph) == []


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(module_files())


def test_no_module_imports_itself_through_others(graph):
    loops = module_loops(graph)
    assert not loops, "import loops (break each by moving the shared piece down):\n  " + \
        "\n  ".join(" -> ".join(loop) for loop in loops)


def test_no_import_leaves_a_package_and_comes_back(graph):
    loops = package_loops(graph)
    assert not loops, ("package loops (a package reaches itself through another; move the "
                       "shared piece where both can import it):\n  "
                       + "\n  ".join(loops))


#: the glue's layers, top first (docs/architecture.md): a module imports only layers below its
#: own, or modules of its own layer
#: ``app/rest`` sits beside ``app/entry`` (the routes' face for ``endpoints.py``) and above ``chat``
#: (the REST routes answer with chat's own functions).
APP_LAYERS = ("app.entry", "app.rest", "app.chat", "app.process", "app.drafting", "app.projects",
              "app.host")


def _layer(module: str) -> int | None:
    for number, layer in enumerate(APP_LAYERS):
        if module == layer or module.startswith(layer + "."):
            return number
    return None


def test_layer_names_match_the_glue():
    glue = {m for m in module_files() if m.startswith("app.")}
    unplaced = sorted(m for m in glue if _layer(m) is None)
    assert not unplaced, f"modules of app/ in no layer of APP_LAYERS: {unplaced}"


def test_the_glue_imports_only_downwards(graph):
    upward = []
    for module, arrows in sorted(graph.items()):
        own = _layer(module)
        if own is None:
            continue
        for target in sorted(arrows):
            theirs = _layer(target)
            if target == "app" or (theirs is not None and theirs < own):
                upward.append(f"{module} ({APP_LAYERS[own]}) imports {target}")
    assert not upward, "app/ imports up its layers (docs/architecture.md):\n  " + \
        "\n  ".join(upward)

"""The cores' entry points: the glue's only way in, lazy, and always the current import's names.

``memory/__init__.py``, ``codegen/__init__.py`` and ``llm/__init__.py`` list what each core offers
(``_EXPORTS``), resolve it through ``llm/exports.py`` on every access and never keep it, because
the Cat never runs a package's ``__init__`` again after re-importing the plugin's modules
(docs/cat-plugin-api.md, "Toggles, re-uploads and the LLM settings").
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import subprocess
import sys

import pytest

from .. import mount

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORES = ("memory", "codegen", "llm")
#: The glue: what joins the cores to the Cat.
GLUE_FILES = ("hooks.py", "tools.py", "forms.py", "settings.py")


def _glue() -> list[pathlib.Path]:
    return sorted([*(ROOT / "app").rglob("*.py"), *(ROOT / name for name in GLUE_FILES)])


def _init(core: str) -> ast.Module:
    return ast.parse((ROOT / core / "__init__.py").read_text(encoding="utf-8"))


def _exports(core: str) -> dict[str, str]:
    for node in _init(core).body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_EXPORTS":
            return ast.literal_eval(node.value)
    raise AssertionError(f"{core}/__init__.py has no _EXPORTS table")


def _typed_names(core: str) -> dict[str, str]:
    """name -> module of the ``if TYPE_CHECKING:`` imports (``from .x import N as N``)."""
    found: dict[str, str] = {}
    for node in _init(core).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for item in node.body:
                assert isinstance(item, ast.ImportFrom) and item.level == 1, ast.dump(item)
                for alias in item.names:
                    assert alias.asname == alias.name, f"{core}: {alias.name} is not re-exported"
                    found[alias.name] = "." + (item.module or "")
    return found


def test_the_glue_imports_the_cores_only_through_their_entry_points():
    """``from ...memory import X``, never ``from ...memory.store.fts import X``: the entry
    points are the list of what the glue uses, and what a core may change freely is the rest."""
    for path in _glue():
        rel = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] in CORES for a in node.names), (
                    f"{rel}:{node.lineno}")
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            target = path.parent
            for _ in range(node.level - 1):
                target = target.parent
            module = (node.module or "").split(".")
            if target == ROOT and module[0] in CORES:
                assert len(module) == 1, (
                    f"{rel}:{node.lineno} imports {node.module}: import from the entry point "
                    f"{module[0]}/__init__.py (add the name to its _EXPORTS)")


@pytest.mark.parametrize("core", CORES)
def test_an_entry_point_is_a_table_and_its_types_say_the_same(core):
    """Nothing but the table, the lazy resolver and the typed names: no import, no binding."""
    exports = _exports(core)
    assert exports == _typed_names(core), f"{core}: _EXPORTS and the TYPE_CHECKING block differ"
    for node in _init(core).body:
        allowed = (ast.Expr, ast.AnnAssign, ast.Assign, ast.If, ast.ImportFrom)
        assert isinstance(node, allowed), f"{core}/__init__.py:{node.lineno} {ast.dump(node)}"
        if isinstance(node, ast.ImportFrom):  # __future__ and the shared helper only
            names = [a.name for a in node.names]
            assert names in (["annotations"], ["TYPE_CHECKING"], ["lazy_exports"]), names
    for name, module in exports.items():
        path = ROOT / core / module.lstrip(".").replace(".", "/")
        assert path.with_suffix(".py").is_file(), f"{core}: {name} from missing {module}"
        defines = ast.parse(path.with_suffix(".py").read_text(encoding="utf-8"))
        top = {getattr(n, "name", None) for n in defines.body} | {
            t.id for n in defines.body if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)}
        assert name in top, f"{core}: {name} is not defined in {module} (name its own module)"


@pytest.mark.parametrize("core", CORES)
def test_no_public_name_is_spelled_like_a_submodule(core):
    """Python binds an imported submodule as an attribute of its package, which would hide the
    lazy ``__getattr__`` and pin that name to one import of the plugin."""
    children = {p.stem for p in (ROOT / core).glob("*.py")} | {
        p.name for p in (ROOT / core).iterdir() if p.is_dir()}
    assert not set(_exports(core)) & children


@pytest.mark.parametrize("core", CORES)
def test_after_the_cat_reimports_a_core_its_entry_point_hands_out_the_new_objects(core):
    """What a toggle does: every file's module leaves ``sys.modules`` (packages stay, with the
    ``__getattr__`` of their first import) and is imported again. Each public name must then be
    the new module's object, through the package attribute and through ``from ... import``."""
    alias = f"cwmreimport_{core}"
    mount(alias)
    package = importlib.import_module(f"{alias}.{core}")
    try:
        before = {name: getattr(package, name) for name in package.__all__}
        files = [m for m, module in sys.modules.items() if m.startswith(f"{alias}.")
                 and getattr(module, "__spec__", None) is not None
                 and module.__spec__.submodule_search_locations is None]
        for name in files:  # the Cat's deactivation
            del sys.modules[name]
        for name in files:  # the next activation
            importlib.import_module(name)
        assert sys.modules[f"{alias}.{core}"] is package, "the package object stays"
        for name, old in before.items():
            module = sys.modules[f"{alias}.{core}{_exports(core)[name]}"]
            new = getattr(module, name)
            assert getattr(package, name) is new
            namespace: dict[str, object] = {}
            exec(f"from {alias}.{core} import {name}", namespace)  # noqa: S102
            assert namespace[name] is new
            if isinstance(old, type) or callable(old):
                assert new is not old, f"{name} is still the first import's"
    finally:
        for name in [m for m in sys.modules if m == alias or m.startswith(f"{alias}.")]:
            del sys.modules[name]


def test_importing_an_entry_point_loads_nothing_else():
    """The Cat imports every package: the entry points must cost nothing until a name is used
    (the standard library's ``typing`` aside, no module of the plugin nor any dependency)."""
    code = ("import sys, tests; before = set(sys.modules)\n"
            "import codemem.memory, codemem.codegen, codemem.llm\n"
            "print(sorted(m for m in set(sys.modules) - before\n"
            "             if m.split('.')[0] not in sys.stdlib_module_names))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=True)
    assert set(ast.literal_eval(done.stdout.strip())) == {
        "codemem.memory", "codemem.codegen", "codemem.llm", "codemem.llm.exports"}

"""The project's non-negotiables, checked mechanically on every .py file.

The Cat imports every .py file of the plugin (docs/cat-plugin-api.md): these rules keep that safe.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import pathlib
import sys
import threading

import pytest
from packaging.requirements import InvalidRequirement, Requirement

ROOT = pathlib.Path(__file__).resolve().parents[2]
GLUE = {"hooks.py", "tools.py", "forms.py", "endpoints.py"}  # need the Cat to import


def python_files():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if not any(part.startswith(".") for part in rel.parts):
            yield rel


def imports_of(rel):
    tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node, node.module or "", node.level


def top_level_imports(rel):
    tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module or ""


def test_requirements_are_bare_lines_the_cat_can_parse():
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "", "end the file with one newline"
    for number, line in enumerate(lines[:-1], 1):
        assert line.strip() and not line.lstrip().startswith(("#", "-")) and " #" not in line, (
            f"requirements.txt line {number} ({line!r}): the Cat stops installing at the first "
            "blank, comment or option line")
        try:
            name = Requirement(line).name
        except InvalidRequirement as err:
            pytest.fail(f"requirements.txt line {number} ({line!r}) is not a requirement: {err}")
        assert not name.lower().startswith("cheshire"), "never list the Cat itself"


def test_plugin_json_and_no_root_init():
    manifest = json.loads((ROOT / "plugin.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "Code Working Memory"
    for key in ("description", "author_name", "version", "tags", "thumb", "min_cat_version",
                "max_cat_version"):
        assert key in manifest
    assert manifest["min_cat_version"] == "1.8.0" and manifest["max_cat_version"].startswith("1.9")
    assert not (ROOT / "__init__.py").exists(), "a root __init__.py runs twice in the Cat"


FRAMEWORKS = ("cat", "langchain", "langchain_core", "langchain_openai", "langchain_ollama",
              "langchain_community", "codemem")
#: what each framework-free package may not import (besides the frameworks)
FORBIDDEN = {"memory": ("codegen",), "codegen": ("memory",), "llm": ("memory", "codegen")}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_framework_free_packages_never_import_the_cat_langchain_or_each_other(package):
    """Cores may use ``llm`` (the boundary with models); nothing else crosses."""
    for rel in python_files():
        if rel.parts[0] != package:
            continue
        for node, module, level in imports_of(rel):
            head = module.split(".")[0]
            assert level > 0 or head not in (*FRAMEWORKS, *FORBIDDEN[package]), (
                f"{rel}:{node.lineno} imports {module}")
            if level >= len(rel.parts):  # reaches above the package
                assert not module.startswith(FORBIDDEN[package]), (
                    f"{rel}:{node.lineno} imports {module}")


def test_plugin_code_uses_relative_imports_for_its_own_packages():
    own = {"memory", "codegen", "llm", "app", "settings", "hooks", "tools", "forms", "bench",
           "examples"}
    for rel in python_files():
        if rel.parts[0] == "tests":
            continue
        for node, module, level in imports_of(rel):
            assert not (level == 0 and module.split(".")[0] in own | {"codemem"}), (
                f"{rel}:{node.lineno}: absolute import of {module} breaks inside the Cat")


def _is_module(package: pathlib.Path, name: str) -> bool:
    return (package / f"{name}.py").is_file() or (package / name).is_dir()


#: The cores' entry points: lazy, never cached (llm/exports.py), so their names are always the
#: current import's; the only packages names may be imported from.
ENTRY_POINTS = ("memory", "codegen", "llm")


def test_plugin_code_never_binds_a_module_by_name_from_its_package():
    """``from . import x`` binds the package's attribute ``x`` when it exists: after the Cat
    re-imports the plugin (toggle, re-upload) that is the previous import's module, and two
    generations of the plugin run side by side. ``from .x import name`` always reads the
    current ``sys.modules``; so does ``from ..memory import name``, because the cores' entry
    points resolve every name afresh (tests/unit/test_entry_points.py)."""
    for rel in python_files():
        if rel.parts[0] in ("tests", "bench"):
            continue
        for node, module, level in imports_of(rel):
            if not level:
                continue
            package = (ROOT / rel).parent
            for _ in range(level - 1):
                package = package.parent
            package = package.joinpath(*module.split(".")) if module else package
            modules = [a.name for a in node.names if _is_module(package, a.name)]
            assert not modules, (f"{rel}:{node.lineno} imports module(s) {modules} by name "
                                 "from a package: import the names you use instead")
            entry_point = package.parent == ROOT and package.name in ENTRY_POINTS
            assert entry_point or not (
                package.is_dir() and (package / "__init__.py").is_file()), (
                f"{rel}:{node.lineno} imports names from the package {module or '.'}: the Cat "
                "never runs a package's __init__ again, so after a toggle its names are the "
                "previous import's; import them from the module that defines them (or from "
                f"one of the lazy entry points {ENTRY_POINTS})")


def test_gitpython_is_never_imported_at_module_level():
    for rel in python_files():
        for module in top_level_imports(rel):
            assert module.split(".")[0] != "git", f"{rel} imports GitPython at module level"


def test_no_python_fixture_files_and_no_decorated_reexports():
    for rel in python_files():
        if rel.parts[0] == "tests" and "golden" in rel.parts:
            pytest.fail(f"{rel}: fixtures must not be .py files (the Cat would import them)")
        if rel.name in GLUE:
            continue
        for node, module, level in imports_of(rel):
            if module.split(".")[-1] in ("hooks", "tools", "forms", "endpoints") or (
                level and not module and any(a.name in ("hooks", "tools", "forms", "endpoints")
                                             for a in node.names)):
                pytest.fail(f"{rel}:{node.lineno} imports the glue: its hooks would register twice")


def test_every_non_glue_module_imports_without_side_effects():
    """What the Cat does at load time: import every file. Nothing may change the process."""
    before_cwd, before_env = os.getcwd(), dict(os.environ)
    before_threads = set(threading.enumerate())
    before_path = list(sys.path)
    failures = []
    for rel in python_files():
        if rel.name in GLUE or rel.parts[0] == "tests" and rel.parts[1:2] == ("integration",):
            continue
        name = "codemem." + ".".join(rel.with_suffix("").parts)
        name = name.removesuffix(".__init__")
        try:
            importlib.import_module(name)
        except Exception as err:  # report every broken module, not just the first
            failures.append(f"{rel}: {type(err).__name__}: {err}")
    assert not failures, "\n".join(failures)
    assert os.getcwd() == before_cwd
    assert dict(os.environ) == before_env
    assert sys.path == before_path
    assert set(threading.enumerate()) <= before_threads


def _calls_at_import(node):
    """Calls that run when the module is imported: everything but function bodies."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(child, ast.Call):
            yield child
        yield from _calls_at_import(child)


def pytest_calls_at_import(source):
    """``(line, name)`` of every ``pytest.<name>(...)`` call made at import time."""
    return [(call.lineno, call.func.attr) for call in _calls_at_import(ast.parse(source))
            if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "pytest"]


def test_no_module_skips_at_import_time():
    """``pytest.importorskip``/``pytest.skip`` at module level raise a BaseException when the
    Cat imports the file (its image lacks test-only packages such as psutil): plugin loading
    dies. Skip inside tests or fixtures."""
    assert pytest_calls_at_import("import pytest\npsutil = pytest.importorskip('psutil')\n")
    assert not pytest_calls_at_import("def f():\n    pytest.importorskip('psutil')\n")
    for rel in python_files():
        found = [(line, name) for line, name in
                 pytest_calls_at_import((ROOT / rel).read_text(encoding="utf-8"))
                 if name in ("importorskip", "skip", "exit", "fail")]
        assert not found, f"{rel}: pytest calls at import time {found}"


def test_package_inits_survive_the_cats_second_import_as_plain_modules():
    """The Cat imports ``pkg/__init__.py`` again as module ``<pkg>.__init__`` and calls
    ``inspect.getmembers`` on it: lazy exports must resolve there too."""
    import importlib.util
    import inspect

    for rel in python_files():
        if rel.name != "__init__.py" or rel.parts[0] == "tests":
            continue
        package = "codemem." + ".".join(rel.parent.parts)
        importlib.import_module(package)
        name = f"{package}.__init__"
        spec = importlib.util.spec_from_file_location(name, ROOT / rel)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            members = dict(inspect.getmembers(module))
        finally:
            del sys.modules[name]
        for export in getattr(module, "__all__", []):
            assert export in members, f"{rel}: {export} did not resolve"


#: Packages of ``memory/`` documented by one row for the whole folder in docs/architecture.md.
FOLDER_ROWS = {"extract", "sources", "commits"}


def _architecture_sections() -> dict[str, str]:
    """docs/architecture.md split by its ``## `pkg/` `` headings (glue under "")."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    sections, name = {"": ""}, ""
    for line in text.splitlines():
        if line.startswith("## `") and "/`" in line:
            name = line.split("`")[1].rstrip("/")
            sections[name] = ""
        sections[name] += line + "\n"
    return sections


@pytest.mark.parametrize("core", ["memory", "codegen", "llm", "app"])
def test_architecture_doc_names_every_module_and_no_stale_one(core):
    """docs/architecture.md is the map of the tree: each module of a core and of the glue has a
    row (a package of ``FOLDER_ROWS`` one row for the folder), and every path a row names
    exists."""
    section = _architecture_sections()[core]
    named = {part for part in section.split("`") if part.endswith((".py", "/"))}
    missing = []
    for path in sorted((ROOT / core).rglob("*.py")):
        rel = path.relative_to(ROOT / core)
        if path.name == "__init__.py" or "__pycache__" in rel.parts:
            continue
        if rel.parts[0] in FOLDER_ROWS and len(rel.parts) > 1:
            if f"{rel.parts[0]}/" not in named:
                missing.append(f"{rel.parts[0]}/")
        elif rel.as_posix() not in named:
            missing.append(rel.as_posix())
    # memory/'s rows also mention files inside a package by bare name ("`lexical.py`'s fields")
    checked = [n for n in named if n.endswith(".py") and ("/" in n or core != "memory")]
    # a path from the repository's root (``app/process.py`` named in codegen/'s rows) is one too
    stale = [n for n in checked if not (ROOT / core / n).is_file()
             and not (n.split("/")[0] in ("app", "memory", "codegen", "llm", "tests")
                      and (ROOT / n).is_file())]
    assert not missing, f"docs/architecture.md has no row for {sorted(set(missing))} in {core}/"
    assert not stale, f"docs/architecture.md names modules that do not exist: {stale}"


def test_architecture_doc_has_a_row_for_each_of_the_cats_files():
    """The files at the root are what the Cat registers; the rest of the glue lives in app/."""
    named = {part for part in _architecture_sections()[""].split("`") if part.endswith(".py")}
    at_root = {p.name for p in ROOT.glob("*.py")}
    assert at_root == {"hooks.py", "tools.py", "forms.py", "settings.py", "endpoints.py"}, at_root
    assert at_root <= named, f"docs/architecture.md has no row for {sorted(at_root - named)}"

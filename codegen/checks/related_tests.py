"""Which repository tests touch the target, and which repository files a test run needs.

Why: the sandbox gets a copy of the draft and "only the repository files it needs", not the
whole repository: the import closure of the tests and the target, the ``conftest.py`` files
above the tests, and the pytest config files at the root. Imports are read with ``ast`` (no
code runs), falling back to a line scan when a file does not parse under the Cat's Python.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Mapping

from ..module_names import module_of

CONFIG_FILES = ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "conftest.py")
_IMPORT_LINE = re.compile(r"^\s*(?:from\s+([.\w]+)\s+import\s+([\w\s,().*]+)|import\s+([\w\s.,]+))",
                          re.M)


def is_test_file(path: str) -> bool:
    name = posixpath.basename(path)
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def imported_modules(source: str, path: str) -> set[str]:
    """Absolute module names ``source`` imports (relative imports resolved against ``path``)."""
    package = module_of(path).split(".")
    if not path.endswith("__init__.py"):
        package = package[:-1]
    found: set[str] = set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _scan_imports(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                keep = package[: len(package) - node.level + 1] if node.level > 1 else package
                base = ".".join([*keep, base] if base else keep)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return {m for m in found if m}


def _scan_imports(source: str) -> set[str]:
    found: set[str] = set()
    for match in _IMPORT_LINE.finditer(source):
        if match.group(1):
            base = match.group(1).lstrip(".")
            found.add(base)
            names = re.findall(r"\w+", match.group(2))
            found.update(f"{base}.{n}" for n in names if base)
        else:
            found.update(n.split(" as ")[0].strip() for n in match.group(3).split(","))
    return {m for m in found if m}


def select_related_tests(repo_files: Mapping[str, str], target_path: str,
                         symbol: str) -> dict[str, str]:
    """Test files that import the target module or mention the symbol's bare name."""
    module = module_of(target_path)
    name = (symbol or "").rsplit(".", 1)[-1]
    word = re.compile(rf"\b{re.escape(name)}\b") if name else None
    selected = {}
    for path, text in repo_files.items():
        if not is_test_file(path) or path == target_path:
            continue
        imports = imported_modules(text, path)
        if any(m == module or m.startswith(module + ".") for m in imports) or (
                word is not None and word.search(text)):
            selected[path] = text
    return selected


def needed_files(repo_files: Mapping[str, str], roots: list[str]) -> dict[str, str]:
    """``roots`` plus their import closure within the repo, conftests above them, config."""
    by_module: dict[str, str] = {module_of(p): p for p in repo_files if p.endswith(".py")}
    todo = [p for p in roots if p in repo_files]
    keep: set[str] = set()
    while todo:
        path = todo.pop()
        if path in keep:
            continue
        keep.add(path)
        for module in imported_modules(repo_files[path], path):
            parts = module.split(".")
            for i in range(1, len(parts) + 1):
                hit = by_module.get(".".join(parts[:i]))
                if hit and hit not in keep:
                    todo.append(hit)
        todo.extend(_conftests_above(repo_files, path))
    keep.update(p for p in CONFIG_FILES if p in repo_files)
    return {p: repo_files[p] for p in sorted(keep)}


def _conftests_above(repo_files: Mapping[str, str], path: str) -> list[str]:
    found = []
    directory = posixpath.dirname(path)
    while True:
        candidate = posixpath.join(directory, "conftest.py") if directory else "conftest.py"
        if candidate in repo_files:
            found.append(candidate)
        if not directory:
            return found
        directory = posixpath.dirname(directory)

"""A repository path as the module name Python imports it by, shared by the checks (related
tests, call sites, renamed uses) and the structural changes (renames, moves), which both resolve
imports against it."""

from __future__ import annotations


def module_of(path: str) -> str:
    """``pkg/mod.py`` -> ``pkg.mod``; ``pkg/__init__.py`` -> ``pkg`` (``src/`` is a root)."""
    stem = path[:-3] if path.endswith(".py") else path
    if stem.startswith("src/"):
        stem = stem[4:]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)

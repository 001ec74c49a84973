"""Module names of the indexed files: a source path as a dotted module, an import made absolute.

Pure functions shared by the code index (``impact``: who imports a changed definition) and
retrieval (``retrieval/dependencies.py``: the dependency boost); they live with the index
because what they name are the index's files.
"""

from __future__ import annotations

import posixpath

_SOURCE_SUFFIXES = (".pyi", ".py", ".pyw", ".tsx", ".ts", ".jsx", ".js", ".mjs", ".cjs",
                    ".java", ".go", ".rs", ".rb", ".php", ".cs", ".cpp", ".cc", ".hpp", ".h",
                    ".c")


def module_of(path: str) -> str:
    """Dotted module name of a source path: ``pkg/mod.py`` -> ``pkg.mod``; ``pkg/__init__.py``
    -> ``pkg``; ``src/auth.ts`` -> ``src.auth``."""
    stem = path
    for suffix in _SOURCE_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    parts = [p for p in stem.split("/") if p and p != "."]
    if parts and parts[-1] in ("__init__", "index", "mod"):
        parts = parts[:-1]
    return ".".join(parts)


def resolve_import(spec: str, current_path: str) -> str:
    """An import string as the extractor records it, made absolute and dotted.

    ``.store.MemoryStore`` from ``memory/codebase.py`` -> ``memory.store.MemoryStore``;
    ``"./auth"`` from ``src/api/x.ts`` -> ``src.api.auth``; ``a::b::c`` -> ``a.b.c``.
    """
    spec = spec.strip().strip("'\"<>;")
    if spec.startswith("./") or spec.startswith("../"):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(current_path), spec))
        return module_of(joined)
    if spec.startswith("."):
        dots = len(spec) - len(spec.lstrip("."))
        package = current_path.split("/")[:-1]
        base = package[: len(package) - (dots - 1)] if dots - 1 <= len(package) else []
        rest = spec[dots:]
        return ".".join([*base, rest] if rest else base)
    return spec.replace("::", ".").replace("/", ".").replace("\\", ".")

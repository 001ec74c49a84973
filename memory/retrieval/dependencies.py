"""Which code entities are related to the file the user is working on (the dependency boost).

Why names and not a full resolver: the boost only reorders candidates that the LLM already
judged; a cheap, explainable rule ("imported by", "called by", "calls into" the current file)
is enough, works for every language the extractor knows, and never needs to import or run the
user's code. Everything here is pure.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from ..store.support import Metadata

IMPORTED = "imported by the current file"
CALLED = "called by the current file"
CALLS_IN = "calls into the current file"

_SOURCE_SUFFIXES = (".pyi", ".py", ".pyw", ".tsx", ".ts", ".jsx", ".js", ".mjs", ".cjs",
                    ".java", ".go", ".rs", ".rb", ".php", ".cs", ".cpp", ".cc", ".hpp", ".h",
                    ".c")


def last_segment(name: str) -> str:
    """``self._store.get`` -> ``get``; ``Foo::bar`` -> ``bar``; ``a/b`` -> ``b``."""
    for sep in ("::", "->", "/", "\\"):
        name = name.replace(sep, ".")
    return name.rstrip(".()").rsplit(".", 1)[-1]


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


@dataclass(frozen=True)
class DependencyFocus:
    """What the current file imports, calls and defines; built once per query."""

    path: str
    imports: frozenset[str]
    called: frozenset[str]
    defined: frozenset[str]
    repo_id: str | None = None

    @classmethod
    def build(cls, path: str, file_imports: Iterable[str],
              entities: Iterable[Metadata],
              repo_id: str | None = None) -> DependencyFocus:
        """``entities`` are the current file's entity metadata (``name``, ``calls``)."""
        imports = frozenset(resolve_import(i, path) for i in file_imports if i)
        called: set[str] = set()
        defined: set[str] = set()
        for meta in entities:
            if meta.get("name"):
                defined.add(str(meta["name"]))
            called.update(last_segment(str(c)) for c in meta.get("calls") or ())
        return cls(path, imports, frozenset(called), frozenset(defined), repo_id)

    def relation(self, meta: Metadata | None) -> str | None:
        """Why the entity with metadata ``meta`` is related to the current file, or None."""
        if not meta or meta.get("path") in (None, self.path):
            return None
        if self.repo_id is not None and meta.get("repo_id") not in (None, self.repo_id):
            return None
        module = module_of(str(meta["path"]))
        qualified = str(meta.get("qualified_name") or "")
        if module and self._imports_module(module, qualified):
            return IMPORTED
        if meta.get("name") and str(meta["name"]) in self.called:
            return CALLED
        if self.defined and any(last_segment(str(c)) in self.defined
                                for c in meta.get("calls") or ()):
            return CALLS_IN
        return None

    def names(self) -> list[str]:
        """The names that find related entities in a lexical search: what the current file
        calls and imports (last segments), and what it defines (callers mention those)."""
        imported = {last_segment(i) for i in self.imports}
        return sorted(n for n in self.called | imported | self.defined if n)

    def _imports_module(self, module: str, qualified: str) -> bool:
        full = f"{module}.{qualified}" if qualified else module
        for imp in self.imports:
            if imp in (module, full) or full.startswith(imp + "."):
                return True
            # written relative to a source root (``api.auth`` for ``src/api/auth.py``)
            if "." in imp and ("." + imp + ".") in ("." + full + "."):
                return True
        return False

"""Which code entities are related to the file the user is working on (the dependency boost).

Why names and not a full resolver: the boost only reorders candidates that the LLM already
judged; a cheap, explainable rule ("imported by", "called by", "calls into" the current file)
is enough, works for every language the extractor knows, and never needs to import or run the
user's code. Everything here is pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..codeindex.modules import module_of, resolve_import
from ..store.support import Metadata

IMPORTED = "imported by the current file"
CALLED = "called by the current file"
CALLS_IN = "calls into the current file"

def last_segment(name: str) -> str:
    """``self._store.get`` -> ``get``; ``Foo::bar`` -> ``bar``; ``a/b`` -> ``b``."""
    for sep in ("::", "->", "/", "\\"):
        name = name.replace(sep, ".")
    return name.rstrip(".()").rsplit(".", 1)[-1]


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

"""What a caller of a library needs: its public surface, and each entity as an API reference.

Why not index every definition: a library's private helpers (``_x``, ``_private/``) and tests
crowd out the few names a caller uses, and a model shown private code will call it. But many
libraries define their public classes in private modules and re-export them
(``from ._make import define`` in ``attr/__init__.py``), so "private module" cannot mean
"skip": the public surface is computed from the module facts, following re-exports, and an
entity is kept when a public module exposes it, under the name a caller writes
(``attr.define``, not ``attr._next_gen.define``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..extract.entities import CodeEntity
from .api_facts import ModuleFact

#: Dunder methods that tell a caller something (others are protocol plumbing).
USEFUL_DUNDERS = frozenset({"__init__", "__call__"})
MAX_DOC_CHARS = 1500
MAX_METHODS_LISTED = 40
MAX_DEPTH = 12
_COMMENT = re.compile(r"(?<=\s)#\s[^\n]*")
_OPEN_SPACE = re.compile(r"\(\s+")
_TRAILING_COMMA = re.compile(r",?\s*\)")


def is_private(name: str) -> bool:
    """``_x`` is private; ``__x__`` (dunder) is not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_public_module(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))


@dataclass(frozen=True)
class PublicSurface:
    """``(defining module, top-level name) -> the dotted name a caller uses``."""

    names: Mapping[tuple[str, str], str]
    include_private: bool = False

    def public_name(self, module: str, qualified_name: str) -> str | None:
        """The caller's name of an entity, or None when it is not part of the public API."""
        top, _, rest = qualified_name.partition(".")
        base = self.names.get((module, top))
        inner = rest.split(".") if rest else []
        if base is None or any(is_private(p) or (p.startswith("__") and p not in USEFUL_DUNDERS)
                               for p in inner):
            return f"{module}.{qualified_name}" if self.include_private else None
        return f"{base}.{rest}" if rest else base

    def module_hash(self, module: str) -> str:
        """Changes when the public names of ``module``'s definitions change (forces a re-read)."""
        items = sorted((name, shown) for (owner, name), shown in self.names.items()
                       if owner == module)
        return hashlib.sha256(repr(items).encode()).hexdigest()[:16]


def public_surface(modules: Mapping[str, ModuleFact], include_private: bool = False
                   ) -> PublicSurface:
    """Every definition a public module exposes (directly or re-exported), shortest name first;
    with ``include_private`` every definition counts, under its own module's name."""
    names: dict[tuple[str, str], str] = {}
    order = sorted(modules, key=lambda m: (m.count("."), m))
    for module in order:
        if not is_public_module(module) or not modules[module].parsed:
            continue
        for name in _exported(modules[module]):
            found = _definition(modules, module, name, 0)
            if found is not None and found not in names:
                names[found] = f"{module}.{name}"
    if include_private:
        for module in order:
            fact = modules[module]
            for name in [*fact.functions, *fact.classes]:
                names.setdefault((module, name), f"{module}.{name}")
    return PublicSurface(names, include_private)


def _exported(fact: ModuleFact) -> list[str]:
    """Names of a module a caller may use: its public definitions, plus re-exports (listed in
    ``__all__``, or imported from inside the same top-level package)."""
    own = [n for n in [*fact.functions, *fact.classes] if not is_private(n)]
    top = fact.module.split(".")[0]
    if fact.all_names is not None:
        return list(dict.fromkeys([*own, *fact.all_names]))
    imported = [n for n, target in fact.imports.items()
                if not is_private(n) and target.split(".")[0] == top and target != top]
    return list(dict.fromkeys([*own, *imported]))


def _definition(modules: Mapping[str, ModuleFact], module: str, name: str,
                depth: int) -> tuple[str, str] | None:
    """Where ``module.name`` is defined (a function or class), following imports."""
    fact = modules.get(module)
    if fact is None or depth > MAX_DEPTH:
        return None
    if name in fact.functions or name in fact.classes:
        return module, name
    target = fact.imports.get(name)
    if target is not None:
        owner, _, attr = target.rpartition(".")
        return _definition(modules, owner, attr, depth + 1) if owner in modules else None
    for star in fact.star_imports:
        found = _definition(modules, star, name, depth + 1)
        if found is not None:
            return found
    return None


# -- entities as API references ----------------------------------------------------------------
def api_reference(entity: CodeEntity, public_name: str,
                  members: Sequence[CodeEntity] = ()) -> str:
    """The memory text of a library entity: what a caller needs, not its implementation."""
    lines = []
    if entity.parent is None and "." in public_name:
        owner, _, name = public_name.rpartition(".")
        lines.append(f"from {owner} import {name}")
    lines.append(f"{public_name}  ({entity.kind}, {entity.path}:{entity.start_line})")
    lines.append(_signature_line(entity))
    doc = (entity.docstring or "").strip()
    if doc:
        if len(doc) > MAX_DOC_CHARS:
            doc = doc[:MAX_DOC_CHARS].rstrip() + " ..."
        lines.extend("    " + line if line else "" for line in doc.splitlines())
    methods = list({m.name: m for m in reversed(members) if m.parent == entity.qualified_name
                    and _shown(m.name)}.values())[::-1]
    overloads = [o for o in members if o.qualified_name == entity.qualified_name
                 and o.occurrence != entity.occurrence]
    if overloads:
        lines.append("Other signatures:")
        lines.extend(f"- {_signature_line(o)}" for o in overloads[:MAX_METHODS_LISTED])
    if methods:
        lines.append("Methods:")
        lines.extend(f"- {_signature_line(m).removeprefix('async ').removeprefix('def ')}"
                     for m in methods[:MAX_METHODS_LISTED])
        if len(methods) > MAX_METHODS_LISTED:
            lines.append(f"- ... {len(methods) - MAX_METHODS_LISTED} more")
    return "\n".join(lines)


def _shown(name: str) -> bool:
    return not is_private(name) and (not name.startswith("__") or name in USEFUL_DUNDERS)


def _signature_line(entity: CodeEntity) -> str:
    """The ``def``/``class`` line on one line: no comments, no colon, no layout spaces."""
    text = " ".join(_COMMENT.sub("", entity.signature).split())
    text = _OPEN_SPACE.sub("(", _TRAILING_COMMA.sub(")", text))
    return text[:-1] if text.endswith(":") else text


def surface_entities(entities: Iterable[CodeEntity], module: str | None,
                     surface: PublicSurface) -> list[tuple[CodeEntity, str]]:
    """The file's entities a caller needs, each with its public name and API text as source.

    Non-Python files (``module`` None) keep every entity under its own name.
    """
    entities = list(entities)
    if module is None:
        return [(e, e.qualified_name) for e in entities]
    out = []
    for entity in entities:
        if entity.occurrence:  # an overload or a conditional twin: listed on the first one
            continue
        name = surface.public_name(module, entity.qualified_name)
        if name is None:
            continue
        text = api_reference(entity, name, entities)
        out.append((_with_text(entity, text), name))
    return out


def _with_text(entity: CodeEntity, text: str) -> CodeEntity:
    from dataclasses import replace

    from ..extract.entities import sha256_hex

    return replace(entity, source=text, content_hash=sha256_hex(text))

"""Answering "what is ``pkg.mod.Name.method``?" from the indexed sources' module facts.

This is the memory side of codegen's ``ApiFacts`` port: ``lookup(qualified_name)`` follows
re-exports (``from ._impl import X`` in ``__init__``), star imports and base classes inside the
indexed sources, and answers with the real signature, with "this name does not exist" (plus
close names that do), or with ``None`` when it cannot know (a module that is not indexed, a
base class from elsewhere, a dynamic ``__getattr__``). Only a sure "does not exist" or a sure
signature is ever reported, so a draft is never rejected on a guess.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .api_facts import (
    METHOD_DECORATORS,
    PROPERTY_DECORATORS,
    TRANSPARENT_DECORATORS,
    ClassFact,
    FunctionFact,
    ModuleFact,
    Param,
)

#: Re-export and inheritance chains followed at most (a cycle ends here too).
MAX_DEPTH = 12


@dataclass(frozen=True)
class ApiAnswer:
    """What a source says about one name (codegen's ``ApiAnswer`` Protocol).

    ``params`` is None when the call signature is unknown or ambiguous (overloads, decorators,
    dataclasses, metaclasses): existence is then all that can be checked.
    """

    qualified_name: str
    exists: bool
    kind: str = ""
    params: tuple[Param, ...] | None = None
    method_kind: str = ""
    signature: str = ""
    source: str = ""
    suggestions: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Class:
    module: str
    fact: ClassFact


class ApiTable:
    """Lookups over the module facts of every indexed source (``module -> (facts, label)``)."""

    def __init__(self, modules: Mapping[str, tuple[ModuleFact, str]]) -> None:
        self._modules = dict(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def modules(self) -> list[str]:
        return sorted(self._modules)

    def lookup(self, qualified_name: str) -> ApiAnswer | None:
        """The answer for a dotted name as a caller writes it, or None when unknown."""
        parts = [p for p in str(qualified_name).split(".") if p]
        if not parts or any(_is_dunder(p) for p in parts[1:]):
            return None
        for i in range(len(parts), 0, -1):
            module = ".".join(parts[:i])
            if module in self._modules:
                return self._in_module(module, parts[i:], ".".join(parts), 0)
        return None

    # -- modules ---------------------------------------------------------------------------------
    def _in_module(self, module: str, rest: Sequence[str], asked: str,
                   depth: int) -> ApiAnswer | None:
        fact, label = self._modules[module]
        if not rest:
            return ApiAnswer(asked, True, "module", source=label, signature=module)
        if not fact.parsed or depth > MAX_DEPTH:
            return None
        name, tail = rest[0], rest[1:]
        if name in fact.functions:
            return None if tail else self._function(asked, fact.functions[name], label)
        if name in fact.classes:
            return self._in_class(_Class(module, fact.classes[name]), tail, asked, False,
                                  depth)
        if name in fact.imports:
            return self._follow(fact.imports[name], tail, asked, depth)
        if name in fact.variables:
            return None if tail else ApiAnswer(asked, True, "variable", source=label)
        if f"{module}.{name}" in self._modules:
            return self._in_module(f"{module}.{name}", tail, asked, depth + 1)
        return self._via_stars(fact, rest, asked, label, depth)

    def _via_stars(self, fact: ModuleFact, rest: Sequence[str], asked: str, label: str,
                   depth: int) -> ApiAnswer | None:
        for star in fact.star_imports:
            if star not in self._modules:
                return None  # a star import from elsewhere: any name may come from it
            found = self._in_module(star, rest, asked, depth + 1)
            if found is None or found.exists:
                return found
        if fact.dynamic or _is_dunder(rest[0]):
            return None
        return self._missing(asked, rest[0], fact.public_names(), label,
                             lambda n, alt: self._in_module(fact.module, [n], alt, depth + 1))

    def _follow(self, target: str, tail: Sequence[str], asked: str,
                depth: int) -> ApiAnswer | None:
        """An imported name: resolve where it comes from (it must be inside a source)."""
        parts = target.split(".")
        for i in range(len(parts), 0, -1):
            module = ".".join(parts[:i])
            if module in self._modules:
                return self._in_module(module, [*parts[i:], *tail], asked, depth + 1)
        return None

    # -- classes ---------------------------------------------------------------------------------
    def _in_class(self, cls: _Class, rest: Sequence[str], asked: str, via_instance: bool,
                  depth: int) -> ApiAnswer | None:
        label = self._modules[cls.module][1]
        if not rest:
            params = self._constructor(cls, depth)
            shown = "(...)" if params is None else _params_text(params)
            return ApiAnswer(asked, True, "class", params, signature=f"{asked}{shown}",
                             source=label)
        name, tail = rest[0], rest[1:]
        found = self._member(cls, name, depth)
        if found is None:
            return None
        if isinstance(found, _Class):
            return self._in_class(found, tail, asked, via_instance, depth + 1)
        if isinstance(found, FunctionFact):
            return None if tail else self._method(asked, found, label)
        if found == "attribute":
            return None if tail else ApiAnswer(asked, True, "attribute", source=label)
        members = self._member_names(cls, depth)
        return self._missing(asked, name, members, label,
                             lambda n, alt: self._in_class(cls, [n], alt, via_instance,
                                                           depth + 1))

    def _member(self, cls: _Class, name: str,
                depth: int) -> _Class | FunctionFact | str | None:
        """A member through the class's bases; ``"missing"`` only if every base is known."""
        if depth > MAX_DEPTH or cls.fact.dynamic:
            return None
        fact = cls.fact
        if name in fact.methods:
            return fact.methods[name]
        if name in fact.classes:
            return _Class(cls.module, fact.classes[name])
        if name in fact.attributes:
            return "attribute"
        for base in self._bases(cls, depth):
            if base is None:
                return None
            found = self._member(base, name, depth + 1)
            if found != "missing":
                return found
        return "missing"

    def _bases(self, cls: _Class, depth: int) -> list[_Class | None]:
        """The class's bases inside the sources; None for a base defined elsewhere."""
        out: list[_Class | None] = []
        for base in cls.fact.bases:
            if base in ("object", "builtins.object"):
                continue
            out.append(self._resolve_class(cls.module, base, depth + 1))
        if cls.fact.keywords:
            out.append(None)  # a metaclass may add anything
        return out

    def _resolve_class(self, module: str, dotted: str, depth: int) -> _Class | None:
        if not dotted or depth > MAX_DEPTH:
            return None
        fact = self._modules[module][0]
        head, _, rest = dotted.partition(".")
        if head in fact.classes and not rest:
            return _Class(module, fact.classes[head])
        target = fact.imports.get(head)
        if target is None:
            return None
        full = f"{target}.{rest}" if rest else target
        parts = full.split(".")
        for i in range(len(parts) - 1, 0, -1):
            owner = ".".join(parts[:i])
            if owner in self._modules:
                return self._resolve_class(owner, ".".join(parts[i:]), depth + 1)
        return None

    def _member_names(self, cls: _Class, depth: int) -> list[str]:
        names = [*cls.fact.methods, *cls.fact.attributes, *cls.fact.classes]
        for base in self._bases(cls, depth):
            if base is not None and depth < MAX_DEPTH:
                names += self._member_names(base, depth + 1)
        return sorted({n for n in names if not n.startswith("_")})

    def _constructor(self, cls: _Class, depth: int) -> tuple[Param, ...] | None:
        """Call parameters of a class (``__init__`` minus ``self``), None when not certain."""
        fact = cls.fact
        if fact.decorators or fact.keywords or "__new__" in fact.methods or depth > MAX_DEPTH:
            return None
        init = fact.methods.get("__init__")
        if init is not None:
            params = _checkable(init)
            return params[1:] if params else None
        bases = self._bases(cls, depth)
        if not bases:
            return ()
        if len(bases) > 1 or bases[0] is None:
            return None
        return self._constructor(bases[0], depth + 1)

    # -- answers ---------------------------------------------------------------------------------
    def _function(self, asked: str, fn: FunctionFact, label: str) -> ApiAnswer:
        params = _checkable(fn)
        return ApiAnswer(asked, True, "function", params, signature=_signature(asked, fn),
                         source=label)

    def _method(self, asked: str, fn: FunctionFact, label: str) -> ApiAnswer:
        decorators = set(fn.decorators)
        if decorators & PROPERTY_DECORATORS or any(d.endswith(".setter") for d in decorators):
            return ApiAnswer(asked, True, "attribute", source=label)
        kind = ("static" if "staticmethod" in decorators else
                "class" if "classmethod" in decorators else "instance")
        return ApiAnswer(asked, True, "method", _checkable(fn), kind,
                         _signature(asked, fn), label)

    @staticmethod
    def _missing(asked: str, name: str, candidates: Sequence[str], label: str,
                 describe: Callable[[str, str], ApiAnswer | None]) -> ApiAnswer:
        """A sure "no such name", with the real signatures of up to three close names."""
        prefix = asked.rpartition(".")[0]
        suggestions = []
        for other in difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6):
            alternative = f"{prefix}.{other}"
            answer = describe(other, alternative)
            suggestions.append(answer.signature if answer is not None and answer.signature
                               else alternative)
        return ApiAnswer(asked, False, source=label, suggestions=tuple(suggestions))


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _checkable(fn: FunctionFact) -> tuple[Param, ...] | None:
    """The parameters when the signature is unambiguous: one definition, and only decorators
    that keep the signature."""
    extra = [d for d in fn.decorators if d not in TRANSPARENT_DECORATORS
             and d not in METHOD_DECORATORS]
    if fn.definitions != 1 or extra:
        return None
    return fn.params


def _params_text(params: Sequence[Param]) -> str:
    """``(a, /, b=1, *, c)`` with the ``/`` and ``*`` markers where the kinds change."""
    shown: list[str] = []
    for i, param in enumerate(params):
        if param.kind == "kwonly" and not any(p.kind in ("varargs", "kwonly")
                                              for p in params[:i]):
            shown.append("*")
        shown.append(param.text or param.name)
        if param.kind == "posonly" and (i + 1 == len(params) or params[i + 1].kind != "posonly"):
            shown.append("/")
    return f"({', '.join(shown)})"


def _signature(asked: str, fn: FunctionFact) -> str:
    returns = f" -> {fn.returns}" if fn.returns else ""
    return f"{asked}{_params_text(fn.params)}{returns}"

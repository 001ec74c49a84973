"""What renames and moves share: the result types, imports resolved, strings that name the
symbol, and the rewrite itself (libcst, every byte not renamed kept as it was).

Why strings are examined at all: ``getattr(obj, "fetch")``, ``"fetch"`` in a registry or a
template, ``mock.patch("pkg.mod.fetch")`` name the symbol where no parser can follow them, so a
structural rewrite would leave them behind silently. Each is a refusal naming ``path:line``
(the user renames it by hand or drops it); ``__all__`` entries are data the rename owns and are
rewritten; docstrings are prose and are only reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import (
    Assignment,
    BaseAssignment,
    MetadataWrapper,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from ..module_names import module_of

#: Calls whose string arguments name attributes (dynamic access).
DYNAMIC = frozenset({"getattr", "setattr", "hasattr", "delattr", "operator.attrgetter",
                     "attrgetter", "operator.methodcaller", "methodcaller", "mock.patch",
                     "patch", "patch.object", "mock.patch.object", "importlib.import_module",
                     "import_module", "__import__"})


@dataclass(frozen=True)
class Renamed:
    """The rewrite: every changed file's new text, what changed where, and what was left."""

    files: dict[str, str]
    sites: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def summary(self) -> str:
        head = (f"{len(self.sites)} change(s) in {len(self.files)} file(s), no LLM call:\n"
                + "\n".join(f"- {s}" for s in self.sites))
        if self.notes:
            head += "\nLeft as they are:\n" + "\n".join(f"- {n}" for n in self.notes)
        return head


@dataclass(frozen=True)
class Refused:
    """Why nothing was rewritten, and each place (``path:line: why``) that prevents it."""

    reason: str
    places: tuple[str, ...] = ()

    def message(self) -> str:
        return self.reason + "".join(f"\n- {p}" for p in self.places)


Outcome = Renamed | Refused


def word(name: str) -> re.Pattern[str]:
    """``name`` as a whole identifier (``pkg.fetch`` and ``fetch(`` match, ``prefetch`` not)."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")


def package_of(path: str) -> list[str]:
    """The package a module's relative imports start from."""
    parts = module_of(path).split(".") if module_of(path) else []
    return parts if path.endswith("__init__.py") else parts[:-1]


def from_module(node: cst.ImportFrom, path: str) -> str:
    """The absolute module of ``from ... import`` in ``path``."""
    base = dotted(node.module) if node.module is not None else ""
    level = len(node.relative)
    if not level:
        return base
    package = package_of(path)
    keep = package[: len(package) - level + 1] if level > 1 else package
    return ".".join([*keep, base] if base else keep)


def dotted(node: cst.BaseExpression | None) -> str:
    """``a.b.c`` for a chain of names, else ``""``."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return ""


def parse(text: str) -> MetadataWrapper | None:
    try:
        return MetadataWrapper(cst.parse_module(text))
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None


@dataclass
class FileEdits:
    """The rewrite of one file being planned: names to replace, and what to tell the user."""

    path: str
    wrapper: MetadataWrapper
    names: dict[cst.Name, str] = field(default_factory=dict)
    strings: dict[cst.SimpleString, str] = field(default_factory=dict)
    sites: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.positions = self.wrapper.resolve(PositionProvider)
        self._scopes = self.wrapper.resolve(ScopeProvider)

    def scope(self, node: cst.CSTNode | None = None) -> Scope:
        """The scope ``node`` sits in (the module's global scope by default)."""
        found = self._scopes.get(node if node is not None else self.wrapper.module)
        if found is None:
            found = self._scopes.get(self.wrapper.module)
        if found is None:  # libcst gives every module a global scope
            raise LookupError(f"{self.path}: no scope information")
        return found

    def line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def where(self, node: cst.CSTNode) -> str:
        return f"{self.path}:{self.line(node)}"

    def rename(self, node: cst.Name, new: str, what: str) -> None:
        if node not in self.names:
            self.names[node] = new
            self.sites.append(f"{self.where(node)}: {what}")

    def refuse(self, node: cst.CSTNode | None, why: str) -> None:
        self.refusals.append(f"{self.where(node) if node is not None else self.path}: {why}")

    def rewritten(self) -> str:
        return self.wrapper.module.visit(_Apply(self.names, self.strings)).code


def bound_node(assignment: BaseAssignment) -> cst.CSTNode | None:
    """The statement or definition that binds a name (None for a builtin)."""
    return assignment.node if isinstance(assignment, Assignment) else None


class _Apply(cst.CSTTransformer):
    def __init__(self, names: Mapping[cst.Name, str],
                 strings: Mapping[cst.SimpleString, str]) -> None:
        super().__init__()
        self.names, self.strings = names, strings

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.names.get(original_node)
        return updated_node.with_changes(value=new) if new else updated_node

    def leave_SimpleString(self, original_node: cst.SimpleString,
                           updated_node: cst.SimpleString) -> cst.SimpleString:
        new = self.strings.get(original_node)
        return updated_node.with_changes(value=new) if new else updated_node


class StringUses(cst.CSTVisitor):
    """Every string of a module that mentions ``name`` as a word, with its kind: ``docstring``,
    ``all`` (an ``__all__`` entry equal to the name), ``dynamic`` (an argument of getattr and
    friends) or ``text``."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.word = name, word(name)
        self.found: list[tuple[cst.CSTNode, str]] = []
        self._docstrings: set[int] = set()
        self._all: list[bool] = []
        self._dynamic: list[bool] = []

    def _mark(self, body: Sequence[cst.CSTNode]) -> None:
        first = body[0] if body else None
        if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and \
                isinstance(first.body[0], cst.Expr):
            self._docstrings.add(id(first.body[0].value))

    def visit_Module(self, node: cst.Module) -> None:
        self._mark(node.body)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._mark(node.body.body if isinstance(node.body, cst.IndentedBlock) else [])

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._mark(node.body.body if isinstance(node.body, cst.IndentedBlock) else [])

    def visit_Assign(self, node: cst.Assign) -> None:
        self._all.append(any(dotted(t.target) == "__all__" for t in node.targets))

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._all.pop()

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._all.append(dotted(node.target) == "__all__")

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._all.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self._dynamic.append(dotted(node.func) in DYNAMIC)

    def leave_Call(self, original_node: cst.Call) -> None:
        self._dynamic.pop()

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        try:
            value = node.evaluated_value
        except (ValueError, SyntaxError, MemoryError):
            return
        if isinstance(value, str) and self.word.search(value):
            self.found.append((node, self._kind(node, value)))

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        if self.word.search(node.value):
            self.found.append((node, self._kind(node, node.value)))

    def _kind(self, node: cst.CSTNode, value: str) -> str:
        if id(node) in self._docstrings:
            return "docstring"
        if self._all and self._all[-1] and value == self.name:
            return "all"
        return "dynamic" if any(self._dynamic) else "text"


def quoted_like(node: cst.SimpleString, value: str) -> str:
    """``value`` as a literal with ``node``'s prefix and quotes."""
    prefix = node.prefix
    quote = node.quote
    return f"{prefix}{quote}{value}{quote}"


def string_places(edits: FileEdits, name: str, *, owns_all: bool, new: str = "") -> None:
    """Refuse or report every string of the file naming ``name``; with ``owns_all`` (the
    module exports the symbol) its ``__all__`` entry becomes ``new``."""
    uses = StringUses(name)
    edits.wrapper.visit(uses)
    for node, kind in uses.found:
        if kind == "docstring":
            edits.notes.append(f"{edits.where(node)}: a docstring mentions `{name}`")
        elif kind == "all" and owns_all and new and isinstance(node, cst.SimpleString):
            edits.strings[node] = quoted_like(node, new)
            edits.sites.append(f"{edits.where(node)}: __all__ entry")
        elif kind == "all":
            continue  # another module's __all__ entry for a name of its own
        elif kind == "dynamic":
            edits.refuse(node, f"dynamic access names `{name}` in a string")
        else:
            edits.refuse(node, f"a string mentions `{name}`; a structural rename cannot tell "
                               "what it means")


def nodes_of(node: cst.CSTNode, kinds: tuple[type[cst.CSTNode], ...]) -> Iterator[cst.CSTNode]:
    """Every node of the given kinds under ``node`` (pre-order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kinds):
            yield current
        stack.extend(reversed(current.children))

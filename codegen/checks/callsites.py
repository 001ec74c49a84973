"""Every call of the target in the checked files against the target's new signature (Python).

Why a static check: a change to a function's parameters breaks each caller the draft did not
update, and a repository's tests may not reach them all; counting arguments costs a parse per
file (milliseconds) and names the exact call (``app/main.py:12``), which is feedback the model
can act on. Only what the call's syntax decides is checked: too many positional arguments, an
unknown or repeated keyword, a required parameter left out. A call with ``*args`` or ``**kw``
unpacking, or a target whose parameters cannot be read (a class without ``__init__``), is
skipped, never failed.

Which calls name the target: in its own file, ``name(...)`` (``self.name(...)`` and
``cls.name(...)`` inside its class for a method); elsewhere ``name(...)`` after ``from module
import name [as alias]`` and ``module.name(...)`` after ``import module [as m]`` or ``from package
import module``. Other receivers (``obj.name(...)``) are of unknown type and are not checked.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..module_names import module_of
from ..report import FAILED, CheckResult

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Params:
    """What a call of a function may pass (``self``/``cls`` already dropped)."""

    positional: tuple[str, ...]
    posonly: int
    required: frozenset[str]
    kwonly: tuple[str, ...]
    varargs: bool
    varkw: bool

    @classmethod
    def of(cls, fn: FunctionNode, *, bound: bool) -> Params:
        a = fn.args
        names = [x.arg for x in (*a.posonlyargs, *a.args)]
        posonly = len(a.posonlyargs)
        with_default = set(names[len(names) - len(a.defaults):]) if a.defaults else set()
        required = {n for n in names if n not in with_default}
        required |= {k.arg for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None}
        if bound and names:
            required.discard(names[0])
            names, posonly = names[1:], max(0, posonly - 1)
        return cls(tuple(names), posonly, frozenset(required), tuple(x.arg for x in a.kwonlyargs),
                   a.vararg is not None, a.kwarg is not None)

    def problem(self, call: ast.Call) -> str | None:
        """Why ``call`` cannot bind to these parameters, or None (also when it cannot tell)."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return None
        count = len(call.args)
        if count > len(self.positional) and not self.varargs:
            return (f"{count} positional arguments given, it takes at most "
                    f"{len(self.positional)}")
        given = set(self.positional[:count])
        for keyword in call.keywords:
            name = str(keyword.arg)
            if name in given:
                return f"argument {name!r} given twice"
            if name in self.positional[:self.posonly]:
                return f"{name!r} is positional-only"
            if name not in self.positional and name not in self.kwonly and not self.varkw:
                return f"unexpected keyword argument {name!r}"
            given.add(name)
        missing = sorted(self.required - given)
        return f"missing argument(s) {', '.join(map(repr, missing))}" if missing else None


def check_call_sites(files: Mapping[str, str], paths: Sequence[str], target_path: str,
                     symbol: str | None, kind: str | None = None) -> list[CheckResult]:
    """One failed ``signature`` result per call of ``symbol`` in ``paths`` that cannot bind."""
    if not symbol or kind == "module" or target_path not in files:
        return []
    target = _target(files[target_path], symbol)
    if target is None:
        return []
    params, receivers = target
    name = symbol.rsplit(".", 1)[-1]
    out = []
    for path in dict.fromkeys(p for p in paths if p.endswith(".py") and p in files):
        try:
            tree = ast.parse(files[path])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the parse check reports it
        finder = _Finder(symbol, module_of(target_path), path, home=path == target_path)
        for call in finder.calls(tree, receivers):
            problem = params.problem(call)
            if problem:
                text = (ast.get_source_segment(files[path], call) or name).replace("\n", " ")
                out.append(CheckResult("signature", FAILED,
                                       f"the call {_short(text)} does not match the new "
                                       f"signature of {symbol}: {problem}",
                                       f"{path}:{call.lineno}"))
    return out


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _target(source: str, symbol: str) -> tuple[Params, frozenset[str]] | None:
    """The parameters a call of ``symbol`` binds to, and for a method the receivers that call
    it bound (``self``; ``cls`` too for a class or static method)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    head, _, rest = symbol.partition(".")
    node = _last(tree.body, head)
    if isinstance(node, ast.ClassDef):
        init = _last(node.body, rest or "__init__")
        if not isinstance(init, FunctionNode):
            return None
        kinds = {d.id for d in init.decorator_list if isinstance(d, ast.Name)}
        receivers = {"self", "cls"} if kinds & {"classmethod", "staticmethod"} else {"self"}
        return (Params.of(init, bound="staticmethod" not in kinds),
                frozenset(receivers if rest else ()))
    if isinstance(node, FunctionNode) and not rest:
        return Params.of(node, bound=False), frozenset()
    return None


def _last(body: Sequence[ast.stmt], name: str) -> ast.stmt | None:
    found = None
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                stmt.name == name:
            found = stmt  # the last definition wins, as at run time
    return found


class _Finder:
    """The calls in one module that name the target (see the module docstring)."""

    def __init__(self, symbol: str, module: str, path: str, *, home: bool) -> None:
        self.symbol, self.module, self.path, self.home = symbol, module, path, home
        self.owner, _, self.name = symbol.rpartition(".")

    def calls(self, tree: ast.Module, receivers: frozenset[str]) -> Iterator[ast.Call]:
        if receivers:
            yield from self._member_calls(tree, receivers)
            return
        direct, via_module = self._bindings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and self._names_target(node.func, direct, via_module):
                yield node

    def _names_target(self, func: ast.expr, direct: set[str], via_module: set[str]) -> bool:
        if isinstance(func, ast.Name):
            return func.id in direct
        return isinstance(func, ast.Attribute) and func.attr == self.name and \
            _dotted(func.value) in via_module

    def _member_calls(self, tree: ast.Module, receivers: frozenset[str]) -> Iterator[ast.Call]:
        if not self.home:
            return
        owner = _last(tree.body, self.owner)
        if not isinstance(owner, ast.ClassDef):
            return
        for node in ast.walk(owner):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == self.name and isinstance(node.func.value, ast.Name) and \
                    node.func.value.id in receivers:
                yield node

    def _bindings(self, tree: ast.Module) -> tuple[set[str], set[str]]:
        """Local names of the target, and dotted names of its module, in this file."""
        direct = {self.symbol} if self.home else set()
        via_module: set[str] = set()
        package = module_of(self.path).split(".")
        if not self.path.endswith("__init__.py"):
            package = package[:-1]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == self.module:
                        via_module.add(alias.asname or alias.name)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                for alias in node.names:
                    if base == self.module and alias.name == self.name:
                        direct.add(alias.asname or alias.name)
                    elif f"{base}.{alias.name}".strip(".") == self.module:
                        via_module.add(alias.asname or alias.name)
        return direct, via_module


def _absolute(node: ast.ImportFrom, package: list[str]) -> str:
    if not node.level:
        return node.module or ""
    keep = package[: len(package) - node.level + 1] if node.level > 1 else package
    return ".".join([*keep, node.module] if node.module else keep)


def _dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""

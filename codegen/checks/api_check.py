"""Catch calls to library APIs that do not exist, before any test runs.

A model that has not seen a library guesses its API: ``requests.gett``, ``Session(timeout=3)``,
a positional argument too many. The sandbox only notices when the call runs (if the library is
installed there at all); this check reads the draft with ``ast``, resolves its imports and calls
(``import x as y``, ``from x import f``, ``s = x.Session(); s.get(...)``) and asks the
``ApiFacts`` port about each. Only sure answers become failures: an unknown module, a dynamic
class or an ambiguous signature is skipped. Each failure names the real signature, so the next
iteration can fix the call.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..ports import ApiAnswer, ApiFacts, ApiParam
from ..report import FAILED, PASSED, SKIPPED, CheckResult

CHECK = "api"
#: Failures reported per draft at most (the feedback must stay short).
MAX_FAILURES = 8

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

Lookup = Callable[[str], "ApiAnswer | None"]


@dataclass(frozen=True)
class Use:
    """One use of a library name in the draft: a call (``call`` set) or an import."""

    name: str
    line: int
    call: ast.Call | None = None
    via_instance: bool = False


def check_library_calls(files: Mapping[str, str], paths: Sequence[str], facts: ApiFacts,
                        local_modules: Collection[str] = ()) -> list[CheckResult]:
    """Check every use of an indexed library in ``paths``; one result per failure, or one
    ``passed``/``skipped`` result."""
    failures: list[CheckResult] = []
    checked = 0
    seen: set[tuple[str, str]] = set()
    answers: dict[str, ApiAnswer | None] = {}

    def lookup(name: str) -> ApiAnswer | None:
        if name not in answers:
            answers[name] = facts.lookup(name)
        return answers[name]

    for path in paths:
        tree = _parse(files.get(path, ""))
        if tree is None:
            continue
        for use in library_uses(tree, set(local_modules), lookup):
            answer = lookup(use.name)
            if answer is None:
                continue
            checked += 1
            problem = describe_problem(use, answer)
            if problem and (use.name, problem) not in seen:
                seen.add((use.name, problem))
                failures.append(CheckResult(CHECK, FAILED, problem, f"{path}:{use.line}"))
    if failures:
        return failures[:MAX_FAILURES]
    if checked:
        return [CheckResult(CHECK, PASSED,
                            f"{checked} use(s) of indexed library APIs match their signatures")]
    return [CheckResult(CHECK, SKIPPED, "the draft uses no indexed library API")]


def _parse(source: str) -> ast.Module | None:
    """The draft's tree; None when this Python cannot read it (newer syntax: not checked)."""
    if not source.strip():
        return None
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# -- resolving the draft's names ---------------------------------------------------------------
def library_uses(tree: ast.Module, local: set[str], lookup: Lookup) -> Iterator[Use]:
    """Imports of, and calls into, modules that are not the repository's own."""
    bindings = _import_bindings(tree, local)
    for name in _rebound_names(tree):
        bindings.pop(name, None)
    yield from _import_uses(tree, local)
    for scope in _scopes(tree):
        instances = _instances(scope, bindings, lookup)
        for node in _scope_nodes(scope):
            if isinstance(node, ast.Call):
                use = _call_use(node, bindings, instances, lookup)
                if use is not None:
                    yield use


def _import_bindings(tree: ast.Module, local: set[str]) -> dict[str, str]:
    """Local name -> dotted library path, for absolute imports of non-local modules."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in local:
                    continue
                if alias.asname:
                    out[alias.asname] = alias.name
                else:
                    out[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] in local:
                continue
            for alias in node.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return out


def _import_uses(tree: ast.Module, local: set[str]) -> Iterator[Use]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] not in local:
                yield from (Use(f"{node.module}.{a.name}", node.lineno) for a in node.names
                            if a.name != "*")
        elif isinstance(node, ast.Import):
            yield from (Use(a.name, node.lineno) for a in node.names
                        if "." in a.name and a.name.split(".")[0] not in local)


def _rebound_names(tree: ast.Module) -> set[str]:
    """Names bound by anything but an import somewhere in the file (they may shadow one)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    return names


def _scopes(tree: ast.Module) -> Iterator[ast.AST]:
    yield tree
    for node in ast.walk(tree):
        if isinstance(node, _SCOPES):
            yield node


def _scope_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """Nodes of one scope, not descending into nested functions, lambdas or classes."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _instances(scope: ast.AST, bindings: dict[str, str], lookup: Lookup) -> dict[str, str]:
    """``s = lib.Session()`` / ``with lib.Session() as s``: ``s`` -> ``lib.Session`` when ``s``
    is bound exactly once in the scope and the library says it is a class."""
    stores: Counter[str] = Counter()
    made: dict[str, str] = {}
    for node in _scope_nodes(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] += 1
        elif isinstance(node, ast.arg):
            stores[node.arg] += 2
        value, target = _constructed(node)
        if value is not None and isinstance(target, ast.Name):
            name = _resolve(value.func, bindings)
            if name:
                made[target.id] = name
    return {var: cls for var, cls in made.items()
            if stores[var] == 1 and _is_class(lookup, cls)}


def _constructed(node: ast.AST) -> tuple[ast.Call | None, ast.expr | None]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value,
                                                                              ast.Call):
        return node.value, node.targets[0]
    if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Call):
        return node.value, node.target
    if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call):
        return node.context_expr, node.optional_vars
    return None, None


def _is_class(lookup: Lookup, name: str) -> bool:
    answer = lookup(name)
    return answer is not None and answer.exists and answer.kind == "class"


def _resolve(func: ast.expr, bindings: Mapping[str, str]) -> str:
    """``a.b.c`` with ``a`` replaced by what it was imported as; "" when not a library name."""
    attrs: list[str] = []
    while isinstance(func, ast.Attribute):
        attrs.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name) and func.id in bindings:
        return ".".join([bindings[func.id], *reversed(attrs)])
    return ""


def _call_use(call: ast.Call, bindings: Mapping[str, str], instances: Mapping[str, str],
              lookup: Lookup) -> Use | None:
    func = call.func
    name = _resolve(func, bindings)
    if name:
        return Use(name, call.lineno, call)
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id in instances:
        return Use(f"{instances[owner.id]}.{func.attr}", call.lineno, call, True)
    if isinstance(owner, ast.Call):  # lib.Session().get(...)
        made = _resolve(owner.func, bindings)
        if made and _is_class(lookup, made):
            return Use(f"{made}.{func.attr}", call.lineno, call, True)
    return None


# -- judging one use ---------------------------------------------------------------------------
def describe_problem(use: Use, answer: ApiAnswer) -> str:
    """Why ``use`` does not fit what the library offers, or "" when it fits (or is unknown)."""
    where = f" ({answer.source})" if answer.source else ""
    if not answer.exists:
        hint = ("; did you mean " + " or ".join(f"`{s}`" for s in answer.suggestions) + "?"
                if answer.suggestions else ".")
        return f"`{use.name}` does not exist in the indexed library{where}{hint}"
    if use.call is not None and answer.kind == "module":
        return f"`{use.name}` is a module{where}: call a function or class inside it."
    if use.call is None or answer.params is None or answer.kind not in ("function", "method",
                                                                       "class"):
        return ""
    params = list(answer.params)
    if answer.kind == "method" and params and _binds_first(answer.method_kind, use.via_instance):
        params = params[1:]
    problem = argument_problem(use.call, params)
    if not problem:
        return ""
    return f"`{use.name}(...)` {problem}. Real signature: `{answer.signature}`{where}."


def _binds_first(method_kind: str, via_instance: bool) -> bool:
    return method_kind == "class" or (via_instance and method_kind == "instance")


def argument_problem(call: ast.Call, params: Sequence[ApiParam]) -> str:
    """The first way the call's arguments do not fit ``params`` ("" if they fit)."""
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    star = len(positional) != len(call.args)
    keywords = [k.arg for k in call.keywords if k.arg is not None]
    splat = len(keywords) != len(call.keywords)
    by_position = [p for p in params if p.kind in ("posonly", "normal")]
    accepts_any_kw = any(p.kind == "varkw" for p in params)
    named = {p.name for p in params if p.kind in ("normal", "kwonly")}
    for keyword in keywords:
        if keyword not in named and not accepts_any_kw:
            return f"has no keyword argument `{keyword}`"
    if not star and not any(p.kind == "varargs" for p in params) and (
            len(positional) > len(by_position)):
        return (f"takes at most {len(by_position)} positional argument(s), "
                f"{len(positional)} given")
    filled = {p.name for p in by_position[:len(positional)]}
    twice = sorted(filled & set(keywords))
    if twice:
        return f"gets `{twice[0]}` both by position and by keyword"
    if star or splat:
        return ""
    missing = [p.name for p in params if not p.default and p.kind in ("posonly", "normal",
                                                                      "kwonly")
               and p.name not in filled and p.name not in keywords]
    if missing:
        return "is missing the required argument(s) " + ", ".join(f"`{m}`" for m in missing)
    return ""

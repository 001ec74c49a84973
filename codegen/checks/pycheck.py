"""The two in-process checks: parse (for the repository's Python version) and signature.

Why two parsers: libcst 1.9's native parser accepts every grammar up to 3.12 whatever
``PartialParserConfig(python_version=...)`` says, so it cannot tell a 3.8 repository that
``match`` is illegal. When the repository's version is not newer than the Cat's, CPython's own
``ast.parse(feature_version=...)`` is the gate (exact line and column); libcst then gives the
tree for the signature check. For versions newer than the Cat's, libcst is the gate. A cheap
bracket-depth scan runs first because libcst crashes the process on extreme nesting.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from ..defaults import DRAFT_RUN_DEFAULTS as DEFAULTS
from ..report import FAILED, PASSED, CheckResult

#: Deeper bracket nesting than this is refused before libcst sees it (it segfaults near 10k).
MAX_NESTING = 200


@dataclass(frozen=True)
class Parsed:
    """A parse verdict and, when it passed, the libcst module for later checks."""

    result: CheckResult
    module: cst.Module | None = None


def version_tuple(version: str) -> tuple[int, int]:
    """``"3.10"`` -> ``(3, 10)``; anything odd falls back to the Cat's own version."""
    try:
        major, minor = (int(p) for p in version.split(".")[:2])
        return major, minor
    except ValueError:
        return sys.version_info[:2]


def bracket_depth(source: str) -> int:
    """Maximum (), [], {} nesting, ignoring brackets in strings and comments (roughly)."""
    depth = best = 0
    quote = ""
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if quote:
            if ch == "\\":
                i += 1
            elif source.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
        elif ch == "#":
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif ch in "'\"":
            quote = ch * 3 if source.startswith(ch * 3, i) else ch
            i += len(quote) - 1
        elif ch in "([{":
            depth += 1
            best = max(best, depth)
        elif ch in ")]}":
            depth = max(0, depth - 1)
        i += 1
    return best


def check_parse(source: str, path: str,
                python_version: str = DEFAULTS.python_version) -> Parsed:
    """Parse ``source`` as the repository's Python would; ``where`` is ``path:line:col``."""
    if bracket_depth(source) > MAX_NESTING:
        return Parsed(CheckResult("parse", FAILED, f"brackets nested deeper than "
                                  f"{MAX_NESTING} levels; simplify the expression", path))
    target = version_tuple(python_version)
    if target <= sys.version_info[:2]:
        try:
            ast.parse(source, path, feature_version=target)
        except SyntaxError as err:
            where = f"{path}:{err.lineno or 0}:{err.offset or 0}"
            text = (err.text or "").strip()
            msg = f"SyntaxError (Python {target[0]}.{target[1]}): {err.msg}"
            return Parsed(CheckResult("parse", FAILED, msg + (f": {text}" if text else ""),
                                      where))
        except (RecursionError, MemoryError, ValueError) as err:
            return Parsed(CheckResult("parse", FAILED, f"cannot parse: {err}", path))
    try:
        module = cst.parse_module(source, config=cst.PartialParserConfig(
            python_version=f"{min(target, (3, 12))[0]}.{min(target, (3, 12))[1]}"))
    except cst.ParserSyntaxError as err:
        where = f"{path}:{err.raw_line}:{err.raw_column + 1}"
        return Parsed(CheckResult("parse", FAILED, f"SyntaxError: {err.message}", where))
    except (RecursionError, ValueError) as err:
        return Parsed(CheckResult("parse", FAILED, f"cannot parse: {err}", path))
    return Parsed(CheckResult("parse", PASSED, "", path), module)


def find_definition(module: cst.Module, symbol: str
                    ) -> cst.FunctionDef | cst.ClassDef | None:
    """The top-level def/class named ``symbol``, or ``Class.method`` one level down."""
    head, _, rest = symbol.partition(".")
    node = _named(module.body, head)
    if node is None or not rest:
        return node
    if not isinstance(node, cst.ClassDef):
        return None
    return _named(node.body.body, rest)


def _named(body: Sequence[cst.CSTNode], name: str) -> cst.FunctionDef | cst.ClassDef | None:
    found: cst.FunctionDef | cst.ClassDef | None = None
    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.name.value == name:
            found = stmt  # the last definition wins, as at run time
        elif isinstance(stmt, cst.If):  # ``if TYPE_CHECKING`` / version guards
            inner = _named(stmt.body.body, name) if hasattr(stmt.body, "body") else None
            found = inner or found
    return found


def param_names(fn: cst.FunctionDef, *, method: bool) -> list[str]:
    """Names in the meta-code convention: ``*args``/``**kw`` prefixed, self/cls dropped."""
    p = fn.params
    names = [x.name.value for x in (*p.posonly_params, *p.params)]
    if isinstance(p.star_arg, cst.Param):
        names.append("*" + p.star_arg.name.value)
    names += [x.name.value for x in p.kwonly_params]
    if p.star_kwarg is not None:
        names.append("**" + p.star_kwarg.name.value)
    if method and names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


def check_signature(module: cst.Module, path: str, symbol: str | None,
                    params: list[str] | None, kind: str | None = None) -> CheckResult:
    """The expected symbol exists at ``path`` with the expected kind and parameter names."""
    if not symbol or kind == "module":
        return CheckResult("signature", PASSED, "module-level target", path)
    node = find_definition(module, symbol)
    if node is None:
        return CheckResult("signature", FAILED,
                           f"{symbol!r} is not defined at the top level of {path}", path)
    line = _line(module, node)
    where = f"{path}:{line}" if line else path
    actual_kind = "class" if isinstance(node, cst.ClassDef) else (
        "method" if "." in symbol else "function")
    if kind and kind != actual_kind:
        return CheckResult("signature", FAILED, f"{symbol} should be a {kind}, found a "
                           f"{actual_kind}", where)
    if isinstance(node, cst.FunctionDef) and params is not None:
        got = param_names(node, method="." in symbol)
        if list(params) and got != list(params):
            return CheckResult("signature", FAILED, f"{symbol} parameters are ({', '.join(got)})"
                               f", expected ({', '.join(params)})", where)
    return CheckResult("signature", PASSED, "", where)


def _line(module: cst.Module, node: cst.CSTNode) -> int:
    """1-based line of ``node`` (cheap: count lines of the code before it)."""
    code = module.code
    text = module.code_for_node(node).lstrip("\n")
    head = text.split("\n", 1)[0]
    index = code.find(head)
    return code.count("\n", 0, index) + 1 if index >= 0 else 0

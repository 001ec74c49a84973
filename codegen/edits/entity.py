"""Whole-entity replacement for Python with libcst (used by ``api``).

Only the located node changes: its leading comments and blank lines and (unless the new code
brings its own) its decorators are carried over, and libcst's lossless round trip keeps every
other byte of the file as it was. Imports the new code needs are added once, after the file's
existing top-level imports.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import TypeAlias, TypeGuard

import libcst as cst

from ..errors import EditRejected

_DEF = (cst.FunctionDef, cst.ClassDef)
#: What an entity edit replaces: a function or a class.
_Def: TypeAlias = "cst.FunctionDef | cst.ClassDef"


def replace_entity(source: str, qualname: str, code: str, *, path: str = "<draft>") -> str:
    """``source`` with ``qualname`` replaced by (or, when absent, extended with) ``code``."""
    new, imports = _parse_snippet(code, qualname)
    if not source.strip():
        return _code_of(imports, new)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        raise EditRejected(f"{path} does not parse ({err.message}, line {err.raw_line}); "
                           "send the whole file in a ```python file=" + path + " block") from None
    body = _swap(module.body, qualname.split("."), new, qualname, path, top=True)
    module = module.with_changes(body=body)
    if imports:
        module = _merge_imports(module, imports)
    return module.code


def _parse_snippet(code: str, qualname: str
                   ) -> tuple[_Def, list[cst.SimpleStatementLine]]:
    name = qualname.rsplit(".", 1)[-1]
    try:
        snippet = cst.parse_module(textwrap.dedent(code))
    except cst.ParserSyntaxError as err:
        raise EditRejected(f"the new code of {qualname} does not parse: {err.message} "
                           f"(line {err.raw_line}, column {err.raw_column})") from None
    defs = [s for s in snippet.body if isinstance(s, _DEF)]
    imports = [s for s in snippet.body if _is_import(s)]
    if len(defs) != 1 or len(defs) + len(imports) != len(snippet.body):
        raise EditRejected(f"expected exactly one definition of {name!r} (plus optional imports) "
                           f"for {qualname}, got {len(defs)} definition(s) and "
                           f"{len(snippet.body) - len(defs) - len(imports)} other statement(s)")
    if defs[0].name.value != name:
        raise EditRejected(f"the new code defines {defs[0].name.value!r}, expected {name!r} "
                           f"(for {qualname})")
    return defs[0], imports


def _is_import(stmt: cst.CSTNode) -> TypeGuard[cst.SimpleStatementLine]:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body)


def _swap(stmts: Sequence[cst.BaseStatement], parts: list[str], new: _Def,
          qualname: str, path: str, top: bool) -> list[cst.BaseStatement]:
    hits = [(i, s) for i, s in enumerate(stmts)
            if isinstance(s, _DEF) and s.name.value == parts[0]]
    if len(hits) > 1:
        raise EditRejected(f"{qualname}: {len(hits)} definitions named {parts[0]!r} in {path}; "
                           "use a SEARCH/REPLACE block to say which one")
    if not hits:
        if len(parts) > 1:
            raise EditRejected(f"{qualname}: class {parts[0]!r} not found in {path}")
        blank = [cst.EmptyLine()] * (2 if top else 1) if stmts else []
        return [*stmts, new.with_changes(leading_lines=blank)]
    i, old = hits[0]
    if len(parts) == 1:
        return [*stmts[:i], _carry_over(old, new), *stmts[i + 1:]]
    if not isinstance(old, cst.ClassDef) or not isinstance(old.body, cst.IndentedBlock):
        raise EditRejected(f"{qualname}: {parts[0]!r} in {path} is not a class with a body")
    inner = _swap(old.body.body, parts[1:], new, qualname, path, top=False)
    return [*stmts[:i], old.with_changes(body=old.body.with_changes(body=inner)), *stmts[i + 1:]]


def _carry_over(old: _Def, new: _Def) -> _Def:
    changes: dict[str, object] = {"leading_lines": old.leading_lines}
    if not new.decorators:
        changes["decorators"] = old.decorators
    return new.with_changes(**changes)


def _merge_imports(module: cst.Module, imports: list[cst.SimpleStatementLine]) -> cst.Module:
    present = {module.code_for_node(s).strip() for s in module.body if _is_import(s)}
    missing = [s.with_changes(leading_lines=[]) for s in imports
               if module.code_for_node(s).strip() not in present]
    if not missing:
        return module
    body = list(module.body)
    last = max((i for i, s in enumerate(body) if _is_import(s)), default=None)
    if last is None:
        last = 0 if body and _is_docstring(body[0]) else -1
    return module.with_changes(body=[*body[:last + 1], *missing, *body[last + 1:]])


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.SimpleString | cst.ConcatenatedString))


def _code_of(imports: list[cst.SimpleStatementLine], new: _Def) -> str:
    module = cst.Module(body=[*imports, new.with_changes(
        leading_lines=[cst.EmptyLine()] * (2 if imports else 0))])
    return module.code


def add_docstring(source: str, qualname: str, docstring: str) -> str:
    """``source`` with ``docstring`` as the first statement of ``qualname`` if it has none.

    An existing docstring is the author's and stays. The literal is indented to the entity's
    body and escaped (backslashes, quote runs, a final quote), so it always parses and reads back
    as ``docstring``.
    """
    module = cst.parse_module(source)
    found = _find(module.body, qualname.split("."), "", module.default_indent)
    if found is None or not isinstance(found[0].body, cst.IndentedBlock):
        return source
    target, indent = found
    if target.body.body and _is_docstring(target.body.body[0]):
        return source
    literal = docstring_literal(docstring, indent)
    doc = cst.SimpleStatementLine(body=[cst.Expr(cst.SimpleString(literal))])
    new = target.with_changes(body=target.body.with_changes(body=[doc, *target.body.body]))
    return module.deep_replace(target, new).code  # type: ignore[union-attr]


def docstring_literal(docstring: str, indent: str) -> str:
    """A triple-quoted literal for ``docstring`` whose continuation lines sit at ``indent``."""
    text = docstring.replace("\r\n", "\n").replace("\r", "\n").strip().replace("\\", "\\\\")
    text = re.sub(r'"(?=")|"$', r'\\"', text)
    lines = text.split("\n")
    if len(lines) == 1:
        return f'"""{lines[0]}"""'
    rest = [f"{indent}{line}" if line.strip() else "" for line in lines[1:]]
    return '"""' + "\n".join([lines[0], *rest]) + f'\n{indent}"""'


def _find(stmts: Sequence[cst.BaseStatement], parts: list[str], outer: str, default: str
          ) -> tuple[cst.FunctionDef | cst.ClassDef, str] | None:
    """The definition and the absolute indentation of its body."""
    hits = [s for s in stmts if isinstance(s, _DEF) and s.name.value == parts[0]]
    if len(hits) != 1:
        return None
    body = hits[0].body
    inner = outer + (body.indent if isinstance(body, cst.IndentedBlock) and
                     body.indent is not None else default)
    if len(parts) == 1:
        return hits[0], inner
    return _find(body.body, parts[1:], inner, default) if isinstance(body, cst.IndentedBlock) \
        else None

"""Meta-code examples checked against the signature's return annotation.

A model that writes ``"expected": "5"`` for ``-> int`` makes every correct draft fail its own
examples. What can only mean one thing is coerced (``"5"`` -> ``5``, ``"true"`` -> ``True``) and
recorded as an assumption the user sees; a real disagreement (``"five"`` for ``-> int``) becomes a
question in the proposal, and that example is left out of the tests until the user answers.
Annotations this module does not understand (classes, ``Any``, type variables) are not checked.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_INT = re.compile(r"^\s*[-+]?\d+\s*$")
_FLOAT = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")


class Disagree(Exception):
    """The expected value does not fit the annotation."""


@dataclass(frozen=True)
class _Fit:
    value: Any
    coerced: bool


def reconcile_examples(data: dict[str, Any]) -> dict[str, Any]:
    """Meta-code ``data`` (the JSON shape) with example values fitted to the return annotation:
    safe coercions become assumptions, disagreements become questions (example left out)."""
    annotation = _return_annotation(data)
    examples = data.get("examples")
    if annotation is None or not isinstance(examples, list):
        return data
    kept: list[Any] = []
    assumptions = list(data.get("assumptions") or [])
    questions = list(data.get("questions") or [])
    shown = ast.unparse(annotation)
    for example in examples:
        if not isinstance(example, dict) or "expected" not in example or "raises" in example:
            kept.append(example)
            continue
        original = example["expected"]
        try:
            fit = _fit(original, annotation)
        except Disagree:
            questions.append(f"Example `{example.get('call')}` expects {original!r}, but the "
                             f"signature returns `{shown}`. Which is right? (The example is left "
                             "out of the tests until you say.)")
            continue
        if fit.coerced:
            assumptions.append(f"example `{example.get('call')}`: expected value {original!r} "
                               f"read as {fit.value!r}, since the signature returns `{shown}`")
        kept.append({**example, "expected": fit.value})
    return {**data, "examples": kept, "assumptions": assumptions, "questions": questions}


def _return_annotation(data: dict[str, Any]) -> ast.expr | None:
    signature = data.get("signature")
    if data.get("kind") not in ("function", "method") or not isinstance(signature, str):
        return None
    header = signature.strip().rstrip(":")
    try:
        tree = ast.parse(f"{header}:\n    pass\n")
    except SyntaxError:
        return None
    node = tree.body[0] if len(tree.body) == 1 else None
    return node.returns if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _fit(value: Any, ann: ast.expr) -> _Fit:
    """``value`` fitted to ``ann``; raises Disagree when it cannot mean that type."""
    if isinstance(ann, ast.Constant) and ann.value is None:
        return _scalar(value, None)
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _union(value, [ann.left, ann.right])
    name, args = _parts(ann)
    if name in ("Optional",):
        return _union(value, [*args, ast.Constant(None)])
    if name == "Union":
        return _union(value, args)
    if name in ("int", "float", "bool", "str", "None"):
        return _scalar(value, name)
    if name in ("list", "List", "Sequence", "set", "Set", "frozenset") and args:
        return _items(value, [args[0]] * len(value) if isinstance(value, list) else [])
    if name in ("tuple", "Tuple") and args:
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            args = [args[0]] * (len(value) if isinstance(value, list) else 0)
        return _items(value, args)
    if name in ("dict", "Dict", "Mapping") and len(args) == 2:
        return _mapping(value, args[1])
    return _Fit(value, False)  # not understood: not checked


def _parts(ann: ast.expr) -> tuple[str, list[ast.expr]]:
    if isinstance(ann, ast.Subscript):
        inner = ann.slice
        args = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        return _name(ann.value), args
    return _name(ann), []


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ""


_EXACT: dict[str | None, Callable[[Any], bool]] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool), "str": lambda v: isinstance(v, str),
    "None": lambda v: v is None, None: lambda v: v is None}


def _scalar(value: Any, name: str | None) -> _Fit:
    if _EXACT[name](value):
        return _Fit(value, False)
    if isinstance(value, str) and name == "int" and _INT.match(value):
        return _Fit(int(value), True)
    if isinstance(value, str) and name == "float" and _FLOAT.match(value):
        return _Fit(float(value), True)
    if isinstance(value, str) and name == "bool" and value.strip().lower() in ("true", "false"):
        return _Fit(value.strip().lower() == "true", True)
    if name == "int" and isinstance(value, float) and value.is_integer():
        return _Fit(int(value), True)
    raise Disagree


def _union(value: Any, options: list[ast.expr]) -> _Fit:
    fits = []
    for option in options:
        try:
            fits.append(_fit(value, option))
        except Disagree:
            continue
    exact = [f for f in fits if not f.coerced]
    if exact:
        return exact[0]
    if len({repr(f.value) for f in fits}) == 1:
        return fits[0]
    raise Disagree


def _items(value: Any, anns: list[ast.expr]) -> _Fit:
    if not isinstance(value, list) or len(anns) != len(value):
        raise Disagree
    fits = [_fit(v, a) for v, a in zip(value, anns, strict=True)]
    return _Fit([f.value for f in fits], any(f.coerced for f in fits))


def _mapping(value: Any, ann: ast.expr) -> _Fit:
    if not isinstance(value, dict):
        raise Disagree
    fits = {k: _fit(v, ann) for k, v in value.items()}
    return _Fit({k: f.value for k, f in fits.items()}, any(f.coerced for f in fits.values()))

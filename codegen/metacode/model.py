"""The meta-code model: the typed, validated goal of a code-generation task.

Every later step (prompts, generated tests, the signature check, the judge) trusts its fields, so
the model checks them strictly (the shape of the data field by field, then ``problems``) and
names every fault, for the re-ask. Examples are DATA: a call expression (parsed, never executed
here) and a JSON-safe expected value or an exception name; only the sandbox ever evaluates them
(see ``testgen``). ``generate`` asks the model for one.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..edits.api import path_problem
from ..errors import MetaCodeInvalid
from .scope import ScopeItem
from .scope import from_data as scope_from_data
from .scope import markdown as scope_markdown
from .scope import problems as scope_problems
from .scope import prompt_lines as scope_prompt_lines
from .scope import shape_errors as scope_shape_errors
from .scope import to_data as scope_to_data

KINDS = ("function", "method", "class", "module")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_JSON_SCALARS = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class IOSpec:
    """One input or output: name, type and meaning."""

    name: str
    type: str = ""
    description: str = ""


@dataclass(frozen=True)
class Example:
    """``call`` evaluated in the sandbox must equal ``expected`` or raise ``raises``."""

    call: str
    expected: Any = None
    raises: str = ""


@dataclass(frozen=True)
class MetaCode:
    """The goal; construct it through :meth:`from_dict` (or :meth:`with_changes`) to validate."""

    target_path: str
    symbol: str
    kind: str
    signature: str
    behaviour: str
    inputs: tuple[IOSpec, ...] = ()
    outputs: tuple[IOSpec, ...] = ()
    examples: tuple[Example, ...] = ()
    constraints: tuple[str, ...] = ()
    acceptance_checks: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = field(default=())
    #: what the user must settle (e.g. an example that disagrees with the signature)
    questions: tuple[str, ...] = ()
    #: the other places the change edits, and why (empty: the target alone)
    scope: tuple[ScopeItem, ...] = ()

    # -- conversion -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetaCode:
        """Build and validate; raises MetaCodeInvalid listing every problem at once."""
        errors = _shape_errors(data)
        if errors:
            raise MetaCodeInvalid(_join(errors))
        meta = cls(
            target_path=data["target_path"].strip(), symbol=data["symbol"].strip(),
            kind=data["kind"].strip(), signature=data.get("signature", "").strip(),
            behaviour=data["behaviour"].strip(),
            inputs=tuple(IOSpec(**io) for io in data.get("inputs", [])),
            outputs=tuple(IOSpec(**io) for io in data.get("outputs", [])),
            examples=tuple(_example(e) for e in data.get("examples", [])),
            constraints=tuple(data.get("constraints", [])),
            acceptance_checks=tuple(data.get("acceptance_checks", [])),
            assumptions=tuple(data.get("assumptions", [])),
            questions=tuple(data.get("questions", [])),
            scope=scope_from_data(data.get("scope", [])))
        errors = meta.problems()
        if errors:
            raise MetaCodeInvalid(_join(errors))
        return meta

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form; ``from_dict(to_dict())`` round-trips. ``scope`` appears only when
        there is one, so a single-entity goal reads as it always did."""
        data = {
            "target_path": self.target_path, "symbol": self.symbol, "kind": self.kind,
            "signature": self.signature, "behaviour": self.behaviour,
            "inputs": [vars(io).copy() for io in self.inputs],
            "outputs": [vars(io).copy() for io in self.outputs],
            "examples": [_example_dict(e) for e in self.examples],
            "constraints": list(self.constraints),
            "acceptance_checks": list(self.acceptance_checks),
            "assumptions": list(self.assumptions),
            "questions": list(self.questions),
        }
        return {**data, "scope": scope_to_data(self.scope)} if self.scope else data

    def with_changes(self, **changes: Any) -> MetaCode:
        """A user edit: same validation as generated meta-code."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise MetaCodeInvalid(f"unknown meta-code field(s) {unknown}")
        data = self.to_dict()
        for key, value in changes.items():
            data[key] = _plain(value)
        return MetaCode.from_dict(data)

    # -- derived facts ----------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The bare name of the target (last part of ``symbol``)."""
        return self.symbol.rsplit(".", 1)[-1]

    @property
    def module(self) -> str:
        """Import path of the target file (``pkg/mod.py`` -> ``pkg.mod``)."""
        return self.target_path[:-3].replace("/", ".") if self.target_path.endswith(".py") else ""

    def params(self) -> tuple[str, ...]:
        """Parameter names from the signature (``self``/``cls`` dropped for methods)."""
        fn = _parse_signature(self.signature)
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            return ()
        a = fn.args
        names = [x.arg for x in (*a.posonlyargs, *a.args)]
        names += [f"*{a.vararg.arg}"] if a.vararg else []
        names += [x.arg for x in a.kwonlyargs]
        names += [f"**{a.kwarg.arg}"] if a.kwarg else []
        if self.kind == "method" and names and names[0] in ("self", "cls"):
            names = names[1:]
        return tuple(names)

    def problems(self) -> list[str]:
        """Semantic problems (shape is checked by ``from_dict``); empty when valid."""
        errs: list[str] = []
        bad_path = path_problem(self.target_path)
        if bad_path:
            errs.append(f"target_path: {bad_path}")
        if self.kind not in KINDS:
            errs.append(f"kind: {self.kind!r} is not one of {list(KINDS)}")
        if self.kind != "module" and not _DOTTED.match(self.symbol):
            errs.append(f"symbol: {self.symbol!r} is not a qualified Python name (a or A.b)")
        if self.kind == "method" and "." not in self.symbol:
            errs.append(f"symbol: a method needs Class.method, got {self.symbol!r}")
        if self.kind in ("function", "class") and "." in self.symbol:
            errs.append(f"symbol: a top-level {self.kind} is a bare name, got {self.symbol!r}")
        if not self.behaviour:
            errs.append("behaviour: must describe what the code does")
        if not self.acceptance_checks:
            errs.append("acceptance_checks: give at least one check the judge can verify")
        errs += self._signature_problems()
        errs += scope_problems(self.scope, self.target_path, self.symbol)
        errs += [p for i, e in enumerate(self.examples) for p in _example_problems(i, e)]
        return errs

    def _signature_problems(self) -> list[str]:
        if self.kind == "module":
            return []
        if not self.signature:
            return [f"signature: required for a {self.kind}"]
        node = _parse_signature(self.signature)
        if node is None:
            return [f"signature: {self.signature!r} is not a valid Python def/class header"]
        want = ast.ClassDef if self.kind == "class" else (ast.FunctionDef, ast.AsyncFunctionDef)
        if not isinstance(node, want):
            return [f"signature: a {self.kind} needs a {'class' if self.kind == 'class' else 'def'}"
                    f" header, got {self.signature!r}"]
        if node.name != self.name:
            return [f"signature: defines {node.name!r} but symbol is {self.symbol!r}"]
        return []

    # -- rendering --------------------------------------------------------------------------
    def render_for_prompt(self) -> str:
        """Compact, complete text of the goal for an LLM prompt."""
        lines = [f"target: {self.target_path} :: {self.symbol} ({self.kind})",
                 f"signature: {self.signature or '(module)'}", f"behaviour: {self.behaviour}"]
        lines += [f"input {io.name}: {io.type} - {io.description}" for io in self.inputs]
        lines += [f"output {io.name}: {io.type} - {io.description}" for io in self.outputs]
        lines += [f"example: {_example_text(e)}" for e in self.examples]
        lines += [f"constraint: {c}" for c in self.constraints]
        lines += [f"acceptance check {i}: {c}" for i, c in enumerate(self.acceptance_checks, 1)]
        lines += [f"assumption: {a}" for a in self.assumptions]
        lines += scope_prompt_lines(self.scope)
        return "\n".join(lines)

    def render_markdown(self) -> str:
        """The goal as the user reads (and edits) it in chat."""
        out = [f"### `{self.symbol or self.target_path}` ({self.kind}) in `{self.target_path}`", ""]
        if self.signature:
            out += ["```python", self.signature, "```", ""]
        out += [self.behaviour, ""]
        out += scope_markdown(self.scope, self.symbol or self.target_path)
        out += _md_list("Inputs", [f"`{io.name}`: {io.type} - {io.description}"
                                   for io in self.inputs])
        out += _md_list("Outputs", [f"`{io.name}`: {io.type} - {io.description}"
                                    for io in self.outputs])
        out += _md_list("Examples", [f"`{_example_text(e)}`" for e in self.examples])
        out += _md_list("Constraints", list(self.constraints))
        out += _md_list("Acceptance checks", list(self.acceptance_checks))
        out += _md_list("Assumptions", list(self.assumptions))
        out += _md_list("Questions for you", list(self.questions))
        return "\n".join(out).rstrip() + "\n"


# -- generation -----------------------------------------------------------------------------


_REQUIRED = ("target_path", "symbol", "kind", "behaviour")
_STR_FIELDS = ("target_path", "symbol", "kind", "signature", "behaviour")
_LIST_STR = ("constraints", "acceptance_checks", "assumptions", "questions")
_ALL = set(_STR_FIELDS) | set(_LIST_STR) | {"inputs", "outputs", "examples", "scope"}


def _shape_errors(data: Any) -> list[str]:
    if not isinstance(data, Mapping):
        return ["meta-code must be a JSON object"]
    errs = [f"{k}: missing (required)" for k in _REQUIRED if k not in data]
    errs += [f"{k}: unknown field (allowed: {sorted(_ALL)})" for k in data if k not in _ALL]
    errs += [f"{k}: must be a string, got {type(data[k]).__name__}"
             for k in _STR_FIELDS if k in data and not isinstance(data[k], str)]
    for k in _LIST_STR:
        v = data.get(k, [])
        if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
            errs.append(f"{k}: must be a list of non-empty strings")
    for k in ("inputs", "outputs"):
        errs += _io_errors(k, data.get(k, []))
    if "scope" in data:
        errs += scope_shape_errors(data["scope"])
    ex = data.get("examples", [])
    if not isinstance(ex, list):
        errs.append("examples: must be a list of objects")
    else:
        errs += [m for i, e in enumerate(ex) for m in _example_shape(i, e)]
    return errs


def _io_errors(key: str, items: Any) -> list[str]:
    if not isinstance(items, list):
        return [f"{key}: must be a list of objects"]
    errs = []
    for i, io in enumerate(items):
        if not isinstance(io, dict) or not isinstance(io.get("name"), str) or not io["name"]:
            errs.append(f"{key}[{i}]: must be an object with a non-empty 'name'")
        elif set(io) - {"name", "type", "description"}:
            extra = sorted(set(io) - {"name", "type", "description"})
            errs.append(f"{key}[{i}]: unknown keys {extra}")
        elif not all(isinstance(v, str) for v in io.values()):
            errs.append(f"{key}[{i}]: name, type and description must be strings")
    return errs


def _example_shape(i: int, e: Any) -> list[str]:
    if not isinstance(e, dict) or not isinstance(e.get("call"), str):
        return [f"examples[{i}]: must be an object with a string 'call'"]
    if set(e) - {"call", "expected", "raises"}:
        return [f"examples[{i}]: unknown keys {sorted(set(e) - {'call', 'expected', 'raises'})}"]
    if ("expected" in e) == ("raises" in e):
        return [f"examples[{i}]: give exactly one of 'expected' or 'raises'"]
    if "raises" in e and not isinstance(e["raises"], str):
        return [f"examples[{i}].raises: must be an exception name string"]
    if "expected" in e and not _json_safe(e["expected"]):
        return [f"examples[{i}].expected: must be a JSON value (null, bool, number, string, "
                "list, object with string keys)"]
    return []


def _example_problems(i: int, e: Example) -> list[str]:
    try:
        ast.parse(e.call, mode="eval")
    except SyntaxError as err:
        return [f"examples[{i}].call: {e.call!r} is not a Python expression ({err.msg})"]
    if e.raises and not _DOTTED.match(e.raises):
        return [f"examples[{i}].raises: {e.raises!r} is not an exception name"]
    return []


def _json_safe(value: Any, depth: int = 0) -> bool:
    if depth > 20:
        return False
    if isinstance(value, _JSON_SCALARS):
        return not (isinstance(value, float) and value != value)
    if isinstance(value, list | tuple):
        return all(_json_safe(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_safe(v, depth + 1) for k, v in value.items())
    return False


def _example(e: Mapping[str, Any]) -> Example:
    if "raises" in e:
        return Example(call=e["call"].strip(), raises=e["raises"].strip())
    return Example(call=e["call"].strip(), expected=_freeze(e["expected"]))


def _example_dict(e: Example) -> dict[str, Any]:
    if e.raises:
        return {"call": e.call, "raises": e.raises}
    return {"call": e.call, "expected": _plain(e.expected)}


def _freeze(value: Any) -> Any:
    """Lists become tuples so an Example stays hashable and immutable."""
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return _FrozenDict({k: _freeze(v) for k, v in value.items()})
    return value


class _FrozenDict(dict[str, Any]):
    """A read-only dict for expected values (JSON objects)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(json.dumps(self, sort_keys=True, default=str))

    def _ro(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("meta-code example values are read-only")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _ro  # type: ignore


def _plain(value: Any) -> Any:
    """Back to JSON shapes (tuples -> lists, dataclasses -> dicts)."""
    if isinstance(value, IOSpec):
        return vars(value).copy()
    if isinstance(value, Example):
        return _example_dict(value)
    if isinstance(value, ScopeItem):
        return scope_to_data([value])[0]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _parse_signature(signature: str) -> ast.stmt | None:
    header = signature.strip().rstrip(":")
    try:
        tree = ast.parse(f"{header}:\n    pass\n")
    except SyntaxError:
        return None
    return tree.body[0] if len(tree.body) == 1 else None


def _example_text(e: Example) -> str:
    return f"{e.call} raises {e.raises}" if e.raises else f"{e.call} == {_plain(e.expected)!r}"


def _md_list(title: str, items: list[str]) -> list[str]:
    return [f"**{title}**", "", *[f"- {x}" for x in items], ""] if items else []


def _join(errors: list[str]) -> str:
    return "; ".join(errors)

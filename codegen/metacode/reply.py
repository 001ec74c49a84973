"""The model's meta-code answer as a reply model: key spellings, list shapes, example forms,
and the schema a constraining server writes it under.

Only the SHAPE is coerced here (``"constraints": "one"`` is a one-item list, inputs given as
``{"text": "str"}`` are a list of inputs, an example written ``"f(1) == 2"`` is a call and an
expected value); what the fields MEAN is still validated by ``MetaCode.from_dict``, whose
messages go back to the model. Keys no field knows are dropped and named in the assumptions, so
the user sees them in the proposal.

Every rule ``from_dict`` applies to one field is in the schema beside that field (``patterns``:
a path inside the repository, a qualified name, a header Python parses, a call; the kinds; an
example with exactly one of ``expected`` and ``raises``; at least one acceptance check). What
ties fields together is read here instead of refused, each change said in the assumptions: the
kind follows the header (``class`` is a class; ``def`` a method when the symbol is
``Class.method``, else a function; no header, a module), the header defines the symbol's name,
a keyword used as a name gets PEP 8's trailing underscore, and a scope place that is the target
itself is dropped. A call that knows the target (its path, symbol and kind, from the user's
words) pins them in the schema (``tailor_schema``: ``target``), and leaves ``scope`` out unless
it asks for one (``scope``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from pydantic import Field, ValidationError, field_validator

from ...llm.coerce import as_text_list, squash
from ...llm.errors import ReplyRefused
from ...llm.reader import ReadContext, ReplySpec
from ...llm.schema import ReplyModel, describe_error, line_pattern, text_items, text_pattern
from ...llm.steps import Step
from ..ports import ImpactReport
from .model import KINDS
from .patterns import (
    DOTTED,
    NAME,
    PATH,
    anchored,
    class_header,
    def_header,
    header_name,
    matches,
    python_names,
    renamed_header,
)
from .patterns import (
    call as call_pattern,
)
from .placeholders import copied_fields, is_placeholder, without_placeholder_examples
from .scope import MAX_SCOPE, default_why

#: a JSON value an example may expect, bounded so that a grammar cannot run away in it
_SCALAR: list[dict[str, Any]] = [{"type": "string", "maxLength": 200}, {"type": "number"},
                                 {"type": "boolean"}, {"type": "null"}]
_JSON_VALUE = {"anyOf": [*_SCALAR, {"type": "array", "items": {"anyOf": _SCALAR},
                                    "maxItems": 10},
                         {"type": "object", "additionalProperties": {"anyOf": _SCALAR}}]}


class IOItem(ReplyModel):
    """One input or output."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "param": "name", "parameter": "name", "arg": "name", "argument": "name",
        "annotation": "type", "type_hint": "type", "datatype": "type",
        "desc": "description", "meaning": "description"}
    name: str = Field(json_schema_extra={"pattern": line_pattern(40)})
    type: str = Field("", json_schema_extra={"pattern": text_pattern(60)})
    description: str = Field("", json_schema_extra={"pattern": text_pattern(160)})

    @field_validator("type", "description", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None or is_placeholder(value) else str(value).strip()


class ExampleItem(ReplyModel):
    """One example: a call and its expected value, or the exception it raises."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "input": "call", "expression": "call", "invocation": "call", "code": "call",
        "output": "expected", "result": "expected", "returns": "expected",
        "return": "expected", "expected_output": "expected",
        "expected_result": "expected", "expected_value": "expected",
        "exception": "raises", "raise": "raises", "throws": "raises",
        "expected_exception": "raises", "error": "raises"}
    schema_one_of: ClassVar[tuple[tuple[str, ...], ...]] = (("expected",), ("raises",))
    call: str = Field(json_schema_extra={"pattern": anchored(call_pattern())})
    expected: Any = Field(None, json_schema_extra=_JSON_VALUE)
    raises: str | None = Field(None, json_schema_extra={
        "pattern": anchored(DOTTED)})

    @field_validator("call", mode="before")
    @classmethod
    def _call(cls, value: Any) -> Any:
        return python_names(value.strip()) if isinstance(value, str) else value

    def to_data(self) -> dict[str, Any]:
        """``call`` plus ``raises`` or ``expected``; an absent expected value stays absent (a
        null ``expected`` beside ``raises`` is no second answer)."""
        data: dict[str, Any] = {"call": self.call}
        if self.raises:
            data["raises"] = self.raises
        given = "expected" in self.model_fields_set
        if given and not (self.raises and self.expected is None):
            data["expected"] = self.expected
        return data


class ScopeEntry(ReplyModel):
    """One more place the change edits: a file, the entity there (empty: module level), why."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "file": "path", "file_path": "path", "target_path": "path", "filename": "path",
        "qualified_name": "symbol", "entity": "symbol", "name": "symbol", "function": "symbol",
        "caller": "symbol", "reason": "why", "because": "why", "change": "why",
        "description": "why"}
    path: str = Field(json_schema_extra={"pattern": anchored(PATH)})
    symbol: str = Field("", json_schema_extra={"pattern": f"^({DOTTED})?$"})
    why: str = Field("", json_schema_extra={"pattern": text_pattern(160)})

    @field_validator("symbol", "why", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()


class MetaCodeReply(ReplyModel):
    """The meta-code JSON, keys in any spelling, lists in any of the usual shapes."""

    schema_requires: ClassVar[tuple[str, ...]] = (
        "target_path", "symbol", "kind", "signature", "behaviour", "examples",
        "acceptance_checks")
    schema_omits: ClassVar[tuple[str, ...]] = ("questions",)
    synonyms: ClassVar[Mapping[str, str]] = {
        "path": "target_path", "file": "target_path", "file_path": "target_path",
        "filename": "target_path", "target_file": "target_path",
        "function_name": "symbol", "qualified_name": "symbol", "target_symbol": "symbol",
        "qualname": "symbol", "symbol_name": "symbol",
        "entity_kind": "kind", "symbol_kind": "kind",
        "behavior": "behaviour",
        "parameters": "inputs", "params": "inputs", "arguments": "inputs",
        "returns": "outputs", "test_cases": "examples",
        "acceptance_criteria": "acceptance_checks", "acceptance_tests":
        "acceptance_checks", "affected": "scope", "also_changes": "scope",
        "callers_to_update": "scope", "touches": "scope"}
    fallbacks: ClassVar[Mapping[str, str]] = {
        "name": "symbol", "function": "symbol", "type": "kind",
        "description": "behaviour", "purpose": "behaviour", "output": "outputs",
        "tests": "examples", "checks": "acceptance_checks",
        "requirements": "constraints", "notes": "assumptions"}
    target_path: str | None = Field(None, json_schema_extra={
        "pattern": anchored(PATH)})
    symbol: str | None = Field(None, json_schema_extra={
        "pattern": anchored(DOTTED)})
    kind: str | None = Field(None, json_schema_extra={"enum": list(KINDS)})
    #: a header, or nothing for a module
    signature: str | None = Field(None, json_schema_extra={"pattern": "^(" + "|".join(
        (def_header(), class_header())) + ")?$"})
    behaviour: str | None = Field(None, json_schema_extra={"pattern": line_pattern(400)})
    inputs: list[IOItem] = Field([], json_schema_extra={"maxItems": 6})
    outputs: list[IOItem] = Field([], json_schema_extra={"maxItems": 2})
    examples: list[ExampleItem] = Field([], json_schema_extra={"minItems": 2,
                                                               "maxItems": 5})
    constraints: list[str] = Field([], json_schema_extra=text_items(4, 160))
    acceptance_checks: list[str] = Field([], json_schema_extra=text_items(5, 200, 1))
    assumptions: list[str] = Field([], json_schema_extra=text_items(4, 160))
    questions: list[str] = []
    scope: list[ScopeEntry] = Field([], json_schema_extra={"maxItems": MAX_SCOPE})

    @classmethod
    def tailor_schema(cls, schema: dict[str, Any], context: Mapping[str, Any]
                      ) -> dict[str, Any]:
        """``target``: ``(path, symbol, kind)`` the user named (empty: not named) pinned;
        ``scope``: whether the answer lists the other places the change edits."""
        props = schema["properties"]
        if not context.get("scope"):
            props.pop("scope", None)
        path, symbol, kind = (*context.get("target", ()), "", "", "")[:3]
        if path and not matches(PATH, path):
            path = ""
        if path:
            props["target_path"] = {"const": path}
        if symbol and matches(DOTTED, symbol):
            props["symbol"] = {"const": symbol}
            kind = kind or ("method" if "." in symbol else "")
            name = symbol.rpartition(".")[2]
            header = class_header(name) if kind == "class" else \
                def_header(name)
            props["signature"] = {"type": "string", "pattern": anchored(header)}
        if kind in KINDS and (kind == "method") == ("." in symbol) and kind != "module":
            props["kind"] = {"const": kind}
        if kind == "function" and symbol and "." not in symbol:  # examples call the target
            for example in props["examples"]["items"]["anyOf"]:
                example["properties"]["call"] = {"type": "string",
                                                 "pattern": anchored(call_pattern(symbol))}
        return schema

    @field_validator("target_path", "symbol", "signature", "behaviour", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        return value.strip().strip("`").strip() if isinstance(value, str) else value

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        word = value.strip().lower()
        return {"async function": "function", "def": "function", "func": "function",
                "instance method": "method", "classmethod": "method",
                "class method": "method", "staticmethod": "method"}.get(word, word)

    @field_validator("inputs", "outputs", mode="before")
    @classmethod
    def _io(cls, value: Any) -> Any:
        if isinstance(value, dict):  # {"text": "str"} or {"text": {"type": ..., ...}}
            return [{"name": k, **v} if isinstance(v, dict) else {"name": k, "type": v}
                    for k, v in value.items()]
        if isinstance(value, str):
            return [{"name": "return", "description": value}] if value.strip() else []
        return value

    @field_validator("examples", mode="before")
    @classmethod
    def _examples(cls, value: Any) -> Any:
        if isinstance(value, dict):  # {"f(1)": 2}
            return [{"call": k, "expected": v} for k, v in value.items()]
        if isinstance(value, list):
            return [_example_from_text(v) if isinstance(v, str) else v for v in value]
        return value

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: Any) -> Any:
        if value is None:
            return []
        items = value if isinstance(value, list) else [value]
        return [_scope_from_text(v) if isinstance(v, str) else v for v in items]

    @field_validator("constraints", "acceptance_checks", "assumptions", "questions",
                     mode="before")
    @classmethod
    def _lists(cls, value: Any) -> list[str]:
        items = as_text_list(value, ("check", "text", "description", "constraint", "assumption"))
        return [item for item in items if not is_placeholder(item)]

    def to_data(self, raw: dict[str, Any], impact: ImpactReport | None = None,
                ) -> dict[str, Any]:
        """The dict ``MetaCode.from_dict`` validates (absent fields stay absent); a scope
        place without its ``why`` gets one from the ``impact`` (prose: never worth a retry)."""
        data: dict[str, Any] = {
            k: getattr(self, k) for k in ("target_path", "symbol", "kind", "signature",
                                          "behaviour") if getattr(self, k) is not None}
        copied = copied_fields(data)
        if copied:
            raise ReplyRefused("; ".join(copied))
        data["inputs"] = [io.model_dump() for io in self.inputs if not is_placeholder(io.name)]
        data["outputs"] = [io.model_dump() for io in self.outputs if not is_placeholder(io.name)]
        data["examples"], left_out = without_placeholder_examples(
            [e.to_data() for e in self.examples])
        data.update(constraints=list(self.constraints),
                    acceptance_checks=list(self.acceptance_checks),
                    assumptions=list(self.assumptions) + left_out,
                    questions=list(self.questions))
        data["assumptions"] += _reconcile(data)
        target = (data.get("target_path"), str(data.get("symbol") or ""))
        places = [e for e in self.scope if (e.path, e.symbol) != target]
        if places:  # absent when empty: a single-entity goal reads as it always did
            data["scope"] = [{**entry.model_dump(), "why": entry.why or default_why(
                entry.path, entry.symbol, target[1], impact)} for entry in places]
        ignored = sorted(k for k in raw if k not in self.key_names().values()
                         and squash(str(k)) not in self.key_names()
                         and squash(str(k)) not in {squash(f) for f in self.fallbacks})
        if ignored:
            data["assumptions"].append(f"the model's proposal also held {', '.join(ignored)}, "
                                       "which meta-code has no field for (ignored)")
        return data


def _reconcile(data: dict[str, Any]) -> list[str]:
    """What ties the symbol, the header and the kind together, read rather than refused (see
    the module docstring); each change as a sentence for the assumptions."""
    notes: list[str] = []
    symbol, signature = data.get("symbol"), data.get("signature")
    if isinstance(symbol, str) and matches(DOTTED, symbol):
        fixed = python_names(symbol)
        if fixed != symbol:
            notes.append(f"the symbol {symbol!r} is a Python keyword: read as {fixed!r}")
            data["symbol"] = symbol = fixed
    if not isinstance(signature, str) or not isinstance(symbol, str):
        return notes
    name = header_name(signature)
    if name is not None:
        fixed = python_names(signature, header=True)
        want = symbol.rpartition(".")[2]
        if header_name(fixed) != want and matches(NAME, want):
            fixed = renamed_header(fixed, want)
        if fixed != signature:
            notes.append(f"the signature {signature!r} read as {fixed!r}, the symbol's name "
                         "with no keyword as a name")
            data["signature"] = signature = fixed
    kind = data.get("kind")
    implied = None if name is None and signature.strip() else (
        "module" if name is None else "class" if signature.lstrip().startswith("class")
        else "method" if "." in symbol else "function")
    if implied is not None and kind != implied and (kind in KINDS or kind is None):
        notes.append(f"the kind {kind!r} read as {implied!r}, as the signature says")
        data["kind"] = implied
    if data.get("kind") == "class" and "." in symbol:
        data["symbol"] = symbol.rpartition(".")[2]
        notes.append(f"the class {symbol!r} read as the top-level class {data['symbol']!r}")
    return notes


def _scope_from_text(text: str) -> dict[str, str]:
    """``"app/main.py::run - passes timeout"`` as a path, a symbol and why."""
    place, _, why = text.partition(" - ")
    path, _, symbol = place.strip().strip("`").partition("::")
    return {"path": path.strip(), "symbol": symbol.strip(), "why": why.strip()}


def _example_from_text(text: str) -> Any:
    """``"f(1) == 2"`` or ``"f(1) -> 2"`` as a call and a literal expected value."""
    for sep in ("==", "->", "=>"):
        call, found, expected = text.partition(sep)
        if found:
            try:
                return {"call": call.strip(), "expected": ast.literal_eval(expected.strip())}
            except (ValueError, SyntaxError):
                break
    call, found, exc = text.partition(" raises ")
    if found and exc.strip().isidentifier():
        return {"call": call.strip(), "raises": exc.strip()}
    return {"call": text}  # from_dict says what is missing


#: What ``metacode_spec``'s ``build`` makes of the normalised dict (``MetaCode``).
Built = TypeVar("Built")


def metacode_spec(step: Step, build: Callable[[dict[str, Any]], Built],
                  impact: ImpactReport | None = None, target: tuple[str, str, str] = ("", "", "")
                  ) -> ReplySpec[Built]:
    """How ``step``'s meta-code answer is read; ``build(data)`` validates the normalised dict;
    ``impact`` words the default ``why`` of a scope place and asks for the scope; ``target``
    (path, symbol, kind: what the user named, empty where nothing) is pinned in the schema."""

    def read(value: Any, ctx: ReadContext) -> Built:
        try:
            reply = MetaCodeReply.model_validate(value, context={"scale": ctx.scale})
        except ValidationError as err:
            raise ReplyRefused(describe_error(err)) from None
        return build(reply.to_data(value if isinstance(value, dict) else {}, impact))

    scope = bool(impact is not None and impact.sites)
    return step.read_with(read, schema={"target": target, "scope": scope})

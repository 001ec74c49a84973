"""The model's meta-code answer as a reply model: key spellings, list shapes, example forms.

Only the SHAPE is coerced here (``"constraints": "one"`` is a one-item list, inputs given as
``{"text": "str"}`` are a list of inputs, an example written ``"f(1) == 2"`` is a call and an
expected value); what the fields MEAN is still validated by ``MetaCode.from_dict``, whose
messages go back to the model. Keys no field knows are dropped and named in the assumptions, so
the user sees them in the proposal.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from pydantic import field_validator

from ...llm.bounds import COMPLETION_TOKENS
from ...llm.coerce import as_text_list, squash
from ...llm.reader import ReplySpec, model_spec
from ...llm.schema import ReplyModel
from ..ports import ImpactReport
from .scope import default_why


class IOItem(ReplyModel):
    """One input or output."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "param": "name", "parameter": "name", "arg": "name", "argument": "name",
        "annotation": "type", "type_hint": "type", "datatype": "type",
        "desc": "description", "meaning": "description"}
    name: str
    type: str = ""
    description: str = ""

    @field_validator("type", "description", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()


class ExampleItem(ReplyModel):
    """One example: a call and its expected value, or the exception it raises."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "input": "call", "expression": "call", "invocation": "call", "code": "call",
        "output": "expected", "result": "expected", "returns": "expected",
        "return": "expected", "expected_output": "expected",
        "expected_result": "expected", "expected_value": "expected",
        "exception": "raises", "raise": "raises", "throws": "raises",
        "expected_exception": "raises", "error": "raises"}
    call: str
    expected: Any = None
    raises: str | None = None

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
    path: str
    symbol: str = ""
    why: str = ""

    @field_validator("symbol", "why", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()


class MetaCodeReply(ReplyModel):
    """The meta-code JSON, keys in any spelling, lists in any of the usual shapes."""

    schema_requires: ClassVar[tuple[str, ...]] = (
        "target_path", "symbol", "kind", "signature", "behaviour", "examples",
        "acceptance_checks")
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
    target_path: str | None = None
    symbol: str | None = None
    kind: str | None = None
    signature: str | None = None
    behaviour: str | None = None
    inputs: list[IOItem] = []
    outputs: list[IOItem] = []
    examples: list[ExampleItem] = []
    constraints: list[str] = []
    acceptance_checks: list[str] = []
    assumptions: list[str] = []
    questions: list[str] = []
    scope: list[ScopeEntry] = []

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
        return as_text_list(value, ("check", "text", "description", "constraint", "assumption"))

    def to_data(self, raw: dict[str, Any], impact: ImpactReport | None = None,
                ) -> dict[str, Any]:
        """The dict ``MetaCode.from_dict`` validates (absent fields stay absent); a scope
        place without its ``why`` gets one from the ``impact`` (prose: never worth a retry)."""
        data: dict[str, Any] = {
            k: getattr(self, k) for k in ("target_path", "symbol", "kind", "signature",
                                          "behaviour") if getattr(self, k) is not None}
        data["inputs"] = [io.model_dump() for io in self.inputs]
        data["outputs"] = [io.model_dump() for io in self.outputs]
        data["examples"] = [e.to_data() for e in self.examples]
        data.update(constraints=list(self.constraints),
                    acceptance_checks=list(self.acceptance_checks),
                    assumptions=list(self.assumptions), questions=list(self.questions))
        if self.scope:  # absent when empty: a single-entity goal reads as it always did
            target = str(self.symbol or "")
            data["scope"] = [{**entry.model_dump(), "why": entry.why or default_why(
                entry.path, entry.symbol, target, impact)} for entry in self.scope]
        ignored = sorted(k for k in raw if k not in self.key_names().values()
                         and squash(str(k)) not in self.key_names()
                         and squash(str(k)) not in {squash(f) for f in self.fallbacks})
        if ignored:
            data["assumptions"].append(f"the model's proposal also held {', '.join(ignored)}, "
                                       "which meta-code has no field for (ignored)")
        return data


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


def metacode_spec(build: Callable[[dict[str, Any]], Built],
                  impact: ImpactReport | None = None) -> ReplySpec[Built]:
    """How the meta-code answer is read; ``build(data)`` validates the normalised dict;
    ``impact`` words the default ``why`` of a scope place."""
    base = model_spec(MetaCodeReply, "the meta-code", ("target_path", "symbol", "kind",
                                                        "behaviour", "signature"),
                      truncatable=frozenset(), max_tokens=COMPLETION_TOKENS["metacode"])

    def read(value: Any, ctx: Any) -> Built:
        reply = base.build(value, ctx)
        return build(reply.to_data(value if isinstance(value, dict) else {}, impact))

    return ReplySpec(base.what, read, base.answer_keys, base.truncatable, base.partial_lists,
                     base.wrap_list, base.json_schema, base.max_tokens)

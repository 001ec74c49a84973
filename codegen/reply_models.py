"""The judge's, the reviewer's and the documentation step's answers, as reply models.

After a commit the review and the documentation are asked in ONE call when both are on
(:class:`ReviewDocsReply`): the verdict is what is required (a reply without one is re-asked),
the docstring and note are optional (a reply without them is a draft left undocumented).

Each model states what its values may be and which spellings mean the same key; the ``llm``
reader does the rest (reasoning blocks, answer choice, JSON repair). What is refused here is what
two readers could read differently: a check with two verdicts, a review asking for changes it does
not name, a verdict that is neither approve nor changes. The schema a constraining server is
given says the same (``llm/schema.py``): one verdict per check, in order, each numbered
(``tailor_schema`` with the call's ``count``); a verdict of ``approve``, or of ``changes`` with
at least one comment; no overall verdict that could contradict the checks' (it is read when a
model writes one, never asked for). The steps themselves are ``steps.py``.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..llm.coerce import as_flag, as_text_list, squash
from ..llm.schema import ReplyModel, text_items, text_pattern

_REASON = {"explanation": "reason", "reasoning": "reason", "why": "reason",
           "rationale": "reason", "justification": "reason", "evidence": "reason",
           "comment": "reason", "details": "reason"}
_NUMBER_KEYS = frozenset({"id", "index", "number", "checknumber", "checkid", "checkindex", "num",
                          "no", "checkno"})


class CheckEntry(ReplyModel):
    """One acceptance check's verdict."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "passes": "passed", "result": "passed", "status": "passed",
        "verdict": "passed", "met": "passed", "satisfied": "passed", "outcome": "passed",
        **_REASON}
    schema_requires: ClassVar[tuple[str, ...]] = ("reason",)
    check: int
    #: read from "pass" (the prompt's key) or any synonym
    passed: bool = Field(alias="pass")
    reason: str = Field("", json_schema_extra={"pattern": text_pattern(200)})

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """``{"id": 2, "check": "<the check's text>"}``: the number is the id, not the text."""
        number = next((k for k in data if squash(str(k)) in _NUMBER_KEYS), None)
        if number is None:
            return data
        text = next((k for k in data if squash(str(k)) == "check"), None)
        if text is not None and not _is_number(data[text]):
            data["check_text"] = data.pop(text)
        data["check"] = data.pop(number) if "check" not in data else data["check"]
        return data

    @field_validator("check", mode="before")
    @classmethod
    def _check_number(cls, value: Any, info: ValidationInfo) -> int:
        checks = tuple((info.context or {}).get("checks", ()))
        if isinstance(value, str):
            by_text = [i for i, c in enumerate(checks, 1) if c.strip().lower() ==
                       value.strip().lower()]
            found = re.fullmatch(r"\W*(?:check|#|no\.?)?\s*(\d+)\W*", value.strip(), re.I)
            value = by_text[0] if by_text else int(found.group(1)) if found else value
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{value!r} is not a check number")
        return value

    @field_validator("passed", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        return as_flag(value)

    @field_validator("reason", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()


class JudgeReply(ReplyModel):
    """``{"checks": [{"check": n, "pass": bool, "reason": str}, ...]}`` covering every check."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "results": "checks", "verdicts": "checks", "acceptance_checks": "checks",
        "check_results": "checks", "evaluation": "checks", "evaluations": "checks",
        "overall_pass": "overall", "all_pass": "overall", "all_passed": "overall",
        "overall_verdict": "overall", "overall_result": "overall", "passed": "overall",
        "pass": "overall", "verdict": "overall", "final_verdict": "overall"}
    schema_omits: ClassVar[tuple[str, ...]] = ("overall",)
    checks: list[CheckEntry]
    overall: bool | None = None

    @classmethod
    def tailor_schema(cls, schema: dict[str, Any], context: Mapping[str, Any]
                      ) -> dict[str, Any]:
        """``count``: the number of acceptance checks; the answer holds one verdict for each,
        in order (a tuple: a grammar cannot skip, repeat or add one)."""
        count = int(context.get("count") or 0)
        checks = schema["properties"]["checks"]
        if count > 0:
            entry = checks.pop("items")
            checks["items"] = [{**entry, "properties": {**entry["properties"],
                                                        "check": {"const": i}}}
                               for i in range(1, count + 1)]
            checks.update(minItems=count, additionalItems=False)
        return schema

    @field_validator("checks", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        if isinstance(value, dict):  # {"1": true, "2": {"pass": false, "reason": "..."}}
            return [{**(v if isinstance(v, dict) else {"pass": v}), "check": k}
                    for k, v in value.items()]
        return value

    @field_validator("overall", mode="before")
    @classmethod
    def _overall(cls, value: Any) -> bool | None:
        return None if value is None else as_flag(value)

    @model_validator(mode="after")
    def _complete(self, info: ValidationInfo) -> JudgeReply:
        count = len((info.context or {}).get("checks", ())) or len(self.checks)
        seen: dict[int, bool] = {}
        for entry in self.checks:
            if not 1 <= entry.check <= count:
                raise ValueError(f"check number {entry.check} is not between 1 and {count}")
            if seen.get(entry.check, entry.passed) != entry.passed:
                raise ValueError(f"check {entry.check} is given two different verdicts")
            seen[entry.check] = entry.passed
        missing = [i for i in range(1, count + 1) if i not in seen]
        if missing:
            raise ValueError(f"no verdict for check(s) {missing}")
        if self.overall is not None and self.overall != all(seen.values()):
            raise ValueError(f"the overall verdict ({'pass' if self.overall else 'fail'}) "
                             "contradicts the verdicts of the single checks")
        return self


APPROVE_WORDS = frozenset({"approve", "approved", "accept", "accepted", "lgtm", "pass", "passed",
                           "ok", "yes", "looks good", "good", "ship it", "true"})
CHANGES_WORDS = frozenset({"changes", "change", "request changes", "changes requested",
                           "request change", "needs changes", "needs work", "revise", "revision",
                           "reject", "rejected", "fail", "failed", "no", "false", "changes needed",
                           "requires changes", "request_changes"})


class ReviewReply(ReplyModel):
    """``{"verdict": "approve" | "changes", "comments": [...]}``."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "decision": "verdict", "status": "verdict", "result": "verdict",
        "recommendation": "verdict", "approved": "verdict", "approval": "verdict",
        "requested_changes": "comments", "change_requests": "comments",
        "suggestions": "comments", "issues": "comments", "feedback": "comments",
        "comment": "comments", "remarks": "comments", "changes": "comments",
        "requests": "comments"}
    schema_requires: ClassVar[tuple[str, ...]] = ("comments",)
    verdict: str = Field(json_schema_extra={"enum": ["approve", "changes"]})
    comments: list[str] = Field([], json_schema_extra=text_items(5, 200))

    @classmethod
    def shape_schema(cls, schema: dict[str, Any]) -> None:
        """Two alternatives: approve (comments optional), or changes with at least one."""
        super().shape_schema(schema)
        props = schema.pop("properties")
        required = schema.pop("required", [])
        schema["anyOf"] = [
            {"type": "object", "required": required, "additionalProperties": False,
             "properties": {**props, "verdict": {"const": verdict},
                            "comments": {**props["comments"], "minItems": least}}}
            for verdict, least in (("approve", 0), ("changes", 1))]

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: Any) -> str:
        word = value if isinstance(value, bool) else " ".join(
            str(value).strip().strip(".!").lower().replace("_", " ").replace("-", " ").split())
        if word is True or word in APPROVE_WORDS:
            return "approve"
        if word is False or word in CHANGES_WORDS:
            return "changes"
        raise ValueError(f"verdict {value!r} is neither \"approve\" nor \"changes\"")

    @field_validator("comments", mode="before")
    @classmethod
    def _comments(cls, value: Any) -> list[str]:
        return as_text_list(value, ("comment", "text", "description", "change", "message",
                                    "suggestion", "issue", "request"))

    @model_validator(mode="after")
    def _named(self) -> ReviewReply:
        if self.verdict == "changes" and not self.comments:
            raise ValueError('the verdict asks for changes but "comments" names none; list the '
                             "concrete changes")
        return self


class DocsReply(ReplyModel):
    """``{"docstring": str | null, "note": str}``; null (or empty) means no docstring."""

    synonyms: ClassVar[Mapping[str, str]] = {
        "doc": "docstring", "docs": "docstring", "documentation": "docstring",
        "doc_text": "docstring", "notes": "note", "user_note": "note",
        "markdown": "note", "message": "note", "summary_note": "note"}
    schema_nullable: ClassVar[tuple[str, ...]] = ("docstring",)
    schema_requires: ClassVar[tuple[str, ...]] = ("note",)
    docstring: str | None = Field(json_schema_extra={"maxLength": 1200})
    note: str = Field("", json_schema_extra={"maxLength": 600})

    @field_validator("docstring", mode="before")
    @classmethod
    def _docstring(cls, value: Any) -> str | None:
        return docstring_value(value)

    @field_validator("note", mode="before")
    @classmethod
    def _note(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()


def docstring_value(value: Any) -> str | None:
    """A reply's docstring: text (lines joined), None when absent or empty."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "\n".join(value)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"the docstring must be text, got {type(value).__name__}")
    return clean_docstring(value) or None


def clean_docstring(text: str) -> str:
    """The docstring's text: a Python string literal around it is decoded, indentation removed."""
    text = text.strip()
    if text[:3] in ('"""', "'''") and text[-3:] == text[:3] and len(text) >= 6:
        try:
            text = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            text = text[3:-3]
    return inspect.cleandoc(text)


class ReviewDocsReply(ReviewReply, DocsReply):
    """``{"verdict": ..., "comments": [...], "docstring": str | null, "note": str}``: the review's
    fields and the documentation's, with their readers (the docstring may be missing here: a
    verdict alone still counts)."""

    synonyms: ClassVar[Mapping[str, str]] = {**ReviewReply.synonyms, **DocsReply.synonyms}
    schema_requires: ClassVar[tuple[str, ...]] = ("comments", "docstring", "note")
    docstring: str | None = Field(None, json_schema_extra={"maxLength": 1200})


def _is_number(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and value.strip().isdigit())

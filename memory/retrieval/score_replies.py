"""Relevance scoring's model steps (``llm/steps.py``), pointwise (one memory) and listwise (many
by id): their prompts, their reply models, the schema a constraining server writes under.

Scores are coerced only when they can mean one thing: ``0.8``, ``"0.8"``, ``"8/10"``, ``"80%"``,
or ``8`` when the reply states a 0-10 scale (a ``scale`` key or words like "out of 10"); a score of
5 with no scale is refused. A missing reason is allowed. In a listwise answer each entry stands
alone: an entry that is refused, missing or names an unknown id only affects its own memory,
which is asked for again with the others left over.

The schema asks for what every reading accepts: a listwise answer holds one entry per id, in
order (a tuple), each score one of 0.0, 0.1 ... 1.0 (a grammar cannot bound a number, but it can
list the numbers allowed), no scale (it is read when a model writes one, never asked for).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import Field, ValidationError, ValidationInfo, field_validator

from ...llm.coerce import as_unit_score, squash
from ...llm.errors import ReplyRefused
from ...llm.reader import ReadContext, ReplySpec
from ...llm.schema import ReplyModel, describe_error
from ...llm.steps import Step

NO_REASON = "(no reason given)"
#: the scores a constrained answer may give (floats: ``1.0`` is never read as 1 of 10)
SCORES = [round(i / 10, 1) for i in range(11)]

_SCORE_SYNONYMS = {"relevance": "score", "relevance_score": "score", "rating": "score",
                   "usefulness": "score", "value": "score", "explanation": "reason",
                   "reasoning": "reason", "why": "reason", "rationale": "reason",
                   "justification": "reason", "max": "scale", "max_score": "scale",
                   "out_of": "scale", "scale_max": "scale"}


class ScoreReply(ReplyModel):
    """``{"score": 0..1, "reason": "..."}`` (``scale`` comes first so ``score`` can use it)."""

    synonyms: ClassVar[Mapping[str, str]] = _SCORE_SYNONYMS
    schema_omits: ClassVar[tuple[str, ...]] = ("scale",)
    schema_requires: ClassVar[tuple[str, ...]] = ("reason",)
    scale: float | None = None
    score: float = Field(json_schema_extra={"enum": SCORES})
    reason: str = Field("", json_schema_extra={"maxLength": 160})

    @field_validator("scale", mode="before")
    @classmethod
    def _scale(cls, value: object) -> float | None:
        if value is None or isinstance(value, int | float) and not isinstance(value, bool):
            return value
        found = re.fullmatch(r"\s*(?:0\s*(?:-|to)\s*)?(\d+(?:\.\d+)?)\s*", str(value))
        if found is None:
            raise ValueError(f"scale {value!r} is not a number")
        return float(found.group(1))

    @field_validator("score", mode="before")
    @classmethod
    def _unit(cls, value: object, info: ValidationInfo) -> float:
        context = info.context or {}
        given = info.data.get("scale")
        return as_unit_score(value, given or context.get("scale"), explicit=bool(given),
                             others_on_scale=bool(context.get("others_on_scale")))

    @field_validator("reason", mode="before")
    @classmethod
    def _reason(cls, value: object) -> str:
        return "" if value is None else " ".join(str(value).split())


class ListEntry(ScoreReply):
    """One entry of a listwise answer."""

    synonyms: ClassVar[Mapping[str, str]] = {
        **_SCORE_SYNONYMS, "memory": "id", "memory_id": "id", "item": "id", "candidate": "id",
        "key": "id", "mid": "id", "ref": "id"}
    id: str

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: object) -> str:
        return normalise_id(value)


class ScoreListReply(ReplyModel):
    """``{"scores": [{"id": "M1", "score": 0.8, "reason": "..."}, ...]}``: the schema's model;
    the answer is read entry by entry (``list_spec``), so one bad entry costs only its own
    memory, and the shapes models write instead (``{"M1": 0.8}``) are read too."""

    scores: list[ListEntry]

    @classmethod
    def tailor_schema(cls, schema: dict[str, Any], context: Mapping[str, Any]
                      ) -> dict[str, Any]:
        """``ids``: the memories being scored, one entry each, in order."""
        ids = tuple(context.get("ids", ()))
        scores = schema["properties"]["scores"]
        if ids:
            entry = scores.pop("items")
            scores["items"] = [{**entry, "properties": {**entry["properties"],
                                                        "id": {"const": key}}} for key in ids]
            scores.update(minItems=len(ids), additionalItems=False)
        return schema


def normalise_id(value: object) -> str:
    """``"M3"``, ``"m3"``, ``"[M3]"``, ``3`` and ``"3"`` all name memory ``M3``."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{value!r} is not a memory id")
    text = str(value).strip().strip("[]()#*`'\" ").upper()
    return f"M{text}" if text.isdigit() else text


@dataclass(frozen=True)
class ListRead:
    """What a listwise answer said: scores by id, and why the other entries were refused."""

    scores: dict[str, ScoreReply]
    refused: dict[str, str] = field(default_factory=dict)


def list_spec(ids: tuple[str, ...]) -> ReplySpec[ListRead]:
    """How a listwise answer about ``ids`` is read."""

    def build(value: object, ctx: ReadContext) -> ListRead:
        entries = _entries(value)
        read: dict[str, ScoreReply] = {}
        refused: dict[str, str] = {}
        # Any: pydantic's type for a validation context
        on_scale = ctx.scale is not None and any(_raw_score(e) > 1 for e in entries)
        context: dict[str, Any] = {"scale": ctx.scale, "others_on_scale": on_scale}
        for entry in entries:
            _read_entry(entry, ids, context, read, refused)
        if not read and not refused:
            raise ReplyRefused(f"no entry names one of the memory ids ({', '.join(ids)})")
        return ListRead(read, refused)

    return SCORE_LIST.read_with(build, items=len(ids), schema={"ids": ids},
                                answer_keys=ids)


def _entries(value: object) -> list[object]:
    if not isinstance(value, dict):
        raise ReplyRefused("the answer must be a JSON object with a \"scores\" list")
    by_key = {squash(str(k)): v for k, v in value.items()}
    listed = next((by_key[k] for k in ("scores", "results", "ratings", "memories", "items")
                   if k in by_key), None)
    if listed is None:  # {"M1": {...}, "M2": 0.4}
        listed = value
    if isinstance(listed, dict):
        return [{**v, "id": k} if isinstance(v, dict) else {"id": k, "score": v}
                for k, v in listed.items()]
    if not isinstance(listed, list):
        raise ReplyRefused("\"scores\" must be a list of {\"id\", \"score\", \"reason\"} entries")
    return listed


def _raw_score(entry: object) -> float:
    """The number an entry gives as its score (0 when it gives none we can see)."""
    if not isinstance(entry, dict):
        return 0.0
    for key, value in entry.items():
        if ListEntry.key_names().get(squash(str(key))) == "score":
            try:
                return float(value)
            except (TypeError, ValueError):
                return 0.0
    return 0.0


def _read_entry(entry: object, ids: tuple[str, ...], context: dict[str, Any],
                read: dict[str, ScoreReply], refused: dict[str, str]) -> None:
    if not isinstance(entry, dict):
        return  # a bare number has no id: the memory it meant is asked for again
    try:
        parsed = ListEntry.model_validate(entry, context=context)
    except ValidationError as err:
        key = _entry_id(entry)
        if key in ids:
            refused[key] = describe_error(err)
        return
    if parsed.id not in ids:
        return
    earlier = read.get(parsed.id)
    if earlier is not None and earlier.score != parsed.score:
        refused[parsed.id] = "given twice with different scores"
        del read[parsed.id]
    elif parsed.id not in refused:
        read[parsed.id] = parsed


def _entry_id(entry: Mapping[object, object]) -> str:
    for key, value in entry.items():
        if ListEntry.key_names().get(squash(str(key))) == "id":
            try:
                return normalise_id(value)
            except ValueError:
                return ""
    return ""


_SCORE_LINE = ('"score": <number from 0.0 (irrelevant) to 1.0 (essential)>, '
               '"reason": "<one short sentence>"')
_ADVICE = ("the code found keeps its unscored ranking, so answers still show it; a larger model "
           "scores it better")

SCORE = Step(
    "score", """You rate how useful a stored memory is for the context below.
$data_rule

Context:
$context

Memory:
$memory

Answer with JSON only, no other text:
{""" + _SCORE_LINE + "}",
    doing="scoring the code found", max_tokens=120, reply=ScoreReply,
    what="a relevance score", answer_keys=("score", "relevance", "rating", "relevance_score"),
    advice=_ADVICE)

SCORE_LIST = Step(
    "score_list", """You rate how useful each stored memory below is for the context.
$data_rule

Context:
$context

Memories (the source of each block is its id):
$memories

Answer with JSON only, no other text: one entry for EVERY id above ($ids), in any order:
{"scores": [{"id": "M1", """ + _SCORE_LINE + "}, ...]}",
    doing="scoring the code found", max_tokens=40, per_item=35, reply=ScoreListReply,
    what="a score for every memory id",
    answer_keys=("scores", "results", "ratings", "id", "score", "memoryid", "relevance"),
    partial_lists=frozenset({"scores"}), wrap_list="scores",
    retry="""Your previous answer could not be used for some memories: $problems
Score exactly these memories now.

$original""", advice=_ADVICE)

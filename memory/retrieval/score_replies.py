"""Relevance-score answers as reply models, pointwise (one memory) and listwise (many by id).

Scores are coerced only when they can mean one thing: ``0.8``, ``"0.8"``, ``"8/10"``, ``"80%"``,
or ``8`` when the reply states a 0-10 scale (a ``scale`` key or words like "out of 10"); a score of
5 with no scale is refused. A missing reason is allowed. In a listwise answer each entry stands
alone: an entry that is refused, missing or names an unknown id only affects its own memory,
which is asked for again with the others left over.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import ValidationError, ValidationInfo, field_validator

from ...llm.bounds import COMPLETION_TOKENS, list_tokens
from ...llm.coerce import as_unit_score, squash
from ...llm.errors import ReplyRefused
from ...llm.reader import ReadContext, ReplySpec, model_spec
from ...llm.schema import ReplyModel, describe_error

NO_REASON = "(no reason given)"

_SCORE_SYNONYMS = {"relevance": "score", "relevance_score": "score", "rating": "score",
                   "usefulness": "score", "value": "score", "explanation": "reason",
                   "reasoning": "reason", "why": "reason", "rationale": "reason",
                   "justification": "reason", "max": "scale", "max_score": "scale",
                   "out_of": "scale", "scale_max": "scale"}


class ScoreReply(ReplyModel):
    """``{"score": 0..1, "reason": "..."}`` (``scale`` comes first so ``score`` can use it)."""

    synonyms: ClassVar[Mapping[str, str]] = _SCORE_SYNONYMS
    scale: float | None = None
    score: float
    reason: str = ""

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


def score_spec() -> ReplySpec[ScoreReply]:
    """How a pointwise score is read."""
    return model_spec(ScoreReply, "a relevance score", ("score", "relevance", "rating",
                                                        "relevance_score"),
                      max_tokens=COMPLETION_TOKENS["score"])


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

    schema = {"type": "object", "properties": {"scores": {"type": "array", "items":
              ListEntry.reply_schema()}}, "required": ["scores"], "additionalProperties": False}
    keys = {"scores", "results", "ratings", "id", "score", "memoryid", "relevance",
            *(squash(i) for i in ids)}
    return ReplySpec("a score for every memory id", build, frozenset(keys),
                     partial_lists=frozenset({"scores"}), wrap_list="scores",
                     json_schema=schema,
                     max_tokens=list_tokens("score_list_base", "score_list_item", len(ids)))


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

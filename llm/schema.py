"""The base of every reply model: keys read whatever their spelling, errors said precisely.

Models write ``Docstring``, ``doc_string``, ``docString``; reply models declare their fields once
and their synonyms in ``synonyms``, and this base renames keys before pydantic validates, so each
model only states what its values may be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .coerce import normalise_keys, squash


class ReplyModel(BaseModel):
    """A reply (or part of one); unknown keys are ignored, known ones read in any spelling."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    #: other names of fields, e.g. ``{"explanation": "reason"}`` (any spelling of either); two
    #: names of one field with different values are ambiguous and refused
    synonyms: ClassVar[Mapping[str, str]] = {}
    #: names read as a field only when the field itself is absent (a looser relative)
    fallbacks: ClassVar[Mapping[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _read_keys(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        named = normalise_keys(cls.prepare(dict(data)), cls.key_names())
        for alias, target in cls.fallbacks.items():
            given = next((k for k in named if squash(k) == squash(alias)), None)
            if given is not None and target not in named:
                named[target] = named.pop(given)
        return named

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Reshape the raw object before keys are read (override for shape-level coercions)."""
        return data

    @classmethod
    def key_names(cls) -> dict[str, str]:
        """Squashed spelling -> the key pydantic reads (the field's alias, else its name)."""
        wire = {name: field.alias or name for name, field in cls.model_fields.items()}
        names = {squash(key): key for key in wire.values()}
        names.update({squash(name): key for name, key in wire.items()})
        names.update({squash(alias): wire.get(name, name) for alias, name in
                      cls.synonyms.items()})
        return names


def describe_error(err: ValidationError) -> str:
    """A pydantic error as one line per problem: ``checks[1].pass: <message>``."""
    lines = []
    for item in err.errors():
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in item["loc"])
        message = "missing" if item["type"] == "missing" else str(item["msg"]).removeprefix(
            "Value error, ").removeprefix("Assertion failed, ")
        lines.append(f"{where.lstrip('.')}: {message}" if where else message)
    return "; ".join(dict.fromkeys(lines))

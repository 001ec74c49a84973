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
    #: fields the schema sent to a constraining server requires although the reader does not
    #: (a grammar would otherwise let a small model answer ``{}``)
    schema_requires: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def reply_schema(cls) -> dict[str, Any]:
        """The schema sent with a structured call (``constrained_schema``)."""
        return constrained_schema(cls.model_json_schema(), cls.schema_requires)

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


_NOISE = ("title", "description", "default")


def constrained_schema(schema: Mapping[str, Any], requires: tuple[str, ...] = ()
                       ) -> dict[str, Any]:
    """``schema`` as a server that constrains its output to it needs it (llama.cpp turns it into
    a grammar): titles, descriptions and defaults dropped (the prompt states the meaning), no
    keys besides the declared ones, and ``requires`` required too, without their ``null``."""
    out: dict[str, Any] = _strip(schema)
    props = out.get("properties", {})
    wanted = [k for k in requires if k in props]
    for key in wanted:
        variants = props[key].get("anyOf")
        if isinstance(variants, list):
            kept = [v for v in variants if v.get("type") != "null"]
            props[key] = kept[0] if len(kept) == 1 else {"anyOf": kept}
    if wanted:
        out["required"] = list(dict.fromkeys([*out.get("required", []), *wanted]))
    return out


def _strip(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out = {k: _strip(v) for k, v in node.items() if k not in _NOISE or k == "properties"}
    if "properties" in node:  # property names are data, not keywords: keep every one
        out["properties"] = {name: _strip(v) for name, v in node["properties"].items()}
        out.setdefault("additionalProperties", False)
    return out


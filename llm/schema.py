"""The base of every reply model: keys read whatever their spelling, errors said precisely, and
the JSON Schema a constraining server is given, generated from the same model.

Models write ``Docstring``, ``doc_string``, ``docString``; reply models declare their fields once
and their synonyms in ``synonyms``, and this base renames keys before pydantic validates, so each
model only states what its values may be.

The schema sent with a structured call (:meth:`ReplyModel.reply_schema`) is pydantic's schema of
the model, reshaped for a server that turns it into a grammar (llama.cpp, Ollama, vLLM) or
enforces it (OpenAI's strict mode): every rule the reader applies is in it, so a reply decoded
under it is valid by construction (``tests/unit/llm/test_step_schemas.py`` generates replies
from each step's schema and reads them; and checks that every refusal it can produce is a schema
violation). Where the rules are declared:

* a field's own rule beside the field: ``Field(json_schema_extra={"pattern": ...})`` (an enum,
  a pattern, an item count);
* the model's: ``schema_requires`` (asked for although the reader has a default),
  ``schema_omits`` (read when a model writes it, never asked for), ``schema_nullable`` (fields
  whose ``null`` is an answer; every other ``Optional`` is asked for without ``null``) and
  ``schema_one_of`` (exactly one of these keys, e.g. an example's ``expected`` or ``raises``);
* what depends on the call (the ids being scored, the number of checks): ``tailor_schema``.

The schema is written in the dialect every constraining server and the test tools read (draft 7
keywords: a tuple is ``items: [...]`` with ``additionalItems: false``; alternatives are
``anyOf`` of schemas that exclude each other, since some converters do not take ``oneOf``), with
no ``$ref`` (inlined) and no titles, descriptions or defaults (the prompt states the meaning).
Patterns use only what llama.cpp's converter reads: anchored, plain groups, explicit character
classes (no ``\\s``, ``\\w``, ``\\d``), and no ``"`` or ``\\`` in the text they allow (a grammar
writes a pattern's characters raw between the quotes).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .coerce import normalise_keys, squash

#: characters ``str.strip()`` removes (besides the ASCII controls, excluded anyway)
_STRIPPED = "\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
#: what free text may hold under a pattern: no quote, backslash or control character
_TEXT_CHAR = '[^"\\\\\\x00-\\x1f]'
#: what it may start with: nothing ``strip`` (or a stripped backtick) would remove, and no
#: ``<``: the prompts write what goes in a field as ``<...>``, and a copy of it is no value
_FIRST_CHAR = '[^ `<"\\\\\\x00-\\x1f' + _STRIPPED + "]"


def line_pattern(max_chars: int) -> str:
    """One line of visible text of at most ``max_chars`` characters: never blank, never starting
    with a space, a backtick or ``<`` (a template's placeholder), no double quote, backslash or
    control character (single quotes serve for code)."""
    return f"^{_FIRST_CHAR}{_TEXT_CHAR}{{0,{max_chars - 1}}}$"


def text_pattern(max_chars: int) -> str:
    """Text of at most ``max_chars`` characters, maybe empty, on one line (as above)."""
    return f"^{_TEXT_CHAR}{{0,{max_chars}}}$"


def text_items(max_items: int, max_chars: int, min_items: int = 0) -> dict[str, Any]:
    """A list of at most ``max_items`` lines of text (:func:`line_pattern`)."""
    out: dict[str, Any] = {"type": "array", "items": {"type": "string",
                                                      "pattern": line_pattern(max_chars)},
                           "maxItems": max_items}
    return {**out, "minItems": min_items} if min_items else out


def _shape(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """pydantic's hook on every reply model's own schema (nested models' too)."""
    if isinstance(cls, type) and issubclass(cls, ReplyModel):
        cls.shape_schema(schema)


class ReplyModel(BaseModel):
    """A reply (or part of one); unknown keys are ignored, known ones read in any spelling."""

    model_config = ConfigDict(extra="ignore", frozen=True, json_schema_extra=_shape)

    #: other names of fields, e.g. ``{"explanation": "reason"}`` (any spelling of either); two
    #: names of one field with different values are ambiguous and refused
    synonyms: ClassVar[Mapping[str, str]] = {}
    #: names read as a field only when the field itself is absent (a looser relative)
    fallbacks: ClassVar[Mapping[str, str]] = {}
    #: fields the schema requires although the reader does not (a grammar would otherwise let
    #: a small model answer ``{}``)
    schema_requires: ClassVar[tuple[str, ...]] = ()
    #: fields read when a model writes them, but not asked for (they add nothing a grammar
    #: should make a model write, or could contradict what it does write)
    schema_omits: ClassVar[tuple[str, ...]] = ()
    #: optional fields whose ``null`` is an answer; every other optional field is asked for
    #: without ``null`` (or left out)
    schema_nullable: ClassVar[tuple[str, ...]] = ()
    #: groups of keys of which a reply holds exactly one (the other fields are common to all)
    schema_one_of: ClassVar[tuple[tuple[str, ...], ...]] = ()

    @classmethod
    def reply_schema(cls, **context: Any) -> dict[str, Any]:
        """The schema sent with a structured call; ``context`` tailors it to the call (the ids
        being scored, the checks being judged: :meth:`tailor_schema`). ``Any``: JSON Schema."""
        return cls.tailor_schema(asked_schema(cls.model_json_schema()), context)

    @classmethod
    def tailor_schema(cls, schema: dict[str, Any], context: Mapping[str, Any]
                      ) -> dict[str, Any]:
        """The schema for one call (override where the call's data narrows it)."""
        return schema

    @classmethod
    def shape_schema(cls, schema: dict[str, Any]) -> None:
        """Apply the model's schema declarations to its own schema, in place."""
        props: dict[str, Any] = schema.get("properties", {})
        for name in cls.schema_omits:
            props.pop(name, None)
        for name, prop in list(props.items()):
            props[name] = _nullable(prop, name in cls.schema_nullable)
        required = [k for k in [*schema.get("required", []), *cls.schema_requires]
                    if k in props]
        schema["required"] = list(dict.fromkeys(required))
        if cls.schema_one_of:
            _one_of(schema, cls.schema_one_of)
        if not schema["required"]:
            del schema["required"]

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
        return {k: v for k, v in named.items() if v is not None or not _absent_if_null(cls, k)}

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


def _absent_if_null(cls: type[ReplyModel], key: str) -> bool:
    """A ``null`` for a field whose default is not ``None`` means the field is absent (OpenAI's
    strict mode makes every field required, an optional one nullable)."""
    field = cls.model_fields.get(key) or next(
        (f for f in cls.model_fields.values() if f.alias == key), None)
    return field is not None and not field.is_required() and field.default is not None


def _nullable(prop: dict[str, Any], keep_null: bool) -> dict[str, Any]:
    """An ``Optional`` property without its ``null`` (unless ``keep_null``), the rules declared
    beside pydantic's ``anyOf`` moved into its variants."""
    variants = prop.get("anyOf")
    if not isinstance(variants, list) or not any(v.get("type") == "null" for v in variants):
        return prop
    extra = {k: v for k, v in prop.items() if k not in ("anyOf", "title", "default",
                                                        "description")}
    kept = [{**v, **extra} for v in variants if v.get("type") != "null"]
    if keep_null:
        return {"anyOf": [*kept, {"type": "null"}]}
    return kept[0] if len(kept) == 1 else {"anyOf": kept}


def _one_of(schema: dict[str, Any], groups: tuple[tuple[str, ...], ...]) -> None:
    """``schema`` as alternatives, each with the common fields and one group, all required."""
    props: dict[str, Any] = schema.pop("properties")
    required = schema.pop("required", [])
    grouped = {k for group in groups for k in group}
    common = {k: v for k, v in props.items() if k not in grouped}
    schema["anyOf"] = [{"type": "object", "properties": {**common, **{k: props[k] for k in g}},
                        "required": [*(k for k in required if k in common), *g],
                        "additionalProperties": False} for g in groups]
    schema["required"] = []


_NOISE = ("title", "description", "default")


def asked_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """pydantic's ``schema`` as a constraining server needs it: ``$ref`` inlined, titles,
    descriptions and defaults dropped, no keys besides the declared ones."""
    defs = schema.get("$defs", {})
    return dict(_strip(_inline(copy.deepcopy(dict(schema)), defs)))


def _inline(node: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _inline({**defs[ref.rsplit("/", 1)[1]], **rest}, defs)
    return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}


def _strip(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out = {k: _strip(v) for k, v in node.items() if k not in _NOISE}
    if "properties" in node:  # property names are data, not keywords: keep every one
        out["properties"] = {name: _strip(v) for name, v in node["properties"].items()}
        out.setdefault("additionalProperties", False)
    return out


def describe_error(err: ValidationError) -> str:
    """A pydantic error as one line per problem: ``checks[1].pass: <message>``."""
    lines = []
    for item in err.errors():
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in item["loc"])
        message = "missing" if item["type"] == "missing" else str(item["msg"]).removeprefix(
            "Value error, ").removeprefix("Assertion failed, ")
        lines.append(f"{where.lstrip('.')}: {message}" if where else message)
    return "; ".join(dict.fromkeys(lines))


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` as OpenAI's strict mode takes it: every property required (an optional one
    may be ``null``, which the reply models read as absent), a root that is one object (the
    alternatives of a root ``anyOf`` merged), no tuple (its items as alternatives, the count as
    ``minItems``/``maxItems``), ``const`` as a one-value ``enum``, no ``minLength``,
    ``maxLength`` or ``additionalItems``, and no object of arbitrary keys. Looser where strict
    mode cannot say a rule (which comment a ``changes`` verdict needs): the reader still checks
    it."""
    root = dict(schema)
    if "anyOf" in root and "properties" not in root:
        root = _merged(root["anyOf"])
    return dict(_strict(root))


def _merged(variants: list[Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for variant in variants:
        for name, prop in variant.get("properties", {}).items():
            if name in props and props[name] != prop:
                values = [*props[name].get("enum", [props[name].get("const")]),
                          *prop.get("enum", [prop.get("const")])]
                if all(v is not None for v in values):
                    prop = {"enum": list(dict.fromkeys(values))}
                else:
                    prop = {k: v for k, v in prop.items() if k not in ("minItems",)}
            props[name] = prop
    required = set.intersection(*(set(v.get("required", [])) for v in variants))
    return {"type": "object", "properties": props, "required": sorted(required),
            "additionalProperties": False}


_NOT_STRICT = ("minLength", "maxLength", "additionalItems")


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out = {k: _strict(v) for k, v in node.items() if k not in (*_NOT_STRICT, "properties")}
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if isinstance(out.get("items"), list):
        count = len(out["items"])
        out.update(items={"anyOf": out["items"]}, minItems=count, maxItems=count)
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [v for v in out["anyOf"] if not _free_object(v)]
    if "properties" in node:
        required = set(node.get("required", []))
        out["properties"] = {name: _strict(prop) if name in required else
                             {"anyOf": [_strict(prop), {"type": "null"}]}
                             for name, prop in node["properties"].items()}
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def _free_object(node: Any) -> bool:
    """An object of arbitrary keys (strict mode has none)."""
    return isinstance(node, Mapping) and node.get("type") == "object" and \
        "properties" not in node

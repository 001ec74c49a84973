"""Read one structured answer from a model reply, or refuse it with a precise message.

The steps, each deliberate: strip reasoning blocks (``reasoning``); list the JSON candidates of
what is left, fenced or bare (``blocks``); from the LAST candidate backwards, decode it (strict,
then repaired, truncation cut back to complete values: ``repair``) and validate it with the
stage's model. The first candidate that validates is the answer, except that a later candidate
that *tried* to be the answer (it has one of the answer's keys) and failed makes the reply
refused: the model's last word was broken, and an earlier draft of it is not its answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from .blocks import AnswerBlock, json_candidates
from .coerce import scale_hint, squash
from .errors import ReplyRefused
from .reasoning import strip_reasoning
from .repair import Decoded, Path, decode
from .schema import describe_error

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_DECLINED = re.compile(
    r"\b(?:I\s+can(?:no|')?t|I\s+cannot|I(?:'m| am)\s+(?:not able|unable)|I\s+won't|"
    r"I\s+will not|as an AI\b|I(?:'m| am)\s+sorry,?\s+but|I\s+apologi[sz]e,?\s+but)", re.I)


@dataclass(frozen=True)
class ReadContext:
    """What the reader learnt about the reply besides the JSON value."""

    #: a 0-10 or 0-100 scale the reply states in words ("8/10", "on a 0-10 scale")
    scale: float | None = None
    truncated: bool = False
    repaired: bool = False


@dataclass(frozen=True)
class ReplySpec(Generic[T]):
    """How one stage's answer is read: what it is called, which keys mark it, how it validates."""

    #: what the answer is, for messages ("a relevance score")
    what: str
    #: validate a decoded JSON value; raise ValueError (or ReplyRefused) with a precise message
    build: Callable[[Any, ReadContext], T]
    #: squashed keys that mark a JSON object as an attempt at this answer (empty: any object)
    answer_keys: frozenset[str]
    #: squashed keys whose value may be lost to truncation without changing the meaning
    truncatable: frozenset[str] = frozenset({"reason"})
    #: squashed keys of lists whose lost tail ``build`` detects itself (missing entries)
    partial_lists: frozenset[str] = frozenset()
    #: a bare top-level JSON list is the value of this field
    wrap_list: str | None = None
    #: JSON schema for models that support native structured output
    json_schema: Mapping[str, Any] | None = field(default=None, compare=False)
    #: completion tokens the answer may take (its step's, ``steps.Step``); None: unbounded
    max_tokens: int | None = None


def model_spec(model: type[M], what: str, answer_keys: tuple[str, ...], *,
               context: Mapping[str, Any] | None = None, **options: Any) -> ReplySpec[M]:
    """A spec validating with pydantic ``model``; its validation context is ``scale`` plus
    ``context``."""

    def build(value: Any, ctx: ReadContext) -> M:
        try:
            return model.model_validate(value, context={"scale": ctx.scale, **(context or {})})
        except ValidationError as err:
            raise ReplyRefused(describe_error(err)) from None

    schema = getattr(model, "reply_schema", model.model_json_schema)
    options.setdefault("json_schema", schema())
    return ReplySpec(what, build, frozenset(squash(k) for k in answer_keys), **options)


def read_reply(reply: object, spec: ReplySpec[T]) -> T:
    """The answer in ``reply``; ``ReplyRefused`` saying exactly why when there is none."""
    if not isinstance(reply, str) or not reply.strip():
        raise ReplyRefused(f"the reply was empty; it must hold {spec.what} as one JSON object")
    visible = strip_reasoning(reply)
    if not visible.text:
        raise ReplyRefused(_no_answer_after_reasoning(visible.unterminated, spec))
    candidates = json_candidates(visible.text)
    if not candidates:
        raise ReplyRefused(_no_json(visible.text, spec))
    hint = scale_hint(reply)
    problems: list[str] = []
    for candidate in reversed(candidates):
        try:
            return _read_candidate(candidate, spec, hint)
        except _NotAnAnswer as err:
            problems.append(str(err))
        except ReplyRefused as err:
            raise ReplyRefused(_with_cut_note(str(err), candidate)) from None
    raise ReplyRefused(f"no JSON object in the answer holds {spec.what} "
                       f"({'; '.join(dict.fromkeys(problems))})")


class _NotAnAnswer(Exception):
    """A candidate that is JSON-looking but no attempt at this answer (skipped)."""


def _read_candidate(candidate: AnswerBlock, spec: ReplySpec[T], hint: float | None) -> T:
    try:
        decoded = decode(candidate.text, candidate.scan)
    except ReplyRefused as err:
        if _mentions_answer(candidate.text, spec):
            raise
        raise _NotAnAnswer(str(err)) from None
    value, lost = _wrapped(decoded, spec)
    if not _is_attempt(value, spec):
        if decoded.truncated and _mentions_answer(candidate.text, spec):
            raise ReplyRefused(f"the answer is cut off before it gives {spec.what}; answer "
                               "again, completely and more briefly")
        raise _NotAnAnswer(f"a JSON value without {_keys(spec)}")
    bad = [p for p in lost if not _harmless_loss(p, spec)]
    if bad:
        raise ReplyRefused(f"the answer is cut off and lost {_path_text(bad[0])}; answer again, "
                           "completely and more briefly")
    ctx = ReadContext(hint, decoded.truncated, decoded.repaired)
    try:
        return spec.build(value, ctx)
    except ReplyRefused:
        raise
    except ValueError as err:
        raise ReplyRefused(str(err)) from None


def _wrapped(decoded: Decoded, spec: ReplySpec[Any]) -> tuple[Any, tuple[Path, ...]]:
    if isinstance(decoded.value, list) and spec.wrap_list:
        return {spec.wrap_list: decoded.value}, tuple((spec.wrap_list, *p) for p in decoded.lost)
    return decoded.value, decoded.lost


def _is_attempt(value: Any, spec: ReplySpec[Any]) -> bool:
    if not spec.answer_keys:  # any JSON object is an attempt at this answer
        return isinstance(value, dict)
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, dict)), None)
    return isinstance(value, dict) and bool({squash(str(k)) for k in value} & spec.answer_keys)


def _mentions_answer(text: str, spec: ReplySpec[Any]) -> bool:
    words = {squash(w) for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)}
    return bool(words & spec.answer_keys)


def _harmless_loss(path: Path, spec: ReplySpec[Any]) -> bool:
    """A lost free-text field, or (part of) an entry of a list whose entries ``build`` checks
    one by one: the cut keeps complete values only, so such an entry is missing or incomplete,
    and ``build`` refuses or re-asks it, never reads it wrong."""
    keys = [squash(p) for p in path if isinstance(p, str)]
    if keys and keys[-1] in spec.truncatable:
        return True
    return any(isinstance(a, str) and squash(a) in spec.partial_lists and isinstance(b, int)
               for a, b in zip(path, path[1:], strict=False))


def _path_text(path: Path) -> str:
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return f"its {text}" if text else "part of it"


def _with_cut_note(message: str, candidate: AnswerBlock) -> str:
    if candidate.truncated and "cut off" not in message:
        return f"{message} (the answer looks cut off: it ends before its closing bracket)"
    return message


def _keys(spec: ReplySpec[Any]) -> str:
    return "/".join(sorted(spec.answer_keys))


def _no_answer_after_reasoning(unterminated: bool, spec: ReplySpec[Any]) -> str:
    if unterminated:
        return (f"the reply ended inside its reasoning block, before any answer; reason "
                f"briefly, close the block, then give {spec.what} as one JSON object")
    return (f"the reply held only a reasoning block and no answer after it; give {spec.what} "
            "as one JSON object after the reasoning")


def _no_json(text: str, spec: ReplySpec[Any]) -> str:
    declined = _DECLINED.search(text)
    if declined:
        sentence = text[declined.start():].split("\n", 1)[0][:160]
        return (f"the model declined to answer ({sentence!r}); the task is only to give "
                f"{spec.what} as one JSON object")
    return f"no JSON object in the answer; give {spec.what} as one JSON object"


def answer_text(reply: object, what: str = "the answer") -> str:
    """The visible answer of a free-text reply (code edits): reasoning removed, never empty.

    Code inside a reasoning block is a draft the model may have rejected; it is never the edit.
    """
    if not isinstance(reply, str) or not reply.strip():
        raise ReplyRefused(f"the reply was empty; it must hold {what}")
    visible = strip_reasoning(reply)
    if not visible.text:
        if visible.unterminated:
            raise ReplyRefused(f"the reply ended inside its reasoning block, before {what}; "
                               "reason briefly, close the block, then answer")
        raise ReplyRefused(f"the reply held only a reasoning block and no answer after it; "
                           f"give {what} after the reasoning")
    return visible.text

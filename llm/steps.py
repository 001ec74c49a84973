"""A model step declared once: its prompt, its reply model and schema, its limit, its advice.

Each core declares its steps in one table (``codegen/steps.py``, ``codegen/metacode/steps.py``,
``memory/prompts.py``), each :class:`Step` side by side with its prompt template: the reply model
the answer is read with (the JSON Schema a constraining server gets is generated from it:
``schema.ReplyModel.reply_schema``), the completion limit (a list's grows with its length), the
re-ask's template, and what the user can do when the step fails, in plain words (the glue adds
the settings that apply: ``app/host/model_advice.py``). Nothing else states them: no table of
limits by name, no schema written by hand, no advice keyed by a string.

Why limits at all: a small local model asked for a scoring list of 100 tokens wrote 3,704 (the
same line over and over) until the window was full, 156 s for one call. A limit fitted to the
step ends such a reply early; the tolerant reader then refuses or repairs it like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .coerce import squash
from .reader import ReadContext, ReplySpec, model_spec
from .schema import ReplyModel
from .templates import TemplateSet

T = TypeVar("T")


@dataclass(frozen=True)
class Step:
    """One call the plugin makes to a model, and everything about it."""

    #: the template's name (its golden file is ``tests/golden/prompts/<name>.txt``)
    name: str
    #: the prompt (``string.Template``; ``$data_rule`` is always filled)
    template: str
    #: what the step is, in the user's words ("preparing the request")
    doing: str
    #: completion tokens of the answer (a list's: the part that does not grow with it)
    max_tokens: int
    #: completion tokens per item of the list the answer holds (scores, verdicts)
    per_item: int = 0
    #: the answer's model; None: free text (code, a yes or a no)
    reply: type[ReplyModel] | None = None
    #: what the answer is, for the reader's messages ("the meta-code")
    what: str = ""
    #: keys that mark a JSON object as an attempt at this answer (any spelling)
    answer_keys: tuple[str, ...] = ()
    #: keys whose value may be lost to truncation without changing the meaning
    truncatable: frozenset[str] = frozenset({"reason"})
    #: keys of lists whose lost tail the reply model detects itself
    partial_lists: frozenset[str] = frozenset()
    #: a bare top-level JSON list is the value of this key
    wrap_list: str | None = None
    #: the re-ask that quotes a refusal back to the model (None: the shared one of ``retry``)
    retry: str | None = None
    #: what the user can do when the step fails, besides the settings (plain words)
    advice: str = ""
    _engine: TemplateSet = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_engine", TemplateSet(self.templates()))

    def templates(self) -> dict[str, str]:
        """The step's templates by name: its prompt, and its re-ask as ``<name>_retry``."""
        out = {self.name: self.template}
        return {**out, f"{self.name}_retry": self.retry} if self.retry else out

    def render(self, **values: str) -> str:
        """The prompt; a missing or unknown variable is an error, never a blank."""
        return self._engine.render(self.name, **values)

    def render_retry(self, **values: str) -> str:
        return self._engine.render(f"{self.name}_retry", **values)

    def limit(self, items: int = 0) -> int:
        """The completion limit of an answer about ``items`` things (a list step's grows)."""
        return self.max_tokens + self.per_item * max(1, items) if self.per_item else \
            self.max_tokens

    def schema(self, **context: Any) -> dict[str, Any] | None:
        """The answer's JSON Schema for this call (None: free text). ``Any``: JSON Schema."""
        return None if self.reply is None else self.reply.reply_schema(**context)

    def spec(self, *, items: int = 0, context: Mapping[str, Any] | None = None,
             schema: Mapping[str, Any] | None = None) -> ReplySpec[Any]:
        """How the answer is read: the reply model validating with ``context``, the schema
        (tailored by ``schema``'s values) and the limit for ``items``."""
        if self.reply is None:
            raise TypeError(f"the step {self.name!r} has no reply model")
        return model_spec(self.reply, self.what, self.answer_keys, context=context,
                          truncatable=self.truncatable, partial_lists=self.partial_lists,
                          wrap_list=self.wrap_list, json_schema=self.schema(**(schema or {})),
                          max_tokens=self.limit(items))

    def read_with(self, build: Callable[[Any, ReadContext], T], *, items: int = 0,
                  schema: Mapping[str, Any] | None = None,
                  answer_keys: tuple[str, ...] = ()) -> ReplySpec[T]:
        """A spec whose ``build`` reads the decoded value itself (an answer the reply model
        only shapes, like the meta-code, or one read entry by entry, like a scoring list);
        ``answer_keys`` adds keys that mark an attempt at this call's answer."""
        keys = (*self.answer_keys, *answer_keys)
        return ReplySpec(self.what, build, frozenset(squash(k) for k in keys),
                         self.truncatable, self.partial_lists, self.wrap_list,
                         self.schema(**(schema or {})), self.limit(items))


def step_table(*steps: Step) -> dict[str, Step]:
    """Steps by name; two steps of one name are an error."""
    table: dict[str, Step] = {}
    for step in steps:
        if step.name in table:
            raise ValueError(f"two steps are named {step.name!r}")
        table[step.name] = step
    return table


def templates_of(steps: Mapping[str, Step]) -> dict[str, str]:
    """Every template of ``steps`` by name (what the golden files pin)."""
    return {name: text for step in steps.values() for name, text in step.templates().items()}

"""Meta-code from the model: the prompt (with the index's impact, so the scope is proposed),
the answer read in the shapes models produce, re-asked with the exact errors (``model`` checks
them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...llm.errors import ReplyRefused
from ...llm.reader import ReplySpec, read_reply
from ...llm.retry import ask
from ...llm.templates import data_block, data_blocks
from ..errors import MetaCodeInvalid
from ..ports import ImpactReport
from .examples import reconcile_examples
from .model import KINDS, Example, IOSpec, MetaCode
from .reply import metacode_spec
from .scope import ScopeItem
from .steps import METACODE, METACODE_SCOPE


def generate_metacode(request: str, *, llm: Callable[[str], str],
                      context: Sequence[Any] = (), max_attempts: int = 3,
                      impact: ImpactReport | None = None,
                      target: tuple[str, str, str] = ("", "", "")) -> MetaCode:
    """Ask the LLM for meta-code; re-ask with the exact errors; MetaCodeInvalid after the budget.

    ``context`` holds ``ContextSnippet``-like objects (``source``, ``title``, ``text``). The
    answer is read by the ``llm`` layer; example values are then fitted to the signature's
    return annotation (``example_types``). ``impact`` (what the index says uses the target)
    makes the prompt show its summary and ask for the ``scope``: the callers the change must
    edit too. Without one, or when nothing uses the target, the prompt is the single-entity
    one; either way one call per attempt. ``target`` (path, symbol, kind: what the user
    named, empty where nothing) is pinned in the schema a constraining server is given.
    """
    blocks = [("context", f"{s.source} {s.title}".strip(), s.text) for s in context]
    values = {"request": data_block("request", "user", request), "context": data_blocks(blocks)}
    if impact is not None and impact.sites:
        values["impact"] = data_block("impact", f"index:{impact.path}::{impact.symbol}",
                                      impact.render())
    step = METACODE_SCOPE if "impact" in values else METACODE
    original = step.render(**values)

    def retry(refusal: str, previous: str, first: str) -> str:
        return METACODE.render_retry(previous=data_block("previous_answer", "llm", previous),
                                     errors=refusal, original=first)

    asked = ask(llm, original, metacode_spec(step, _build, impact, target),
                attempts=max(1, max_attempts), retry=retry)
    if asked.value is None:
        raise MetaCodeInvalid(f"meta-code still invalid after {asked.calls} attempt(s): "
                              f"{asked.refusal}")
    return asked.value


def _build(data: dict[str, Any]) -> MetaCode:
    return MetaCode.from_dict(reconcile_examples(data))


def read_metacode(reply: str) -> MetaCode:
    """The meta-code in one reply, read exactly as ``generate_metacode`` reads it (no LLM);
    ``ReplyRefused`` (a ValueError) with the message the retry prompt would quote."""
    return read_reply(reply, metacode_spec(METACODE, _build))


def parse_json_object(reply: str) -> dict[str, Any]:
    """The one JSON object in a reply (bare or fenced, reasoning stripped); MetaCodeInvalid
    with the reader's words when there is none."""
    try:
        value = read_reply(reply, _ANY_OBJECT)
    except ReplyRefused as err:
        raise MetaCodeInvalid(str(err)) from None
    if not isinstance(value, dict):
        raise MetaCodeInvalid("answer must be a JSON object")
    return value


_ANY_OBJECT: ReplySpec[Any] = ReplySpec("a JSON object", lambda value, ctx: value, frozenset(),
                                        truncatable=frozenset())


# -- helpers --------------------------------------------------------------------------------




__all__ = ["KINDS", "Example", "IOSpec", "MetaCode", "ScopeItem", "generate_metacode",
           "parse_json_object", "read_metacode"]

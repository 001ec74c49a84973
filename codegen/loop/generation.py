"""The generation prompt of one iteration, and what its fitting must keep.

The prompt shows the goal, the draft, the retrieved context (the repository's, the associative
sources', the libraries' API facts), the task's history and the validator's feedback; a goal
with a scope also shows the scope's current code. When it does not fit the model's window the
glue fits it (``llm/window.py``), keeping first what the goal names: ``focus`` lists the names
and words of the goal (its symbol and signature, behaviour, constraints, acceptance checks and
scope), so the code and the API facts of ``TinyDB`` and ``Table`` stay in a prompt for "store
the note in the 'notes' table, use the TinyDB API" while facts the goal never mentions go first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...llm.bounds import CallOptions
from ...llm.templates import data_block, draft_blocks
from ..metacode.model import MetaCode
from ..steps import GENERATE, GENERATE_SCOPE
from .context import LoadedContext
from .scope_draft import change_paths, scope_code

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
#: words that name nothing: function words, Python's keywords and builtin types
_COMMON = frozenset("""the and for with its that this from into then than when what which
while where there their them they are was were has have had not but all any each every its
use uses using used return returns returned given give gives make makes one two new none
true false def class self str int float bool list dict set tuple bytes object api value
values should must may can also only more most some such""".split())


def goal_terms(meta: MetaCode) -> tuple[str, ...]:
    """The names and words the goal mentions (lower case, three letters or more), the symbol's
    and the scope's first: what the fitting keeps first."""
    texts = [meta.symbol, meta.signature, meta.behaviour, *meta.constraints,
             *meta.acceptance_checks, *(f"{i.path} {i.symbol} {i.why}" for i in meta.scope),
             *(f"{io.name} {io.type} {io.description}" for io in (*meta.inputs,
                                                                   *meta.outputs))]
    words = (w.lower() for text in texts for w in _WORD.findall(text.replace("_", " ")))
    return tuple(dict.fromkeys(w for w in words if len(w) >= 3 and w not in _COMMON))


def generation_options(meta: MetaCode) -> CallOptions:
    """The generation call's options: the draft's limit and the goal's terms."""
    return CallOptions(GENERATE.max_tokens, focus=goal_terms(meta))


def generation_prompt(meta: MetaCode, draft: Mapping[str, str], ctx: LoadedContext,
                      feedback: str, scope_budget: int) -> str:
    """The generation prompt; a goal with a scope also shows the scope's current code."""
    values = dict(metacode=meta.render_for_prompt(), repo_context=ctx.repo_text,
                  assoc_context=ctx.assoc_text, api_context=ctx.api_text,
                  history=ctx.history_text, symbol=meta.symbol or "(module)",
                  target_path=meta.target_path,
                  feedback=data_block("feedback", "validator", feedback)
                  if feedback else "(first attempt)")
    if not meta.scope:
        return GENERATE.render(draft=draft_blocks(draft, meta.target_path), **values)
    target = {meta.target_path: draft[meta.target_path]} if meta.target_path in draft else {}
    return GENERATE_SCOPE.render(draft=draft_blocks(target, meta.target_path),
                                 scope_code=scope_code(meta, dict(draft), scope_budget),
                                 allowed=", ".join(change_paths(meta)), **values)

"""The memory core's prompt templates (rendered by the shared engine in ``llm.templates``).

Every prompt the memory core sends is here: relevance scoring (pointwise and listwise) and the
``query`` prompts of both memory systems. Golden files under ``tests/golden/prompts/`` pin each
one. Memories and contexts enter only as data blocks, whose delimiters are broken inside the
payload: a stored memory cannot end its block and pose as an instruction to a model.
"""

from __future__ import annotations

from ..llm.templates import TemplateSet

_SCORE_LINE = ('"score": <number from 0.0 (irrelevant) to 1.0 (essential)>, '
               '"reason": "<one short sentence>"')

TEMPLATES = TemplateSet({
    "score": """You rate how useful a stored memory is for the context below.
$data_rule

Context:
$context

Memory:
$memory

Answer with JSON only, no other text:
{""" + _SCORE_LINE + "}",
    "score_list": """You rate how useful each stored memory below is for the context.
$data_rule

Context:
$context

Memories (the source of each block is its id):
$memories

Answer with JSON only, no other text: one entry for EVERY id above ($ids), in any order:
{"scores": [{"id": "M1", """ + _SCORE_LINE + "}, ...]}",
    "score_list_retry": """Your previous answer could not be used for some memories: $problems
Score exactly these memories now.

$original""",
    # ``MemorySystem.query``: the caller's task is the instruction; context and memories are data
    "query": """Use the memories below where they help with the task.
$data_rule

Context:
$context

Relevant memories:
$memories

Task: $task""",
    # ``CodeMemorySystem.query`` / ``build_prompt``: the user's request is the instruction
    "code_query": """You are helping with a software repository.
$data_rule

Context:
$context

Relevant code and notes from the repository (most relevant first):
$memories

Answer the request: $query""",
})


def render(name: str, **values: str) -> str:
    """Fill template ``name`` (strict: a missing or unknown variable is an error)."""
    return TEMPLATES.render(name, **values)

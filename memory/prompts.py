"""The ``query`` prompts of both memory systems (rendered by the shared engine in
``llm.templates``); relevance scoring's prompts are its steps' (``retrieval/score_replies.py``).

Golden files under ``tests/golden/prompts/`` pin each one. Memories and contexts enter only as
data blocks, whose delimiters are broken inside the payload: a stored memory cannot end its
block and pose as an instruction to a model.
"""

from __future__ import annotations

from ..llm.templates import TemplateSet

TEMPLATES = TemplateSet({
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

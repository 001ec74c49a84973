"""Prompt templates for meta-code, drafting, judging, docs and review (the engine is ``llm``).

Why templates live here and nowhere else: golden files pin every prompt, so a change in wording is
a visible diff. Repository content, context and model output enter a prompt only through
``data_block`` (from ``llm.templates``, re-exported here), a delimited block tagged with its
provenance whose delimiters are escaped in the payload.
"""

from __future__ import annotations

from ..llm.errors import PromptError
from ..llm.templates import DATA_RULE, TemplateSet, data_block, data_blocks, draft_blocks

#: What both generation prompts show after the draft (context, history, feedback) and how
#: they ask for the target's new definition.
_CONTEXT_AND_TARGET = """Repository context:
$repo_context

Associative context:
$assoc_context

Library APIs you may call (references from indexed sources, with their version: call them
exactly as documented here; they are not code to edit):
$api_context

Earlier attempts in this task (what was tried and why it failed):
$history

Feedback on the previous attempt:
$feedback

Reply with the COMPLETE new definition of `$symbol` in a fenced block opened as
```python entity=$target_path::$symbol
"""

#: The meta-code prompts' shared parts: the request and its context, the one JSON answer
#: schema (the scoped prompt adds ``scope``), the rule for examples.
_METACODE_HEAD = """You turn a programming request into META-CODE: a precise, testable goal.
$data_rule

Request from the user:
$request

Repository context:
$context

"""
_METACODE_KEYS = """Answer with ONE JSON object and nothing else, with exactly these keys:
{"target_path": "relative/path.py", "symbol": "qualified name (Class.method for a method)",
 "kind": "function|method|class|module", "signature": "def name(params) -> type",
 "behaviour": "what it does", "inputs": [{"name": "...", "type": "...", "description": "..."}],
 "outputs": [{"name": "return", "type": "...", "description": "..."}],
 "examples": [{"call": "name(arg)", "expected": <JSON value>},
              {"call": "name(bad)", "raises": "ValueError"}],
 "constraints": ["..."], "acceptance_checks": ["..."], "assumptions": ["..."]"""
_EXAMPLES_RULE = ("Examples are Python call expressions whose results are JSON values; give at "
                  "least two.\n"
                  "An acceptance check that an example's result alone shows ends with that call, "
                  "as in\n\"punctuation is ignored (shown by count_words('hi, there!'))\": the "
                  "passing example settles it.\n")

_IMPACT = """What the repository's index says uses the target (callers, references, tests, \
with lines):
$impact

"""
_SCOPE_KEY = """,
 "scope": [{"path": "relative/path.py", "symbol": "Qualified.name", "why": "what changes"}]}
"""
_SCOPE_RULE = """"scope" lists every OTHER place this change must edit so the code keeps working \
(a caller
whose call must change, a test that must follow the new behaviour), each with why; take them
from the uses above. Leave it [] when every use keeps working unchanged.
"""

# The after-commit steps' shared sections: the review and the documentation are asked alone or
# in one call (``review_docs``), with the same words either way.
_REVIEWER = "You are a senior peer reviewer. Review the accepted draft against its goal"
_GOAL_AND_DRAFT = """$data_rule

Goal (meta-code):
$metacode

Draft:
$draft

"""
_TESTS = """Test results:
$tests

"""
_ANSWER = "Answer with ONE JSON object and nothing else:\n"
_VERDICT_KEYS = ('"verdict": "approve" or "changes", '
                 '"comments": ["concrete change requests, if any"]')
_DOCS_KEYS = '''"docstring": "the docstring text for $symbol (no quotes)",
 "note": "a short Markdown note for the user"'''

TEMPLATES: dict[str, str] = {
    "metacode": _METACODE_HEAD + _METACODE_KEYS + "}\n" + _EXAMPLES_RULE,
    "metacode_scope": _METACODE_HEAD + _IMPACT + _METACODE_KEYS + _SCOPE_KEY + _EXAMPLES_RULE
    + _SCOPE_RULE,
    "metacode_retry": """Your previous META-CODE answer was invalid.
$data_rule

Your previous answer:
$previous

Problems found:
$errors

Answer again with ONE corrected JSON object and nothing else, keeping the same keys.

The original instructions follow.
$original
""",
    "generate": """You write Python code for one goal, one iteration at a time.
$data_rule

Goal (meta-code):
$metacode

Current draft:
$draft

""" + _CONTEXT_AND_TARGET
    + """For other files use SEARCH/REPLACE blocks (the file path on the line before
<<<<<<< SEARCH ... ======= ... >>>>>>> REPLACE) or a whole new file in a block opened as
```<language> file=relative/path
Never elide code (no "# ... rest unchanged"): write every line of what you replace.
""",
    "generate_scope": """You write Python code for one goal across several places, one iteration
at a time.
$data_rule

Goal (meta-code):
$metacode

Current draft of the target's file:
$draft

The other places this change edits (its scope), with their current code and why:
$scope_code

""" + _CONTEXT_AND_TARGET
    + """and, in the same reply, every place of the scope you change: its COMPLETE new \
definition in a
block opened as ```python entity=path::Qualified.name, or SEARCH/REPLACE blocks (the file path
on the line before <<<<<<< SEARCH ... ======= ... >>>>>>> REPLACE) for module-level lines such
as imports. Only these files may change: $allowed
Never elide code (no "# ... rest unchanged"): write every line of what you replace.
""",
    "judge": """You are a strict reviewer comparing a draft with its goal.
$data_rule

Goal (meta-code):
$metacode

Acceptance checks (number: text):
$checks

Draft:
$draft

Test results:
$tests

For EACH acceptance check decide pass or fail from the draft and the test results.
Answer with ONE JSON object and nothing else:
{"checks": [{"check": 1, "pass": true, "reason": "..."}, ...]}
""",
    "judge_retry": """Your previous answer could not be used: $error
Answer with ONE JSON object and nothing else:
{"checks": [{"check": 1, "pass": true, "reason": "..."}, ...]} covering checks 1..$count.

$original
""",
    "docs": "Write documentation for the accepted draft.\n" + _GOAL_AND_DRAFT + _ANSWER
    + "{" + _DOCS_KEYS + "}\n",
    "review": _REVIEWER + ".\n" + _GOAL_AND_DRAFT + _TESTS + _ANSWER + "{" + _VERDICT_KEYS
    + "}\n",
    "review_docs": _REVIEWER + ",\nand write its documentation.\n" + _GOAL_AND_DRAFT + _TESTS
    + _ANSWER + "{" + _VERDICT_KEYS + ",\n " + _DOCS_KEYS + "}\n",
    "tie_break": """Does the chat message below ask to write, add, implement, change, fix or
refactor source code?
$data_rule

Message from the user:
$message

Answer with one word: yes or no.
Answer:""",
}


_ENGINE = TemplateSet(TEMPLATES)


def render(name: str, **values: str) -> str:
    """Fill template ``name``; a missing or unknown variable is an error, never a blank."""
    return _ENGINE.render(name, **values)


__all__ = ["DATA_RULE", "TEMPLATES", "PromptError", "data_block", "data_blocks", "draft_blocks",
           "render"]

"""codegen's model steps after the meta-code: drafting, the judge, documentation, review, and
the routing's tie-break; each declared once (``llm/steps.py``), its prompt beside it.

Why prompts live here and nowhere else: golden files pin every prompt, so a change in wording is
a visible diff. Repository content, context and model output enter a prompt only through
``llm.templates.data_block``, a delimited block tagged with its provenance whose delimiters are
escaped in the payload. The meta-code's steps are ``metacode/steps.py``.
"""

from __future__ import annotations

from ..llm.steps import Step, step_table
from .reply_models import DocsReply, JudgeReply, ReviewDocsReply, ReviewReply

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

GENERATE = Step(
    "generate", """You write Python code for one goal, one iteration at a time.
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
    doing="drafting", max_tokens=2048,
    advice="say what the code should do more simply, or ask for a smaller change")

GENERATE_SCOPE = Step(
    "generate_scope", """You write Python code for one goal across several places, one iteration
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
    doing="drafting", max_tokens=2048,
    advice="say what the code should do more simply, or leave the other places to a later "
    "request")

JUDGE = Step(
    "judge", """You are a strict reviewer comparing a draft with its goal.
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
    doing="judging the draft", max_tokens=120, per_item=80, reply=JudgeReply,
    what="a verdict for every acceptance check", answer_keys=("checks",),
    partial_lists=frozenset({"checks"}), wrap_list="checks",
    retry="""Your previous answer could not be used: $error
Answer with ONE JSON object and nothing else:
{"checks": [{"check": 1, "pass": true, "reason": "..."}, ...]} covering checks 1..$count.

$original
""",
    advice="turn off the plugin's setting 'Check: LLM judge' to let the tests decide, or cite "
    "an example's call in each acceptance check so that passing tests settle it")

DOCS = Step(
    "docs", "Write documentation for the accepted draft.\n" + _GOAL_AND_DRAFT + _ANSWER
    + "{" + _DOCS_KEYS + "}\n",
    doing="documenting the draft", max_tokens=700, reply=DocsReply,
    what="the documentation (a docstring and a note)", answer_keys=("docstring",),
    truncatable=frozenset({"note"}),
    advice="turn off the plugin's setting 'Extended loop' to keep drafts undocumented")

REVIEW = Step(
    "review", _REVIEWER + ".\n" + _GOAL_AND_DRAFT + _TESTS + _ANSWER + "{" + _VERDICT_KEYS
    + "}\n",
    doing="reviewing the draft", max_tokens=600, reply=ReviewReply,
    what="a review verdict", answer_keys=("verdict", "comments", "approved", "decision"),
    truncatable=frozenset(),
    advice="turn off the plugin's setting 'Peer review'")

REVIEW_DOCS = Step(
    "review_docs", _REVIEWER + ",\nand write its documentation.\n" + _GOAL_AND_DRAFT + _TESTS
    + _ANSWER + "{" + _VERDICT_KEYS + ",\n " + _DOCS_KEYS + "}\n",
    doing="reviewing and documenting the draft", max_tokens=1000, reply=ReviewDocsReply,
    what="a review verdict with the documentation",
    answer_keys=("verdict", "comments", "approved", "decision", "docstring"),
    truncatable=frozenset({"note"}),
    advice="turn off the plugin's setting 'Peer review' or 'Extended loop'")

TIE_BREAK = Step(
    "tie_break", """Does the chat message below ask to write, add, implement, change, fix or
refactor source code?
$data_rule

Message from the user:
$message

Answer with one word: yes or no.
Answer:""",
    doing="reading your message", max_tokens=16,  # "yes" / "no" (maybe a word or a full stop)
    advice="start a code request with /code and a question about the code with /ask")

#: codegen's steps after the meta-code, by name
STEPS = step_table(GENERATE, GENERATE_SCOPE, JUDGE, DOCS, REVIEW, REVIEW_DOCS, TIE_BREAK)

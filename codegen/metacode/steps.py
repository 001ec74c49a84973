"""The meta-code's model steps (``llm/steps.py``): the request turned into a goal, alone or
with the scope the index's impact suggests, each prompt beside its step; the re-ask quotes the
problems found (``generate``). The answer is read by ``reply.MetaCodeReply``, and the schema a
constraining server writes it under is generated from that model.
"""

from __future__ import annotations

from ...llm.steps import Step, step_table
from .reply import MetaCodeReply

#: The meta-code prompts' shared parts: the request and its context, the one JSON answer
#: schema (the scoped prompt adds ``scope``), the rule for examples.
_METACODE_HEAD = """You turn a programming request into META-CODE: a precise, testable goal.
$data_rule

Request from the user:
$request

Repository context:
$context

"""
_METACODE_KEYS = """Answer with ONE JSON object and nothing else, with exactly these keys.
Each <...> says what goes there: write the request's own value in its place, never the <...>.
{"target_path": "<the file: a relative path ending in .py>",
 "symbol": "<the name; Class.method for a method>",
 "kind": "<function, method, class or module>",
 "signature": "<the def or class header: name, parameters and types, result type>",
 "behaviour": "<what the code does, in one sentence>",
 "inputs": [{"name": "<a parameter>", "type": "<its type>", "description": "<its meaning>"}],
 "outputs": [{"name": "return", "type": "<the result type>", "description": "<its meaning>"}],
 "examples": [{"call": "<a call of the target with real arguments>",
               "expected": <the JSON value that call returns>},
              {"call": "<a call with a wrong argument>", "raises": "<the exception raised>"}],
 "constraints": ["<a rule the code must keep>"],
 "acceptance_checks": ["<a check a reviewer can verify>"],
 "assumptions": ["<what you assumed>"]"""
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

_RETRY = """Your previous META-CODE answer was invalid.
$data_rule

Your previous answer:
$previous

Problems found:
$errors

Answer again with ONE corrected JSON object and nothing else, keeping the same keys.

The original instructions follow.
$original
"""
_ANSWER_KEYS = ("target_path", "symbol", "kind", "behaviour", "signature")
_ADVICE = "say the request again more simply (one function: its name, inputs and result)"

METACODE = Step(
    "metacode", _METACODE_HEAD + _METACODE_KEYS + "}\n" + _EXAMPLES_RULE,
    doing="preparing the request", max_tokens=900, reply=MetaCodeReply, what="the meta-code",
    answer_keys=_ANSWER_KEYS, truncatable=frozenset(), retry=_RETRY, advice=_ADVICE)

METACODE_SCOPE = Step(
    "metacode_scope", _METACODE_HEAD + _IMPACT + _METACODE_KEYS + _SCOPE_KEY + _EXAMPLES_RULE
    + _SCOPE_RULE,
    doing="preparing the request", max_tokens=900, reply=MetaCodeReply, what="the meta-code",
    answer_keys=_ANSWER_KEYS, truncatable=frozenset(), advice=_ADVICE)

#: the meta-code's steps by name (``metacode_retry`` is ``METACODE``'s re-ask)
STEPS = step_table(METACODE, METACODE_SCOPE)

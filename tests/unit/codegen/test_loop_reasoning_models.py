"""The whole draft loop driven by a model that answers like DeepSeek-R1 / Qwen3.

Every stage's answer comes with an inline reasoning block holding braces, fenced JSON and code
that must NOT be taken (a wrong draft, an all-fail verdict, a placeholder docstring, an approval
the model then retracts), prose around fences and JSON slips; one review-and-documentation
answer is cut off inside its reasoning and one judge answer is prose only, so both are re-asked.
Everything else is real: validator, sandbox, pytest on the examples, the dulwich commit history,
the scratchpad.
"""

from __future__ import annotations

import ast
from collections import Counter

from codemem.codegen.loop.draft_loop import Committed, LoopConfig, LoopDeps, run_draft_loop
from codemem.codegen.loop.extended import ExtendedConfig

from ...fakes import FunctionLLM
from .helpers_codegen import GOOD_SLUG, WRONG_SLUG, slug_meta
from .loop_support import TASK, notes, real_or_interim, store  # noqa: F401

VALIDATE, SELECT = real_or_interim()
PATH = "text/slug.py"
REPO = {"text/__init__.py": "",
        PATH: "def slugify(text, sep='-'):\n    raise NotImplementedError\n"}
REVIEWED = GOOD_SLUG.replace("    return sep.join(text.lower().split())",
                             "    words = text.lower().split()\n    return sep.join(words)")


def fenced(code: str) -> str:
    return f"```python entity={PATH}::slugify\n{code.rstrip()}\n```"


GENERATIONS = [
    "<think>\nThe goal: {\"slug\": lower-case}. A first idea:\n" + fenced(WRONG_SLUG)
    + "\nNo: that keeps capitals. Lower-case first.\n</think>\n\nHere is the function:\n\n"
    + fenced(GOOD_SLUG) + "\n",
    "<think>\nThe reviewer wants a `words` variable, e.g. {words = ...}.\n</think>\n"
    + fenced(REVIEWED) + "\n",
]
JUDGES = [
    '<think>\nDraft verdict:\n```json\n{"checks": [{"check": 1, "pass": false}, {"check": 2, '
    '"pass": false}]}\n```\nWait, the tests passed and `.lower()` is there.\n</think>\n'
    "```json\n{'checks': [{'check': 1, 'pass': 'PASS', 'reason': 'sep.join',}, "
    "{'check': 2, 'pass': 'PASS', 'reason': 'lower()'},]}\n```",
    "<think>Both checks still hold.</think>\nThe revised draft still meets both checks.",
    '</think>\n{"Checks": [{"Check": 1, "Pass": true}, {"Check": 2, "Pass": true}]} // ok',
]
REVIEW_DOCS = [  # one call reviews and documents: the first answer is cut off in its reasoning
    '<think>\nPlaceholder {"docstring": "TODO"} first? No, let me write a real one about '
    "the separator and",  # cut off inside the reasoning: re-asked
    '<think>\nFirst thought: {"verdict": "approve", "comments": [], "docstring": "TODO"}. But '
    "an intermediate variable would read better.\n</think>\n"
    "```python\nwords = text.lower().split()\n```\n"
    '```json\n{"Verdict": "Changes", "comments": "name the intermediate list `words`", '
    '"Docstring": "Turn a title into a URL slug.\\n\\nWords are joined with \\"sep\\".", '
    '"note": "Documented `slugify`.",}\n```',
]


def reasoning_model() -> FunctionLLM:
    replies = {"generate": iter(GENERATIONS), "judge": iter(JUDGES),
               "review": iter(REVIEW_DOCS)}
    markers = {"You write Python code": "generate", "You are a strict reviewer": "judge",
               "You are a senior peer reviewer": "review"}

    def answer(prompt: str) -> str:
        stage = next(s for marker, s in markers.items() if marker in prompt)
        return next(replies[stage])

    return FunctionLLM(answer)


def test_reasoning_model_style_reaches_a_final_commit_with_the_exact_calls(store, notes  # noqa: F811
                                                                           ) -> None:
    llm = reasoning_model()
    config = LoopConfig(max_iterations=3, extended=ExtendedConfig(enabled=True))
    deps = LoopDeps(llm=llm, store=store, notes=notes, repo_files=REPO, validator=VALIDATE,
                    select_tests=SELECT)
    outcome = run_draft_loop(slug_meta(), deps, task_id=TASK, config=config)
    assert isinstance(outcome, Committed), outcome
    # 1 generation + 1 judge; review and documentation in one call, asked 2 times (cut off,
    # re-asked); the review's iteration: 1 generation + 2 judge (prose, re-asked) = 7 calls
    assert llm.calls == 7 == outcome.stats.llm_calls
    stages = Counter(next(s for s in ("write Python", "strict reviewer", "peer reviewer")
                          if s in p) for p in llm.prompts)
    assert stages == {"write Python": 2, "strict reviewer": 3, "peer reviewer": 2}
    assert outcome.iterations == 2 and outcome.extended.review_incorporated
    assert outcome.warnings == () and outcome.review_requests == ()
    final = store.show(outcome.commit_id)
    assert final.verdict == "final" and store.final(TASK) == outcome.commit_id
    code = final.files[PATH]
    assert "words = text.lower().split()" in code and "return text\n" not in code
    function = ast.parse(code).body[0]
    assert ast.get_docstring(function) == ('Turn a title into a URL slug.\n\n'
                                           'Words are joined with "sep".')
    assert '\n    Words are joined with "sep".\n    """\n' in code  # indented to the body
    assert [c.verdict for c in store.log(TASK)] == ["final", "passed", "passed", "imported"]
    retry = [p for p in llm.prompts if p.startswith("Your previous answer could not be used")]
    assert len(retry) == 2 and "ended inside its reasoning block" in retry[0] + retry[1]


class NativeJsonModel(FunctionLLM):
    """A completer with the native-JSON capability ``structured_llm`` gives the Cat's model."""

    def __init__(self, inner: FunctionLLM) -> None:
        super().__init__(inner._fn)
        self.json_calls = 0

    def complete_json(self, prompt: str, json_schema: dict) -> str:
        self.json_calls += 1
        return self(prompt)


def test_the_loop_keeps_a_native_json_capability_and_counts_its_calls(store) -> None:  # noqa: F811,E501
    llm = NativeJsonModel(reasoning_model())
    config = LoopConfig(max_iterations=3, extended=ExtendedConfig(enabled=True))
    deps = LoopDeps(llm=llm, store=store, repo_files=REPO, validator=VALIDATE,
                    select_tests=SELECT)
    outcome = run_draft_loop(slug_meta(), deps, task_id=TASK, config=config)
    assert isinstance(outcome, Committed) and outcome.stats.llm_calls == 7
    assert llm.json_calls == 5  # judge 3, review with docs 2; code generation stays plain text

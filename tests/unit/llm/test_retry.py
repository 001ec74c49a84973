"""The bounded retry: refusals quoted back, budget respected, native JSON asked when possible."""

from __future__ import annotations

from codemem.codegen.steps import REVIEW
from codemem.llm.retry import JsonCompleter, ask

from ...fakes import ScriptedLLM

GOOD = '{"verdict": "approve", "comments": []}'


def test_a_refusal_is_quoted_back_with_the_previous_answer_and_the_instructions() -> None:
    llm = ScriptedLLM('{"verdict": "maybe"}', GOOD)
    asked = ask(llm, "REVIEW PROMPT", REVIEW.spec(), attempts=3)
    assert asked.ok and asked.calls == 2 and asked.value.verdict == "approve"
    retry = llm.prompts[1]
    assert retry.startswith("Your previous answer could not be used: verdict: verdict 'maybe' "
                            'is neither "approve" nor "changes"')
    assert '<<<DATA kind="previous_answer" source="llm">>>\n{"verdict": "maybe"}' in retry
    assert retry.rstrip().endswith("REVIEW PROMPT")


def test_the_budget_is_never_exceeded_and_the_last_refusal_is_kept() -> None:
    llm = ScriptedLLM("nothing", "still nothing")
    asked = ask(llm, "P", REVIEW.spec(), attempts=2)
    assert not asked.ok and asked.calls == 2 and asked.replies == ("nothing", "still nothing")
    assert asked.refusal.startswith("no JSON object in the answer")


class NativeJson:
    """A completer that can ask its model for JSON (the capability ``structured_llm`` adds)."""

    def __init__(self) -> None:
        self.schemas: list[dict] = []

    def __call__(self, prompt: str) -> str:
        raise AssertionError("the plain call must not be used when JSON can be asked for")

    def complete_json(self, prompt: str, json_schema: dict) -> str:
        self.schemas.append(json_schema)
        return GOOD


def test_a_json_capable_completer_is_asked_natively_with_the_reply_schema() -> None:
    llm = NativeJson()
    assert isinstance(llm, JsonCompleter)
    asked = ask(llm, "P", REVIEW.spec())
    assert asked.ok and "verdict" in llm.schemas[0]["anyOf"][0]["properties"]

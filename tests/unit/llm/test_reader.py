"""The reader end to end on small replies: choice of the answer, refusals, truncation policy."""

from __future__ import annotations

import pytest
from pydantic import field_validator

from codemem.llm.coerce import as_unit_score
from codemem.llm.errors import ReplyRefused
from codemem.llm.reader import answer_text, model_spec, read_reply
from codemem.llm.schema import ReplyModel


class Score(ReplyModel):
    synonyms = {"explanation": "reason", "relevance": "score"}
    score: float
    reason: str = ""

    @field_validator("score", mode="before")
    @classmethod
    def _unit(cls, value: object, info) -> float:  # noqa: ANN001
        return as_unit_score(value, (info.context or {}).get("scale"))


SPEC = model_spec(Score, "a relevance score", ("score",))


def read(reply: str) -> tuple[float, str]:
    value = read_reply(reply, SPEC)
    return value.score, value.reason


def test_last_valid_answer_wins_and_reasoning_is_ignored() -> None:
    reply = ('<think>{"score": 0.9, "reason": "draft"}</think>\nFirst guess {"score": 0.3, '
             '"reason": "a"}, on reflection:\n```json\n{"Score": "0.6", "Explanation": "b"}\n```')
    assert read(reply) == (0.6, "b")


def test_a_broken_last_attempt_is_refused_not_replaced_by_an_earlier_one() -> None:
    reply = '{"score": 0.3, "reason": "a"}\nCorrection: {"score": "very high", "reason": "b"}'
    with pytest.raises(ReplyRefused, match="score 'very high' is not a number"):
        read(reply)


def test_unrelated_json_after_the_answer_is_skipped() -> None:
    reply = '{"score": 0.4, "reason": "ok"}\nNote: I assumed {"sep": "-"} as the default.'
    assert read(reply) == (0.4, "ok")


def test_scale_stated_in_words() -> None:
    assert read('I would say 8/10.\n{"score": 8, "reason": "close"}') == (0.8, "close")
    with pytest.raises(ReplyRefused, match="does not say what scale"):
        read('{"score": 5, "reason": "meh"}')


@pytest.mark.parametrize(("reply", "message"), [
    ("", "the reply was empty"),
    ("   \n", "the reply was empty"),
    ("<think>hmm {", "ended inside its reasoning block"),
    ("<think>done</think>", "only a reasoning block"),
    ("I can't help with that.", "declined to answer (\"I can't help with that.\")"),
    ("The memory is relevant.", "no JSON object in the answer"),
    ('{"verdict": "ok"}', "no JSON object in the answer holds a relevance score"),
    ('{"score": 0.', "cut off before its first complete value"),
])
def test_refusals_say_exactly_why(reply: str, message: str) -> None:
    with pytest.raises(ReplyRefused) as caught:
        read(reply)
    assert message in str(caught.value)


def test_truncated_reason_is_harmless_but_a_truncated_score_is_not() -> None:
    assert read('{"score": 0.7, "reason": "because it defin') == (0.7, "")
    with pytest.raises(ReplyRefused):
        read('{"reason": "fine", "score": 0.7')


def test_answer_text_drops_reasoning_and_refuses_nothing_left() -> None:
    assert answer_text("<think>```python\nbad()\n```</think>\n```python\ngood()\n```") == (
        "```python\ngood()\n```")
    with pytest.raises(ReplyRefused, match="only a reasoning block"):
        answer_text("<think>```python\nbad()\n```</think>")

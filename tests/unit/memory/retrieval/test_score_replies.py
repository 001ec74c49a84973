"""Score replies as reply models (memory/retrieval/score_replies.py): pointwise and
listwise answers."""

from __future__ import annotations

import pytest

from codemem.llm.errors import ReplyRefused
from codemem.llm.reader import read_reply
from codemem.memory.retrieval.score_replies import SCORE, list_spec, normalise_id


@pytest.mark.parametrize(("reply", "score", "reason"), [
    ('{"score": 0.8, "reason": "uses it"}', 0.8, "uses it"),
    ('{"score": "8/10", "reason": "  spread\n over lines "}', 0.8, "spread over lines"),
    ('{"relevance": 8, "scale": 10, "why": "synonyms"}', 0.8, "synonyms"),
    ('{"score": "80%"}', 0.8, ""),
])
def test_pointwise_scores_are_read_when_they_mean_one_thing(reply, score, reason):
    read = read_reply(reply, SCORE.spec())
    assert (read.score, read.reason) == (pytest.approx(score), reason)


def test_a_score_above_one_with_no_scale_is_refused():
    with pytest.raises(ReplyRefused):
        read_reply('{"score": 5, "reason": "?"}', SCORE.spec())


def test_listwise_entries_stand_alone():
    spec = list_spec(("M1", "M2", "M3"))
    read = read_reply('{"scores": [{"id": "m1", "score": 0.9, "reason": "a"}, '
                      '{"id": "[M2]", "score": "high"}, {"id": "M9", "score": 0.5}]}', spec)
    assert {k: v.score for k, v in read.scores.items()} == {"M1": 0.9}
    assert set(read.refused) == {"M2"}  # M3 missing, M9 unknown: neither refused nor read


def test_listwise_answers_keyed_by_id_and_contradictions():
    spec = list_spec(("M1", "M2"))
    read = read_reply('{"M1": 0.4, "M2": {"score": 0.2, "reason": "b"}}', spec)
    assert {k: (v.score, v.reason) for k, v in read.scores.items()} == {
        "M1": (0.4, ""), "M2": (0.2, "b")}
    twice = read_reply('{"scores": [{"id": "M1", "score": 0.4}, {"id": "M1", "score": 0.9}, '
                       '{"id": "M2", "score": 0.1}]}', spec)
    assert twice.refused == {"M1": "given twice with different scores"}
    assert list(twice.scores) == ["M2"]


def test_an_answer_naming_no_id_is_refused():
    with pytest.raises(ReplyRefused):
        read_reply('{"scores": [{"id": "X7", "score": 0.4}]}', list_spec(("M1",)))


@pytest.mark.parametrize(("value", "wanted"), [
    ("M3", "M3"), ("m3", "M3"), ("[M3]", "M3"), (3, "M3"), ("3", "M3"), ("`m12`", "M12")])
def test_ids_are_normalised(value, wanted):
    assert normalise_id(value) == wanted


@pytest.mark.parametrize("value", [True, None])
def test_non_ids_are_refused(value):
    with pytest.raises(ValueError):
        normalise_id(value)

"""The code-generation state machine: every legal path and a clear error for the rest."""

from __future__ import annotations

import itertools
import pickle

import pytest

from codemem.codegen import CodegenPhase as ExportedPhase
from codemem.codegen.errors import IllegalTransition
from codemem.codegen.loop.phases import TRANSITIONS, CodegenPhase, PhaseMachine, allowed_targets

P = CodegenPhase


def test_exported_from_codegen_package():
    assert ExportedPhase is CodegenPhase


def test_happy_path_with_a_rollback_and_a_review():
    m = PhaseMachine()
    for target in [P.COLLECTING, P.METACODE_CONFIRMED, P.DRAFTING, P.VALIDATING, P.ROLLED_BACK,
                   P.DRAFTING, P.VALIDATING, P.COMMITTED, P.REVIEWING, P.DRAFTING, P.VALIDATING,
                   P.COMMITTED, P.DONE, P.IDLE]:
        assert m.advance(target, f"to {target.value}") is target
    assert m.phase is P.IDLE
    assert len(m.history) == 14
    assert m.history[4] == {"from": "validating", "to": "rolled_back",
                            "time": m.history[4]["time"], "reason": "to rolled_back"}


@pytest.mark.parametrize(
    ("start", "target"),
    [(P.IDLE, P.DRAFTING), (P.COLLECTING, P.COMMITTED), (P.DRAFTING, P.COMMITTED),
     (P.DONE, P.DRAFTING), (P.FAILED, P.DRAFTING), (P.IDLE, P.FAILED), (P.DONE, P.FAILED)],
)
def test_illegal_transition_names_both_phases_and_the_legal_moves(start, target):
    m = PhaseMachine(start)
    with pytest.raises(IllegalTransition) as err:
        m.advance(target)
    message = str(err.value)
    assert repr(start.value) in message and repr(target.value) in message
    for legal in allowed_targets(start):
        assert legal.value in message
    assert m.phase is start and m.history == []


def test_every_active_phase_can_fail_and_terminal_ones_cannot():
    for phase in CodegenPhase:
        expected = not phase.terminal and phase is not P.IDLE
        assert (P.FAILED in TRANSITIONS[phase]) is expected, phase


def test_transition_table_is_closed_and_everything_reaches_done():
    assert set(TRANSITIONS) == set(CodegenPhase)
    reachable = {P.IDLE}
    frontier = [P.IDLE]
    while frontier:
        for nxt in TRANSITIONS[frontier.pop()]:
            if nxt not in reachable:
                reachable.add(nxt)
                frontier.append(nxt)
    assert reachable == set(CodegenPhase)


def test_exhaustive_pairs_agree_with_the_table():
    for start, target in itertools.product(CodegenPhase, repeat=2):
        m = PhaseMachine(start)
        if target in TRANSITIONS[start]:
            m.advance(target)
            assert m.phase is target
        else:
            with pytest.raises(IllegalTransition):
                m.advance(target)


def test_fail_records_the_reason_and_reset_is_always_allowed():
    m = PhaseMachine(P.VALIDATING)
    m.fail("sandbox unavailable")
    assert m.phase is P.FAILED and m.failure_reason == "sandbox unavailable"
    m.advance(P.COLLECTING)
    assert m.failure_reason == ""
    m = PhaseMachine(P.REVIEWING)
    m.reset()
    assert m.phase is P.IDLE and m.history[-1]["reason"] == "reset"


def test_round_trip_as_plain_data():
    m = PhaseMachine()
    m.advance(P.COLLECTING, "user asked")
    m.advance(P.METACODE_CONFIRMED)
    data = pickle.loads(pickle.dumps(m.to_dict()))
    restored = PhaseMachine.from_dict(data)
    assert restored.phase is P.METACODE_CONFIRMED
    assert restored.history == m.history
    assert PhaseMachine.from_dict({}).phase is P.IDLE
    with pytest.raises(ValueError):
        PhaseMachine.from_dict({"phase": "warp-speed"})


def test_phase_values_are_plain_strings_for_the_working_memory():
    assert P.DRAFTING == "drafting"
    assert [p.value for p in CodegenPhase][:3] == ["idle", "collecting", "metacode_confirmed"]


@pytest.mark.parametrize(
    ("start", "target", "expected"),
    [(P.DRAFTING, P.DRAFTING, []),
     (P.METACODE_CONFIRMED, P.VALIDATING, [P.DRAFTING, P.VALIDATING]),
     (P.VALIDATING, P.DRAFTING, [P.ROLLED_BACK, P.DRAFTING]),
     (P.DRAFTING, P.ROLLED_BACK, [P.VALIDATING, P.ROLLED_BACK]),
     (P.COMMITTED, P.REVIEWING, [P.REVIEWING]),
     (P.DRAFTING, P.DONE, [P.VALIDATING, P.COMMITTED, P.DONE])],
)
def test_path_to_follows_legal_moves_only(start, target, expected):
    from codemem.codegen.loop.phases import path_to

    assert path_to(start, target) == expected
    m = PhaseMachine(start)
    m.walk_to(target, "event")
    assert m.phase is target and [h["to"] for h in m.history] == [p.value for p in expected]


def test_unreachable_targets_raise(monkeypatch):
    from codemem.codegen.loop import phases

    table = dict(phases.TRANSITIONS)
    table[P.DONE] = frozenset()
    monkeypatch.setattr(phases, "TRANSITIONS", table)
    with pytest.raises(IllegalTransition, match="cannot be reached"):
        phases.path_to(P.DONE, P.FAILED)

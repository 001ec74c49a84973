"""The code-generation state machine: the phases of one code task.

A task moves: idle → collecting the request → meta-code confirmed → drafting → validating →
committed or rolled back → reviewing → done, or failed with a reason. The CatForm walks the user
through it; the phase lives in ``cat.working_memory`` as a plain string, so ``PhaseMachine``
serialises to plain data. An illegal move raises ``IllegalTransition`` naming both phases and the
legal targets: a wrong move is a bug in the caller, not something to paper over.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from ..errors import IllegalTransition

#: Transitions remembered per task (oldest dropped) to keep the working memory small.
MAX_HISTORY = 100


class CodegenPhase(str, Enum):
    """Where a code-generation task stands."""

    IDLE = "idle"
    COLLECTING = "collecting"
    METACODE_CONFIRMED = "metacode_confirmed"
    DRAFTING = "drafting"
    VALIDATING = "validating"
    COMMITTED = "committed"
    ROLLED_BACK = "rolled_back"
    REVIEWING = "reviewing"
    DONE = "done"
    FAILED = "failed"

    @property
    def terminal(self) -> bool:
        return self in (CodegenPhase.DONE, CodegenPhase.FAILED)


_P = CodegenPhase

_FORWARD: Mapping[CodegenPhase, frozenset[CodegenPhase]] = {
    _P.IDLE: frozenset({_P.COLLECTING}),
    _P.COLLECTING: frozenset({_P.COLLECTING, _P.METACODE_CONFIRMED}),
    # the user may reopen the meta-code before drafting starts
    _P.METACODE_CONFIRMED: frozenset({_P.DRAFTING, _P.COLLECTING}),
    _P.DRAFTING: frozenset({_P.VALIDATING}),
    _P.VALIDATING: frozenset({_P.COMMITTED, _P.ROLLED_BACK}),
    # a rolled-back draft is retried with the failure as feedback
    _P.ROLLED_BACK: frozenset({_P.DRAFTING}),
    # after a commit: the extended loop reviews, or the task ends, or the user asks for more
    _P.COMMITTED: frozenset({_P.REVIEWING, _P.DONE, _P.DRAFTING}),
    _P.REVIEWING: frozenset({_P.DRAFTING, _P.DONE}),
    _P.DONE: frozenset({_P.IDLE, _P.COLLECTING}),
    _P.FAILED: frozenset({_P.IDLE, _P.COLLECTING}),
}
#: The legal moves: the forward ones, plus FAILED from every active phase (cancel, crash,
#: budget spent).
TRANSITIONS: Mapping[CodegenPhase, frozenset[CodegenPhase]] = {
    phase: targets | ({_P.FAILED} if not phase.terminal and phase is not _P.IDLE else frozenset())
    for phase, targets in _FORWARD.items()
}


def allowed_targets(phase: CodegenPhase) -> frozenset[CodegenPhase]:
    """The phases ``phase`` may move to."""
    return TRANSITIONS[phase]


#: Tie-break between equally short paths: the pessimistic phase first, so that following
#: events never claims a commit (or a finish) that did not happen.
_CAUTION = [_P.IDLE, _P.COLLECTING, _P.METACODE_CONFIRMED, _P.DRAFTING, _P.VALIDATING,
            _P.ROLLED_BACK, _P.FAILED, _P.REVIEWING, _P.COMMITTED, _P.DONE]


def path_to(current: CodegenPhase, target: CodegenPhase) -> list[CodegenPhase]:
    """The shortest chain of legal moves from ``current`` to ``target`` (excluding ``current``).

    Used when a driver reports coarse events ("validation started", "rolled back") and the
    phase must follow through the intermediate phases instead of jumping. Raises
    ``IllegalTransition`` when ``target`` cannot be reached at all.
    """
    current, target = CodegenPhase(current), CodegenPhase(target)
    if current is target:
        return []
    previous: dict[CodegenPhase, CodegenPhase] = {}
    frontier = [current]
    while frontier:
        nxt = []
        for phase in frontier:
            for step in sorted(TRANSITIONS[phase], key=_CAUTION.index):
                if step not in previous and step is not current:
                    previous[step] = phase
                    nxt.append(step)
        if target in previous:
            chain = [target]
            while chain[-1] is not current and previous[chain[-1]] is not current:
                chain.append(previous[chain[-1]])
            return chain[::-1]
        frontier = nxt
    raise IllegalTransition(f"{target.value!r} cannot be reached from {current.value!r}")


class PhaseMachine:
    """The phase of one task, with the moves that led there."""

    def __init__(
        self,
        phase: CodegenPhase = CodegenPhase.IDLE,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
    ) -> None:
        self._phase = CodegenPhase(phase)
        self._clock = clock
        self._history: list[dict[str, str]] = []
        self.failure_reason = ""

    @property
    def phase(self) -> CodegenPhase:
        return self._phase

    @property
    def history(self) -> list[dict[str, str]]:
        return [dict(item) for item in self._history]

    def can(self, target: CodegenPhase) -> bool:
        return CodegenPhase(target) in TRANSITIONS[self._phase]

    def advance(self, target: CodegenPhase, reason: str = "") -> CodegenPhase:
        """Move to ``target`` or raise ``IllegalTransition``; returns the new phase."""
        target = CodegenPhase(target)
        if target not in TRANSITIONS[self._phase]:
            legal = ", ".join(sorted(p.value for p in TRANSITIONS[self._phase])) or "none"
            raise IllegalTransition(
                f"cannot go from {self._phase.value!r} to {target.value!r}; legal next: {legal}"
            )
        self._history.append({"from": self._phase.value, "to": target.value,
                              "time": self._clock().isoformat(), "reason": reason})
        del self._history[:-MAX_HISTORY]
        self._phase = target
        self.failure_reason = reason if target is CodegenPhase.FAILED else ""
        return target

    def walk_to(self, target: CodegenPhase, reason: str = "") -> CodegenPhase:
        """Reach ``target`` through legal moves (each one recorded); see ``path_to``."""
        for step in path_to(self._phase, target):
            self.advance(step, reason)
        return self._phase

    def fail(self, reason: str) -> CodegenPhase:
        """Move to FAILED with a reason (legal from every active phase)."""
        return self.advance(CodegenPhase.FAILED, reason)

    def reset(self) -> None:
        """Back to IDLE whatever the phase (the user's explicit "reset"): not a transition."""
        self._history.append({"from": self._phase.value, "to": CodegenPhase.IDLE.value,
                              "time": self._clock().isoformat(), "reason": "reset"})
        self._phase = CodegenPhase.IDLE
        self.failure_reason = ""

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self._phase.value, "history": self.history,
                "failure_reason": self.failure_reason}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PhaseMachine:
        """Rebuild from ``to_dict()``; an unknown phase raises ``ValueError``."""
        machine = cls(CodegenPhase(data.get("phase", CodegenPhase.IDLE.value)))
        history = data.get("history") or []
        machine._history = [dict(h) for h in history if isinstance(h, Mapping)][-MAX_HISTORY:]
        machine.failure_reason = str(data.get("failure_reason", ""))
        return machine

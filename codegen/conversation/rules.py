"""The conversation's rules: what the plugin does with each kind of message in each stage.

One table, ``RULES``, from (stage, kind of message) to an ``Action`` and whether the answer ends
with a reminder of what still waits (the proposal, or the file question). The glue performs the
action (``app/chat/routing.py``); the README's "Conversation rules" section is this table as
``rules_markdown`` renders it, and a test keeps the two equal. A pair the table does not list is
impossible for the reading (``turn_reading``: "go" is CONFIRM only while a proposal waits) or
falls to the kind's default (``DEFAULTS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..vocabulary import Vocabulary
from .situation import Stage
from .turn_reading import Kind


class Action(Vocabulary):
    """What the plugin does with a message."""

    CAT = "the Cat answers"
    STAY_OUT = "the Cat and the other form answer"
    RETRIEVE = "the Cat answers with the retrieved code"
    COMMAND = "the command is answered"
    ASK_SUGGESTION = "asks 'Did you mean ...?'"
    RUN_SUGGESTION = "does the command it asked about"
    OPEN_REQUEST = "a new request: proposal, or the file question"
    TIE_BREAK = "one LLM yes/no: a new request, or the Cat answers"
    FILL_FILE = "the request proposed with that file"
    REASK_FILE = "asks for the file again"
    DROP_QUESTION = "drops the request"
    STRUCTURAL = "renamed or moved by structure"
    CONFIRM = "drafting starts"
    REVISE = "a revised proposal"
    CANCEL_PROPOSAL = "the proposal is cancelled"
    STOP_DRAFT = "the draft stops after its step"
    LATE_STOP = "says how the draft ended"
    RESUME = "drafting resumes from the last good draft"
    APPLY = "the draft is written (compared first)"
    NO_DRAFT_YET = "says there is no draft yet"
    BUSY = "says a draft is running"
    REPORT_INTERRUPTION = "reports the interrupted draft"


@dataclass(frozen=True)
class Route:
    """An action, and whether its answer reminds the user of what still waits."""

    action: Action
    remind: bool = False


#: What each kind of message gets when its stage has no rule of its own.
DEFAULTS: Mapping[Kind, Route] = {
    Kind.NOT_OURS: Route(Action.STAY_OUT),
    Kind.FILE_ANSWER: Route(Action.FILL_FILE),
    Kind.NO_FILE: Route(Action.REASK_FILE),
    Kind.YES: Route(Action.RUN_SUGGESTION),
    Kind.CONFIRM: Route(Action.CONFIRM),
    Kind.CANCEL: Route(Action.CAT),
    Kind.RESUME: Route(Action.CAT),
    Kind.APPLY: Route(Action.CAT),
    Kind.COMMAND: Route(Action.COMMAND),
    Kind.UNSURE: Route(Action.ASK_SUGGESTION),
    Kind.STRUCTURAL: Route(Action.STRUCTURAL),
    Kind.REQUEST: Route(Action.OPEN_REQUEST),
    Kind.MAYBE_REQUEST: Route(Action.TIE_BREAK),
    Kind.QUESTION: Route(Action.RETRIEVE),
    Kind.CORRECTION: Route(Action.CAT),
    Kind.CHAT: Route(Action.CAT),
}

_WAITS = {Kind.COMMAND: Action.COMMAND, Kind.QUESTION: Action.RETRIEVE, Kind.CHAT: Action.CAT,
          Kind.UNSURE: Action.ASK_SUGGESTION}

#: The rules that differ from ``DEFAULTS``, stage by stage.
RULES: Mapping[tuple[Stage, Kind], Route] = {
    # the plugin asked which file: its answer first; anything else keeps the question waiting
    (Stage.ASKED_FILE, Kind.CANCEL): Route(Action.DROP_QUESTION),
    (Stage.ASKED_FILE, Kind.APPLY): Route(Action.APPLY, remind=True),
    **{(Stage.ASKED_FILE, k): Route(a, remind=True) for k, a in _WAITS.items()},
    # a proposal waits: go, cancel, a change; a new request replaces it; asides keep it waiting
    (Stage.PROPOSED, Kind.CANCEL): Route(Action.CANCEL_PROPOSAL),
    (Stage.PROPOSED, Kind.RESUME): Route(Action.CONFIRM),
    (Stage.PROPOSED, Kind.CORRECTION): Route(Action.REVISE),
    (Stage.PROPOSED, Kind.APPLY): Route(Action.NO_DRAFT_YET, remind=True),
    **{(Stage.PROPOSED, k): Route(a, remind=True) for k, a in _WAITS.items()},
    # a draft runs: "stop", "apply" (refused until it ends); no new request meanwhile
    (Stage.DRAFTING, Kind.CANCEL): Route(Action.STOP_DRAFT),
    (Stage.DRAFTING, Kind.RESUME): Route(Action.BUSY),
    (Stage.DRAFTING, Kind.APPLY): Route(Action.APPLY),
    (Stage.DRAFTING, Kind.REQUEST): Route(Action.BUSY),
    (Stage.DRAFTING, Kind.STRUCTURAL): Route(Action.BUSY),
    # the Cat stopped while a draft ran: the next message hears of it; "continue" resumes
    **{(Stage.INTERRUPTED, k): Route(Action.REPORT_INTERRUPTION) for k in Kind
       if k not in (Kind.RESUME, Kind.NOT_OURS)},
    (Stage.INTERRUPTED, Kind.RESUME): Route(Action.RESUME),
    # the task ended: "stop" says how, "continue" resumes (a finished task says so), "apply"
    (Stage.ENDED, Kind.CANCEL): Route(Action.LATE_STOP),
    (Stage.ENDED, Kind.RESUME): Route(Action.RESUME),
    (Stage.ENDED, Kind.APPLY): Route(Action.APPLY),
}


_ALL = frozenset(Stage)
_WITH_A_TASK = _ALL - {Stage.NO_TASK}

#: The stages in which the reading (``turn_reading``) gives each kind of message: "go" is a
#: confirmation only while a proposal waits, an answer to the file question only when it was
#: asked; elsewhere the same words are read as something else.
READ_IN: Mapping[Kind, frozenset[Stage]] = {
    **{kind: _ALL for kind in Kind},
    Kind.FILE_ANSWER: frozenset({Stage.ASKED_FILE}),
    Kind.NO_FILE: frozenset({Stage.ASKED_FILE}),
    Kind.CONFIRM: frozenset({Stage.PROPOSED}),
    Kind.CORRECTION: frozenset({Stage.PROPOSED}),
    Kind.CANCEL: _WITH_A_TASK,
    Kind.RESUME: _WITH_A_TASK,
    Kind.APPLY: _WITH_A_TASK,
    Kind.MAYBE_REQUEST: _ALL - {Stage.PROPOSED, Stage.ASKED_FILE},
}


def route(stage: Stage, kind: Kind) -> Route:
    """What the plugin does with a message of ``kind`` in ``stage``."""
    return RULES.get((stage, kind)) or DEFAULTS[kind]


def rules_markdown() -> str:
    """The table as the README shows it: one row per kind of message, one column per stage
    ("—": the message is read as something else there)."""
    stages = list(Stage)
    lines = ["| the message is | " + " | ".join(str(s) for s in stages) + " |",
             "|---|" + "---|" * len(stages)]
    for kind in Kind:
        cells = []
        for stage in stages:
            found = route(stage, kind)
            cells.append("—" if stage not in READ_IN[kind] else
                         str(found.action) + (" (+ reminder)" if found.remind else ""))
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)

"""Where a user stands in the conversation, as the reading of a message and the rules see it.

Plain data, built by the glue from the one owner of the user's task state at the start of a
turn: what a message means depends on it ("go" starts a draft only while a proposal waits,
"text_utils.py" answers the file question only when it was asked).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vocabulary import Vocabulary


class Stage(Vocabulary):
    """Where the user's conversation with the plugin stands (one at a time)."""

    NO_TASK = "no task"
    #: The plugin asked which file a request goes in; the next message is first its answer.
    ASKED_FILE = "asked which file"
    #: Proposed meta-code waits for "go", "cancel" or a change.
    PROPOSED = "proposal waits"
    #: A draft loop of this process runs the task.
    DRAFTING = "draft running"
    #: The task's state says a draft ran, but nothing runs it (the Cat stopped meanwhile).
    INTERRUPTED = "draft interrupted"
    #: The task's loop ended (committed, gave up, stopped) or its proposal was cancelled.
    ENDED = "task ended"


@dataclass(frozen=True)
class Situation:
    """Where one user stands when a message arrives."""

    stage: Stage = Stage.NO_TASK
    #: A repository is configured (questions about the code, renames and moves need one).
    repository: bool = False
    #: The user has a task (the draft-history commands are theirs).
    has_task: bool = False
    #: The task has a current draft ("apply" is theirs).
    has_draft: bool = False
    #: The waiting proposal's target file and symbol (``PROPOSED``).
    proposal: tuple[str, str] = ("", "")
    #: The command the plugin asked "Did you mean ...?" about ("" when it asked nothing).
    suggestion: str = ""
    #: Another plugin's form waits for this message: the plugin stays out of it.
    foreign_form: bool = False

"""``CommitInfo``: one draft commit as the loop, the glue and users see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .message import is_good, parse_message
from .objects import RawCommit


@dataclass(frozen=True)
class CommitInfo:
    """A commit of a task's draft history.

    ``log`` fills the header fields only; ``show`` also fills ``files`` (path -> text, draft files
    only), ``metacode`` and ``snapshot`` (the working-memory dict, ready for
    ``Scratchpad.from_dict``-style restoring). ``task_id`` is the task the commit was made for
    (a branched task shares its ancestors' commits, which keep their original task id).
    """

    id: str
    task_id: str
    name: str
    reason: str
    verdict: str
    iteration: int
    time: int
    parent: str | None
    snapshot_digest: str
    parents: tuple[str, ...] = ()
    files: dict[str, str] | None = field(default=None, compare=False)
    metacode: dict[str, Any] | None = field(default=None, compare=False)
    snapshot: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def good(self) -> bool:
        """True when the verdict makes this commit a rollback target (see ``GOOD_VERDICTS``)."""
        return is_good(self.verdict)

    def matches(self, verdict: str) -> bool:
        """Whether the commit has ``verdict`` ("good": any good verdict), case ignored."""
        return self.good if verdict.lower() == "good" else self.verdict.lower() == verdict.lower()

    @property
    def short_id(self) -> str:
        """The first 10 hex digits, enough to name a commit in a chat message (the draft diff's
        heading)."""
        return self.id[:10]

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON replies (tools, admin pages)."""
        data = {
            "id": self.id, "task_id": self.task_id, "name": self.name, "reason": self.reason,
            "verdict": self.verdict, "iteration": self.iteration, "time": self.time,
            "parent": self.parent, "snapshot_digest": self.snapshot_digest, "good": self.good,
        }  # fmt: skip
        for key in ("files", "metacode", "snapshot"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


def info_from_raw(raw: RawCommit) -> CommitInfo:
    """Header-only ``CommitInfo`` from a parsed commit object."""
    name, reason, trailers = parse_message(raw.sha, raw.message)
    return CommitInfo(
        id=raw.sha,
        task_id=trailers.task_id,
        name=name,
        reason=reason,
        verdict=trailers.verdict,
        iteration=trailers.iteration,
        time=raw.time,
        parent=raw.parents[0] if raw.parents else None,
        snapshot_digest=trailers.snapshot_digest,
        parents=raw.parents,
    )

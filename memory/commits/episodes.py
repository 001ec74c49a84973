"""Episodes: each commit as a searchable memory of "what we tried, and why it passed or failed".

The CommitIndex is a *time-ordered index* of the draft's iterations. When the caller wires a
``MemorySystem`` in, every commit is also added there as an episode memory (metadata ``kind:
"episode"``) and searched through its retrieval; when nothing is injected, ``rank`` gives a
built-in answer from the history itself (token overlap plus recency), so the loop always has one.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .info import CommitInfo

log = logging.getLogger(__name__)
_TOKEN = re.compile(r"[a-z0-9]+")
#: Field weights of the built-in scorer: the name says what was tried, the verdict how it went.
WEIGHTS = {"name": 3.0, "verdict": 2.0, "reason": 2.0, "summary": 1.0}
RECENCY_WEIGHT = 0.3
RECENCY_HALF_LIFE = 20  # commits


class EpisodeSink(Protocol):
    """Where episodes are sent (``MemorySystem.add_memory`` has this shape)."""

    def add_memory(self, text: str, metadata: dict[str, Any] | None = None) -> str:
        """Store ``text``; return its memory id."""


#: ``search(query, limit)`` -> items naming commits: a commit id, a mapping with ``metadata``
#: (``{"commit": id, ...}``) or an object with a ``metadata`` attribute (a ``ScoredMemory``).
EpisodeSearch = Callable[[str, int], Sequence[Any]]


@dataclass(frozen=True)
class Episode:
    """One search hit: a commit, why it was made, how it was judged, what it changed."""

    commit: str
    task_id: str
    name: str
    reason: str
    verdict: str
    iteration: int
    time: int
    summary: str
    score: float

    def as_text(self) -> str:
        """Compact text for a prompt."""
        return episode_text(self.task_id, self.iteration, self.verdict, self.name, self.reason,
                            self.summary)  # fmt: skip


def episode_text(
    task: str, iteration: int, verdict: str, name: str, reason: str, summary: str
) -> str:
    """The text stored in the memory system for one commit."""
    head = f"[{task} #{iteration} {verdict}] {name}"
    return "\n".join(part for part in (head, reason, f"Changes: {summary}") if part)


def episode_metadata(info: CommitInfo) -> dict[str, Any]:
    """Metadata of an episode memory (filterable by kind, task and verdict)."""
    return {
        "kind": "episode", "task_id": info.task_id, "commit": info.id, "verdict": info.verdict,
        "iteration": info.iteration, "time": info.time, "name": info.name,
    }  # fmt: skip


def tokens(text: str) -> set[str]:
    """Lower-case alphanumeric words (``snake_case`` and ``CamelCase`` are split)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return set(_TOKEN.findall(spaced.lower()))


def _text_score(query: set[str], fields: dict[str, set[str]]) -> float:
    score = 0.0
    for word in query:
        for field, words in fields.items():
            if word in words:
                score += WEIGHTS[field]
            elif len(word) >= 4 and any(w.startswith(word) for w in words):
                score += WEIGHTS[field] / 2
    return score / max(len(query), 1)


def rank(query: str, hits: Iterable[tuple[CommitInfo, str]], *, limit: int = 10) -> list[Episode]:
    """Score ``(commit, diff summary)`` pairs against ``query``, newest breaking ties.

    With an empty query this is "the most recent episodes". With words, an episode must share at
    least one word (or a 4+ letter prefix) with the query to be returned.
    """
    words = tokens(query)
    ordered = sorted(hits, key=lambda h: (h[0].time, h[0].iteration), reverse=True)
    scored = []
    for position, (info, summary) in enumerate(ordered):
        recency = RECENCY_WEIGHT * math.pow(0.5, position / RECENCY_HALF_LIFE)
        fields = {
            "name": tokens(info.name), "verdict": tokens(info.verdict),
            "reason": tokens(info.reason), "summary": tokens(summary),
        }  # fmt: skip
        text = _text_score(words, fields) if words else 0.0
        if words and text == 0.0:
            continue
        scored.append(_episode(info, summary, round(text + recency, 4)))
    scored.sort(key=lambda e: (e.score, e.time, e.iteration), reverse=True)
    return scored[: max(limit, 0)]


def _episode(info: CommitInfo, summary: str, score: float) -> Episode:
    return Episode(info.id, info.task_id, info.name, info.reason, info.verdict, info.iteration,
                   info.time, summary, score)  # fmt: skip


def commit_ids(items: Sequence[Any]) -> list[str]:
    """Commit ids named by the items an injected ``EpisodeSearch`` returned, in order."""
    out = []
    for item in items:
        meta = item.get("metadata") if isinstance(item, dict) else getattr(item, "metadata", None)
        commit = item if isinstance(item, str) else (meta or {}).get("commit")
        if isinstance(commit, str) and commit not in out:
            out.append(commit)
    return out


def as_episodes(pairs: Sequence[tuple[CommitInfo, str]]) -> list[Episode]:
    """Episodes in the given (retriever's) order, scores decreasing from 1."""
    return [_episode(info, summary, round(1.0 / (1 + i), 4)) for i, (info, summary) in
            enumerate(pairs)]  # fmt: skip


def memory_search(system: Any, *, filters: dict[str, Any] | None = None) -> EpisodeSearch:
    """Adapt a synchronous memory API (``SyncMemorySystem``) into an ``EpisodeSearch``.

    Only ``kind == "episode"`` memories are searched unless ``filters`` says otherwise. The async
    ``MemorySystem`` needs its sync twin (or the glue's event-loop bridge): this core stays sync.
    """
    wanted = {"kind": "episode"} if filters is None else filters

    def search(query: str, limit: int) -> Sequence[Any]:
        return list(system.retrieve_relevant_memories(query, filters=wanted))[:limit]

    return search


def injected_episodes(
    search: EpisodeSearch | None,
    query: str,
    limit: int,
    commits: Mapping[str, CommitInfo],
    summary: Callable[[str], str],
) -> list[Episode]:
    """Episodes named by the injected search, in its order; [] when absent, empty or failing.

    A failing retriever (LLM down, database locked) must not leave the loop without an answer:
    this is a documented crash boundary, and the caller falls back to ``rank``.
    """
    if search is None:
        return []
    try:
        ids = commit_ids(search(query, limit))
    except Exception as err:  # noqa: BLE001 - documented boundary: fall back to the built-in
        log.warning("injected episode search failed, using the built-in one: %s", err)
        return []
    return as_episodes([(commits[c], summary(c)) for c in ids if c in commits])

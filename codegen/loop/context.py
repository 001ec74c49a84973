"""Step 1 of an iteration: repository, commit-history and associative context, concurrently.

Context is helpful, not essential: a source that fails (an index being rebuilt, a backend that is
down) costs that part of the context and a warning, never the iteration. That is why
:func:`_safe` is the one documented place where the loop catches any ``Exception``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ...llm.templates import data_blocks
from ..metacode.model import MetaCode
from ..ports import API_REFERENCE, ContextSnippet, ContextSource, DraftStore, EpisodeRecord
from .outcomes import is_baseline

log = logging.getLogger(__name__)

_T = TypeVar("_T")


class ContextLimits(Protocol):
    """The part of the loop's config the loads use (``LoopConfig`` fits)."""

    @property
    def context_limit(self) -> int: ...

    @property
    def history_limit(self) -> int: ...


@dataclass(frozen=True)
class LoadedContext:
    repo_text: str
    assoc_text: str
    history_text: str
    counts: tuple[int, int, int]
    warnings: tuple[str, ...] = ()
    #: Library entities of the associative context, shown as API references.
    api_text: str = "(none)"
    #: ``name (source version)`` of each API reference, for the loop's outcome.
    api_refs: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        return {"repo": self.counts[0], "history": self.counts[1], "associative": self.counts[2],
                "api": list(self.api_refs), "warnings": list(self.warnings)}


def load_context(meta: MetaCode, task_id: str, store: DraftStore, repo: ContextSource | None,
                 assoc: ContextSource | None, head: str, config: ContextLimits) -> LoadedContext:
    """Run the three loads on a thread pool and render each for the prompt."""
    query = f"{meta.symbol} {meta.behaviour}".strip()
    limit = config.context_limit
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="codemem-ctx") as pool:
        repo_f = pool.submit(_safe, "repository context", repo, query, meta.target_path, limit)
        hist_f = pool.submit(_safe, "commit history", _history, store, task_id, query,
                             config.history_limit)
        assoc_f = pool.submit(_safe, "associative context", assoc, query, meta.target_path,
                              limit)
        (repo_items, w1), (hist, w2), (assoc_items, w3) = (
            repo_f.result(), hist_f.result(), assoc_f.result())
    api = [s for s in assoc_items or [] if getattr(s, "kind", "") == API_REFERENCE]
    notes = [s for s in assoc_items or [] if getattr(s, "kind", "") != API_REFERENCE]
    return LoadedContext(
        repo_text=_snippets("repo", repo_items or []),
        assoc_text=_snippets("associative", notes),
        history_text="\n".join(hist or []) or "(none yet)",
        counts=(len(repo_items or []), len(hist or []), len(assoc_items or [])),
        warnings=tuple(w for w in (w1, w2, w3) if w),
        api_text=_snippets("api", api),
        api_refs=tuple(f"{s.title} ({s.source})" for s in api))


def _safe(what: str, fn: Callable[..., _T] | None, *args: object) -> tuple[_T | None, str]:
    if fn is None:
        return None, ""
    try:
        return fn(*args), ""
    except Exception as err:  # crash boundary: context is optional (see module docstring)
        log.warning("%s unavailable: %s", what, err)
        return None, f"{what} unavailable: {type(err).__name__}: {err}"


def _history(store: DraftStore, task_id: str, query: str, limit: int) -> list[str]:
    """What was tried in this task (rolled-back drafts included) and related other episodes."""
    search = getattr(store, "search_episodes", None)
    if search is None:
        return []
    own = sorted(search("", task_id=task_id, limit=limit),
                 key=lambda e: (getattr(e, "time", 0), getattr(e, "iteration", 0)))
    lines = [_episode_line(e, "") for e in own if not is_baseline(str(getattr(e, "verdict", "")))]
    others = [e for e in search(query, task_id=None, limit=limit)
              if getattr(e, "task_id", task_id) != task_id]
    lines += [_episode_line(e, "(other task) ") for e in others[: max(1, limit // 2)]]
    return lines


def _episode_line(ep: EpisodeRecord, prefix: str) -> str:
    return (f"- {prefix}{getattr(ep, 'name', '')} [{getattr(ep, 'verdict', '?')}]: "
            f"{_one_line(getattr(ep, 'reason', str(ep)))}")


def _one_line(text: str, limit: int = 400) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _snippets(kind: str, items: Sequence[ContextSnippet]) -> str:
    return data_blocks([(kind, f"{getattr(s, 'source', '?')} {getattr(s, 'title', '')}".strip(),
                         getattr(s, "text", str(s))) for s in items])

"""Indexing a project's repository: the run, its progress notifications and its summary.

The index is incremental (only changed files are parsed again); a run bumps the project's index
generation, which keys the per-task retrieval caches. Progress reaches the user at most once
per ``PROGRESS_INTERVAL_S`` (``Throttle``), the summary names every file status.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ...memory import IndexProgress
from .registry import IndexRun, Project

#: Seconds between two progress notifications of one indexing run.
PROGRESS_INTERVAL_S = 3.0


class Throttle:
    """Lets a call through at most once per ``interval`` seconds (progress notifications)."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._last = float("-inf")

    def ready(self) -> bool:
        now = self._clock()
        if now - self._last >= self._interval:
            self._last = now
            return True
        return False


def index_project(project: Project, notify: Callable[[str], None], *,
                  trigger: str = "request") -> str:
    """Index (incrementally) and return a Markdown summary; progress goes to ``notify`` and
    to ``project.index_run`` (``trigger`` says who asked: a request, start-up, the watcher)."""
    throttle = Throttle(PROGRESS_INTERVAL_S)
    run = project.index_run = IndexRun(running=True, started=time.time(), trigger=trigger)

    def progress(event: IndexProgress) -> None:
        run.phase, run.done, run.total = event.phase, event.done, event.total
        if event.phase != "done" and throttle.ready():
            notify(f"Indexing {project.root}: {event.phase} {event.done}/{event.total}")

    started = time.monotonic()
    try:
        with project.index_lock:
            ids = project.code.index_repository(
                project.root, exclude_patterns=list(project.config.scope.exclude),
                progress=progress)
            report = project.code.last_index_report
            if trigger != "watcher" or _changed(report):  # a save that changed no entity
                project.generation += 1                  # keeps the retrieval caches
        run.summary = summarise_index(project.root, len(ids), report,
                                      time.monotonic() - started)
    except Exception as err:
        run.error = f"{type(err).__name__}: {err}"
        raise
    finally:
        run.running, run.finished = False, time.time()
    return run.summary


def _changed(report: object) -> bool:
    """Whether an indexing run changed the index (files parsed, renamed or deleted)."""
    return any(getattr(report, k, 1) for k in ("parsed", "renamed", "deleted"))


def summarise_index(root: str, entities: int, report: object, seconds: float) -> str:
    """The user-facing summary of an indexing run, with every file status counted."""
    statuses: dict[str, int] = {}
    for status in (getattr(report, "statuses", None) or {}).values():
        kind = str(status).split(":", 1)[0]
        statuses[kind] = statuses.get(kind, 0) + 1
    skipped = [f"`{path}`: {status}" for path, status in
               sorted((getattr(report, "statuses", None) or {}).items())
               if not str(status).startswith("indexed")][:10]
    lines = [f"Indexed `{root}` in {seconds:.1f} s: {entities} code entities.",
             "Files: " + (", ".join(f"{n} {k}" for k, n in sorted(statuses.items())) or "none")]
    counts = {k: getattr(report, k) for k in ("parsed", "unchanged", "renamed", "deleted",
                                              "embedded") if hasattr(report, k)}
    if counts:
        lines.append("Changes: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if skipped:
        lines.append("Not indexed (first 10):")
        lines.extend(f"- {item}" for item in skipped)
    lines.extend(f"**Warning:** {notice}" for notice in getattr(report, "notices", None) or ())
    return "\n".join(lines)

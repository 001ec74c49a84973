"""Indexing runs started from chat ("index my repository", a source added) or at start-up.

A run indexes the repository, then the associative sources, in a thread of this import of the
plugin (``process.Generation.start_thread``, joined when the generation retires), one run per
project at a time; progress and summaries reach the user who asked. The start-up pass opens the
project in its thread too: a large store's integrity check must not hold up the Cat's boot.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...memory import CodeMemoryError, Source, source_label
from ..host.environment import cat_data_dir, cat_logger
from ..host.lifecycle import LIFECYCLE
from ..process import GENERATION
from ..projects.associative import index_sources, update_source
from ..projects.indexing import index_project
from ..projects.registry import IndexRun, Project
from ..projects.workspace import Turn, UserLink, Workspace

log = logging.getLogger(__name__)

_indexing_guard = threading.Lock()


@dataclass(frozen=True)
class IndexStart:
    """What asking for an indexing run did: ``started`` one, or not (``error``: the repository
    cannot be indexed; otherwise a run was already going), and the answer for the user."""

    started: bool
    message: str
    error: bool = False


def start_indexing(turn: Turn, *, notify: bool) -> str:
    """Index the configured repository in a thread; the answer says whether it started."""
    return begin_indexing(turn, notify=notify).message


def begin_indexing(turn: Turn, *, notify: bool, trigger: str = "request") -> IndexStart:
    """Index the configured repository in a thread, unless a run is going (chat and REST)."""
    return _begin(turn, "index", "is already being indexed; progress appears as notifications.",
                  lambda p, w, link: _index(p, w, link, notify, trigger), "index",
                  lambda root: f"Indexing `{root}` started; I will report progress and the "
                  "result here.")


def _begin(turn: Turn, verb: str, busy: str, run: Callable[[Project, Workspace, UserLink], None],
           thread: str, started: Callable[[str], str]) -> IndexStart:
    """``run`` in a thread of this import, unless the project cannot be used or one of its
    indexing runs is going (the answer says which)."""
    try:
        project = turn.workspace.project()
    except CodeMemoryError as err:
        return IndexStart(False, f"Cannot {verb}: {err}", error=True)
    with _indexing_guard:
        if project.indexing:
            return IndexStart(False, f"`{project.root}` {busy}")
        workspace, link = turn.workspace, turn.link
        project.indexer = GENERATION.start_thread(lambda: run(project, workspace, link),
                                                  name=f"codemem-{thread}-{project.root}")
    return IndexStart(True, started(project.root))


def _index(project: Project, workspace: Workspace, link: UserLink, notify: bool,
           trigger: str) -> None:
    """The repository, then the associative sources (each summary goes to the user)."""

    def say(text: str, kind: str = "notification") -> None:
        if notify:
            link.send(text, kind)

    try:
        say(index_project(project, say, trigger=trigger), "chat")
        summary = index_sources(project, workspace.settings, workspace.config.data_dir,
                                say, protected=(cat_data_dir(),))
        project.generation += 1  # the sources' entities too are in the index now
        if summary:
            say(summary, "chat")
    except Exception as err:  # crash boundary of a background thread: report, never lose
        if LIFECYCLE.stopping.is_set():
            return
        log.exception("indexing %s failed", project.root)
        say(f"Indexing `{project.root}` failed: {type(err).__name__}: {err}", "chat")


def begin_source_update(turn: Turn, source: Source, *, notify: bool,
                        trigger: str = "update-source") -> IndexStart:
    """Fetch and re-index one source in a thread (``update_source``), unless an indexing run
    or another update is going; ``GET .../index`` shows it as a run with this ``trigger``."""
    return _begin(turn, "update", f"is being indexed; say **update source {source.name}** "
                  "again when it is done.",
                  lambda p, w, link: _update(p, w, link, source, notify, trigger),
                  f"update-{source.name}",
                  lambda _: f"Fetching `{source_label(source)}` again; I will report what "
                  "changed here.")


def _update(project: Project, workspace: Workspace, link: UserLink, source: Source,
            notify: bool, trigger: str) -> None:
    def say(text: str, kind: str = "notification") -> None:
        if notify:
            link.send(text, kind)

    run = project.index_run = IndexRun(running=True, started=time.time(), trigger=trigger)
    try:
        run.summary = update_source(project, workspace.settings, workspace.config.data_dir,
                                    source, say, protected=(cat_data_dir(),))
        project.generation += 1
        say(run.summary, "chat")
    except Exception as err:  # crash boundary of a background thread: report, never lose
        run.error = f"{type(err).__name__}: {err}"
        if LIFECYCLE.stopping.is_set():
            return
        log.exception("updating source %s failed", source.name)
        say(f"Updating `{source.name}` failed: {type(err).__name__}: {err}", "chat")
    finally:
        run.running, run.finished = False, time.time()


def index_at_startup(turn: Turn) -> None:
    """Bring the configured repository's index up to date, from a thread of its own."""
    if turn.workspace.repository_configured:
        GENERATION.start_thread(lambda: _startup_pass(turn), name="codemem-startup")


def _startup_pass(turn: Turn) -> None:
    try:
        cat_logger().info(f"code working memory: {start_indexing(turn, notify=False)}")
    except Exception:  # crash boundary of a background thread: logged, the Cat runs on
        if not LIFECYCLE.stopping.is_set():
            log.exception("the start-up indexing pass failed")

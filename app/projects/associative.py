"""Associative sources (other repositories, libraries, docs) of a project.

Turns the settings into sources, indexes them into the project's code memory (with progress),
answers the chat commands "add source ...", "list sources", "remove source ..." as Markdown,
reports each source for the status tool, renders retrieved source entities as labelled loop
context (``snippet``: library entities as API references) and hands the draft loop the API facts
that validation checks library calls against. Retrieval itself is the task's one combined
retrieval (``app/drafting/task_context.py``) and ``lookup.search``: sources are shared memory
types. Every function takes what it needs (settings, project, data folder) and returns plain
values: the caller decides when to call.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ...codegen import API_REFERENCE, Committed, ContextSnippet
from ...memory import (
    SOURCE_ENTITY,
    ApiTable,
    AssociativeMemory,
    CloneLimits,
    CodeMemoryError,
    CodeMemorySystem,
    FolderSource,
    IndexProgress,
    ScoredMemory,
    Source,
    SourceOptions,
    SourceResult,
    SourceRow,
    UrlSource,
    check_repository_root,
    configured_index,
    declared_dependencies,
    find_source,
    format_sources,
    parse_item,
    parse_sources,
    redact,
    source_label,
    split_items,
    unique_sources,
)
from ..host.lifecycle import LIFECYCLE
from ..host.settings_model import PluginSettings
from .indexing import PROGRESS_INTERVAL_S, Throttle


class ProjectView(Protocol):
    """What this module needs of a project (``registry.Project`` has it)."""

    @property
    def root(self) -> str: ...
    @property
    def code(self) -> CodeMemorySystem: ...


@dataclass(frozen=True)
class SourceCommand:
    """A chat command's answer; ``settings_text`` is the new ``associative_sources`` value to
    save (None: unchanged); ``reindex`` asks the glue to run ``index_sources`` now."""

    answer: str
    settings_text: str | None = None
    reindex: bool = False


_registry_lock = threading.Lock()
_memories: weakref.WeakKeyDictionary[CodeMemorySystem, AssociativeMemory] = (
    weakref.WeakKeyDictionary())


def memory_for(project: ProjectView) -> AssociativeMemory:
    """The project's associative memory (one per code memory; gone when the project is)."""
    with _registry_lock:
        memory = _memories.get(project.code)
        if memory is None:
            memory = _memories[project.code] = AssociativeMemory(project.code)
        return memory


def source_options(settings: PluginSettings, data_dir: str,
                   protected: Sequence[str] = ()) -> SourceOptions:
    """How sources are read, from the settings; downloads are cached and repositories by URL
    cloned in the data folder (a clone stops when this import of the plugin winds down)."""
    return SourceOptions(
        cache_dir=os.path.join(data_dir, "sources", "downloads"),
        index_url=configured_index(settings.package_index_url),
        include_private=settings.source_include_private,
        max_entities=settings.source_max_entities, max_bytes=settings.source_max_mb << 20,
        max_file_bytes=settings.max_file_kb * 1024, protected=(data_dir, *protected),
        clones_dir=clones_dir(data_dir),
        clone_limits=CloneLimits(settings.source_clone_max_mb << 20,
                                 settings.source_clone_timeout_s, LIFECYCLE.should_stop))


def clones_dir(data_dir: str) -> str:
    """Where repositories by URL are cloned."""
    return os.path.join(data_dir, "sources", "clones")


def file_url_folders(settings: PluginSettings) -> list[str]:
    """The folders ``file://`` URLs may name (the admin's setting)."""
    return split_items(settings.source_file_url_folders)


def configured_sources(settings: PluginSettings,
                       repository_root: str = "") -> tuple[list[Source], list[str]]:
    """The sources to index (the setting's, then the repository's declared dependencies when
    switched on) and one message per item that cannot be used."""
    parsed = parse_sources(settings.associative_sources, file_url_folders(settings))
    sources, problems = list(parsed.sources), list(parsed.problems)
    if settings.index_repository_dependencies and repository_root:
        declared = declared_dependencies(repository_root)
        sources += declared.sources
        problems += declared.notes
    return list(unique_sources(sources)), problems


# -- indexing ----------------------------------------------------------------------------------
def index_sources(project: ProjectView, settings: PluginSettings, data_dir: str,
                  notify: Callable[[str], None], protected: Sequence[str] = ()) -> str:
    """Index every configured source (incrementally), remove the ones no longer configured,
    and return a Markdown summary; progress goes to ``notify`` (throttled)."""
    sources, problems = configured_sources(settings, project.root)
    memory = memory_for(project)
    if not sources and not memory.rows():
        return ""
    progress = _progress(notify)
    started = time.monotonic()
    results, removed = memory.sync(sources, source_options(settings, data_dir, protected),
                                   progress)
    return summarise(results, removed, problems, time.monotonic() - started)


def _progress(notify: Callable[[str], None]) -> Callable[[IndexProgress], None]:
    throttle = Throttle(PROGRESS_INTERVAL_S)

    def progress(event: IndexProgress) -> None:
        if event.phase in ("resolve", "fetch") or (event.phase != "done" and throttle.ready()):
            what = event.path if event.phase in ("resolve", "fetch") else (
                f"{event.done}/{event.total}")
            notify(f"Associative sources: {event.phase} {what}")

    return progress


def update_source(project: ProjectView, settings: PluginSettings, data_dir: str,
                  source: Source, notify: Callable[[str], None],
                  protected: Sequence[str] = ()) -> str:
    """"update source X": a repository by URL fetched again and re-indexed only when its ref
    moved (only changed files are parsed again); another source re-indexed incrementally.
    Returns the summary; progress goes to ``notify``."""
    memory = memory_for(project)
    options = source_options(settings, data_dir, protected)
    if not isinstance(source, UrlSource):
        result = memory.index(source, options, _progress(notify))
        return summarise([result], [], [], result.seconds)
    update = memory.update(source, options, _progress(notify))
    row = update.result.row
    name = f"`{row.name}`"
    if update.unchanged:
        return (f"{name} is up to date: {row.version} is still at {row.revision[:7]}; nothing "
                "was fetched or re-indexed.")
    if row.status == "error":
        keeping = (f" Keeping {row.entities} entities of {version_of(row)}."
                   if row.entities else "")
        return f"{name} was not updated: {row.detail}.{keeping}"
    moved = (f"moved from {update.previous[:7]} to {row.revision[:7]}" if update.previous
             else f"indexed at {row.revision[:7]}")
    return (f"Updated {name}: {row.version} {moved} in {update.result.seconds:.1f} s"
            f"{_changes(update.result)}.")


def summarise(results: Sequence[SourceResult], removed: Sequence[SourceRow],
              problems: Sequence[str], seconds: float) -> str:
    """The user-facing summary of one indexing pass over the sources."""
    lines = [f"Associative sources: {len(results)} indexed in {seconds:.1f} s."]
    for result in results:
        lines.append(f"- {_describe(result.row)}{_changes(result)}")
    lines.extend(f"- removed `{row.name}`: its entities left the store and the Cat's memory"
                 for row in removed)
    lines.extend(f"- note: {problem}" for problem in problems)
    return "\n".join(lines)


def version_of(row: SourceRow) -> str:
    """A row's version as shown: a repository by URL's ref and short commit (``main @
    1a2b3c4``)."""
    return (f"{row.version} @ {row.revision[:7]}" if row.revision else row.version).strip()


def _describe(row: SourceRow) -> str:
    version = f" {version_of(row)}" if row.version or row.revision else ""
    origin = f", {row.origin}" if row.origin and row.origin != row.kind else ""
    text = f"`{row.name}`{version} ({row.kind}{origin}): {row.entities} entities"
    if row.status == "error":
        return f"`{row.name}` ({row.kind}): **not indexed**: {row.detail}" + (
            f" (keeping {row.entities} entities of {version_of(row)})" if row.entities else "")
    return text + (f" (**capped**: {row.detail})" if row.status == "capped" else "")


def _changes(result: SourceResult) -> str:
    report = result.report
    if report is None:
        return ""
    return (f"; {report.parsed} file(s) read, {report.unchanged} unchanged, "
            f"{report.entities_added} added, {report.entities_removed} removed")


# -- chat commands -----------------------------------------------------------------------------
def add_source(settings: PluginSettings, data_dir: str, text: str,
               protected: Sequence[str] = ()) -> SourceCommand:
    """"add source X" (several: commas or lines): check each, and answer with the new setting
    (the glue saves it, then runs ``index_sources``)."""
    roots = file_url_folders(settings)
    current = list(parse_sources(settings.associative_sources, roots).sources)
    added, lines = [], []
    for item in split_items(text) or [text.strip()]:
        try:
            source = parse_item(item, roots)
            if isinstance(source, FolderSource):
                check_repository_root(source.path, protected=(data_dir, *protected))
        except (ValueError, CodeMemoryError) as err:
            lines.append(f"I cannot add `{redact(item)[:200]}` as a source: {err}.")
            continue
        same = [i for i, s in enumerate(current) if s.repo_id == source.repo_id]
        if same and isinstance(source, UrlSource) and current[same[0]].spec != source.spec:
            current[same[0]] = source  # the same repository with other credentials
            added.append(f"`{source_label(source)}` (its credentials replaced)")
            continue
        if same or find_source(current, source.spec) is not None:
            lines.append(f"`{source_label(source)}` is already a source.")
            continue
        current.append(source)
        added.append(f"`{source_label(source)}`")
    if not added:
        return SourceCommand("\n".join(lines + ["Say **list sources** to see what is indexed."]))
    lines.insert(0, f"Added {', '.join(added)} to the associative sources; indexing now "
                    "(progress follows).")
    return SourceCommand("\n".join(lines), format_sources(current), reindex=True)


def remove_source(settings: PluginSettings, project: ProjectView, text: str,
                  data_dir: str = "") -> SourceCommand:
    """"remove source X": drop it from the setting, its entities from everywhere and its clone
    (a repository by URL, in ``data_dir``) now."""
    current = parse_sources(settings.associative_sources, file_url_folders(settings)).sources
    source = find_source(current, text)
    if source is None:
        known = find_source(configured_sources(settings, project.root)[0], text)
        if known is not None:
            return SourceCommand(f"`{known.name}` is a dependency the repository declares; "
                                 "switch off *Index the repository's dependencies* to drop it.")
        return SourceCommand(f"`{redact(text.strip())[:200]}` is not a source.\n\n"
                             + list_sources(settings, project))
    deleted = memory_for(project).remove(source.repo_id,
                                         clones_dir(data_dir) if data_dir else "")
    rest = [s for s in current if s.repo_id != source.repo_id]
    clone = " and its clone" if isinstance(source, UrlSource) and data_dir else ""
    return SourceCommand(f"Removed `{source_label(source)}`: {deleted} entities deleted from "
                         f"the plugin's store and the Cat's memory{clone}.", format_sources(rest))


def configured_source(settings: PluginSettings, project: ProjectView,
                      text: str) -> Source | None:
    """The configured source ``text`` names (its name, spec or URL), or None."""
    return find_source(configured_sources(settings, project.root)[0], text)


def list_sources(settings: PluginSettings, project: ProjectView) -> str:
    """Every configured source with its version, entity count, last index time and status."""
    sources, problems = configured_sources(settings, project.root)
    rows = {row.repo_id: row for row in memory_for(project).rows()}
    if not sources and not rows:
        return ("No associative sources. Add one with **add source /path/to/folder**, **add "
                "source https://host/owner/repo** or **add source pip:NAME**, or in the plugin "
                "settings.")
    lines = ["| source | kind | version | entities | last indexed | status |",
             "|---|---|---|---|---|---|"]
    for source in sources:
        row = rows.pop(source.repo_id, None)
        if row is None:
            lines.append(f"| `{source_label(source)}` | {source.kind} | | 0 | never | "
                         "not indexed yet |")
        else:
            lines.append(_table_row(row))
    lines.extend(_table_row(row) + " (no longer configured)" for row in rows.values())
    lines.extend(f"\nNote: {problem}" for problem in problems)
    return "\n".join(lines)


def source_table(settings: PluginSettings, project: ProjectView) -> list[dict[str, object]]:
    """Every configured source (then the indexed ones no longer configured) as plain data,
    for the REST API; no credentials."""
    sources, _ = configured_sources(settings, project.root)
    rows = {row.repo_id: row for row in memory_for(project).rows()}
    out: list[dict[str, object]] = []
    for source in sources:
        row = rows.pop(source.repo_id, None)
        out.append(_plain(row, configured=True) if row is not None else {
            "name": source.name, "kind": source.kind, "spec": source_label(source),
            "version": "", "commit": "", "entities": 0, "indexed_at": "",
            "status": "not indexed yet", "detail": "", "configured": True})
    out.extend(_plain(row, configured=False) for row in rows.values())
    return out


def _plain(row: SourceRow, *, configured: bool) -> dict[str, object]:
    return {"name": row.name, "kind": row.kind, "spec": redact(row.spec),
            "version": row.version, "commit": row.revision, "entities": row.entities,
            "indexed_at": row.indexed_at, "status": row.status, "detail": redact(row.detail),
            "configured": configured}


def _table_row(row: SourceRow) -> str:
    status = row.status + (f": {row.detail}" if row.detail else "")
    origin = f" ({row.origin})" if row.origin and row.origin != row.kind else ""
    return (f"| `{row.name}` | {row.kind}{origin} | {version_of(row) or '-'} | {row.entities} | "
            f"{row.indexed_at or 'never'} | {status.replace('|', '/')} |")


def status_lines(project: ProjectView) -> list[str]:
    """One line per indexed source for the status tool."""
    return [f"- source {_describe(row)}, indexed {row.indexed_at or 'never'}"
            for row in memory_for(project).rows()]


# -- the draft loop ----------------------------------------------------------------------------
def snippet(memory: ScoredMemory) -> ContextSnippet:
    """A retrieved memory as loop context: library entities as labelled API references."""
    meta = memory.metadata or {}
    label = " ".join(str(meta[k]) for k in ("source_name", "source_version") if meta.get(k))
    if meta.get("type") == SOURCE_ENTITY:
        return ContextSnippet(source=label, title=str(meta.get("public_name", "")),
                              text=memory.text, score=memory.relevance_score,
                              kind=API_REFERENCE)
    where = meta.get("path") or meta.get("file_path") or ""
    source = f"{label} docs: {where}" if label else f"{meta.get('type', 'memory')}:{where}"
    return ContextSnippet(source=source, title=str(meta.get("qualified_name")
                                                   or meta.get("title", "")),
                          text=memory.text, score=memory.relevance_score)


def api_facts(project: ProjectView) -> ApiTable:
    """The loop's ``ApiFacts``: what the indexed libraries offer (for the ``api`` check)."""
    return memory_for(project).api_table()


def references_note(outcome: Committed) -> str:
    """The result message's line naming the library entities that informed the draft."""
    refs = list(getattr(outcome, "api_references", ()) or ())
    if not refs:
        return ""
    return "Library APIs that informed this draft: " + ", ".join(f"`{r}`" for r in refs) + "."

"""The task-scoped scratchpad: the working memory of one code task.

A mental notebook for one task at a time, or several side by side, namespaced by task id: the
draft loop writes intermediate results (meta-code, the current draft's commit, the last report)
under keys, a key written again is *refined* (the latest value wins), every update is logged with
a time, and when the task completes its notes are cleared or selected keys are archived to
long-term memory through an injected sink.

Why plain data only: the Cat keeps it in ``cat.working_memory``, which the ``file_system`` cache
pickles after every turn; a lock, a generator or a class from a renamed module would brick the
user's session (docs/cat-plugin-api.md). So values are restricted to JSON-like data, copied on
the way in and out, and ``to_dict()`` is what the glue stores.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from .errors import CodeMemoryError, TaskNotFound

#: A note's value: plain JSON-like data (str, int, float, bool, None, lists, dicts) of any
#: shape, checked by ``_plain``; ``Any`` because its shape is the caller's business.
Plain = Any

#: Version of the ``to_dict()`` layout; ``from_dict`` refuses layouts it does not know.
FORMAT_VERSION = 1

#: Update-log entries kept per task (oldest dropped first) so the pickled memory stays small.
MAX_LOG_ENTRIES = 500

#: Characters of a value shown in the log and in summaries.
PREVIEW_CHARS = 160

Clock = Callable[[], datetime]


class ScratchpadError(CodeMemoryError, ValueError):
    """A value, key or stored layout the scratchpad cannot hold."""


class ArchiveSink(Protocol):
    """Long-term memory that archived notes go to: ``MemorySystem`` fits (``add_memory``)."""

    def add_memory(self, text: str, metadata: dict[str, Plain] | None = None) -> str: ...


@dataclass(frozen=True)
class Lookup:
    """The answer to a one-key query: found or a clear "not found", never an exception."""

    task_id: str
    key: str
    found: bool
    value: Plain = None

    @property
    def message(self) -> str:
        if self.found:
            return f"{self.key} = {_preview(self.value)}"
        return f"not found: no key {self.key!r} in task {self.task_id!r}"


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _preview(value: Plain, limit: int = PREVIEW_CHARS) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(value: Plain, where: str) -> Plain:
    """Return a deep copy of ``value`` made of JSON-like types, or raise ScratchpadError."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ScratchpadError(f"{where}: NaN and infinity cannot be stored")
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ScratchpadError(f"{where}: dictionary keys must be strings, got {key!r}")
            out[key] = _plain(item, f"{where}.{key}")
        return out
    raise ScratchpadError(
        f"{where}: {type(value).__name__} is not plain data; store str, int, float, bool, "
        "None, lists or dicts (the Cat may pickle the working memory)"
    )


def _check_id(kind: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ScratchpadError(f"{kind} must be a non-empty string, got {value!r}")
    if len(value) > 200:
        raise ScratchpadError(f"{kind} is longer than 200 characters")
    return value


class Scratchpad:
    """Task-scoped notes: start, put/refine, query, summarise, complete.

    Thread-safe within a process (the loop's concurrent steps write to it). Raises
    ``TaskNotFound`` for an unknown task id (a caller bug); a missing *key* is not an error.
    """

    def __init__(self, *, clock: Clock = _utc_now) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self._tasks: dict[str, dict[str, Plain]] = {}

    # -- lifecycle ----------------------------------------------------------------------------

    def start_task(
        self, task_id: str | None = None, initial: Mapping[str, Plain] | None = None
    ) -> str:
        """Create a fresh space for a task (an existing one is reset) and return its id."""
        task_id = _check_id("task id", task_id) if task_id is not None else uuid.uuid4().hex[:12]
        values = _plain(dict(initial or {}), "initial")
        now = self._now()
        with self._lock:
            self._tasks[task_id] = {"created": now, "values": {}, "log": []}
            for key, value in values.items():
                self._write(task_id, _check_id("key", key), value, now)
        return task_id

    def tasks(self) -> list[str]:
        """Ids of the open tasks, oldest first."""
        with self._lock:
            return list(self._tasks)

    def complete(
        self,
        task_id: str,
        *,
        archive_keys: Iterable[str] = (),
        sink: ArchiveSink | Callable[[str, dict[str, Plain]], Plain] | None = None,
    ) -> dict[str, Plain]:
        """Close a task: archive ``archive_keys`` through ``sink``, then clear the task.

        Returns ``{key: whatever the sink returned}``. If the sink fails, the task is kept
        (nothing is lost) and the error propagates. Asking for a key that does not exist is
        an error, because silently archiving nothing would lose the caller's intent.
        """
        keys = list(archive_keys)
        with self._lock:
            task = self._task(task_id)
            if keys and sink is None:
                raise ScratchpadError("archive_keys given without a sink to archive them to")
            missing = [k for k in keys if k not in task["values"]]
            if missing:
                raise ScratchpadError(
                    f"cannot archive missing key(s) {missing} of task {task_id!r}"
                )
            values = {k: task["values"][k]["value"] for k in keys}
        archived = {key: self._archive(sink, task_id, key, value) for key, value in values.items()}
        with self._lock:
            self._tasks.pop(task_id, None)
        return archived

    # -- notes --------------------------------------------------------------------------------

    def put(self, task_id: str, key: str, value: Plain) -> None:
        """Store ``value`` under ``key``; writing a key again refines it (latest wins)."""
        key = _check_id("key", key)
        value = _plain(value, key)
        with self._lock:
            self._task(task_id)
            self._write(task_id, key, value, self._now())

    def get(self, task_id: str, key: str, default: Plain = None) -> Plain:
        """The latest value of ``key`` (a copy), or ``default`` when it was never written."""
        with self._lock:
            entry = self._task(task_id)["values"].get(key)
            return default if entry is None else _plain(entry["value"], key)

    def query(self, task_id: str, key: str) -> Lookup:
        """One key, answered as found or not found (never an exception for a missing key)."""
        with self._lock:
            entry = self._task(task_id)["values"].get(key)
        if entry is None:
            return Lookup(task_id, key, False)
        return Lookup(task_id, key, True, _plain(entry["value"], key))

    def snapshot(self, task_id: str) -> dict[str, Plain]:
        """Every key's latest value (a deep copy): the task's whole current context."""
        with self._lock:
            values = self._task(task_id)["values"]
            return {key: _plain(entry["value"], key) for key, entry in values.items()}

    def history(self, task_id: str) -> list[dict[str, Plain]]:
        """The update log, oldest first: ``{"time", "key", "action", "preview"}`` per write."""
        with self._lock:
            return [dict(item) for item in self._task(task_id)["log"]]

    def summary(self, task_id: str, *, max_chars: int = 2000) -> str:
        """A compact text of the task's notes for a prompt, newest updates last."""
        with self._lock:
            task = self._task(task_id)
            items = sorted(task["values"].items(), key=lambda kv: kv[1]["updated"])
            lines = [f"Scratchpad of task {task_id} ({len(items)} notes):"]
            for key, entry in items:
                revised = f" (revised {entry['revisions']}x)" if entry["revisions"] > 1 else ""
                lines.append(f"- {key}{revised}: {_preview(entry['value'])}")
        text = "\n".join(lines)
        return text if len(text) <= max_chars else text[: max_chars - 15] + "\n… (truncated)"

    # -- persistence --------------------------------------------------------------------------

    def export_task(self, task_id: str) -> dict[str, Plain]:
        """One task's whole state (notes, revisions, log) as plain data."""
        with self._lock:
            exported: dict[str, Plain] = _plain(self._task(task_id), task_id)  # a task is a dict
            return exported

    def import_task(self, task_id: str, data: Mapping[str, Plain]) -> None:
        """Replace (or add) one task from ``export_task`` output of another scratchpad.

        Lets a worker thread keep its own scratchpad and merge its task back into the user's
        state without touching the other tasks.
        """
        _check_id("task id", task_id)
        _check_task_layout(task_id, data)
        copy = _plain(data, task_id)
        with self._lock:
            self._tasks[task_id] = copy


    def to_dict(self) -> dict[str, Plain]:
        """Plain, picklable, JSON-safe state: what the glue keeps in ``cat.working_memory``."""
        with self._lock:
            return {"version": FORMAT_VERSION, "tasks": _plain(self._tasks, "tasks")}

    @classmethod
    def from_dict(cls, data: Mapping[str, Plain], *, clock: Clock = _utc_now) -> Scratchpad:
        """Rebuild from ``to_dict()`` output; a damaged layout raises ScratchpadError."""
        if not isinstance(data, Mapping) or data.get("version") != FORMAT_VERSION:
            raise ScratchpadError(f"unknown scratchpad layout (version {_version_of(data)!r})")
        tasks = data.get("tasks")
        if not isinstance(tasks, Mapping):
            raise ScratchpadError("scratchpad layout has no 'tasks' mapping")
        pad = cls(clock=clock)
        for task_id, task in tasks.items():
            _check_task_layout(task_id, task)
            pad._tasks[task_id] = _plain(task, f"tasks.{task_id}")
        return pad

    # -- internals ----------------------------------------------------------------------------

    def _now(self) -> str:
        return self._clock().isoformat()

    def _task(self, task_id: str) -> dict[str, Plain]:
        task = self._tasks.get(task_id)
        if task is None:
            raise TaskNotFound(
                f"no scratchpad task {task_id!r}; open tasks: {list(self._tasks)}"
            )
        return task

    def _write(self, task_id: str, key: str, value: Plain, now: str) -> None:
        task = self._tasks[task_id]
        entry = task["values"].get(key)
        action = "refine" if entry is not None else "set"
        revisions = entry["revisions"] + 1 if entry is not None else 1
        task["values"][key] = {"value": value, "updated": now, "revisions": revisions}
        task["log"].append({"time": now, "key": key, "action": action, "preview": _preview(value)})
        del task["log"][:-MAX_LOG_ENTRIES]

    def _archive(self, sink: Plain, task_id: str, key: str, value: Plain) -> Plain:
        body = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        text = f"{key}: {body}"
        metadata = {"source": "scratchpad", "task_id": task_id, "key": key,
                    "archived_at": self._now()}
        if hasattr(sink, "add_memory"):
            return sink.add_memory(text, metadata=metadata)
        return sink(text, metadata)


def _version_of(data: object) -> object:
    return data.get("version") if isinstance(data, Mapping) else type(data).__name__


def _check_task_layout(task_id: object, task: object) -> None:
    ok = (
        isinstance(task_id, str)
        and isinstance(task, Mapping)
        and isinstance(task.get("values"), Mapping)
        and isinstance(task.get("log"), list)
        and all(
            isinstance(e, Mapping) and {"value", "updated", "revisions"} <= set(e)
            for e in task["values"].values()
        )
    )
    if not ok:
        raise ScratchpadError(f"scratchpad task {task_id!r} has a damaged layout")

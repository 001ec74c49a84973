"""Crash-isolated parsing: a small pool of worker processes with per-file time limits.

libcst segfaults on deeply nested input and some inputs take minutes; a parser must never
take the Cat down or stall an index run. Each worker is a ``python -c`` child (fork+exec,
safe from a multi-threaded host) that mounts the plugin root under a private name, so it
works under pytest and inside the Cat alike. Files go in batches; results come back one
frame per file, in order, so when a worker dies or overruns its time the culprit is the
first file without a result: it is reported (``error:worker_crashed`` / ``error:timeout``),
the worker is replaced, and the rest of the batch goes on.
"""

from __future__ import annotations

import json
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ..errors import BackendUnavailable
from .entities import FileExtraction, error
from .lifeline import launch
from .safety import Limits
from .wire import ChannelClosed, ChannelTimeout, FrameReader, WorkerSettings, write_frame

if TYPE_CHECKING:  # typing only: Unpack is in typing from 3.11
    from typing_extensions import Unpack

_PLUGIN_ROOT = str(Path(__file__).resolve().parents[2])
#: The package name a parser worker imports the plugin under: on its command line, it tells the
#: plugin's children apart when they must be stopped (app/process.py, ``CHILD_MARKERS``).
EXTRACT_WORKER_MARKER = "_codemem_extract_worker"
_BOOTSTRAP = (
    "import importlib, importlib.machinery, importlib.util, sys\n"
    "root, alias = sys.argv[1], sys.argv[2]\n"
    "spec = importlib.machinery.ModuleSpec(alias, None, is_package=True)\n"
    "spec.submodule_search_locations = [root]\n"
    "sys.modules[alias] = importlib.util.module_from_spec(spec)\n"
    "importlib.import_module(alias + '.memory.extract.worker').main()\n"
)


class WorkerUnavailable(BackendUnavailable):
    """A parsing worker could not be started (broken interpreter or missing parser packages)."""


@dataclass
class PoolStats:
    """Counters for the index report and the benchmark."""

    files: int = 0
    crashes: int = 0
    timeouts: int = 0
    restarts: int = 0


@dataclass(frozen=True)
class PoolConfig:
    """Settings of an ``ExtractionPool`` (see there)."""

    workers: int = 2
    python_engine: str = "treesitter"
    limits: Limits = field(default_factory=Limits)
    file_timeout: float = 10.0
    startup_timeout: float = 60.0
    batch_files: int = 64
    batch_bytes: int = 2 << 20
    memory_limit: int | None = 2 << 30
    test_faults: dict[str, str] | None = None


class PoolOverrides(TypedDict, total=False):
    """Keyword overrides of ``ExtractionPool(...)``: any ``PoolConfig`` field."""

    workers: int
    python_engine: str
    limits: Limits
    file_timeout: float
    startup_timeout: float
    batch_files: int
    batch_bytes: int
    memory_limit: int | None
    test_faults: dict[str, str] | None


#: A batch of ``(path_rel, bytes)`` for one worker; None tells a slot thread to stop.
_Batch = list[tuple[str, bytes]] | None
#: What a slot thread reports: a result, the exception that stopped it, or None when done.
_Outcome = FileExtraction | BaseException | None


class _Worker:
    """One child process and its framed pipes."""

    def __init__(self, config: PoolConfig) -> None:
        # Started from the launcher thread: the worker's parent-death signal (lifeline.py)
        # then fires when this process dies, not when the calling thread ends.
        self.proc = launch(lambda: subprocess.Popen(
            [sys.executable, "-c", _BOOTSTRAP, _PLUGIN_ROOT, EXTRACT_WORKER_MARKER,
             str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=_PLUGIN_ROOT,
            close_fds=True,
            start_new_session=True,
        ))
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.reader = FrameReader(self.proc.stdout.fileno())
        settings: WorkerSettings = {
            "engine": config.python_engine,
            "limits": asdict(config.limits),
            "memory_limit": config.memory_limit,
            "test_faults": config.test_faults,
        }
        try:
            write_frame(self.proc.stdin, pickle.dumps(settings))
            self.reader.read(config.startup_timeout)  # the READY frame
        except BaseException:
            self.kill()
            raise

    def send(self, batch: list[tuple[str, bytes]]) -> None:
        assert self.proc.stdin is not None
        write_frame(self.proc.stdin, pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))

    def death_detail(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "worker stopped answering"
        if code < 0:
            try:
                return f"worker killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"worker killed by signal {-code}"
        return f"worker exited with status {code}"

    def kill(self, close_pipes: bool = True) -> None:
        """Kill the worker's process group; ``close_pipes=False`` leaves the pipes to the slot
        thread still reading them (it sees end-of-file and closes them itself)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        self.proc.wait()
        if not close_pipes:
            return
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def ask_to_stop(self) -> None:
        """Send the end-of-work frame and close stdin: an idle worker exits at once."""
        try:
            if self.proc.stdin is not None:
                write_frame(self.proc.stdin, b"")
                self.proc.stdin.close()
        except (OSError, ValueError):
            pass

    def stop(self, deadline: float, close_pipes: bool) -> None:
        """Wait for the worker until ``deadline`` (``time.monotonic``), then kill it."""
        try:
            self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        self.kill(close_pipes)


class ExtractionPool:
    """Runs ``extract_file`` in worker processes; reusable across calls, close it when done.

    ``extract(items)`` takes ``(path_rel, bytes)`` pairs (any iterable, consumed lazily on a
    feeder thread) and yields one ``FileExtraction`` per item as results arrive (not in
    input order). One ``extract`` call at a time per pool.
    """

    def __init__(
        self, config: PoolConfig | None = None, **overrides: Unpack[PoolOverrides]
    ) -> None:
        self.config = replace(config or PoolConfig(), **overrides)
        if self.config.workers < 1:
            raise ValueError("an ExtractionPool needs at least one worker")
        self.stats = PoolStats()
        self._workers: list[_Worker | None] = [None] * self.config.workers
        self._lock = threading.Lock()
        self._closed = False

    def __enter__(self) -> ExtractionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, grace: float = 0.5) -> None:
        """Stop every worker within ``grace`` seconds, killing any still busy (idempotent).

        A worker is never started again after this, even by an ``extract`` still running.
        """
        self._closed = True
        in_use = self._lock.locked()  # an extract() is running: its threads own the pipes
        workers = [w for w in self._workers if w is not None]
        self._workers = [None] * len(self._workers)
        for worker in workers:
            if not in_use:
                worker.ask_to_stop()
        deadline = time.monotonic() + (0.0 if in_use else grace)  # busy ones: kill at once
        for worker in workers:
            worker.stop(deadline, close_pipes=not in_use)

    def extract(self, items: Iterable[tuple[str, bytes]]) -> Iterator[FileExtraction]:
        """Extract every item in the workers; yields results as they complete."""
        if self._closed:
            raise RuntimeError("ExtractionPool is closed")
        with self._lock:
            yield from self._run(items)

    def _run(self, items: Iterable[tuple[str, bytes]]) -> Iterator[FileExtraction]:
        batches: queue.Queue[_Batch] = queue.Queue(maxsize=self.config.workers * 2)
        results: queue.Queue[_Outcome] = queue.Queue()
        feeder = threading.Thread(target=self._feed, args=(items, batches, results), daemon=True)
        slots = [
            threading.Thread(target=self._serve, args=(i, batches, results), daemon=True)
            for i in range(self.config.workers)
        ]
        feeder.start()
        for slot in slots:
            slot.start()
        running = len(slots)
        while running:
            item = results.get()
            if item is None:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                self.stats.files += 1
                yield item
        feeder.join()

    def _feed(
        self,
        items: Iterable[tuple[str, bytes]],
        batches: queue.Queue[_Batch],
        results: queue.Queue[_Outcome],
    ) -> None:
        batch: list[tuple[str, bytes]] = []
        size = 0
        try:
            for path, data in items:
                batch.append((path, data))
                size += len(data)
                if len(batch) >= self.config.batch_files or size >= self.config.batch_bytes:
                    batches.put(batch)
                    batch, size = [], 0
            if batch:
                batches.put(batch)
        except BaseException as exc:  # surfaced to the caller from extract()
            results.put(exc)
        finally:
            for _ in range(self.config.workers):
                batches.put(None)

    def _serve(
        self, slot: int, batches: queue.Queue[_Batch], results: queue.Queue[_Outcome]
    ) -> None:
        try:
            while True:
                batch = batches.get()
                if batch is None:
                    return
                self._run_batch(slot, batch, results)
        except BaseException as exc:  # crash boundary of the slot thread: report, don't hang
            results.put(exc)
        finally:
            results.put(None)

    def _worker(self, slot: int) -> _Worker:
        if self._closed:
            raise WorkerUnavailable("the parsing pool was closed (the Cat is shutting down)")
        worker = self._workers[slot]
        if worker is None or worker.proc.poll() is not None:
            if worker is not None:
                worker.kill()
                self.stats.restarts += 1
            try:
                worker = _Worker(self.config)
            except (ChannelClosed, ChannelTimeout, OSError) as exc:
                raise WorkerUnavailable(
                    f"parsing worker did not start ({type(exc).__name__}); "
                    f"interpreter {sys.executable}"
                ) from exc
            self._workers[slot] = worker
        return worker

    def _run_batch(
        self, slot: int, batch: list[tuple[str, bytes]], results: queue.Queue[_Outcome]
    ) -> None:
        remaining = batch
        while remaining:
            worker = self._worker(slot)
            try:
                worker.send(remaining)
            except OSError:
                worker.kill()
                self._workers[slot] = None
                continue
            done = 0
            for path, data in remaining:
                try:
                    payload = worker.reader.read(self.config.file_timeout)
                except ChannelTimeout:
                    worker.kill()
                    self.stats.timeouts += 1
                    detail = f"no result within {self.config.file_timeout:g} s; worker replaced"
                    results.put(_failed(path, data, error("timeout"), detail))
                except ChannelClosed:
                    worker.kill()
                    self.stats.crashes += 1
                    detail = f"{worker.death_detail()} while parsing; worker replaced"
                    results.put(_failed(path, data, error("worker_crashed"), detail))
                else:
                    results.put(FileExtraction.from_dict(json.loads(payload)))
                    done += 1
                    continue
                self._workers[slot] = None
                self.stats.restarts += 1
                done += 1
                break
            remaining = remaining[done:]


def _failed(path: str, data: bytes, status: str, detail: str) -> FileExtraction:
    from .entities import sha256_hex
    from .languages import detect_language

    return FileExtraction(
        path=path, status=status, detail=detail, language=detect_language(path),
        file_hash=sha256_hex(data), size=len(data),
    )


"""One launch of the sandbox launcher: start, watch (wall clock, disk quota), stop, classify.

Split from ``sandbox.py`` (the public entry point, plan and policy) to keep both small. Runs in
the Cat; the untrusted side is ``boot.py``.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from ..vocabulary import Vocabulary
from .env import hunt_leftovers
from .protect import HOW_TO, Protections
from .watch import kill_uid

if TYPE_CHECKING:  # the launcher's own types; it is never imported by the Cat
    from .boot_types import LauncherConfig

#: One JSON line of the launcher's status pipe (``json.loads`` of what the launcher wrote: its
#: values are checked where they are read).
StatusLine = dict[str, Any]

#: The launcher, run by path: on a command line it tells the sandboxes among the plugin's
#: children when they must be stopped (app/process.py, ``CHILD_MARKERS``).
SANDBOX_LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot.py")


class RunStatus(Vocabulary):
    """How a sandboxed run ended: the one vocabulary of run outcomes (a ``str``, so it compares
    and serialises as its value)."""

    #: exit status 0
    OK = "ok"
    #: a non-zero exit status
    FAILED = "failed"
    #: the wall-clock timeout
    TIMEOUT = "timeout"
    #: a signal: the CPU or memory limit, or the disk quota
    KILLED = "killed"
    #: the sandbox could not or would not run the command (``SandboxResult.error`` says why,
    #: e.g. a missing protection)
    ERROR = "error"


@dataclass(frozen=True)
class SandboxResult:
    """How one sandboxed run ended; paths inside the temp dir are shown relative to it."""

    status: RunStatus
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    protections: Protections = field(default_factory=Protections)
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    #: Why the sandbox failed (``status == "error"``) or extra facts about the end of the run.
    error: str = ""
    #: Files asked for with ``collect=`` and read back safely (regular files only, capped).
    collected: dict[str, str] = field(default_factory=dict)
    #: Processes the run left behind, found and killed after it ended.
    leftovers_killed: int = 0
    #: Largest disk use seen by the quota watcher (bytes).
    disk_peak: int = 0

    def __post_init__(self) -> None:  # a status given as its text ("ok") is read, a typo refused
        object.__setattr__(self, "status", RunStatus(self.status))

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.OK

    def summary(self) -> str:
        """One line without the temp dir path, for logs and LLM feedback."""
        parts = [f"status={self.status}", f"rc={self.returncode}", f"{self.duration_s:.2f}s",
                 self.protections.summary()]
        if self.error:
            parts.append(f"error={self.error}")
        return " ".join(parts)


def error_result(message: str, protections: Protections | None = None) -> SandboxResult:
    return SandboxResult(status=RunStatus.ERROR, returncode=None, stdout="", stderr="",
                         duration_s=0.0, error=message, protections=protections or Protections())


@dataclass(frozen=True)
class Launch:
    """What ``execute`` needs besides the launcher's config."""

    env: dict[str, str]
    work: str
    marker: str
    timeout_s: float
    output_cap: int
    grace_s: float
    uid: int | None


def execute(cfg: LauncherConfig, launch: Launch) -> SandboxResult:
    """Start the launcher, watch it, then make sure nothing of the run survives."""
    status_r, status_w = os.pipe()
    sent: LauncherConfig = {**cfg, "status_fd": status_w, "parent_pid": os.getpid()}
    argv = [sent.pop("python"), "-I", "-S", SANDBOX_LAUNCHER, json.dumps(sent)]
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=launch.work, env=launch.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                pass_fds=(status_w,), close_fds=True)
    except OSError as err:
        os.close(status_r)
        return error_result(f"cannot start the sandbox launcher: {err}")
    finally:
        os.close(status_w)
    readers = (_Reader(proc.stdout, launch.output_cap), _Reader(proc.stderr, launch.output_cap))
    timed_out = not _wait_exit(proc, launch.timeout_s)
    if timed_out:
        _stop(proc, launch.grace_s)
    lines = _read_status(status_r)
    leftovers = _sweep(launch, lines)
    for reader in readers:
        reader.join(2.0)
    return _classify(proc.returncode, readers, lines, timed_out, time.monotonic() - started,
                     leftovers)


def _wait_exit(proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """True when the launcher ended within ``timeout_s``. A pidfd wakes us the moment it
    exits (``Popen.wait`` polls with sleeps of up to 50 ms, a cost paid by every run)."""
    try:
        handle = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        handle = None
    if handle is not None:
        try:
            poller = select.poll()
            poller.register(handle, select.POLLIN)
            poller.poll(max(0, int(timeout_s * 1000)))
        finally:
            os.close(handle)
    try:
        proc.wait(timeout=0 if handle is not None else timeout_s)
        return True
    except subprocess.TimeoutExpired:
        return False


def _stop(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM the group (the supervisor then kills its whole tree), SIGKILL after ``grace``."""
    _killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    _killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _sweep(launch: Launch, lines: list[StatusLine]) -> int:
    """Kill what the supervisor could not: every process of the run's uid, or (no uid of its
    own) every process carrying the run's marker."""
    reaped = sum(int(line.get("reaped", 0)) for line in lines)
    if launch.uid is not None:
        return reaped + kill_uid(launch.uid)
    return reaped + hunt_leftovers(launch.marker, None)


def refusal(protections: Protections, missing: list[str]) -> str:
    """The message for a run refused by policy: what is missing, why, how to enable it."""
    return (f"refusing to run generated code without these sandbox protections: "
            f"{protections.explain(missing)}. Enable them ({HOW_TO}) or choose a weaker "
            "sandbox policy in the settings.")


def _read_status(fd: int) -> list[StatusLine]:
    """The launcher's JSON lines (setup report, exec error, how the command ended)."""
    chunks = []
    os.set_blocking(fd, False)
    try:
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(fd)
    lines: list[StatusLine] = []
    for line in b"".join(chunks).decode("utf-8", "replace").splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            continue
    return lines


def _classify(rc: int | None, readers: tuple[_Reader, _Reader], lines: list[StatusLine],
              timed_out: bool, duration: float, leftovers: int) -> SandboxResult:
    merged: StatusLine = {}
    for line in lines:
        merged.update(line)
    protections = Protections.from_setup(merged.get("setup"))
    status, error = _status_for(rc, merged, timed_out, protections)
    if "exit_signal" in merged:
        rc = -int(merged["exit_signal"])
    elif "exit_code" in merged:
        rc = int(merged["exit_code"])
    out, err = readers
    return SandboxResult(status=status, returncode=rc, stdout=out.text(), stderr=err.text(),
                         duration_s=round(duration, 3), protections=protections,
                         stdout_truncated=out.truncated, stderr_truncated=err.truncated,
                         error=error, leftovers_killed=leftovers,
                         disk_peak=int(merged.get("disk_peak", 0)))


def _status_for(rc: int | None, merged: StatusLine, timed_out: bool,
                protections: Protections) -> tuple[RunStatus, str]:
    if timed_out:
        return RunStatus.TIMEOUT, "wall-clock timeout"
    if merged.get("quota"):
        return RunStatus.KILLED, str(merged["quota"])
    setup = merged.get("setup") or {}
    if setup.get("refused"):
        return RunStatus.ERROR, refusal(protections, list(setup["refused"]))
    if "setup_error" in merged:
        return RunStatus.ERROR, ("the sandbox could not set up its protections: "
                                 f"{merged['setup_error']}")
    if "exec_error" in merged:
        return RunStatus.ERROR, f"cannot execute the command: {merged['exec_error']}"
    if not setup:
        return RunStatus.ERROR, "the sandbox launcher failed before running the command"
    if "exit_signal" in merged or (rc is not None and rc < 0):
        sig = int(merged.get("exit_signal", -(rc or 0)))
        return RunStatus.KILLED, f"killed by signal {_signame(sig)}"
    if rc == 0:
        return RunStatus.OK, ""
    return RunStatus.FAILED, ""


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


class _Reader:
    """Drains one pipe in a thread, keeping at most ``cap`` bytes (the rest is counted)."""

    def __init__(self, pipe: IO[bytes] | None, cap: int) -> None:
        assert pipe is not None
        self._pipe = pipe
        self._cap = cap
        self._chunks: list[bytes] = []
        self._kept = 0
        self.total = 0
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        fd = self._pipe.fileno()
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.total += len(data)
            room = self._cap - self._kept
            if room > 0:
                self._chunks.append(data[:room])
                self._kept += min(room, len(data))

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._pipe.close()

    @property
    def truncated(self) -> bool:
        return self.total > self._kept

    def text(self) -> str:
        text = b"".join(self._chunks).decode("utf-8", "replace")
        if self.truncated:
            text += f"\n[... output truncated: {self.total - self._kept} more bytes dropped]"
        return text

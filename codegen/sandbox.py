"""Run untrusted generated code (drafts, tests) in a throw-away, locked-down subprocess.

Why this shape: the Cat is a multi-threaded server running as root, so isolation must be set up
in a fresh process (``sandbox_boot.py``, executed by path) rather than with ``preexec_fn``; and
the host may or may not allow namespaces, so every layer is tried, and what was achieved is
reported in :class:`Isolation` with each result instead of being assumed. See
the README section "Validating drafts and the sandbox" for the layers and their limits.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field, replace

from .sandbox_env import (
    SANDBOX_MARKER,
    HostPlan,
    Isolation,
    base_prefix,
    build_env,
    host_plan,
    hunt_leftovers,
    prepare_workdir,
    read_back,
    sweep_stale,
)

#: Captured stdout/stderr are cut at this many bytes by default (the rest is drained, counted).
OUTPUT_CAP = 1024 * 1024
STATUSES = ("ok", "failed", "timeout", "killed", "error")
_BOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox_boot.py")


@dataclass(frozen=True)
class SandboxResult:
    """How one sandboxed run ended; paths inside the temp dir are shown relative to it."""

    #: ``ok`` (exit 0), ``failed`` (exit != 0), ``timeout`` (wall clock), ``killed`` (a signal,
    #: e.g. the CPU or memory limit), ``error`` (the sandbox itself could not run the command).
    status: str
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    isolation: Isolation = field(default_factory=Isolation)
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    #: Why the sandbox failed (``status == "error"``) or extra facts about the end of the run.
    error: str = ""
    #: Files asked for with ``collect=`` and read back safely (regular files only, capped).
    collected: dict[str, str] = field(default_factory=dict)
    #: Escaped descendants found and killed after the run (0 with a pid namespace).
    leftovers_killed: int = 0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def summary(self) -> str:
        """One line without the temp dir path, for logs and LLM feedback."""
        parts = [f"status={self.status}", f"rc={self.returncode}", f"{self.duration_s:.2f}s",
                 self.isolation.summary()]
        if self.error:
            parts.append(f"error={self.error}")
        return " ".join(parts)


@dataclass(frozen=True)
class _Run:
    """Internal: the launched process and its readers."""

    proc: subprocess.Popen
    readers: tuple
    status_r: int
    started: float


def run_in_sandbox(files: dict[str, str], argv: list[str], *, timeout_s: float, memory_mb: int,
                   cpu_s: float | None = None, file_size_mb: int = 64, max_open_files: int = 256,
                   max_procs: int = 64, env: dict[str, str] | None = None,
                   output_cap: int = OUTPUT_CAP, namespaces: bool = True,
                   drop_uid: bool = True, collect: tuple[str, ...] = (),
                   kill_grace_s: float = 0.3, require: Collection[str] = ()) -> SandboxResult:
    """Run ``argv`` in a fresh temp dir holding ``files``; never raises for the command's faults.

    ``argv[0] == "python"`` means the Cat's own interpreter. ``namespaces=False`` forces the
    fallback (socket guard, no pid namespace) and ``drop_uid=False`` keeps root: both exist to
    test the weaker layers. ``collect`` names files to read back (e.g. a JUnit XML).
    ``require`` lists layers (keys of ``REQUIREMENTS``) without which nothing runs.
    """
    if not argv or not all(isinstance(a, str) for a in argv):
        return _error("argv must be a non-empty list of strings")
    plan, probed = _plan(drop_uid, namespaces)
    missing = missing_requirements(probed, require)
    if missing:
        return replace(_error(f"sandbox isolation unavailable on this host: {', '.join(missing)}"
                              "; refusing to run generated code"), isolation=probed)
    base = tempfile.mkdtemp(prefix=base_prefix())
    try:
        try:
            work, guard = prepare_workdir(base, files, plan.uid)
        except (ValueError, OSError) as err:
            return _error(f"cannot write the sandbox files: {err}")
        marker = uuid.uuid4().hex
        child_env, dropped = build_env(work, guard, marker, env or {})
        cfg = plan.launcher_config(base, work, argv, memory_mb=memory_mb,
                                   cpu_s=cpu_s if cpu_s is not None else int(timeout_s) + 2,
                                   fsize_mb=file_size_mb, nofile=max_open_files,
                                   nproc=max_procs, namespaces=namespaces)
        result = _execute(cfg, child_env, work, marker, timeout_s, output_cap, kill_grace_s)
        collected = read_back(work, collect, output_cap)
        iso = result.isolation.with_notes(dropped)
        return _replace(result, isolation=iso, collected=collected, work=work)
    finally:
        shutil.rmtree(base, ignore_errors=True)


_PLANS: dict[tuple[bool, bool], tuple[HostPlan, Isolation]] = {}
_PLAN_LOCK = threading.Lock()
#: Isolation layers a caller can demand with ``require=`` (fail closed when one is missing).
REQUIREMENTS = {
    "uid_drop": lambda iso: iso.uid_dropped,
    "network_namespace": lambda iso: iso.network == "namespace",
    "pid_namespace": lambda iso: iso.pid_namespace,
    "mount_namespace": lambda iso: iso.mount_namespace,
}


def sandbox_capabilities(*, namespaces: bool = True, drop_uid: bool = True) -> Isolation:
    """What a run on this host achieves (measured once by a real probe run, then cached)."""
    return _plan(drop_uid, namespaces)[1]


def missing_requirements(iso: Isolation, require: Collection[str]) -> list[str]:
    unknown = [r for r in require if r not in REQUIREMENTS]
    if unknown:
        raise ValueError(f"unknown sandbox requirements {unknown}; known: {sorted(REQUIREMENTS)}")
    return [r for r in require if not REQUIREMENTS[r](iso)]


def _plan(drop_uid: bool, namespaces: bool) -> tuple[HostPlan, Isolation]:
    """The host plan, probed once: if the dropped uid cannot start the interpreter, keep root.

    The probe is a real sandboxed ``python -c`` run, so the decision is measured, not guessed
    from permission bits (reported in ``Isolation.notes``).
    """
    key = (drop_uid, namespaces)
    with _PLAN_LOCK:
        if key in _PLANS:
            return _PLANS[key]
        sweep_stale(tempfile.gettempdir())
        plan = host_plan(drop_uid)
        probe = _probe(plan, namespaces)
        if plan.uid is not None and not (probe.ok and probe.isolation.uid_dropped):
            reason = (probe.stderr or probe.error or "no uid drop").strip()[-300:]
            plan = plan.without_uid(f"uid drop probe failed, running as root: {reason}")
            probe = _probe(plan, namespaces)
        _PLANS[key] = (plan, probe.isolation.with_notes(plan.notes))
        return _PLANS[key]


def _probe(plan: HostPlan, namespaces: bool) -> SandboxResult:
    base = tempfile.mkdtemp(prefix=base_prefix(probe=True))
    try:
        work, guard = prepare_workdir(base, {}, plan.uid)
        env, _ = build_env(work, guard, uuid.uuid4().hex, {})
        cfg = plan.launcher_config(base, work, ["python", "-c", "import encodings, json"],
                                   memory_mb=512, cpu_s=10, fsize_mb=8, nofile=64, nproc=64,
                                   namespaces=namespaces)
        return _execute(cfg, env, work, env[SANDBOX_MARKER], 20.0, 65536, 0.3)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _execute(cfg: dict, env: dict[str, str], work: str, marker: str, timeout_s: float,
             cap: int, grace: float) -> SandboxResult:
    """Start the launcher, wait with a wall-clock limit, then make sure nothing survives."""
    status_r, status_w = os.pipe()
    cfg = dict(cfg, status_fd=status_w, parent_pid=os.getpid())
    argv = [cfg.pop("python"), "-I", "-S", _BOOT, json.dumps(cfg)]
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, pass_fds=(status_w,), close_fds=True)
    except OSError as err:
        os.close(status_r)
        return _error(f"cannot start the sandbox launcher: {err}")
    finally:
        os.close(status_w)
    run = _Run(proc, (_Reader(proc.stdout, cap), _Reader(proc.stderr, cap)), status_r, started)
    timed_out = _wait(run, timeout_s, grace)
    status_lines = _read_status(status_r)
    _await_namespace_end(status_lines)
    leftovers = hunt_leftovers(marker, cfg.get("drop_uid"))
    for reader in run.readers:
        reader.join(2.0)
    duration = time.monotonic() - started
    return _classify(run, status_lines, timed_out, duration, leftovers)


def _await_namespace_end(lines: list[dict], limit_s: float = 2.0) -> None:
    """Give the kernel time to tear a dead pid namespace down before hunting for escapers."""
    pids = [int(line["child_pid"]) for line in lines if "child_pid" in line]
    deadline = time.monotonic() + limit_s
    for pid in pids:
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.01)


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _wait(run: _Run, timeout_s: float, grace: float) -> bool:
    """Wait for the launcher; on timeout TERM then KILL its group. Returns True on timeout."""
    try:
        run.proc.wait(timeout=timeout_s)
        return False
    except subprocess.TimeoutExpired:
        pass
    _killpg(run.proc.pid, signal.SIGTERM)
    try:
        run.proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    _killpg(run.proc.pid, signal.SIGKILL)
    run.proc.wait()
    return True


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _read_status(fd: int) -> list[dict]:
    """The launcher's JSON lines (setup report, exec error, how pid 1 ended)."""
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
    lines = []
    for line in b"".join(chunks).decode("utf-8", "replace").splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            continue
    return lines


def _classify(run: _Run, lines: list[dict], timed_out: bool, duration: float,
              leftovers: int) -> SandboxResult:
    merged: dict = {}
    for line in lines:
        merged.update(line)
    iso = Isolation.from_setup(merged.get("setup"))
    rc = run.proc.returncode
    status, error = _status_for(rc, merged, timed_out)
    if "exit_signal" in merged:
        rc = -int(merged["exit_signal"])
    elif "exit_code" in merged:
        rc = int(merged["exit_code"])
    out, err = run.readers
    return SandboxResult(status=status, returncode=rc, stdout=out.text(), stderr=err.text(),
                         duration_s=round(duration, 3), isolation=iso,
                         stdout_truncated=out.truncated, stderr_truncated=err.truncated,
                         error=error, leftovers_killed=leftovers)


def _status_for(rc: int | None, merged: dict, timed_out: bool) -> tuple[str, str]:
    if timed_out:
        return "timeout", "wall-clock timeout"
    if "exec_error" in merged:
        return "error", f"cannot execute the command: {merged['exec_error']}"
    if "setup" not in merged:
        return "error", "the sandbox launcher failed before running the command"
    if "exit_signal" in merged or (rc is not None and rc < 0):
        sig = int(merged.get("exit_signal", -(rc or 0)))
        return "killed", f"killed by signal {_signame(sig)}"
    if rc == 0:
        return "ok", ""
    return "failed", ""


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def _replace(result: SandboxResult, *, isolation: Isolation, collected: dict[str, str],
             work: str) -> SandboxResult:
    """Attach isolation and collected files; show temp paths relative to the sandbox dir."""
    def rel(text: str) -> str:
        return text.replace(work + "/", "").replace(work, ".")

    return SandboxResult(
        status=result.status, returncode=result.returncode, stdout=rel(result.stdout),
        stderr=rel(result.stderr), duration_s=result.duration_s, isolation=isolation,
        stdout_truncated=result.stdout_truncated, stderr_truncated=result.stderr_truncated,
        error=rel(result.error), collected={k: rel(v) for k, v in collected.items()},
        leftovers_killed=result.leftovers_killed)


def _error(message: str) -> SandboxResult:
    return SandboxResult(status="error", returncode=None, stdout="", stderr="", duration_s=0.0,
                         error=message)


class _Reader:
    """Drains one pipe in a thread, keeping at most ``cap`` bytes (the rest is counted)."""

    def __init__(self, pipe, cap: int) -> None:
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

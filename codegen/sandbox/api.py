"""Run untrusted generated code (drafts, tests) in a throw-away, locked-down subprocess.

Why this shape: the Cat is a multi-threaded server running as root, so isolation is set up in a
fresh process (``boot.py``, executed by path) rather than with ``preexec_fn``; and the
shipped deployment is Docker without CAP_SYS_ADMIN (no namespaces), so the protections that must
hold there use only what an unprivileged process has: Landlock for files, seccomp for the
network and the host's processes, a uid of the run's own, rlimits, a subreaper supervisor and a
disk watcher. Namespaces are added where the host allows them. What each run achieved is
reported in :class:`Protections`, measured once by a probe that tries to break out, and the
caller's policy decides whether generated code may run without a missing protection (default:
never without file and network isolation; never as root, whatever the policy).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Collection
from dataclasses import dataclass

from .env import (
    HostPlan,
    base_prefix,
    build_env,
    host_plan,
    prepare_workdir,
    read_back,
    sweep_stale,
)
from .protect import DEFAULT_POLICY, Protection, Protections, SandboxPolicy
from .run import Launch, SandboxResult, error_result, execute, refusal
from .watch import UidLease, kill_uid

__all__ = ["OUTPUT_CAP", "Protections", "SandboxPolicy", "SandboxResult", "run_in_sandbox",
           "sandbox_capabilities"]

#: Captured stdout/stderr are cut at this many bytes by default (the rest is drained, counted).
OUTPUT_CAP = 1024 * 1024
#: Default total disk use of one run's workspace (MiB).
DISK_MB = 512
STATUSES = ("ok", "failed", "timeout", "killed", "error")


def run_in_sandbox(files: dict[str, str], argv: list[str], *, timeout_s: float, memory_mb: int,
                   cpu_s: float | None = None, file_size_mb: int = 64, max_open_files: int = 256,
                   max_procs: int = 64, disk_mb: int = DISK_MB,
                   env: dict[str, str] | None = None, output_cap: int = OUTPUT_CAP,
                   namespaces: bool = True, collect: tuple[str, ...] = (),
                   kill_grace_s: float = 0.3,
                   require: SandboxPolicy | Collection[str] = DEFAULT_POLICY
                   ) -> SandboxResult:
    """Run ``argv`` in a fresh temp dir holding ``files``; never raises for the command's faults.

    ``argv[0] == "python"`` means the Cat's own interpreter. ``require`` is a policy or the
    names of the protections (``Protections`` fields) without which nothing runs: the result is
    then ``status="error"`` naming what is missing and how to enable it. ``namespaces=False``
    imitates a host without namespaces (Docker's default). ``collect`` names files to read
    back (e.g. a JUnit XML).
    """
    if not argv or not all(isinstance(a, str) for a in argv):
        return error_result("argv must be a non-empty list of strings")
    required = _required(require)
    plan, probed = _plan(namespaces)
    missing = probed.missing(required)
    if not probed.unprivileged.active:
        missing.append("unprivileged")
    if missing:
        return error_result(refusal(probed, missing), probed)
    lease = UidLease(plan.uids) if plan.uids is not None else None
    try:
        uid = lease.acquire() if lease else None
    except OSError as err:
        return error_result(f"cannot reserve a uid for the run: {err}", probed)
    try:
        return _run(plan, files, argv, uid, required, namespaces, _Options(
            timeout_s=timeout_s, memory_mb=memory_mb, cpu_s=cpu_s, fsize_mb=file_size_mb,
            nofile=max_open_files, nproc=max_procs, disk_mb=disk_mb, env=env or {},
            output_cap=output_cap, collect=collect, grace=kill_grace_s))
    finally:
        if lease is not None:
            if uid is not None:
                kill_uid(uid)
            lease.release()


def _required(require: SandboxPolicy | Collection[str]) -> tuple[str, ...]:
    if isinstance(require, SandboxPolicy):
        return require.required()
    if isinstance(require, str):
        return SandboxPolicy(require).required()
    names = tuple(require)
    Protections().missing(names)  # raises ValueError on an unknown name
    return names


@dataclass(frozen=True)
class _Options:
    """The limits and options of one run, as ``run_in_sandbox`` received them."""

    timeout_s: float
    memory_mb: int
    cpu_s: float | None
    fsize_mb: int
    nofile: int
    nproc: int
    disk_mb: int
    env: dict[str, str]
    output_cap: int
    collect: tuple[str, ...]
    grace: float


def _run(plan: HostPlan, files: dict[str, str], argv: list[str], uid: int | None,
         required: tuple[str, ...], namespaces: bool, opts: _Options) -> SandboxResult:
    base = tempfile.mkdtemp(prefix=base_prefix())
    try:
        try:
            work, guard = prepare_workdir(base, files, uid)
        except (ValueError, OSError) as err:
            return error_result(f"cannot write the sandbox files: {err}")
        marker = uuid.uuid4().hex
        child_env, dropped = build_env(work, guard, marker, opts.env)
        cpu_s = opts.cpu_s if opts.cpu_s is not None else int(opts.timeout_s) + 2
        cfg = plan.launcher_config(base, work, argv, uid=uid, namespaces=namespaces,
                                   require=required, disk_quota_mb=opts.disk_mb,
                                   memory_mb=opts.memory_mb, cpu_s=cpu_s,
                                   fsize_mb=opts.fsize_mb, nofile=opts.nofile,
                                   nproc=opts.nproc)
        result = execute(cfg, Launch(child_env, work, marker, opts.timeout_s,
                                     opts.output_cap, opts.grace, uid))
        collected = read_back(work, opts.collect, opts.output_cap)
        return _relative(result, result.protections.with_notes(dropped), collected, work)
    finally:
        shutil.rmtree(base, ignore_errors=True)


_PLANS: dict[bool, tuple[HostPlan, Protections]] = {}
UNVERIFIED = "could not be verified"
_PLAN_LOCK = threading.Lock()


def sandbox_capabilities(*, namespaces: bool = True) -> Protections:
    """What a run on this host achieves (measured once by a probe run, then cached)."""
    return _plan(namespaces)[1]


def _plan(namespaces: bool) -> tuple[HostPlan, Protections]:
    """The host plan and the protections a probe run actually achieved.

    Cached once the probe ran; a probe that could not run (a loaded machine, a full disk) is
    not cached, so the next run measures again instead of refusing until the Cat restarts.
    """
    with _PLAN_LOCK:
        if namespaces in _PLANS:
            return _PLANS[namespaces]
        sweep_stale(tempfile.gettempdir())
        plan = host_plan()
        found = _probe(plan, namespaces).with_notes(plan.notes)
        if not found.files.detail.startswith(UNVERIFIED):
            _PLANS[namespaces] = (plan, found)
        return plan, found


_PROBE = """import json, sys, _socket
out = {}
def attempt(name, action):
    try:
        action()
        out[name] = True
    except OSError:
        out[name] = False
attempt("read", lambda: open(sys.argv[1]).read())
attempt("write", lambda: open(sys.argv[2], "w").close())
attempt("socket", lambda: _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM).close())
print(json.dumps(out))
"""


def _probe(plan: HostPlan, namespaces: bool) -> Protections:
    """Run a program that tries to read and write outside its workspace and to open an
    Internet socket: a protection counts only if the attempt failed."""
    lease = UidLease(plan.uids) if plan.uids is not None else None
    try:
        uid = lease.acquire() if lease else None
    except OSError as err:
        unverified = Protection(False, f"{UNVERIFIED}: no uid for the probe run: {err}")
        return Protections(files=unverified, network=unverified)
    base = tempfile.mkdtemp(prefix=base_prefix(probe=True))
    try:
        outside, open_dir = os.path.join(base, "outside.txt"), os.path.join(base, "open")
        with open(outside, "w") as handle:
            handle.write("probe")
        os.chmod(outside, 0o644)
        os.mkdir(open_dir)
        os.chmod(open_dir, 0o1777)
        res = _run(plan, {"probe.py": _PROBE},
                   ["python", "probe.py", outside, os.path.join(open_dir, "x")], uid, (),
                   namespaces, _Options(timeout_s=20.0, memory_mb=512, cpu_s=10, fsize_mb=8,
                                        nofile=64, nproc=64, disk_mb=64, env={},
                                        output_cap=65536, collect=(), grace=0.3))
        return _verified(res)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        if lease is not None:
            if uid is not None:
                kill_uid(uid)
            lease.release()


def _verified(res: SandboxResult) -> Protections:
    found = res.protections
    try:
        seen = dict(json.loads(res.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        why = (res.error or res.stderr or res.status).strip()[-300:]
        unverified = Protection(False, f"{UNVERIFIED}: the probe run failed: {why}")
        return found.with_layer("files", unverified).with_layer("network", unverified)
    if seen.get("read") or seen.get("write"):
        found = found.with_layer("files", Protection(False, "the probe could "
                                 f"{'read' if seen.get('read') else 'write'} outside its "
                                 f"workspace ({found.files.detail})"))
    if seen.get("socket"):
        found = found.with_layer("network", Protection(False, "the probe could open an "
                                 f"Internet socket ({found.network.detail})"))
    return found


def _relative(result: SandboxResult, protections: Protections, collected: dict[str, str],
              work: str) -> SandboxResult:
    """Attach protections and collected files; show temp paths relative to the sandbox dir."""
    def rel(text: str) -> str:
        return text.replace(work + "/", "").replace(work, ".")

    return SandboxResult(
        status=result.status, returncode=result.returncode, stdout=rel(result.stdout),
        stderr=rel(result.stderr), duration_s=result.duration_s, protections=protections,
        stdout_truncated=result.stdout_truncated, stderr_truncated=result.stderr_truncated,
        error=rel(result.error), collected={k: rel(v) for k, v in collected.items()},
        leftovers_killed=result.leftovers_killed, disk_peak=result.disk_peak)

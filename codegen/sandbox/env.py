"""Host-side helpers of the sandbox: the plan for this host, the work dir, env, clean-up.

Split from ``sandbox.py`` to keep both small. Everything here runs in the Cat process (as root
in the Cat's image) and only touches the sandbox's own temp dir, except ``hunt_leftovers``
which scans ``/proc`` for processes carrying this run's marker.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from .watch import pids_of, uid_pool

if TYPE_CHECKING:  # the launcher's own types; it is never imported by the Cat
    from .boot_types import LauncherConfig, Mask

#: Env var set in every sandboxed process; ``hunt_leftovers`` finds escapers by its value.
SANDBOX_MARKER = "CWM_SANDBOX_ID"
#: Env names never passed to the sandbox, even when a caller asks for them.
SECRET_NAME = re.compile(r"(?i)key|secret|token|passw|CCAT_|OPENAI|ANTHROPIC")
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")
#: Read-only for every run (Landlock): the system's programs and libraries and the few files of
#: ``/etc`` that the dynamic loader, time zones and user lookups read. Nothing else of ``/etc``
#: (``shadow``), no ``/proc``, no ``/app`` (the Cat and its data), no home directories.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
               "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
               "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/alternatives")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
CAP_DAC_READ_SEARCH = 2
_PATH = "/usr/local/bin:/usr/bin:/bin"

GUARD_SOURCE = '''"""Sandbox socket guard (installed by codemem): a seatbelt, not a boundary."""
import socket as _socket

_LOCAL = {getattr(_socket, "AF_UNIX", -1)}


def _blocked(*_args, **_kwargs):
    raise OSError(13, "network access is disabled in the codemem sandbox")


def _wrap(name):
    original = getattr(_socket.socket, name)

    def guarded(self, *args, **kwargs):
        if self.family in _LOCAL:
            return original(self, *args, **kwargs)
        return _blocked()

    setattr(_socket.socket, name, guarded)


for _name in ("connect", "connect_ex", "sendto", "sendmsg", "bind"):
    if hasattr(_socket.socket, _name):
        _wrap(_name)
_socket.create_connection = _blocked
_socket.getaddrinfo = _blocked
'''


@dataclass(frozen=True)
class HostPlan:
    """Static facts about this host that shape every launch (computed once per process)."""

    python: str
    #: Uids a run may lease (None: the Cat is not root, runs keep the Cat's uid).
    uids: range | None
    #: Top-most ancestors of the interpreter other users cannot traverse -> paths to expose.
    blocked: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: The Cat holds CAP_DAC_READ_SEARCH, so a run may keep it to reach a blocked interpreter.
    reach_cap: bool = False
    notes: tuple[str, ...] = ()

    def launcher_config(self, base: str, work: str, argv: list[str], *, uid: int | None,
                        namespaces: bool, require: tuple[str, ...], disk_quota_mb: int,
                        memory_mb: int, cpu_s: float | None, fsize_mb: int, nofile: int,
                        nproc: int) -> LauncherConfig:
        """The JSON the launcher reads: resolved argv, limits, masks, rules, uid."""
        resolved = [self.python if argv[0] == "python" else argv[0], *argv[1:]]
        return {"memory_mb": memory_mb, "cpu_s": cpu_s, "fsize_mb": fsize_mb, "nofile": nofile,
                "nproc": nproc, "python": self.python, "argv": resolved, "workdir": work,
                "masks": self._masks(base), "namespaces": namespaces, "drop_uid": uid,
                "masks_required": bool(self.blocked) and uid is not None,
                "reach_cap_allowed": self.reach_cap, "require": list(require),
                "disk_quota_mb": disk_quota_mb,
                "landlock": {"read_only": self.readable(base), "read_write": [work],
                             "devices": list(DEVICES)}}

    def readable(self, base: str) -> list[str]:
        """What a run may read besides its workspace: the interpreter, its libraries, the
        dynamic loader's files and the socket guard; never ``/app``, ``/proc`` or data."""
        interpreter = _outermost(os.path.realpath(p) for p in _interpreter_dirs(self.python))
        return [*SYSTEM_READ, *interpreter, os.path.join(base, "guard")]

    def _masks(self, base: str) -> list[Mask]:
        real_base = os.path.realpath(base)
        masks: list[Mask] = []
        interpreter = _outermost(os.path.realpath(p) for p in _interpreter_dirs(self.python))
        for directory in WORLD_WRITABLE:
            if os.path.isdir(directory) and not os.path.islink(directory):
                # the interpreter itself may live there (a checkout or venv under /tmp):
                # re-bind it read-only, or the child cannot even start
                shown = [d for d in interpreter if _under(d, directory)]
                keep = ([real_base] if _under(real_base, directory) else []) + shown
                masks.append({"dir": directory, "keep": keep, "mode": "1777",
                              "readonly": shown})
        for directory, exposed in self.blocked.items():
            masks.append({"dir": directory, "keep": list(exposed), "mode": "0755",
                          "readonly_keep": True, "size_mb": 1})
        return masks


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _interpreter_dirs(python: str) -> list[str]:
    """The folders the interpreter needs: its prefixes and every hop of its symlink chain.

    A venv's ``python`` is often ``python -> python3.10 -> /elsewhere/bin/python3.10``: if any
    hop's folder is masked, exec fails with ENOENT even though the final binary is visible.
    """
    return [sys.base_prefix, sys.prefix, *map(os.path.dirname, _symlink_hops(python))]


def _symlink_hops(path: str, limit: int = 40) -> list[str]:
    """``path`` and each path its symlinks lead to, ending with the real file."""
    hops = [os.path.abspath(path)]
    while os.path.islink(hops[-1]) and len(hops) < limit:
        target = os.readlink(hops[-1])
        hops.append(os.path.normpath(os.path.join(os.path.dirname(hops[-1]), target)))
    return hops


def _outermost(paths: Iterable[str]) -> list[str]:
    """Drop paths nested in another of ``paths`` (binding the outer one shows them too)."""
    unique = list(dict.fromkeys(paths))
    return [p for p in unique if not any(p != q and _under(p, q) for q in unique)]


def blocked_ancestors(paths: list[str]) -> dict[str, tuple[str, ...]]:
    """Map each top-most dir that 'others' cannot traverse to the given paths below it."""
    found: dict[str, list[str]] = {}
    for path in paths:
        real = os.path.realpath(path)
        parts = PurePosixPath(real).parts
        for i in range(1, len(parts)):
            ancestor = str(PurePosixPath(*parts[:i + 1])) if i else "/"
            try:
                mode = os.stat(ancestor).st_mode
            except OSError:
                break
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH and ancestor != real:
                found.setdefault(ancestor, [])
                if real not in found[ancestor]:
                    found[ancestor].append(real)
                break
    return {k: tuple(p for p in v if not any(p != q and _under(p, q) for q in v))
            for k, v in found.items()}


def host_plan() -> HostPlan:
    """Which uids runs may lease and which interpreter dirs must be exposed to them."""
    python = sys.executable
    if os.geteuid() != 0:
        return HostPlan(python=python, uids=None,
                        notes=(f"the Cat runs as uid {os.geteuid()}, not root: runs keep it",))
    pool = uid_pool()
    notes = () if pool else ("no uid range to switch to (see /proc/self/uid_map)",)
    return HostPlan(python=python, uids=pool, notes=notes,
                    blocked=blocked_ancestors(_interpreter_dirs(python)),
                    reach_cap=_has_capability(CAP_DAC_READ_SEARCH))


def _has_capability(cap: int) -> bool:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> cap & 1)
    except (OSError, ValueError):
        pass
    return False


_STALE = re.compile(r"^cwm-sbx-(?:probe-)?(\d+)-")


def base_prefix(probe: bool = False) -> str:
    """Temp dir prefix carrying our pid, so a crashed Cat's leftovers can be recognised."""
    return f"cwm-sbx-{'probe-' if probe else ''}{os.getpid()}-"


def sweep_stale(tmpdir: str) -> int:
    """Delete sandbox dirs left by processes that no longer exist (a Cat killed mid-run)."""
    removed = 0
    for entry in os.listdir(tmpdir):
        match = _STALE.match(entry)
        if match and not os.path.exists(f"/proc/{match.group(1)}"):
            shutil.rmtree(os.path.join(tmpdir, entry), ignore_errors=True)
            removed += 1
    return removed


def check_relative(name: str) -> PurePosixPath:
    """A safe relative path or ValueError (no absolute paths, no ``..``, no empty parts)."""
    if not isinstance(name, str) or not name or "\x00" in name or "\\" in name:
        raise ValueError(f"unsafe sandbox path: {name!r}")
    path = PurePosixPath(name)
    if path.is_absolute() or any(p in ("..", ".", "") for p in name.split("/")):
        raise ValueError(f"unsafe sandbox path: {name!r}")
    return path


def prepare_workdir(base: str, files: dict[str, str], uid: int | None) -> tuple[str, str]:
    """Write ``files`` under ``base/work`` and the socket guard under ``base/guard``."""
    os.chmod(base, 0o711)
    work, guard = os.path.join(base, "work"), os.path.join(base, "guard")
    os.mkdir(work, 0o755)
    os.mkdir(guard, 0o755)
    os.mkdir(os.path.join(work, "tmp"), 0o755)
    _write(os.path.join(guard, "sitecustomize.py"), GUARD_SOURCE)
    for name, text in files.items():
        rel = check_relative(name)
        target = os.path.join(work, *rel.parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        _write(target, text)
    if uid is not None:
        for root, dirs, names in os.walk(work):
            os.chown(root, uid, uid)
            for name in dirs + names:
                os.chown(os.path.join(root, name), uid, uid, follow_symlinks=False)
    return work, guard


def _write(path: str, text: str) -> None:
    data = text.encode("utf-8", "surrogateescape")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def build_env(work: str, guard: str, marker: str,
              extras: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """A scrubbed env built from scratch; caller extras that look secret are dropped (noted)."""
    env = {"PATH": _PATH, "HOME": work, "TMPDIR": os.path.join(work, "tmp"),
           "USER": "sandbox", "LOGNAME": "sandbox",
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": f"{guard}:{work}", "NO_PROXY": "*", "no_proxy": "*",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", SANDBOX_MARKER: marker}
    dropped = []
    for name, value in extras.items():
        if SECRET_NAME.search(name) or name == SANDBOX_MARKER:
            dropped.append(f"env {name} refused (looks secret)")
        else:
            env[name] = value
    return env, dropped


def read_back(work: str, names: tuple[str, ...], cap: int) -> dict[str, str]:
    """Read result files without following symlinks at any level; skip anything odd."""
    out: dict[str, str] = {}
    for name in names:
        try:
            parts = check_relative(name).parts
        except ValueError:
            continue
        text = _read_nofollow(work, parts, cap)
        if text is not None:
            out[name] = text
    return out


def _read_nofollow(work: str, parts: tuple[str, ...], cap: int) -> str | None:
    fds = [os.open(work, os.O_RDONLY | os.O_DIRECTORY)]
    try:
        for part in parts[:-1]:
            fds.append(os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                               dir_fd=fds[-1]))
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fds[-1])
        fds.append(fd)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            return None
        return os.read(fd, cap).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        for fd in fds:
            os.close(fd)


def hunt_leftovers(marker: str, uid: int | None, rounds: int = 5) -> int:
    """SIGKILL every process whose environment carries ``marker``; returns how many.

    Only processes of the sandbox uid (or, without a uid drop, of our own uid) are examined,
    so the scan never reads other users' environments.
    """
    needle = f"{SANDBOX_MARKER}={marker}".encode()
    want_uid = uid if uid is not None else os.getuid()
    killed: set[int] = set()
    for _ in range(rounds):
        found = [pid for pid in pids_of(want_uid) if _has_marker(pid, needle)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, 9)
                killed.add(pid)
            except (ProcessLookupError, PermissionError):
                continue
    return len(killed)


def _has_marker(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return needle in handle.read()
    except OSError:
        return False

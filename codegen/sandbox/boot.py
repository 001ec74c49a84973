"""Launcher executed BY PATH for each sandboxed run: ``python -I -S boot.py <json>``.

Why a separate script: the Cat is multi-threaded, so ``preexec_fn`` is unsafe; this small
stdlib-only program applies every layer in a fresh single-threaded process, then ``exec``s the
untrusted command. Order matters and is the point of this file:

1. ``PR_SET_PDEATHSIG`` so the launcher dies with the Cat thread that started it;
2. namespaces where the host allows them (none in Docker without CAP_SYS_ADMIN);
3. the launcher becomes a *subreaper* and forks: it stays behind as the supervisor, so every
   orphan of the run (double-fork + ``setsid`` daemons included) becomes its child and is
   killed when the command ends or the Cat asks it to stop (SIGTERM);
4. in the command's process: private tmpfs masks (mount namespace only), the Landlock ruleset
   (built while still privileged: it opens the allowed paths), rlimits, the switch to the run's
   own uid (keeping only ``CAP_DAC_READ_SEARCH`` when the interpreter lives where that uid
   cannot reach and Landlock confines reads), ``no_new_privs``, Landlock, the seccomp filter,
   ``PR_SET_PDEATHSIG``; then the protections required by the caller are checked against what
   was achieved, and the command is refused rather than run without them;
5. ``exec``.

The helpers (Landlock, seccomp, the protection rules) are sibling files loaded by path, not
imported (this runs without the plugin's package). Nothing runs at import time. The JSON the
Cat sends (``LauncherConfig``), the setup report sent back (``SetupReport``) and the Protocols
of what is used of the siblings live in ``boot_types.py``, imported for the type
checker only.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import resource
import signal
import sys
import types
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:  # the launcher's contract, for the type checker only (never imported here)
    from .boot_types import (
        LandlockHelper,
        LauncherConfig,
        ProtectHelper,
        Ruleset,
        SeccompHelper,
        SetupReport,
        WatchHelper,
    )

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_KEEPCAPS, PR_CAPBSET_DROP = 1, 8, 24
PR_SET_CHILD_SUBREAPER, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 36, 47, 2
CAP_DAC_READ_SEARCH = 2
CAP_VERSION_3 = 0x20080522
EXEC_FAILED = 127
SETUP_FAILED = 125
REFUSED = 126
#: How often the supervisor checks the run's disk use.


class _Helpers:
    """The sibling modules the command's process needs, loaded by path before it is confined."""

    def __init__(self) -> None:
        self.landlock: LandlockHelper = _load("landlock")
        self.seccomp: SeccompHelper = _load("seccomp")
        self.protect: ProtectHelper = _load("protect")
        self.watch: WatchHelper = _load("watch")


class Stop(Exception):
    """The Cat asked the supervisor to end the run (SIGTERM)."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _load(name: str) -> types.ModuleType:
    """A sibling helper module, loaded by path (there is no package in ``python -I -S``)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location("codemem_sandbox_" + name, path)
    if spec is None or spec.loader is None:
        raise OSError(f"cannot load the sandbox helper {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def emit(fd: int, payload: object) -> None:
    os.write(fd, (json.dumps(payload) + "\n").encode())


def set_pdeathsig(libc: ctypes.CDLL) -> None:
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")


def mount(libc: ctypes.CDLL, src: str | None, target: str, fstype: str | None, flags: int,
          data: str | None = None) -> None:
    def enc(text: str | None) -> bytes | None:
        return None if text is None else text.encode()

    _check(libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {target}")


def try_unshare(libc: ctypes.CDLL, cfg: LauncherConfig, report: SetupReport) -> int:
    """Enter as many namespaces as the host allows; record which ones in ``report``."""
    if not cfg.get("namespaces", True):
        return 0
    if os.geteuid() == 0:
        candidates = [CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID, CLONE_NEWNET | CLONE_NEWNS,
                      CLONE_NEWNET]
    else:
        candidates = [CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID, CLONE_NEWUSER | CLONE_NEWNET]
    for flags in candidates:
        if libc.unshare(ctypes.c_int(flags)) == 0:
            report["netns"] = True
            report["mntns"] = bool(flags & CLONE_NEWNS)
            report["pidns"] = bool(flags & CLONE_NEWPID)
            return flags
        report["notes"].append(f"unshare({flags:#x}) failed: {os.strerror(ctypes.get_errno())}")
    return 0


def apply_masks(libc: ctypes.CDLL, cfg: LauncherConfig, report: SetupReport) -> None:
    """Private tmpfs over each masked dir, re-binding the paths the sandbox must still see."""
    mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    for mask in cfg.get("masks", []):
        keep_fds = [(k, os.open(k, os.O_PATH | os.O_DIRECTORY)) for k in mask["keep"]]
        mount(libc, "tmpfs", mask["dir"], "tmpfs", MS_NOSUID | MS_NODEV,
              f"size={mask.get('size_mb', 64)}m,mode={mask['mode']}")
        for keep, fd in keep_fds:
            os.makedirs(keep, mode=0o755, exist_ok=True)
            mount(libc, f"/proc/self/fd/{fd}", keep, None, MS_BIND | MS_REC)
            if mask.get("readonly_keep") or keep in mask.get("readonly", ()):
                mount(libc, None, keep, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
            os.close(fd)
        report["masked"].append(mask["dir"])


def set_limits(cfg: LauncherConfig, nproc: int | None) -> None:
    """rlimits; ``nproc`` is the process limit (None: not enforceable, i.e. running as root)."""
    limits: dict[str, float | None] = {
        "AS": cfg.get("memory_mb"), "CPU": cfg.get("cpu_s"), "FSIZE": cfg.get("fsize_mb"),
        "NOFILE": cfg.get("nofile"), "CORE": 0, "NPROC": nproc}
    for name, value in limits.items():
        if value is None:
            continue
        scale = 1024 * 1024 if name in ("AS", "FSIZE") else 1
        n = int(value) * scale
        resource.setrlimit(getattr(resource, "RLIMIT_" + name), (n, n))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_privileges(libc: ctypes.CDLL, uid: int, reach_cap: bool,
                    report: SetupReport) -> None:
    """Switch to ``uid`` for good; with ``reach_cap`` keep only CAP_DAC_READ_SEARCH (ambient,
    so the interpreter it execs keeps it too) to read an interpreter under e.g. ``/root``."""
    if reach_cap:
        with open("/proc/sys/kernel/cap_last_cap") as handle:
            last = int(handle.read())
        for cap in range(last + 1):
            if cap != CAP_DAC_READ_SEARCH:
                _check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "drop bounding capability")
        _check(libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), "prctl(PR_SET_KEEPCAPS)")
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if reach_cap:
        bit = 1 << CAP_DAC_READ_SEARCH
        data = (_CapData * 2)(_CapData(bit, bit, bit), _CapData(0, 0, 0))
        _check(libc.capset(ctypes.byref(_CapHeader(CAP_VERSION_3, 0)), data), "capset")
        _check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0),
               "raise the ambient capability")
        report["reach_cap"] = True
    report["uid"] = os.getuid()
    report["uid_dropped"] = True


def build_landlock(landlock: LandlockHelper, cfg: LauncherConfig,
                   report: SetupReport) -> Ruleset | None:
    """The Landlock ruleset, built while privileged; None (and why) when unavailable."""
    rules = cfg.get("landlock")
    if not rules:
        report["landlock_error"] = "not requested"
        return None
    try:
        handle = landlock.confine(rules["read_only"], rules["read_write"], rules["devices"])
    except OSError as err:
        report["landlock_error"] = str(err)
        return None
    report["landlock_skipped"] = handle["skipped"]
    return handle


def choose_uid(cfg: LauncherConfig, flags: int, ruleset: Ruleset | None,
               report: SetupReport) -> tuple[int | None, bool]:
    """(uid, reach_cap) for the command; None when it would have to stay root (refused)."""
    uid = cfg.get("drop_uid")
    if os.geteuid() != 0:
        return None, False
    if uid is None:
        report["notes"].append("no uid to switch to")
        return None, False
    if not cfg.get("masks_required") or flags & CLONE_NEWNS and report["masked"]:
        return uid, False
    if ruleset is not None and cfg.get("reach_cap_allowed"):
        return uid, True
    report["notes"].append("the interpreter is not reachable by an unprivileged uid and "
                           "neither a mount namespace nor Landlock can expose it")
    return None, False


def confine(libc: ctypes.CDLL, cfg: LauncherConfig, flags: int, report: SetupReport,
            helpers: _Helpers) -> None:
    """Everything between fork and exec in the command's process (see the module doc)."""
    landlock, seccomp = helpers.landlock, helpers.seccomp
    if flags & CLONE_NEWNS:
        try:
            # a mount namespace of its own: the supervisor keeps the host's /proc and paths
            _check(libc.unshare(ctypes.c_int(CLONE_NEWNS)), "unshare(CLONE_NEWNS)")
            apply_masks(libc, cfg, report)
            if flags & CLONE_NEWPID:
                mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError as err:
            report["notes"].append(f"mount setup failed: {err}")
    ruleset = build_landlock(landlock, cfg, report)
    uid, reach = choose_uid(cfg, flags, ruleset, report)
    nproc = cfg.get("nproc")
    if uid is None and os.geteuid() != 0 and nproc is not None:
        # the Cat's own uid: the limit counts its tasks too, so allow that many more
        nproc = helpers.watch.tasks_of(os.getuid()) + int(nproc)
        report["nproc_shared"] = True
    set_limits(cfg, nproc=nproc if uid is not None or os.geteuid() != 0 else None)
    report["rlimits"], report["nproc"] = True, uid is not None or os.geteuid() != 0
    if uid is not None:
        drop_privileges(libc, uid, reach, report)
    report["uid"] = os.getuid()
    _check(libc.prctl(38, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    if ruleset is not None:
        landlock.enforce(ruleset)
        report["landlock"] = ruleset["abi"]
        report["landlock_net"], report["landlock_scoped"] = ruleset["net"], ruleset["scoped"]
    try:
        protected: list[int] = [] if flags & CLONE_NEWPID else [cfg["parent_pid"], os.getppid()]
        report["seccomp"] = seccomp.install(protected)
    except OSError as err:
        report["seccomp_error"] = str(err)
    set_pdeathsig(libc)


def prepare_and_exec(libc: ctypes.CDLL, cfg: LauncherConfig, flags: int, status_fd: int,
                     report: SetupReport) -> NoReturn:
    """Runs in the process that becomes the command: confine, check, then exec."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # loaded first: once confined, this process may no longer read the plugin's folder
    helpers = _Helpers()
    confine(libc, cfg, flags, report, helpers)
    layers = helpers.protect.layers_from_setup(report)
    missing = [name for name in cfg.get("require", ()) if not layers[name][0]]
    if os.geteuid() == 0 or os.getuid() == 0:
        missing.append("unprivileged")
    os.chdir(cfg["workdir"])
    if missing:
        report["refused"] = sorted(set(missing))
        emit(status_fd, {"setup": report})
        os._exit(REFUSED)
    emit(status_fd, {"setup": report})
    os.set_inheritable(status_fd, False)
    argv = cfg["argv"]
    try:
        os.execvpe(argv[0], argv, os.environ)
    except OSError as err:
        emit(status_fd, {"exec_error": str(err)})
        os._exit(EXEC_FAILED)


def supervise(libc: ctypes.CDLL, pid: int, status_fd: int, cfg: LauncherConfig) -> NoReturn:
    """Wait for the command while watching its disk use, kill whatever it left, relay how it
    ended; exit alike. Runs as the run's own uid when there is one (it then reads the run's
    open files without any capability, and the run cannot touch it: seccomp protects its pid
    and it is not dumpable)."""
    watch: WatchHelper = _load("watch")
    quota = cfg.get("disk_quota_mb")
    disk = watch.DiskWatch(cfg["workdir"], int(quota)) if quota else None
    uid = cfg.get("drop_uid")
    if uid is not None and os.geteuid() == 0:
        # same capabilities as a run that keeps CAP_DAC_READ_SEARCH, or the kernel would not
        # let the supervisor look at the run's open files
        drop_privileges(libc, uid, bool(cfg.get("reach_cap_allowed")), {})
        set_pdeathsig(libc)
    status: int | None = None
    over = ""
    try:
        status, over = watch.wait_watching(pid, disk)
    except Stop:
        emit(status_fd, {"stopped": True})
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if over:
        emit(status_fd, {"quota": over})
    emit(status_fd, {"reaped": max(0, watch.kill_tree() - (status is None)),
                     "disk_peak": disk.peak if disk else 0})
    if status is None:
        os._exit(128 + signal.SIGKILL)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        emit(status_fd, {"exit_signal": sig})
        os._exit(128 + sig)
    code = os.WEXITSTATUS(status)
    emit(status_fd, {"exit_code": code})
    os._exit(code)


def _stop(signum: int, frame: types.FrameType | None) -> NoReturn:
    raise Stop()


def main(raw: str) -> None:
    cfg: LauncherConfig = json.loads(raw)  # the Cat's JSON (see LauncherConfig)
    status_fd = int(cfg["status_fd"])
    libc = _libc()
    report: SetupReport = {"netns": False, "mntns": False, "pidns": False, "uid_dropped": False,
              "uid": os.getuid(), "masked": [], "notes": [],
              "disk_quota_mb": cfg.get("disk_quota_mb")}
    set_pdeathsig(libc)
    if os.getppid() != cfg.get("parent_pid"):
        os._exit(SETUP_FAILED)
    flags = try_unshare(libc, cfg, report)
    report["subreaper"] = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    signal.signal(signal.SIGTERM, _stop)
    pid = os.fork()
    if pid == 0:
        try:
            prepare_and_exec(libc, cfg, flags, status_fd, report)
        except (OSError, ValueError, KeyError) as exc:  # report, never exec half-confined
            emit(status_fd, {"setup_error": str(exc), "setup": report})
        os._exit(SETUP_FAILED)
    emit(status_fd, {"child_pid": pid})
    supervise(libc, pid, status_fd, cfg)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except (OSError, ValueError, KeyError) as exc:  # crash boundary: report, never exec
        sys.stderr.write(f"sandbox launcher failed: {exc}\n")
        os._exit(SETUP_FAILED)

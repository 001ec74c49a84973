"""Launcher executed BY PATH in the sandbox child: ``python -I -S sandbox_boot.py <json>``.

Why a separate script: the Cat is multi-threaded, so ``preexec_fn`` is unsafe; instead this
small stdlib-only program applies every isolation layer in a fresh single-threaded process and
then ``exec``s the untrusted command. Order matters and is the point of this file:

1. ``PR_SET_PDEATHSIG`` so the launcher dies with the Cat thread that started it;
2. namespaces (net + mount + pid when we are real root, user + net + pid otherwise); each is
   optional and what was achieved is reported on the status pipe, never assumed;
3. with a pid namespace the launcher forks: the child is pid 1 of the namespace, so when it
   (or the launcher, via PDEATHSIG) dies the kernel kills every descendant, including
   double-fork + ``setsid`` escapers;
4. in the mount namespace: private tmpfs over world-writable dirs (``/tmp``, ...) and over
   ancestors the dropped uid cannot traverse (``/root`` holding pyenv), re-binding only the
   sandbox dir and the interpreter prefixes; a fresh ``/proc`` for the pid namespace;
5. rlimits, then uid/gid drop, then PDEATHSIG again (a credential change clears it), then exec.

Nothing runs at import time; the work happens only under ``if __name__ == "__main__":``.
"""

import ctypes
import json
import os
import resource
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG = 1
EXEC_FAILED = 127
SETUP_FAILED = 125


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _check(rc, what):
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def set_pdeathsig(libc):
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")


def mount(libc, src, target, fstype, flags, data=None):
    def enc(text):
        return None if text is None else text.encode()

    _check(libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {target}")


def try_unshare(libc, cfg, report):
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


def apply_masks(libc, cfg, report):
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


def set_limits(cfg, drop):
    limits = {"AS": cfg.get("memory_mb"), "CPU": cfg.get("cpu_s"), "FSIZE": cfg.get("fsize_mb"),
              "NOFILE": cfg.get("nofile"), "CORE": 0}
    if drop:
        limits["NPROC"] = cfg.get("nproc")
    for name, value in limits.items():
        if value is None:
            continue
        scale = 1024 * 1024 if name in ("AS", "FSIZE") else 1
        n = int(value) * scale
        resource.setrlimit(getattr(resource, "RLIMIT_" + name), (n, n))


def drop_privileges(cfg, report):
    uid = cfg.get("drop_uid")
    if uid is None or os.geteuid() != 0:
        return False
    gid = cfg.get("drop_gid", uid)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    report["uid"] = os.getuid()
    return True


def prepare_and_exec(libc, cfg, flags, status_fd, report):
    """Runs in the process that becomes the command: mounts, limits, uid, then exec."""
    if flags & CLONE_NEWNS:
        try:
            apply_masks(libc, cfg, report)
            if flags & CLONE_NEWPID:
                mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
                report["proc_private"] = True
        except OSError as err:
            report["notes"].append(f"mount setup failed: {err}")
            if cfg.get("drop_uid") is not None and cfg.get("masks_required"):
                cfg["drop_uid"] = None
                report["notes"].append("uid drop skipped: interpreter unreachable without masks")
    drop = cfg.get("drop_uid") is not None and os.geteuid() == 0
    set_limits(cfg, drop)
    report["uid_dropped"] = drop_privileges(cfg, report)
    set_pdeathsig(libc)
    os.chdir(cfg["workdir"])
    os.write(status_fd, (json.dumps({"setup": report}) + "\n").encode())
    os.set_inheritable(status_fd, False)
    argv = cfg["argv"]
    try:
        os.execvpe(argv[0], argv, os.environ)
    except OSError as err:
        os.write(status_fd, (json.dumps({"exec_error": str(err)}) + "\n").encode())
        os._exit(EXEC_FAILED)


def wait_and_relay(pid, status_fd):
    """Launcher side of the pid namespace: wait for pid 1, relay how it ended, exit alike."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            os._exit(SETUP_FAILED)
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        os.write(status_fd, (json.dumps({"exit_signal": sig}) + "\n").encode())
        os._exit(128 + sig)
    code = os.WEXITSTATUS(status)
    os.write(status_fd, (json.dumps({"exit_code": code}) + "\n").encode())
    os._exit(code)


def main(raw):
    cfg = json.loads(raw)
    status_fd = int(cfg["status_fd"])
    libc = _libc()
    report = {"netns": False, "mntns": False, "pidns": False, "proc_private": False,
              "uid_dropped": False, "uid": os.getuid(), "masked": [], "notes": []}
    set_pdeathsig(libc)
    if os.getppid() != cfg.get("parent_pid"):
        os._exit(SETUP_FAILED)
    flags = try_unshare(libc, cfg, report)
    needs_masks = cfg.get("drop_uid") is not None and cfg.get("masks_required")
    if not flags & CLONE_NEWNS and needs_masks:
        cfg["drop_uid"] = None
        report["notes"].append("uid drop skipped: no mount namespace to expose the interpreter")
    if flags & CLONE_NEWPID:
        pid = os.fork()
        if pid == 0:
            prepare_and_exec(libc, cfg, flags, status_fd, report)
            os._exit(EXEC_FAILED)
        os.write(status_fd, (json.dumps({"child_pid": pid}) + "\n").encode())
        wait_and_relay(pid, status_fd)
    prepare_and_exec(libc, cfg, flags, status_fd, report)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except (OSError, ValueError, KeyError) as exc:  # crash boundary: report, never exec
        sys.stderr.write(f"sandbox launcher failed: {exc}\n")
        os._exit(SETUP_FAILED)

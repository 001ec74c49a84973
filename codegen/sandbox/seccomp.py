"""The sandbox's seccomp filter, built with libseccomp through a small ctypes binding.

Why libseccomp and not a hand-assembled BPF program: it resolves syscall names per
architecture, checks the audit architecture (32-bit ``int 0x80`` and x32 calls on x86-64 get
the kill action instead of slipping past the rules) and is in every Debian-based image: Debian's
``apt`` (priority required) depends on ``libseccomp2`` (bullseye: apt 2.2.4 needs
libseccomp2 >= 2.4.2). Why our own binding: the maintained Python bindings are not on PyPI for
Python 3.10 (``pyseccomp``, a ctypes binding, last released in 2021), and the launcher runs in
``python -I -S`` without site-packages; the C API used here (``seccomp_init``,
``seccomp_rule_add_array``, ``seccomp_load``) is stable since libseccomp 2.2.

The filter allows by default and denies, with an errno so programs see a clean error:
every socket family except Unix sockets (so no network by any path: ``socket``, ``_socket``,
ctypes, ``curl``, bash ``/dev/tcp``), io_uring (it would bypass these rules), ptrace and
cross-process memory access, namespaces and mounts, kernel keyrings, BPF, SysV IPC and POSIX
message queues (they outlive the run), and signals to ``-1`` or to the protected pids.

Stdlib only, no relative imports: the launcher loads this file by path. Nothing at import time.
"""

from __future__ import annotations

import ctypes
import errno

ACT_ALLOW = 0x7FFF0000
CMP_NE, CMP_EQ, CMP_MASKED_EQ = 1, 4, 7
AF_UNIX = 1
#: clone(2) flags that create namespaces (moby's profile denies the same mask).
CLONE_NS_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                  0x40000000)
DENIED = (
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount",
    "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "shmget", "msgget", "semget", "mq_open",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "acct", "swapon", "swapoff", "reboot", "syslog", "quotactl", "vhangup",
    "iopl", "ioperm", "personality",
)


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def load_library() -> tuple[ctypes.CDLL | None, str]:
    """libseccomp, or None and why (with what to install)."""
    for name in ("libseccomp.so.2", "libseccomp.so"):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            continue
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                               ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        return lib, ""
    return None, "libseccomp.so.2 not found (Debian/Ubuntu: apt-get install libseccomp2)"


def install(protected_pids: list[int]) -> str:
    """Load the filter into this process (inherited by every child); returns a description.

    Raises ``OSError`` when libseccomp is missing or a rule cannot be added: a filter with a
    hole must not be reported as active.
    """
    lib, reason = load_library()
    if lib is None:
        raise OSError(reason)
    ctx = lib.seccomp_init(ACT_ALLOW)
    if not ctx:
        raise OSError("seccomp_init failed")
    try:
        rules = _add_rules(lib, ctx, protected_pids)
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, f"seccomp_load: {errno.errorcode.get(-rc, rc)}")
    finally:
        lib.seccomp_release(ctx)
    return f"seccomp ({rules} rules)"


def _add_rules(lib: ctypes.CDLL, ctx: int, protected_pids: list[int]) -> int:
    deny, eacces = _errno_action(errno.EPERM), _errno_action(errno.EACCES)
    count = _rule(lib, ctx, eacces, "socket", [(0, CMP_NE, AF_UNIX, 0)])
    for name in DENIED:
        count += _rule(lib, ctx, deny, name, [], optional=True)
    count += _rule(lib, ctx, _errno_action(errno.ENOSYS), "clone3", [], optional=True)
    for flag in CLONE_NS_FLAGS:
        count += _rule(lib, ctx, deny, "clone", [(0, CMP_MASKED_EQ, flag, flag)])
    targets = [0xFFFFFFFF] + [pid & 0xFFFFFFFF for pid in protected_pids]
    targets += [(-pid) & 0xFFFFFFFF for pid in protected_pids]
    for target in dict.fromkeys(targets):
        for name in ("kill", "tkill", "tgkill", "pidfd_open"):
            count += _rule(lib, ctx, deny, name, [(0, CMP_MASKED_EQ, 0xFFFFFFFF, target)],
                           optional=name == "pidfd_open")
    return count


def _rule(lib: ctypes.CDLL, ctx: int, action: int, name: str,
          args: list[tuple[int, int, int, int]], optional: bool = False) -> int:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr == -1 or (nr < 0 and optional):
        if optional:
            return 0
        raise OSError(f"libseccomp does not know the syscall {name}")
    array = (_ArgCmp * max(1, len(args)))(*[_ArgCmp(*a) for a in args])
    rc = lib.seccomp_rule_add_array(ctx, action, nr, len(args), array)
    if rc < 0 and not optional:
        raise OSError(-rc, f"seccomp rule for {name}: {errno.errorcode.get(-rc, rc)}")
    return 1 if rc == 0 else 0

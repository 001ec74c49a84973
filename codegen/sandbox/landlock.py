"""Landlock (the Linux LSM any unprivileged process may use) for the sandbox, via ctypes.

Why Landlock: in the shipped Docker deployment there is no CAP_SYS_ADMIN, so no mount or user
namespaces; Landlock needs neither (only ``no_new_privs``) and moby's default seccomp profile
allows its three syscalls since January 2022. It confines file access to an allow-list of
directories (the interpreter read-only, the workspace read-write), TCP ``bind``/``connect``
(ABI 4) and, from ABI 6, signals and abstract Unix sockets to the sandbox's own processes.
Its rules also hold for a process that keeps a capability such as ``CAP_DAC_READ_SEARCH``.

Stdlib only and no relative imports: the launcher (``boot.py``) loads this file by path
in a fresh ``python -I -S`` before it drops privileges. Nothing runs at import time.
"""

from __future__ import annotations

import ctypes
import os
from typing import TypedDict

#: Syscall numbers: the same on every architecture (added after the unified syscall table).
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
MAKE_SYM, REFER, TRUNCATE, IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2

#: Rights that make sense on a file (the kernel refuses directory rights on a file rule).
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_ONLY = EXECUTE | READ_FILE | READ_DIR
DEVICE = READ_FILE | WRITE_FILE | IOCTL_DEV


class Ruleset(TypedDict):
    """A built (not yet enforced) ruleset: its fd, the ABI and what it can confine."""

    fd: int
    abi: int
    net: bool
    scoped: bool
    #: Allowed paths that do not exist here (no rule was added for them).
    skipped: list[str]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> tuple[int, str]:
    """The kernel's Landlock ABI (0 when unusable) and, when 0, why."""
    try:
        libc = _libc()
    except OSError as failure:
        return 0, f"cannot load libc: {failure}"
    abi = libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), None, ctypes.c_size_t(0),
                       ctypes.c_uint32(CREATE_RULESET_VERSION))
    if abi < 0:
        err = ctypes.get_errno()
        reason = {38: "the kernel has no Landlock (Linux 5.13+ with CONFIG_SECURITY_LANDLOCK)",
                  95: "Landlock is built in but not enabled (add it to the lsm= boot option)",
                  1: "a seccomp profile forbids the Landlock syscalls (Docker before 2022?)"}
        return 0, reason.get(err, f"landlock_create_ruleset: {os.strerror(err)}")
    return int(abi), ""


def handled_fs(abi: int) -> int:
    """Every filesystem right this ABI knows: whatever is not granted below is denied."""
    rights = (MAKE_SYM << 1) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def confine(read_only: list[str], read_write: list[str], devices: list[str]) -> Ruleset:
    """Build the ruleset now (call while still privileged: it opens the paths) and return a
    handle for :func:`enforce`. Missing paths are skipped and listed under ``skipped``."""
    abi, reason = abi_version()
    if abi <= 0:
        raise OSError(reason)
    libc = _libc()
    fs = handled_fs(abi)
    attr = _RulesetAttr(fs, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0,
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    fd = libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), ctypes.byref(attr),
                      ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    skipped: list[str] = []
    for paths, rights in ((read_only, READ_ONLY), (read_write, fs), (devices, DEVICE)):
        for path in paths:
            if not _add_rule(libc, int(fd), path, rights & fs):
                skipped.append(path)
    return {"fd": int(fd), "abi": abi, "net": abi >= 4, "scoped": abi >= 6,
            "skipped": skipped}


def _add_rule(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> bool:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not os.path.isdir(f"/proc/self/fd/{target}"):
            rights &= FILE_RIGHTS
        rule = _PathBeneathAttr(rights, target)
        rc = libc.syscall(ctypes.c_long(SYS_ADD_RULE), ctypes.c_int(ruleset),
                          ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0))
        if rc != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
        return True
    finally:
        os.close(target)


def enforce(handle: Ruleset) -> None:
    """``no_new_privs`` then restrict this process and every future child; irreversible."""
    libc = _libc()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    rc = libc.syscall(ctypes.c_long(SYS_RESTRICT_SELF), ctypes.c_int(handle["fd"]),
                      ctypes.c_uint32(0))
    if rc != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    os.close(handle["fd"])

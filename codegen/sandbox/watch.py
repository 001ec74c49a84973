"""Host-side guards of a sandboxed run: its own uid, the kill that catches daemons, the disk quota.

Why a uid per run: without namespaces (Docker without CAP_SYS_ADMIN) a uid is the one boundary
the kernel draws between processes for free. A uid no other process has means: the run cannot
signal, ptrace or read the memory of the Cat or of a concurrent run; ``RLIMIT_NPROC`` counts
only its own processes (a fork bomb does not starve the next run); and "every process of this
uid" is exactly what the run left behind, even a double-forked ``setsid`` daemon that cleared
its environment, so killing them all is a complete clean-up. A lease is an ``flock`` on a file,
so two Cat processes (or test runs) never share a uid.

Why a disk watcher: without a mount namespace there is no size-limited tmpfs; ``RLIMIT_FSIZE``
bounds one file, not their number. The watcher sums the workspace and every deleted-but-open
file (and memfd) of the run's processes while it runs, and the run is killed above the quota.

The launcher (``boot.py``) loads this file by path for its supervisor: the wait that watches
the quota (``wait_watching``) and the kill of every process the run left (``kill_tree``).
"""

from __future__ import annotations

import fcntl
import os
import random
import select
import signal
import stat
import tempfile
import time

#: Preferred block of uids (far above any real account); used when the uid map covers it.
UID_BASE, UID_POOL = 1_900_000_000, 100_000
_RESERVED = (65534, 65535)


def uid_pool(uid_map: str = "/proc/self/uid_map") -> range | None:
    """Uids this process can switch to: the preferred block, or the top of the largest mapped
    extent (a user-namespaced Docker maps only 65,536 uids); None when nothing fits."""
    extents = []
    try:
        with open(uid_map) as handle:
            for line in handle:
                inside, _, count = (int(x) for x in line.split())
                extents.append((inside, inside + count))
    except (OSError, ValueError):
        return None
    for lo, hi in extents:
        if lo <= UID_BASE and hi >= UID_BASE + UID_POOL:
            return range(UID_BASE, UID_BASE + UID_POOL)
    if not extents:
        return None
    lo, hi = max(extents, key=lambda e: e[1] - e[0])
    hi = min(hi, _RESERVED[0])
    lo = max(lo + 1000, hi - 20_000)
    return range(lo, hi) if hi - lo >= 100 else None


class UidLease:
    """An exclusive uid for one run (``flock`` held until :meth:`release`)."""

    def __init__(self, pool: range, lock_dir: str | None = None) -> None:
        self.pool = pool
        self.lock_dir = lock_dir or os.path.join(tempfile.gettempdir(), "cwm-sandbox-uids")
        self.uid: int | None = None
        self._fd: int | None = None
        self._path = ""

    def acquire(self, attempts: int = 64) -> int:
        _private_dir(self.lock_dir)
        for _ in range(attempts):
            uid = random.choice(self.pool)
            if self._try(uid):
                return uid
        raise OSError(f"no free sandbox uid in {self.pool.start}..{self.pool.stop - 1}")

    def _try(self, uid: int) -> bool:
        path = os.path.join(self.lock_dir, f"{uid}.lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino != os.stat(path).st_ino or pids_of(uid):
                raise BlockingIOError  # the file was replaced, or the uid is in use
        except (BlockingIOError, FileNotFoundError):
            os.close(fd)
            return False
        self.uid, self._fd, self._path = uid, fd, path
        return True

    def release(self) -> None:
        if self._fd is not None:
            try:
                os.unlink(self._path)
            except OSError:
                pass
            os.close(self._fd)
            self._fd = None


def _private_dir(path: str) -> None:
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise OSError(f"{path} is not a private directory of this user")


def pids_of(uid: int) -> list[int]:
    """Live processes whose real uid is ``uid`` (the owner of ``/proc/<pid>``)."""
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != me:
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found.append(int(entry))
            except OSError:
                continue
    return found


def tasks_of(uid: int) -> int:
    """How many tasks (threads included) ``uid`` runs: what ``RLIMIT_NPROC`` counts."""
    total = 0
    for pid in pids_of(uid):
        try:
            with open(f"/proc/{pid}/status") as handle:
                total += next(int(line.split()[1]) for line in handle
                              if line.startswith("Threads:"))
        except (OSError, StopIteration, ValueError):
            total += 1
    return total + 1


def kill_uid(uid: int, rounds: int = 200) -> int:
    """SIGKILL every process of ``uid`` until none is left (a uid cannot be shed without
    privileges, so nothing escapes); returns how many were killed."""
    if uid == 0 or uid == os.getuid():
        raise ValueError("refusing to kill every process of root or of the Cat's own uid")
    killed: set[int] = set()
    for _ in range(rounds):
        found = [pid for pid in pids_of(uid) if alive(pid)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except (ProcessLookupError, PermissionError):
                continue
        time.sleep(0.002)
    return len(killed)


def descendants(root: int) -> list[int]:
    """Pids whose parent chain leads to ``root``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                ppid = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


class DiskWatch:
    """Measures what a run occupies: the workspace tree plus deleted-but-open files."""

    def __init__(self, work: str, limit_mb: int, max_entries: int = 50_000) -> None:
        self.work, self.limit = work, limit_mb * 1024 * 1024
        self.max_entries = max_entries
        self.peak = 0

    def check(self, pids: list[int]) -> str:
        """An explanation when the run is over its quota, else ``""``."""
        seen: set[tuple[int, int]] = set()
        used, entries = self._tree(seen)
        if entries > self.max_entries:
            return f"disk quota exceeded: more than {self.max_entries} files in the workspace"
        used += self._open_deleted(pids, seen)
        self.peak = max(self.peak, used)
        if used > self.limit:
            return (f"disk quota exceeded: {used // (1024 * 1024)} MiB written, the limit is "
                    f"{self.limit // (1024 * 1024)} MiB")
        return ""

    def _tree(self, seen: set[tuple[int, int]]) -> tuple[int, int]:
        used = entries = 0
        todo = [self.work]
        while todo and entries <= self.max_entries:
            try:
                with os.scandir(todo.pop()) as listing:
                    for entry in listing:
                        entries += 1
                        info = entry.stat(follow_symlinks=False)
                        if (info.st_dev, info.st_ino) in seen:
                            continue
                        seen.add((info.st_dev, info.st_ino))
                        used += info.st_blocks * 512
                        if stat.S_ISDIR(info.st_mode):
                            todo.append(entry.path)
            except OSError:
                continue
        return used, entries

    @staticmethod
    def _open_deleted(pids: list[int], seen: set[tuple[int, int]]) -> int:
        used = 0
        for pid in pids:
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                path = f"/proc/{pid}/fd/{fd}"
                try:
                    if not os.readlink(path).endswith(" (deleted)"):
                        continue
                    info = os.stat(path)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and (info.st_dev, info.st_ino) not in seen:
                    seen.add((info.st_dev, info.st_ino))
                    used += info.st_blocks * 512
        return used


#: seconds between two looks of the supervisor at the command and its disk use
TICK_S = 0.05


def kill_tree(rounds: int = 200) -> int:
    """The launcher's supervisor: SIGKILL every descendant (orphans come to it: it is a
    subreaper) until none is left; how many were killed."""
    killed: set[int] = set()
    for _ in range(rounds):
        found = descendants(os.getpid())
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except ProcessLookupError:
                pass
        reap()
        if not found:
            break
        time.sleep(0.002)
    return len(killed)


def reap() -> None:
    """Collect every child that has ended (none waits)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wait_watching(pid: int, disk: DiskWatch | None) -> tuple[int | None, str]:
    """The launcher's supervisor waiting for the command: (wait status, "") when it ends;
    (None, why) when the run goes over its disk quota."""
    poller: select.poll | None
    try:
        handle = os.pidfd_open(pid)
        poller = select.poll()
        poller.register(handle, select.POLLIN)
    except (AttributeError, OSError):
        poller = None
    me = os.getpid()
    while True:
        if poller is not None:
            poller.poll(int(TICK_S * 1000))
        else:
            time.sleep(0.01)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, ""
        over = disk.check(descendants(me)) if disk is not None else ""
        if over:
            return None, over

"""The sandbox launcher's contract: the JSON it receives, the report it sends back, and what
it uses of its sibling helpers.

Why a module of its own: ``boot.py`` runs by path, without the plugin's package, and
imports nothing of it at run time; these types are read by the type checker there
(``TYPE_CHECKING``) and imported for real by the Cat's side (``env``, ``run``),
which builds the JSON and reads the report.
"""

from __future__ import annotations

from typing import Protocol, TypedDict

from .landlock import Ruleset

__all__ = ["DiskWatcher", "LandlockHelper", "LandlockRules", "LauncherConfig", "Mask",
           "ProtectHelper", "Ruleset", "SeccompHelper", "SetupReport", "WatchHelper"]


class Mask(TypedDict, total=False):
    """A private tmpfs over ``dir``, re-binding the ``keep`` paths (some read-only)."""

    dir: str
    keep: list[str]
    mode: str
    readonly: list[str]
    readonly_keep: bool
    size_mb: int


class LandlockRules(TypedDict):
    read_only: list[str]
    read_write: list[str]
    devices: list[str]


class LauncherConfig(TypedDict, total=False):
    """The JSON argument of the launcher (built by ``env.HostPlan.launcher_config``;
    ``status_fd`` and ``parent_pid`` are added by ``run.execute``)."""

    python: str
    argv: list[str]
    workdir: str
    masks: list[Mask]
    namespaces: bool
    drop_uid: int | None
    masks_required: bool
    reach_cap_allowed: bool
    require: list[str]
    disk_quota_mb: int | None
    landlock: LandlockRules | None
    memory_mb: int | None
    cpu_s: float | None
    fsize_mb: int | None
    nofile: int | None
    nproc: int | None
    status_fd: int
    parent_pid: int


class SetupReport(TypedDict, total=False):
    """What the launcher achieved, sent to the Cat (read by ``protect``)."""

    netns: bool
    mntns: bool
    pidns: bool
    uid_dropped: bool
    uid: int
    masked: list[str]
    notes: list[str]
    disk_quota_mb: int | None
    subreaper: bool
    reach_cap: bool
    landlock: int
    landlock_error: str
    landlock_skipped: list[str]
    landlock_net: bool
    landlock_scoped: bool
    rlimits: bool
    nproc: bool
    nproc_shared: bool
    seccomp: str
    seccomp_error: str
    refused: list[str]


class LandlockHelper(Protocol):
    def confine(self, read_only: list[str], read_write: list[str],
                devices: list[str]) -> Ruleset: ...

    def enforce(self, handle: Ruleset) -> None: ...


class SeccompHelper(Protocol):
    def install(self, protected_pids: list[int]) -> str: ...


class ProtectHelper(Protocol):
    def layers_from_setup(self, setup: SetupReport) -> dict[str, tuple[bool, str]]: ...


class DiskWatcher(Protocol):
    peak: int

    def check(self, pids: list[int]) -> str: ...


class WatchHelper(Protocol):
    def tasks_of(self, uid: int) -> int: ...

    def descendants(self, root: int) -> list[int]: ...

    def DiskWatch(self, work: str, limit_mb: int) -> DiskWatcher: ...  # the class, called

    def kill_tree(self, rounds: int = 200) -> int: ...

    def wait_watching(self, pid: int, disk: DiskWatcher | None) -> tuple[int | None, str]: ...

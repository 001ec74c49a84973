"""Which protections a sandboxed run has, and the policy that decides whether it may run.

Why one module for both sides: the launcher (``boot.py``, loaded by path in a bare
``python -I -S``) must refuse to ``exec`` when a required protection failed in *this* run, and
the Cat must report the same verdict; so the rules that turn the launcher's setup report into
protections live here once. Stdlib only, no relative imports, nothing at import time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum

#: Where to read how to enable what is missing.
HOW_TO = "see the README section 'Safety'"

#: The launcher's setup report as it arrives (JSON from the launcher, or its own dict): read
#: with ``.get`` only, every value checked where it is used.
Setup = Mapping[str, object]


class SandboxPolicy(str, Enum):
    """What happens when a protection is missing (the admin setting maps onto these names).

    Generated code never runs as root, whatever the policy.
    """

    #: Default: refuse to run generated code without file and network isolation.
    require_isolation = "require_isolation"
    #: Refuse unless every protection is active.
    require_all = "require_all"
    #: Run with whatever the host offers; the missing protections are reported with each result.
    allow_weaker = "allow_weaker"

    def required(self) -> tuple[str, ...]:
        if self is SandboxPolicy.require_all:
            return LAYERS
        if self is SandboxPolicy.require_isolation:
            return ("files", "network")
        return ()


#: the policy of a run whose caller names none (``DRAFT_RUN_DEFAULTS`` states it for the loop
#: and the settings; kept here so that the sandbox needs nothing from the rest of ``codegen``)
DEFAULT_POLICY = SandboxPolicy.require_isolation


@dataclass(frozen=True)
class Protection:
    """One protection: whether it holds, and how (active) or why not and how to enable it."""

    active: bool = False
    detail: str = "not measured"


@dataclass(frozen=True)
class Protections:
    """What the sandbox achieved for one run (never what it hoped for), one field per layer."""

    #: Reads and writes confined to the workspace (plus the interpreter, read-only).
    files: Protection = Protection()
    #: No network connection by any path.
    network: Protection = Protection()
    #: No signal, ptrace or memory access to the Cat or any other process.
    host_processes: Protection = Protection()
    #: No process left behind, daemons included.
    cleanup: Protection = Protection()
    #: Never root; a uid of its own when the Cat runs as root.
    unprivileged: Protection = Protection()
    #: Memory, CPU time, file size, open files and processes bounded.
    limits: Protection = Protection()
    #: Total disk use of the workspace bounded.
    disk_quota: Protection = Protection()
    uid: int | None = None
    notes: tuple[str, ...] = ()

    @classmethod
    def from_setup(cls, setup: Setup | None) -> Protections:
        if not setup:
            return cls(notes=("the launcher did not report its setup",))
        layers = layers_from_setup(setup)
        uid, notes = setup.get("uid"), setup.get("notes", ())
        return cls(**{name: Protection(*layers[name]) for name in LAYERS},
                   uid=uid if isinstance(uid, int) else None,
                   notes=tuple(str(n) for n in notes) if isinstance(notes, list | tuple) else ())

    def missing(self, names: tuple[str, ...] | list[str]) -> list[str]:
        """The named layers that are not active (unknown names raise ``ValueError``)."""
        unknown = [n for n in names if n not in LAYERS]
        if unknown:
            raise ValueError(f"unknown sandbox protections {unknown}; known: {list(LAYERS)}")
        return [n for n in names if not getattr(self, n).active]

    def explain(self, names: list[str]) -> str:
        """``files (why); network (why)`` for a refusal message."""
        return "; ".join(f"{n}: {getattr(self, n).detail}" for n in names)

    def with_notes(self, extra: list[str] | tuple[str, ...]) -> Protections:
        return replace(self, notes=self.notes + tuple(extra)) if extra else self

    def with_layer(self, name: str, layer: Protection) -> Protections:
        layers: dict[str, Protection] = {n: getattr(self, n) for n in LAYERS}
        if name not in layers:
            raise TypeError(f"unknown sandbox protection {name!r}; known: {list(LAYERS)}")
        layers[name] = layer
        return Protections(**layers, uid=self.uid, notes=self.notes)

    def summary(self) -> str:
        """One line: each layer on or off, then the uid."""
        parts = [f"{f.name}={'on' if getattr(self, f.name).active else 'OFF'}"
                 for f in fields(self) if f.name in LAYERS]
        return " ".join(parts + [f"uid={self.uid}"])


LAYERS = ("files", "network", "host_processes", "cleanup", "unprivileged", "limits",
          "disk_quota")


def layers_from_setup(setup: Setup) -> dict[str, tuple[bool, str]]:
    """The launcher's setup report -> ``{layer: (active, detail)}`` (pure; used on both sides)."""
    return {"files": _files(setup), "network": _network(setup),
            "host_processes": _host_processes(setup), "cleanup": _cleanup(setup),
            "unprivileged": _unprivileged(setup), "limits": _limits(setup),
            "disk_quota": _disk(setup)}


def _files(s: Setup) -> tuple[bool, str]:
    if s.get("landlock"):
        return True, (f"Landlock ABI {s['landlock']}: interpreter and system libraries "
                      "read-only, workspace read-write, nothing else")
    return False, (f"no Landlock ({s.get('landlock_error') or 'not applied'}); needs Linux "
                   "5.13+ with Landlock enabled and a seccomp profile that allows its syscalls "
                   "(Docker's default does since 2022)")


def _network(s: Setup) -> tuple[bool, str]:
    if s.get("netns"):
        return True, "own empty network namespace"
    if s.get("seccomp"):
        extra = ", Landlock denies TCP" if s.get("landlock_net") else ""
        return True, f"seccomp: only Unix sockets can be created{extra}"
    return False, (f"no network namespace and no seccomp filter ({s.get('seccomp_error') or '?'})"
                   "; install libseccomp2")


def _host_processes(s: Setup) -> tuple[bool, str]:
    if not s.get("seccomp"):
        return False, "no seccomp filter to deny ptrace and signals (install libseccomp2)"
    if s.get("uid_dropped"):
        return True, f"own uid {s.get('uid')}; seccomp denies ptrace and kill(-1)"
    if s.get("landlock_scoped"):
        return True, "Landlock scopes signals to the sandbox; seccomp denies ptrace"
    return False, ("runs as the Cat's own uid and the kernel lacks Landlock ABI 6 signal "
                   "scoping; run the Cat as root so each run gets a uid of its own")


def _cleanup(s: Setup) -> tuple[bool, str]:
    if s.get("pidns"):
        return True, "pid namespace: every descendant dies with the run"
    if s.get("uid_dropped"):
        return True, "every process of the run's own uid is killed when it ends"
    if s.get("subreaper") and (s.get("seccomp") or s.get("landlock_scoped")):
        return True, "subreaper supervisor kills every descendant, daemons included"
    return False, "no pid namespace, no uid of its own and an unprotected supervisor"


def _unprivileged(s: Setup) -> tuple[bool, str]:
    if s.get("uid") == 0:
        return False, ("would run as root: refused (make the interpreter readable by other "
                       "users, or allow Landlock)")
    if s.get("uid_dropped"):
        reach = "; keeps CAP_DAC_READ_SEARCH only to reach the interpreter, Landlock confines" \
            " reads" if s.get("reach_cap") else ""
        return True, f"own uid {s.get('uid')}{reach}"
    return True, f"the Cat's own non-root uid {s.get('uid')} (no uid of its own)"


def _limits(s: Setup) -> tuple[bool, str]:
    if not s.get("rlimits"):
        return False, "rlimits not applied"
    if not s.get("nproc"):
        return False, ("memory, CPU, file size and open files bounded; process count not "
                       "(a run as root ignores it)")
    if s.get("nproc_shared"):
        return True, ("memory, CPU time, file size and open files bounded; processes bounded "
                      "above the Cat's own (they share its uid)")
    return True, "memory, CPU time, file size, open files and processes bounded (rlimits)"


def _disk(s: Setup) -> tuple[bool, str]:
    quota = s.get("disk_quota_mb")
    if quota:
        return True, (f"workspace and its deleted-but-open files checked continuously, "
                      f"killed above {quota} MiB")
    return False, "no disk quota requested"

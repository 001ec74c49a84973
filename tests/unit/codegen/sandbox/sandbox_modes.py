"""The deployments the sandbox must hold in, imitated on this machine with real processes.

A "Cat" process (``sandbox_driver.txt``) runs the jobs through the real ``run_in_sandbox``
under the conditions of each deployment:

- ``full``: a bare host as root where namespaces work (the pytest process's own interpreter);
- ``container``: the shipped Docker deployment: root with Docker's default capability set (no
  CAP_SYS_ADMIN, dropped with ``setpriv``), namespaces denied by a seccomp filter like moby's
  default profile, and an interpreter other users can read (``/usr/bin/python3``, as the Cat
  image's ``/usr/local/bin/python``);
- ``root_no_ns``: root with every capability but no namespaces, and the pytest interpreter,
  which lives where an unprivileged uid cannot reach it (such as a pyenv under root's home);
- ``unprivileged_cat``: the container started as a non-root user (``user: 1000``): no uid of
  its own for the runs, no namespaces;
- ``container_no_landlock`` / ``root_no_landlock``: the same on a kernel (or an old Docker)
  without Landlock.

A mode this machine cannot imitate is skipped with the reason.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
DRIVER = os.path.join(HERE, "sandbox_driver.txt")
#: The uid of a "Cat" that is not root (e.g. a compose file with ``user: 1000``).
UNPRIVILEGED_CAT_UID = 1000
DOCKER_CAPS = ("chown", "dac_override", "fowner", "fsetid", "kill", "setgid", "setuid",
               "setpcap", "net_bind_service", "net_raw", "sys_chroot", "mknod", "audit_write",
               "setfcap")


@dataclass(frozen=True)
class Mode:
    name: str
    python: str
    deny: tuple[str, ...] = ()
    docker_caps: bool = False
    #: Run the "Cat" itself as this unprivileged uid (a container started with ``user:``).
    cat_uid: int | None = None

    def command(self) -> list[str]:
        prefix = []
        if self.docker_caps:
            caps = ",".join(["-all"] + [f"+{c}" for c in DOCKER_CAPS])
            prefix = ["setpriv", "--bounding-set", caps, "--inh-caps", "-all"]
        if self.cat_uid is not None:
            prefix = ["setpriv", f"--reuid={self.cat_uid}", f"--regid={self.cat_uid}",
                      "--clear-groups", "--inh-caps", "-all"]
        return [*prefix, self.python, DRIVER]


def _reachable_python() -> str:
    """A Python 3.10+ every user can execute and read (the Cat image's kind)."""
    for candidate in ("/usr/local/bin/python3", "/usr/bin/python3"):
        path = os.path.realpath(candidate)
        if not os.path.exists(path):
            continue
        parts = path.split("/")
        dirs = ["/".join(parts[:i]) or "/" for i in range(1, len(parts))]
        if all(os.stat(d).st_mode & 0o001 for d in dirs) and os.stat(path).st_mode & 0o005:
            out = subprocess.run([path, "-c", "import sys; print(sys.version_info >= (3, 10))"],
                                 capture_output=True, text=True, timeout=30)
            if out.stdout.strip() == "True":
                return path
    return ""


def _libseccomp() -> bool:
    try:
        ctypes.CDLL("libseccomp.so.2")
        return True
    except OSError:
        return False


def mode(name: str) -> tuple[Mode | None, str]:
    """The mode, or None and why this machine cannot imitate it."""
    if os.geteuid() != 0:
        return None, f"mode {name} needs root to imitate the Cat's container (the Cat runs as root)"
    if name != "full" and not _libseccomp():
        return None, f"mode {name} needs libseccomp.so.2 to imitate the host's seccomp profile"
    if name == "full":
        if subprocess.run(["unshare", "--net", "--mount", "--pid", "--fork", "true"],
                          capture_output=True).returncode != 0:
            return None, "mode full needs namespaces, which this host does not allow"
        return Mode("full", sys.executable), ""
    if name == "root_no_ns":
        return Mode("root_no_ns", sys.executable, ("namespaces",)), ""
    if name == "root_no_landlock":
        return Mode("root_no_landlock", sys.executable, ("namespaces", "landlock")), ""
    python = _reachable_python()
    if not python or shutil.which("setpriv") is None:
        return None, (f"mode {name} needs setpriv and a Python 3.10+ readable by every user "
                      "(as in the Cat image)")
    if name == "unprivileged_cat":
        return Mode(name, python, ("namespaces",), cat_uid=UNPRIVILEGED_CAT_UID), ""
    deny = ("namespaces", "landlock") if name == "container_no_landlock" else ("namespaces",)
    return Mode(name, python, deny, docker_caps=True), ""


def drive(m: Mode, jobs: list[dict], parallel: int = 3, timeout_s: float = 600) -> list[dict]:
    """Run ``jobs`` in the mode's "Cat"; returns one dict per job plus the driver's last line."""
    config = {"root": ROOT, "deny": list(m.deny), "jobs": jobs, "parallel": parallel}
    out = subprocess.run(m.command(), input=json.dumps(config), capture_output=True, text=True,
                         timeout=timeout_s, cwd=ROOT)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines or lines[-1].get("driver") != "done":
        raise AssertionError(f"the {m.name} driver (the 'Cat') did not finish: rc="
                             f"{out.returncode}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
    return lines


def job(name: str, source: str, *, serial: bool = False, argv: list[str] | None = None,
        **kwargs: object) -> dict:
    kwargs.setdefault("timeout_s", 10.0)
    kwargs.setdefault("memory_mb", 512)
    return {"name": name, "files": {"main.py": source}, "argv": argv or ["python", "main.py"],
            "kwargs": kwargs, "serial": serial}

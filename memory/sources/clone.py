"""Repositories by URL: a shallow clone in the data folder, fetched under a time limit and a
size cap, swapped into place only when complete.

The fetch runs in a child process (``clone_worker.py``, dulwich: the stock Cat image has no git
binary) in its own process group, writing into a temporary folder beside the clones. This
process watches it: the time limit, the size of the temporary folder on disk (the worker also
counts the bytes it receives) and the caller's stop (the plugin winding down) each end it by
killing the group, and the temporary folder goes with it. Only a complete clone is renamed into
place, replacing the previous one, so a failed or stopped fetch leaves the previous clone (or
nothing) exactly as it was. Every message says what happened in the user's terms (host
unreachable, authentication needed, no such repository or ref, too big, too slow), with the
URL's credentials redacted.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import CodeMemoryError
from .git_url import GitUrl, redact

#: The worker, run by path (``kill_children`` recognises it on a command line).
CLONE_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clone_worker.py")
_INCOMING = ".incoming-"
_POLL_S = 0.1
#: Environment passed to the worker (a scrubbed environment: proxies and certificates only).
_PASSED = ("PATH", "HOME", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "http_proxy",
           "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


@dataclass(frozen=True)
class CloneDefaults:
    """The limits of one clone, one table (the plugin's settings read it)."""

    #: Bytes on disk (and received) per clone, in MiB.
    max_mb: int = 256
    #: Seconds one fetch may take, listing the refs included.
    timeout_s: int = 120


CLONE_DEFAULTS = CloneDefaults()


@dataclass(frozen=True)
class CloneLimits:
    """The limits of one fetch, and the caller's stop (checked ten times a second)."""

    max_bytes: int = CLONE_DEFAULTS.max_mb << 20
    timeout_s: float = CLONE_DEFAULTS.timeout_s
    stop: Callable[[], bool] = lambda: False
    #: Which fetch runs (``clone_worker.git_engine``): "auto" (the git binary where there is
    #: one, else dulwich), "git" or "dulwich"; not a setting (the tests run both).
    engine: str = "auto"


@dataclass(frozen=True)
class Fetched:
    """A fetch's outcome: the commit and ref name, and whether the remote had not moved."""

    commit: str
    ref: str
    unchanged: bool = False
    #: The engine that fetched: "git" or "dulwich".
    engine: str = ""


class CloneFailed(CodeMemoryError):
    """A fetch that failed or was stopped; the message is the user's (no credentials)."""

    def __init__(self, message: str, kind: str = "failed") -> None:
        super().__init__(redact(message))
        self.kind = kind


def fetch_clone(location: GitUrl, dest: str, limits: CloneLimits,
                known: str = "") -> Fetched:
    """Bring the clone at ``dest`` to ``location``'s ref: nothing changes when the remote is
    at ``known`` and the clone exists; otherwise a new clone replaces it, complete or not at
    all. ``CloneFailed`` says why not."""
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    sweep_incoming(parent)
    tmp = tempfile.mkdtemp(prefix=f"{_INCOMING}{os.getpid()}-", dir=parent)
    try:
        work = os.path.join(tmp, "clone")
        have = known if os.path.isdir(os.path.join(dest, ".git")) else ""
        answer = _run_worker({"url": location.url, "ref": location.ref, "dest": work,
                              "known": have, "max_bytes": limits.max_bytes,
                              "engine": limits.engine}, tmp, limits)
        fetched = Fetched(str(answer["commit"]), str(answer.get("ref", "")),
                          bool(answer["unchanged"]), str(answer.get("engine", "")))
        if not fetched.unchanged:
            if _size(work) > limits.max_bytes:
                raise _too_big(limits)
            _swap(work, dest, tmp)
        return fetched
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def remove_clone(dest: str) -> bool:
    """Delete a clone (``True`` when there was one)."""
    if not os.path.lexists(dest):
        return False
    shutil.rmtree(dest, ignore_errors=True)
    return True


def clone_state(dest: str) -> tuple[str, str]:
    """The commit a clone is at and the ref it was fetched for (("", "") when there is no
    clone), read from its files."""
    try:
        from dulwich.repo import Repo

        with Repo(dest) as repo:
            chain, commit = repo.refs.follow(b"HEAD")
            name = chain[-1].decode() if chain else ""
            return (commit or b"").decode(), name.removeprefix("refs/heads/")
    except Exception:  # no clone, or a damaged one: fetched again
        return "", ""


def sweep_incoming(parent: str) -> None:
    """Remove the temporary folders of fetches whose process is gone (a crash, a kill -9)."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if not name.startswith(_INCOMING):
            continue
        pid = name[len(_INCOMING):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _run_worker(job: dict[str, object], tmp: str, limits: CloneLimits) -> dict[str, object]:
    """Run the worker on ``job`` until it answers, or stop it (time, size, the caller)."""
    env = {k: os.environ[k] for k in _PASSED if k in os.environ}
    env.update(LANG="C.UTF-8", GIT_TERMINAL_PROMPT="0",
               GIT_SSH_COMMAND=f"ssh -o BatchMode=yes -o ConnectTimeout="
                               f"{max(1, int(limits.timeout_s))}")
    out_path, err_path = os.path.join(tmp, "answer.json"), os.path.join(tmp, "errors.txt")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-I", CLONE_WORKER], stdin=subprocess.PIPE,
                                stdout=out, stderr=err, cwd=tmp, env=env,
                                start_new_session=True)
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(job).encode())
        proc.stdin.close()
        _supervise(proc, tmp, limits)
    finally:
        if proc.poll() is None:
            _kill(proc)
    return _answer(out_path, err_path, limits)


def _supervise(proc: subprocess.Popen[bytes], tmp: str, limits: CloneLimits) -> None:
    deadline = time.monotonic() + limits.timeout_s
    while True:
        try:
            proc.wait(_POLL_S)
            return
        except subprocess.TimeoutExpired:
            pass
        if limits.stop():
            _kill(proc)
            raise CloneFailed("the fetch was stopped: the plugin is shutting down", "stopped")
        if time.monotonic() > deadline:
            _kill(proc)
            raise CloneFailed(f"the fetch took longer than the {limits.timeout_s:g} s time "
                              "limit (setting *Sources: clone time limit*): the host does not "
                              "answer, or the repository is too large for it; nothing was "
                              "kept", "too_slow")
        if _size(tmp) > limits.max_bytes:
            _kill(proc)
            raise _too_big(limits)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.wait()


def _too_big(limits: CloneLimits) -> CloneFailed:
    return CloneFailed(f"the repository is bigger than the {limits.max_bytes >> 20} MiB clone "
                       "cap (setting *Sources: clone size cap*); nothing was kept", "too_big")


def _answer(out_path: str, err_path: str, limits: CloneLimits) -> dict[str, object]:
    try:
        with open(out_path, encoding="utf-8") as handle:
            answer = json.loads(handle.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        with open(err_path, encoding="utf-8", errors="replace") as handle:
            tail = handle.read()[-300:].strip()
        raise CloneFailed(f"the fetch ended without an answer ({tail or 'no output'})") from None
    if not isinstance(answer, dict):
        raise CloneFailed("the fetch ended without an answer")
    if answer.get("ok"):
        return answer
    raise CloneFailed(_explain(str(answer.get("kind")), str(answer.get("detail", "")), limits),
                      str(answer.get("kind")))


def _explain(kind: str, detail: str, limits: CloneLimits) -> str:
    short = detail.splitlines()[0][:200].rstrip(": ") if detail else ""
    if kind == "auth":
        return ("the server asks for authentication: put a read-only token in the URL as its "
                "user name (https, e.g. https://<token>@host/owner/repo) or use an ssh URL with "
                "a key the Cat's user has")
    if kind == "not_found":
        return ("there is no repository at that URL (a private repository answers this way "
                "too when no credentials are given)")
    if kind == "ref_not_found":
        return short or "the ref names no branch, tag or commit of the repository"
    if kind == "unreachable":
        return f"the host cannot be reached ({_network_reason(short)})"
    if kind == "too_big":
        return str(_too_big(limits))
    return f"the fetch failed: {short or kind}"


def _network_reason(detail: str) -> str:
    lowered = detail.lower()
    for words, reason in ((("refused",), "connection refused"),
                          (("name or service", "nodename", "getaddrinfo", "resolve"),
                           "unknown host name"),
                          (("timed out", "timeout"), "no answer in time"),
                          (("unreachable",), "network unreachable"),
                          (("certificate", "ssl"), "its TLS certificate was refused"),
                          (("couldn't connect", "failed to connect"), "the connection failed")):
        if any(w in lowered for w in words):
            return reason
    return detail[:120] or "no connection"


def _size(folder: str) -> int:
    """Bytes on disk under ``folder`` (allocated blocks: a sparse file counts as written)."""
    total = 0
    for top, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(top, name)).st_blocks * 512
            except OSError:
                continue
    return total


def _swap(work: str, dest: str, tmp: str) -> None:
    """``work`` becomes ``dest``; the previous clone is moved into ``tmp`` (then removed)."""
    if os.path.lexists(dest):
        os.rename(dest, os.path.join(tmp, "previous"))
    os.rename(work, dest)

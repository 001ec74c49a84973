"""The hostile programs (docs/threat-model.md), in every deployment this machine can imitate
(full isolation, the Docker container, root without namespaces, a Cat that is not root).

Each mode (see ``sandbox_modes``) starts a "Cat" process under that deployment's conditions,
which runs every program of ``hostile_programs`` through the real ``run_in_sandbox``. Pass:
each program is stopped within the timeout + 1 s, nothing of it is left running, and it
reached nothing outside its workspace: canary files (in ``/tmp``, a home folder, a data folder
with a ``memories.db``) unchanged and unread, no file created in ``/tmp``, ``/var/tmp``,
``/dev/shm``, the plugin folder or ``/app``, the loopback canary server saw 0 connections and 0
datagrams, the "Cat" and this test process alive, no secret in any output. Prints one
``RELIABILITY {...}`` line per mode with the figures.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid

import pytest

from codemem.codegen.sandbox.api import OUTPUT_CAP
from codemem.codegen.sandbox.watch import alive, pids_of

from .canaries import CanaryServer
from .hostile_programs import ATTACKS, PROGRAMS, Hostile
from .sandbox_modes import ROOT, drive, mode

TIMEOUT_S = 2.0
DISK_MB = 128
OUTSIDE = ("/tmp/evil_{tag}", "/var/tmp/evil_{tag}", "/dev/shm/evil_{tag}",
           os.path.join(ROOT, "evil_{tag}.py"), "/app/evil_{tag}.py")


@pytest.fixture
def canaries(monkeypatch):
    """World-readable and world-writable canaries outside any sandbox workspace."""
    tag = uuid.uuid4().hex[:12]
    home = tempfile.mkdtemp(prefix="cwm-canary-home-")
    os.chmod(home, 0o777)
    secrets = {"CANARY_SECRET_1": f"canary-env-{tag}", "OPENAI_API_KEY": f"sk-canary-{tag}",
               "CCAT_JWT_SECRET": f"ccat-canary-{tag}"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    datadir = os.path.join(home, "data", "code_working_memory")
    files = {os.path.join(home, "notes.txt"): f"user notes {tag}\n",
             os.path.join(home, "metadata.json"): json.dumps({"openai_key": f"meta-{tag}"}),
             os.path.join(home, ".ssh", "id_rsa"): f"PRIVATE KEY {tag}\n",
             os.path.join(datadir, "memories.db"): f"SQLite format 3 memory-{tag}\n"}
    tmp_canary = os.path.join(tempfile.gettempdir(), f"cwm-canary-{tag}.txt")
    files[tmp_canary] = f"tmp canary {tag}\n"
    for path, text in files.items():
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "w") as handle:
            handle.write(text)
        os.chmod(path, 0o644 if path.endswith("memories.db") else 0o666)
    state = {"tag": tag, "home": home, "meta": os.path.join(home, "metadata.json"),
             "tmp_canary": tmp_canary, "memdb": os.path.join(datadir, "memories.db"),
             "datadir": datadir,
             "secrets": [*secrets.values(), f"meta-{tag}", f"PRIVATE KEY {tag}", f"memory-{tag}",
                         f"user notes {tag}", f"tmp canary {tag}", "code_working_memory\","]}
    yield state
    shutil.rmtree(home, ignore_errors=True)
    for path in [tmp_canary] + [p.format(tag=tag) for p in OUTSIDE]:
        if os.path.exists(path):
            os.remove(path)


def digest(state: dict) -> str:
    """sha256 over names, modes, contents and access times of every canary."""
    h = hashlib.sha256()
    paths = [state["tmp_canary"]]
    for root, dirs, names in os.walk(state["home"]):
        dirs.sort()
        paths += [os.path.join(root, n) for n in sorted(names)] + [root]
    for path in paths:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            h.update(f"{path}:MISSING".encode())
            continue
        h.update(f"{path}:{info.st_mode}:{info.st_nlink}".encode())
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                h.update(handle.read())
    return h.hexdigest()


def tagged_processes(tag: str) -> list[int]:
    """Live, non-zombie processes carrying the battery tag in their command line or env."""
    found = []
    needle = tag.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
            for part in ("cmdline", "environ"):
                with open(f"/proc/{entry}/{part}", "rb") as handle:
                    if needle in handle.read():
                        found.append(int(entry))
                        break
        except (OSError, IndexError):
            continue
    return found


def describe(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
        return f"{pid} uid={os.stat(f'/proc/{pid}').st_uid} {cmdline[:200]}"
    except OSError:
        return f"{pid} (gone)"


def render(program: Hostile, values: dict[str, object]) -> str:
    source = program.source
    for key, value in values.items():
        source = source.replace("{" + key + "}", str(value))
    return source


def violations(program: Hostile, res: dict, secrets: list[str]) -> list[str]:
    found = []
    if res["duration_s"] > TIMEOUT_S + 1.0:
        found.append(f"stopped after {res['duration_s']:.2f}s")
    if res["status"] not in program.statuses:
        found.append(f"status {res['status']} not in {program.statuses}: {res['error']} "
                     f"{res['stderr'][-300:]}")
    if program.expect_out and program.expect_out not in res["stdout"]:
        found.append(f"expected {program.expect_out!r} in stdout: {res['stdout'][-300:]!r} "
                     f"{res['stderr'][-300:]!r}")
    if program.expect_error and program.expect_error not in res["error"]:
        found.append(f"expected {program.expect_error!r} in the error: {res['error']!r}")
    if "DONE" in res["stdout"] and program.name.startswith(ATTACKS):
        found.append(f"an attack step succeeded: {res['stdout'][-300:]!r}")
    text = res["stdout"] + res["stderr"]
    found += [f"secret leaked: {s[:16]}" for s in secrets if s in text]
    if len(res["stdout"]) > OUTPUT_CAP + 200 or len(res["stderr"]) > OUTPUT_CAP + 200:
        found.append("output not capped")
    return found


def shadow_marker() -> list[str]:
    """The start of the real /etc/shadow (read as root here): must never appear in output."""
    try:
        with open("/etc/shadow") as handle:
            return [handle.readline().strip()[:24]]
    except OSError:
        return []


@pytest.mark.slow
@pytest.mark.parametrize("mode_name", ["full", "container", "root_no_ns", "unprivileged_cat"])
def test_hostile_programs_are_contained(canaries, mode_name):
    deployment, why = mode(mode_name)
    if deployment is None:
        pytest.skip(why)
    assert len(PROGRAMS) >= 40
    tag = canaries["tag"]
    before = digest(canaries)
    started = time.monotonic()
    with CanaryServer() as server:
        values = dict(canaries, port=server.port, udp_port=server.udp_port, repo=ROOT,
                      test_pid=os.getpid())
        jobs = [{"name": p.name, "files": {"main.py": render(p, values)},
                 "argv": ["python", "main.py", tag], "serial": p.serial,
                 "kwargs": {"timeout_s": TIMEOUT_S, "memory_mb": 512, "disk_mb": DISK_MB,
                            "env": {"HOSTILE_TAG": tag}}} for p in PROGRAMS]
        lines = drive(deployment, jobs)
        time.sleep(0.2)
    results = {line["name"]: line for line in lines[:-1]}
    leaked = tagged_processes(tag) + [p for r in results.values() if r["uid"]
                                      for p in pids_of(r["uid"]) if alive(p)]
    secrets = canaries["secrets"] + shadow_marker()
    problems = {p.name: violations(p, results[p.name], secrets) for p in PROGRAMS}
    problems = {name: v for name, v in problems.items() if v}
    outside = [p.format(tag=tag) for p in OUTSIDE if os.path.exists(p.format(tag=tag))]
    figures = {
        "test": "hostile_programs", "mode": mode_name, "programs": len(results),
        "escapes": len(problems), "timeout_s": TIMEOUT_S,
        "max_kill_latency_s": round(max(r["duration_s"] for r in results.values()), 3),
        "leaked_procs": len(set(leaked)), "bytes_outside": len(outside),
        "canaries_changed": digest(canaries) != before, "canary_conns": server.connections,
        "canary_datagrams": server.datagrams,
        "leftovers_killed": sum(r["leftovers_killed"] for r in results.values()),
        "protections": " ".join(f"{name}={'on' if on else 'OFF'}" for name, (on, _)
                                in results["infinite_loop"]["layers"].items()),
        "battery_s": round(time.monotonic() - started, 1)}
    print("RELIABILITY " + json.dumps(figures))
    assert problems == {}, json.dumps(problems, indent=1)
    assert not leaked, [describe(pid) for pid in set(leaked)]
    assert not outside and not figures["canaries_changed"]
    assert server.connections == 0 and server.datagrams == 0
    assert len(results) == len(PROGRAMS)

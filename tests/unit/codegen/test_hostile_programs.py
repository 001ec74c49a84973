"""Reliability test X1: 40 hostile generated programs in the sandbox (reliability.md §3.6).

Pass: each is stopped within the timeout + 1 s, leaves no process behind, and reaches nothing
outside its dir (canary hashes unchanged, the loopback canary server sees 0 connections, no
secret in any output). Prints one ``RELIABILITY {...}`` line with the figures.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from codemem.codegen.sandbox import OUTPUT_CAP, run_in_sandbox

from .canaries import CanaryServer
from .hostile_programs import PROGRAMS, Hostile

TIMEOUT_S = 2.0
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


@pytest.fixture
def canaries(monkeypatch):
    """World-writable canaries in /tmp (only the sandbox's mount masks protect them)."""
    tag = uuid.uuid4().hex[:12]
    home = tempfile.mkdtemp(prefix="cwm-canary-home-")
    os.chmod(home, 0o777)
    secrets = {"CANARY_SECRET_1": f"canary-env-{tag}", "OPENAI_API_KEY": f"sk-canary-{tag}",
               "CCAT_JWT_SECRET": f"ccat-canary-{tag}"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    files = {os.path.join(home, "notes.txt"): f"user notes {tag}\n",
             os.path.join(home, "metadata.json"): json.dumps({"openai_key": f"meta-{tag}"}),
             os.path.join(home, ".ssh", "id_rsa"): f"PRIVATE KEY {tag}\n"}
    tmp_canary = os.path.join(tempfile.gettempdir(), f"cwm-canary-{tag}.txt")
    files[tmp_canary] = f"tmp canary {tag}\n"
    for path, text in files.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(text)
        os.chmod(path, 0o666)
    state = {"tag": tag, "home": home, "meta": os.path.join(home, "metadata.json"),
             "tmp_canary": tmp_canary, "secrets": [*secrets.values(), f"meta-{tag}",
                                                   f"PRIVATE KEY {tag}"]}
    yield state
    shutil.rmtree(home, ignore_errors=True)
    for path in (tmp_canary, f"/tmp/evil_{tag}", os.path.join(REPO, f"evil_{tag}.py")):
        if os.path.exists(path):
            os.remove(path)


def digest(state: dict) -> str:
    """sha256 over names, modes and contents of every canary."""
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


def rss_mb() -> float:
    """This process's resident set size (no psutil: the Cat imports this file too)."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def render(program: Hostile, values: dict[str, object]) -> str:
    source = program.source
    for key, value in values.items():
        source = source.replace("{" + key + "}", str(value))
    return source


def run_one(program: Hostile, values: dict[str, object], tag: str):
    started = time.monotonic()
    res = run_in_sandbox({"main.py": render(program, values)}, ["python", "main.py", tag],
                         timeout_s=TIMEOUT_S, memory_mb=512, env={"HOSTILE_TAG": tag})
    return program, res, time.monotonic() - started


def violations(program: Hostile, res, secrets: list[str]) -> list[str]:
    found = []
    if res.duration_s > TIMEOUT_S + 1.0:
        found.append(f"stopped after {res.duration_s:.2f}s")
    if res.status not in program.statuses:
        found.append(f"status {res.status} not in {program.statuses}: {res.stderr[-300:]}")
    if program.expect_out and program.expect_out not in res.stdout:
        found.append(f"expected {program.expect_out!r} in stdout: {res.stdout[-300:]!r}")
    if "DONE" in res.stdout and program.name.startswith(("fs_", "net_", "secrets_")):
        found.append(f"an attack step succeeded: {res.stdout[-300:]!r}")
    text = res.stdout + res.stderr
    found += [f"secret leaked: {s[:12]}" for s in secrets if s in text]
    if len(res.stdout) > OUTPUT_CAP + 200 or len(res.stderr) > OUTPUT_CAP + 200:
        found.append("output not capped")
    return found


def test_forty_hostile_programs_are_contained(canaries):
    assert len(PROGRAMS) == 40
    tag = canaries["tag"]
    before = digest(canaries)
    rss_before = rss_mb()
    battery_start = time.monotonic()
    with CanaryServer() as server:
        values = dict(canaries, port=server.port, udp_port=server.udp_port, repo=REPO,
                      test_pid=os.getpid())
        with ThreadPoolExecutor(max_workers=3) as pool:
            outcomes = list(pool.map(lambda p: run_one(p, values, tag),
                                     [p for p in PROGRAMS if not p.serial]))
        leaked = tagged_processes(tag)
        outcomes += [run_one(p, values, tag) for p in PROGRAMS if p.serial]
        leaked += tagged_processes(tag)
        time.sleep(0.2)
    problems = {p.name: violations(p, res, canaries["secrets"]) for p, res, _ in outcomes}
    problems = {name: v for name, v in problems.items() if v}
    outside = [path for path in (f"/tmp/evil_{tag}", os.path.join(REPO, f"evil_{tag}.py"),
                                 f"/app/evil_{tag}.py") if os.path.exists(path)]
    canaries_changed = digest(canaries) != before
    rss_growth_mb = rss_mb() - rss_before
    figures = {
        "test": "hostile_programs", "programs": len(outcomes), "escapes": len(problems),
        "max_kill_latency_s": round(max(r.duration_s for _, r, _ in outcomes) - 0, 3),
        "max_wall_s": round(max(w for _, _, w in outcomes), 3),
        "leaked_procs": len(set(leaked)), "bytes_outside": len(outside),
        "canaries_changed": canaries_changed, "canary_conns": server.connections,
        "canary_datagrams": server.datagrams, "rss_growth_mb": round(rss_growth_mb, 1),
        "leftovers_hunted": sum(r.leftovers_killed for _, r, _ in outcomes),
        "isolation": outcomes[0][1].isolation.summary(), "timeout_s": TIMEOUT_S,
        "battery_s": round(time.monotonic() - battery_start, 1)}
    print("RELIABILITY " + json.dumps(figures))
    assert problems == {}
    assert not leaked and not outside and not canaries_changed
    assert server.connections == 0 and server.datagrams == 0
    assert rss_growth_mb < 200

"""The sandbox without namespaces (the Docker deployment): what must hold there.

Each test reproduces one failure the probe found in the fallback modes, against real processes,
with ``namespaces=False`` (this process: root, every capability, an interpreter under
``/root`` that an unprivileged uid cannot reach) or in an imitated deployment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

import pytest

from codemem.codegen import SandboxPolicy
from codemem.codegen.checks.pytest_runner import run_tests
from codemem.codegen.sandbox.api import run_in_sandbox, sandbox_capabilities
from codemem.codegen.sandbox.env import blocked_ancestors

from .canaries import CanaryServer
from .sandbox_modes import ROOT, drive, mode

ROOT_USER = os.geteuid() == 0
TRY = ("import ctypes, os, subprocess, sys\n"
       "def attempt(label, fn):\n    try:\n        fn()\n        print(label, 'DONE')\n"
       "    except Exception as exc:\n        print(label, 'refused', type(exc).__name__)\n")


def run(src: str, **kw):
    kw.setdefault("timeout_s", 10)
    kw.setdefault("memory_mb", 512)
    return run_in_sandbox({"main.py": src}, ["python", "main.py", *kw.pop("args", [])],
                          namespaces=False, **kw)


@pytest.fixture
def data_folder(tmp_path_factory):
    """A world-readable data folder like the plugin's, outside every sandbox workspace."""
    folder = tempfile.mkdtemp(prefix="cwm-datafolder-")
    os.chmod(folder, 0o755)
    db = os.path.join(folder, "memories.db")
    with open(db, "w") as handle:
        handle.write(f"SQLite format 3 secret-{uuid.uuid4().hex}")
    os.chmod(db, 0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_world_readable_files_outside_the_workspace_cannot_be_read(data_folder):
    db = os.path.join(data_folder, "memories.db")
    with open(db) as handle:
        secret = handle.read()
    res = run(TRY + f"attempt('db', lambda: print(open({db!r}).read()))\n"
              f"attempt('plugin', lambda: print(open({ROOT + '/plugin.json'!r}).read()))\n"
              f"attempt('ls', lambda: print(os.listdir({data_folder!r})))\n")
    assert res.status == "ok", res.stderr
    assert "db refused" in res.stdout and "plugin refused" in res.stdout
    assert "ls refused" in res.stdout
    assert secret not in res.stdout and "DONE" not in res.stdout
    assert res.protections.files.active and "Landlock" in res.protections.files.detail


def test_no_file_is_left_in_tmp_var_tmp_or_dev_shm():
    tag = uuid.uuid4().hex
    paths = [f"{d}/cwm-evil-{tag}" for d in ("/tmp", "/var/tmp", "/dev/shm")]
    res = run(TRY + f"for p in {paths!r}:\n    attempt(p, lambda: open(p, 'w').write('x'))\n")
    assert res.status == "ok", res.stderr
    assert res.stdout.count("refused") == 3
    assert not [p for p in paths if os.path.exists(p)]


NETWORK_PATHS = {
    "_socket": "import _socket\ns = _socket.socket()\ns.connect(('127.0.0.1', PORT))",
    "ctypes": "libc = ctypes.CDLL(None, use_errno=True)\nfd = libc.socket(2, 1, 0)\n"
              "assert fd >= 0, 'socket refused'\n"
              "addr = (ctypes.c_ubyte * 16)(2, 0, PORT >> 8, PORT & 255, 127, 0, 0, 1)\n"
              "assert libc.connect(fd, addr, 16) == 0, 'connect refused'",
    "python -I": "subprocess.run([sys.executable, '-I', '-c', 'import socket; "
                 "socket.create_connection((\"127.0.0.1\", PORT), 1)'], check=True)",
    "bash /dev/tcp": "subprocess.run(['bash', '-c', 'echo x > /dev/tcp/127.0.0.1/PORT'], "
                     "check=True)",
    "curl": "subprocess.run(['curl', '-sf', '-m', '2', 'http://127.0.0.1:PORT/'], check=True)",
    "udp": "import _socket\ns = _socket.socket(2, 2)\ns.sendto(b'x', ('127.0.0.1', UDP))",
}


@pytest.mark.parametrize("path", sorted(NETWORK_PATHS))
def test_every_network_path_is_closed(path):
    with CanaryServer() as server:
        body = NETWORK_PATHS[path].replace("UDP", str(server.udp_port))
        body = body.replace("PORT", str(server.port))
        res = run(TRY + "def go():\n" + "".join(f"    {line}\n" for line in body.splitlines())
                  + "attempt('net', go)\n")
        time.sleep(0.2)
    assert "net refused" in res.stdout, res.stdout + res.stderr
    assert server.connections == 0 and server.datagrams == 0


@pytest.mark.skipif(not ROOT_USER, reason="the uid switch needs the Cat to run as root")
def test_an_unreachable_interpreter_never_means_running_as_root():
    """Without the uid drop, code could read /etc/shadow, fork past the process limit and
    SIGKILL a host process: it runs as a uid of its own or not at all."""
    victim = subprocess.Popen(["sleep", "60"])
    try:
        src = TRY + (f"print('uid', os.getuid())\nattempt('shadow', lambda: open('/etc/shadow')"
                     f".read())\nattempt('kill', lambda: os.kill({victim.pid}, 9))\nn = 0\n"
                     "for _ in range(300):\n    try:\n        if os.fork() == 0:\n"
                     "            import time; time.sleep(5); os._exit(0)\n        n += 1\n"
                     "    except OSError:\n        break\nprint('forked', n)\n")
        res = run(src, max_procs=64, timeout_s=20)
        assert victim.poll() is None, "the sandbox killed a host process"
    finally:
        victim.kill()
        victim.wait()
    assert res.status == "ok", res.stderr
    uid = int(res.stdout.split("uid ")[1].split()[0])
    assert uid != 0 and res.protections.unprivileged.active
    assert "shadow refused" in res.stdout and "kill refused" in res.stdout
    assert int(res.stdout.split("forked ")[1].split()[0]) < 64
    if blocked_ancestors([sys.base_prefix]):  # this machine: Python under /root
        assert "CAP_DAC_READ_SEARCH" in res.protections.unprivileged.detail


def test_a_double_forked_setsid_daemon_with_an_empty_environment_is_killed():
    tag = uuid.uuid4().hex
    src = ("import os, sys\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
           f"        os.execve(sys.executable, [sys.executable, '-c', 'import time; "
           f"time.sleep(60)', {tag!r}], {{}})\n    os._exit(0)\nprint('daemonised')\n")
    res = run(src)
    assert res.status == "ok" and res.leftovers_killed >= 1
    assert res.protections.cleanup.active
    time.sleep(0.1)
    assert _tagged(tag) == []


def test_disk_fill_is_stopped_at_the_quota():
    src = ("block = b'0' * (1 << 20)\nfor i in range(20):\n    with open(f'f{i}', 'wb') as f:\n"
           "        for _ in range(60):\n            f.write(block)\nimport time\n"
           "time.sleep(30)\n")
    res = run(src, disk_mb=64, timeout_s=30)
    assert res.status == "killed" and "disk quota exceeded" in res.error
    assert res.duration_s < 10
    assert 64 * 2**20 < res.disk_peak < 64 * 2**20 + 300 * 2**20


def test_pytest_runner_asks_the_sandbox_for_the_policy_it_was_given():
    seen = []

    def sandbox(files, argv, **kw):
        seen.append(kw.get("require"))
        return run_in_sandbox(files, argv, **kw)

    results = run_tests({"test_a.py": "def test_a():\n    assert True\n"}, ["test_a.py"],
                        local_modules=set(), timeout_s=60, memory_mb=1024, sandbox=sandbox,
                        policy=SandboxPolicy.require_all)
    assert seen == [SandboxPolicy.require_all]
    caps = sandbox_capabilities()
    if caps.missing(SandboxPolicy.require_all.required()):
        assert results[0].status == "env_error" and "refusing" in results[0].message
    else:
        assert [r.status for r in results] == ["passed"]


def test_validation_refuses_to_run_tests_without_file_isolation():
    """On a host without Landlock, the default policy refuses and says what is missing."""
    deployment, why = mode("root_no_landlock")
    if deployment is None:
        pytest.skip(why)
    files = {"pkg/__init__.py": "", "pkg/mod.py": "def area(r):\n    return 3 * r * r\n"}
    tests = {"tests/test_area.py": "from pkg.mod import area\n\ndef test_one():\n"
             "    assert area(2) == 12\n"}
    jobs = [{"name": policy, "files": files, "validate": {
        "target_path": "pkg/mod.py", "test_files": tests, "policy": policy, "timeout_s": 60}}
        for policy in ("require_isolation", "allow_weaker")]
    lines = {line["name"]: line for line in drive(deployment, jobs, parallel=1)[:-1]}
    refused = [r for r in lines["require_isolation"]["report"]["results"]
               if r["check"] == "tests"]
    assert [r["status"] for r in refused] == ["env_error"]
    assert "files" in refused[0]["message"] and "Landlock" in refused[0]["message"]
    assert "Sandbox policy" in refused[0]["message"] or "sandbox policy" in refused[0]["message"]
    # the weaker policy would run without Landlock, but here the interpreter lives where only
    # root can read it, and without Landlock nothing may keep the capability to reach it:
    # generated code never runs as root, whatever the policy
    weaker = [r for r in lines["allow_weaker"]["report"]["results"] if r["check"] == "tests"]
    assert [r["status"] for r in weaker] == ["env_error"]
    assert "unprivileged" in weaker[0]["message"] and "root" in weaker[0]["message"]


def _tagged(tag: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if tag.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def test_the_policy_decides_what_runs_on_a_host_without_landlock():
    """The Docker deployment on a kernel without Landlock (reachable interpreter)."""
    deployment, why = mode("container_no_landlock")
    if deployment is None:
        pytest.skip(why)
    src = "print('RAN')"
    jobs = [{"name": policy, "files": {"main.py": src}, "argv": ["python", "main.py"],
             "kwargs": {"timeout_s": 20, "memory_mb": 512, "require": policy}}
            for policy in ("require_isolation", "require_all", "allow_weaker")]
    lines = {line["name"]: line for line in drive(deployment, jobs, parallel=1)[:-1]}
    for refused in ("require_isolation", "require_all"):
        assert lines[refused]["status"] == "error" and "RAN" not in lines[refused]["stdout"]
        assert "files: no Landlock" in lines[refused]["error"]
        assert "README section 'Safety'" in lines[refused]["error"]
    weaker = lines["allow_weaker"]
    assert weaker["status"] == "ok" and weaker["stdout"].strip() == "RAN"
    assert weaker["layers"]["files"][0] is False and weaker["layers"]["network"][0] is True
    assert weaker["uid"] not in (None, 0)

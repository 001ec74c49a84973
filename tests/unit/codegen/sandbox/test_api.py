"""The sandbox with real subprocesses: statuses, limits, env scrubbing, paths, output cap."""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile

import pytest

from codemem.codegen.sandbox.api import run_in_sandbox

from .canaries import CanaryServer

ROOT = os.geteuid() == 0


def run(src: str, **kw):
    kw.setdefault("timeout_s", 10)
    kw.setdefault("memory_mb", 512)
    return run_in_sandbox({"main.py": src}, ["python", "main.py"], **kw)


def test_ok_run_uses_the_cats_interpreter_and_reports_isolation():
    res = run("import sys; print(sys.executable); print(sys.version_info[:2])")
    assert res.status == "ok" and res.returncode == 0
    lines = res.stdout.splitlines()
    assert lines[0] == sys.executable
    assert lines[1] == str(sys.version_info[:2])
    if ROOT:
        assert res.protections.unprivileged.active
        assert res.protections.uid is not None and res.protections.uid >= 1000
    assert "status=ok" in res.summary()


def test_failed_exit_code_and_stderr():
    res = run("import sys; sys.stderr.write('boom\\n'); sys.exit(3)")
    assert res.status == "failed" and res.returncode == 3
    assert "boom" in res.stderr


def test_command_that_cannot_be_executed_is_an_error():
    res = run_in_sandbox({}, ["no-such-binary-xyz"], timeout_s=5, memory_mb=256)
    assert res.status == "error"
    assert "cannot execute" in res.error


@pytest.mark.parametrize("bad", ["/etc/passwd", "../up.py", "a/../../b.py", "", "a//b.py",
                                 "x\x00.py"])
def test_unsafe_paths_are_rejected_before_anything_runs(bad):
    res = run_in_sandbox({bad: "print(1)"}, ["python", "-c", "print(1)"], timeout_s=5,
                         memory_mb=256)
    assert res.status == "error" and "unsafe sandbox path" in res.error
    assert res.returncode is None
    assert res.stdout == ""


def test_nested_files_are_written_and_importable():
    files = {"pkg/__init__.py": "", "pkg/mod.py": "VALUE = 41\n",
             "main.py": "from pkg.mod import VALUE\nprint(VALUE + 1)\n"}
    res = run_in_sandbox(files, ["python", "main.py"], timeout_s=10, memory_mb=512)
    assert res.status == "ok" and res.stdout.strip() == "42"


def test_env_is_scrubbed_and_secret_extras_refused(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-1")
    monkeypatch.setenv("CCAT_JWT_SECRET", "canary-2")
    monkeypatch.setenv("CANARY_SECRET_X", "canary-3")
    src = "import os, json; print(json.dumps(dict(os.environ)))"
    res = run(src, env={"MY_SETTING": "1", "GITHUB_TOKEN": "canary-4"})
    assert res.status == "ok"
    for canary in ("sk-canary-1", "canary-2", "canary-3", "canary-4"):
        assert canary not in res.stdout
    assert '"MY_SETTING": "1"' in res.stdout
    assert '"PYTHONHASHSEED": "0"' in res.stdout
    assert '"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"' in res.stdout
    assert any("GITHUB_TOKEN" in note for note in res.protections.notes)


def test_temp_dir_is_outside_the_cwd_and_deleted_afterwards():
    res = run("import os; print(os.getcwd()[::-1])")
    cwd = res.stdout.strip()[::-1]
    assert os.path.realpath(cwd).startswith(os.path.realpath(tempfile.gettempdir()))
    assert not cwd.startswith(os.getcwd()) and not cwd.startswith("/app")
    assert not os.path.exists(cwd)
    assert cwd not in res.summary()


def test_wall_clock_timeout_kills_a_sleeper():
    res = run("import time; time.sleep(60)", timeout_s=1.5)
    assert res.status == "timeout"
    assert res.duration_s < 1.5 + 1.0


def test_cpu_limit_kills_a_busy_loop():
    res = run("while True: pass", timeout_s=30, cpu_s=1)
    assert res.status == "killed"
    assert "SIGKILL" in res.error or "SIGXCPU" in res.error


def test_memory_limit_raises_memory_error():
    res = run("x = bytearray(1024 * 1024 * 1024)", memory_mb=256)
    assert res.status == "failed" and "MemoryError" in res.stderr


def test_output_is_capped_with_a_note():
    res = run("import sys\nfor _ in range(64): sys.stdout.write('y' * 65536)",
              output_cap=100_000)
    assert res.status == "ok" and res.stdout_truncated
    assert res.stdout.split("\n")[0] == "y" * 100_000
    assert "output truncated" in res.stdout


def test_collect_reads_regular_files_but_not_symlinks():
    src = ("import os\nopen('report.xml', 'w').write('<ok/>')\n"
           "os.symlink('/etc/hostname', 'link.xml')\n")
    res = run(src, collect=("report.xml", "link.xml", "missing.xml", "../x"))
    assert res.status == "ok"
    assert res.collected == {"report.xml": "<ok/>"}


@pytest.mark.parametrize("namespaces", [True, False])
def test_network_is_blocked_with_namespace_or_guard(namespaces):
    with CanaryServer() as canary:
        src = ("import socket\ntry:\n    socket.create_connection(('127.0.0.1', %d), 1)\n"
               "    print('CONNECTED')\nexcept OSError as e:\n    print('blocked', e)\n"
               % canary.port)
        res = run(src, namespaces=namespaces)
    assert res.status == "ok" and "blocked" in res.stdout
    assert canary.connections == 0
    assert res.protections.network.active
    assert ("namespace" in res.protections.network.detail) == namespaces


def test_without_namespaces_escaped_double_fork_is_hunted_down():
    src = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
           "        time.sleep(60)\n    os._exit(0)\nprint('daemonised')\n")
    res = run(src, namespaces=False)
    assert res.status == "ok"
    assert res.leftovers_killed >= 1


def test_sandbox_dies_with_the_cat(tmp_path):
    """Kill -9 the process that called run_in_sandbox: the sandboxed sleeper must die too."""
    import subprocess
    import time
    import uuid

    tag = uuid.uuid4().hex
    script = tmp_path / "cat.py.txt"
    root = str(pathlib.Path(__file__).resolve().parents[4])
    script.write_text(
        f"import sys\nsys.path.insert(0, {root!r})\nimport tests\n"
        "from codemem.codegen.sandbox.api import run_in_sandbox\n"
        "run_in_sandbox({'main.py': 'import time\\nprint(1, flush=True)\\ntime.sleep(60)'},"
        f" ['python', 'main.py', {tag!r}], timeout_s=60, memory_mb=256)\n")
    cat = subprocess.Popen([sys.executable, str(script)])
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not _tagged(tag):
            time.sleep(0.05)
        assert _tagged(tag), "the sandboxed sleeper never started"
    finally:
        cat.kill()
        cat.wait()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and _tagged(tag):
        time.sleep(0.05)
    assert _tagged(tag) == []
    from codemem.codegen.sandbox.env import sweep_stale

    leftover = [e for e in os.listdir(tempfile.gettempdir())
                if e.startswith(f"cwm-sbx-{cat.pid}-")]
    assert len(leftover) == 1  # the killed "Cat" could not clean up ...
    assert sweep_stale(tempfile.gettempdir()) >= 1  # ... so the next start sweeps it
    assert not os.path.exists(os.path.join(tempfile.gettempdir(), leftover[0]))


def _tagged(tag: str) -> list[int]:
    """Live, non-zombie processes whose command line holds ``tag``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if tag.encode() not in handle.read():
                    continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except (OSError, IndexError):
            continue
        found.append(int(entry))
    return found


def test_file_and_directory_clash_is_an_error_not_an_exception():
    res = run_in_sandbox({"a": "x", "a/b.py": "y"}, ["python", "-c", "print(1)"], timeout_s=5,
                         memory_mb=256)
    assert res.status == "error" and "cannot write the sandbox files" in res.error


def test_an_interpreter_under_a_masked_temp_dir_still_starts(tmp_path):
    """A checkout or venv under /tmp (CI clones, dev trees) must survive the /tmp mask."""
    import subprocess
    import sys
    import tempfile

    assert str(tmp_path).startswith(tempfile.gettempdir())
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    root = str(pathlib.Path(__file__).resolve().parents[4])
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import tests\n"
        "from codemem.codegen.sandbox.api import run_in_sandbox\n"
        "r = run_in_sandbox({'m.py': 'print(6 * 7)'}, ['python', 'm.py'], timeout_s=20,"
        " memory_mb=512)\n"
        "print(r.status, r.stdout.strip())\n"
    )
    out = subprocess.run([str(venv / "bin" / "python"), "-c", script, root],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["ok", "42"], out.stdout + out.stderr

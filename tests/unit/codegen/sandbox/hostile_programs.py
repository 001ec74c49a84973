"""The hostile programs of the sandbox's battery (docs/threat-model.md), as data.

Each program is Python source with ``{placeholders}`` replaced by plain text replacement (not
``str.format``): canary paths, the canary server's ports, the battery tag, the test's pid;
``{cat_pid}`` is replaced by the "Cat" (the driver process) itself. ``serial`` programs (fork
and thread bombs) run alone so they do not slow the timing of the others on a 2-core machine.
Every attack step prints ``<label> DONE`` when it succeeds and ``<label> refused`` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hostile:
    name: str
    source: str
    #: Statuses this program may end with (the containment checks apply to all of them).
    statuses: tuple[str, ...] = ("ok", "failed", "timeout", "killed")
    serial: bool = False
    #: Text that must appear in stdout (proof the attack was attempted and refused).
    expect_out: str = ""
    #: Text that must appear in the sandbox's error (e.g. the disk quota).
    expect_error: str = ""


STOPPED = ("timeout", "killed")
#: Programs whose names start with these must never print DONE.
ATTACKS = ("fs_", "net_", "secrets_", "proc_", "ipc_")
_TRY = ("import ctypes, os, sys\nLIBC = ctypes.CDLL(None, use_errno=True)\n"
        "def attempt(label, fn):\n    try:\n        fn()\n        print(label, 'DONE')\n"
        "    except Exception as exc:\n        print(label, 'refused', type(exc).__name__)\n"
        "def check(rc):\n    if rc < 0:\n        raise OSError(ctypes.get_errno(), 'failed')\n"
        "    return rc\n")
_FILL = "import os\nblock = b'0' * (1 << 20)\n"

_RUNAWAY = (
    Hostile("infinite_loop", "while True:\n    pass\n", STOPPED),
    Hostile("sleep_forever", "import time\ntime.sleep(10**6)\n", ("timeout",)),
    Hostile("ignores_sigterm", "import signal, time\nsignal.signal(signal.SIGTERM, "
            "signal.SIG_IGN)\nwhile True:\n    time.sleep(0.01)\n", ("timeout",)),
    Hostile("threads_spin", "import threading, time\ndef spin():\n    while True:\n"
            "        pass\nfor _ in range(8):\n    threading.Thread(target=spin, daemon=True)"
            ".start()\ntime.sleep(10**6)\n", STOPPED),
    Hostile("fork_bomb", "import os\nwhile True:\n    try:\n        os.fork()\n"
            "    except OSError:\n        pass\n", STOPPED, serial=True),
    Hostile("bash_fork_bomb", "import subprocess\nsubprocess.run(['bash', '-c', "
            "'f(){ f | f & }; f'])\nimport time\ntime.sleep(10**6)\n", STOPPED, serial=True),
    Hostile("thread_bomb", "import threading, time\nn = 0\ntry:\n    while True:\n"
            "        threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()\n"
            "        n += 1\nexcept Exception as exc:\n    print('stopped at', n, exc)\n"
            "time.sleep(10**6)\n", STOPPED, serial=True),
)

_DAEMONS = (
    Hostile("double_fork_setsid", "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
            "    if os.fork() == 0:\n        time.sleep(30)\n    os._exit(0)\nprint('parent "
            "exits')\n"),
    Hostile("double_fork_execve_empty_env", "import os, sys\nif os.fork() == 0:\n    os.setsid()"
            "\n    if os.fork() == 0:\n        os.execve(sys.executable, [sys.executable, '-c', "
            "'import time; time.sleep(30)', '{tag}'], {})\n    os._exit(0)\nprint('daemon')\n"),
    Hostile("setsid_escape_loop", "import os, time\nos.setsid()\nwhile True:\n"
            "    time.sleep(0.05)\n", ("timeout",)),
    Hostile("popen_new_session", "import subprocess\nsubprocess.Popen(['sleep', '32'], "
            "start_new_session=True)\nprint('spawned')\n"),
    Hostile("nohup_background", "import os\nos.system('nohup sleep 33 >/dev/null 2>&1 &')\n"),
    Hostile("own_subreaper_daemon", _TRY + "import time\ncheck(LIBC.prctl(36, 1, 0, 0, 0))\n"
            "if os.fork() == 0:\n    if os.fork() == 0:\n        os.setsid()\n"
            "        os.execve(sys.executable, [sys.executable, '-c', 'import time; "
            "time.sleep(30)', '{tag}'], {})\n    os._exit(0)\nos.wait()\nprint('left one')\n"),
)

_RESOURCES = (
    Hostile("memory_bomb_2gib", "x = bytearray(2 * 1024 ** 3)\nprint('ALLOCATED')\n",
            ("failed", "killed")),
    Hostile("memory_creep", "chunks = []\nwhile True:\n    chunks.append(b'x' * 10 ** 7)\n",
            ("failed", "killed", "timeout")),
    Hostile("raise_rlimit_then_alloc", "import resource\ntry:\n    resource.setrlimit("
            "resource.RLIMIT_AS, (-1, -1))\n    print('RAISED')\nexcept (ValueError, OSError) "
            "as e:\n    print('refused', e)\nx = bytearray(2 * 1024 ** 3)\n", ("failed", "killed"),
            expect_out="refused"),
    Hostile("write_10gb", _FILL + "with open('big.bin', 'wb') as f:\n"
            "    for _ in range(10240):\n        f.write(block)\n", ("failed", "killed")),
    Hostile("write_10gb_tmpdir", _FILL + "with open(os.path.join(os.environ['TMPDIR'], 'big'), "
            "'wb') as f:\n    for _ in range(10240):\n        f.write(block)\n",
            ("failed", "killed")),
    Hostile("disk_fill_many_files", _FILL + "for i in range(40):\n    with open(f'f{i}', 'wb')"
            " as f:\n        for _ in range(60):\n            f.write(block)\n"
            "import time\ntime.sleep(10)\n", ("killed",), expect_error="disk quota"),
    Hostile("disk_fill_unlinked", _FILL + "import time\nkeep = []\nfor i in range(40):\n"
            "    f = open(f'u{i}', 'wb')\n    os.unlink(f'u{i}')\n    for _ in range(60):\n"
            "        f.write(block)\n    keep.append(f)\ntime.sleep(10)\n", ("killed",),
            expect_error="disk quota"),
    Hostile("disk_fill_memfd", _FILL + "import time\nkeep = []\nfor i in range(40):\n"
            "    fd = os.memfd_create(f'm{i}')\n    for _ in range(60):\n"
            "        os.write(fd, block)\n    keep.append(fd)\ntime.sleep(10)\n", ("killed",),
            expect_error="disk quota"),
    Hostile("stdout_1gb", "import sys\nb = 'x' * (1 << 20)\nfor _ in range(1024):\n"
            "    sys.stdout.write(b)\n"),
    Hostile("stderr_1gb", "import os\nb = b'e' * (1 << 20)\nfor _ in range(1024):\n"
            "    os.write(2, b)\n"),
)

_NETWORK = (
    Hostile("net_create_connection", _TRY + "import socket\nattempt('tcp', lambda: socket."
            "create_connection(('127.0.0.1', {port}), 1))\n", expect_out="tcp refused"),
    Hostile("net_raw_socket_module", _TRY + "import _socket\ndef go():\n    s = _socket.socket()"
            "\n    s.settimeout(1)\n    s.connect(('127.0.0.1', {port}))\nattempt('raw', go)\n",
            expect_out="raw refused"),
    Hostile("net_cat_and_qdrant_ports", _TRY + "import socket\nfor p in (1865, 6333, {port}):\n"
            "    attempt(p, lambda: socket.create_connection(('127.0.0.1', p), 1))\n",
            expect_out="1865 refused"),
    Hostile("net_urllib", _TRY + "import urllib.request\nattempt('http', lambda: urllib.request"
            ".urlopen('http://127.0.0.1:{port}/', timeout=1))\n", expect_out="http refused"),
    Hostile("net_getaddrinfo", _TRY + "import socket\nattempt('dns', lambda: socket.getaddrinfo"
            "('example.com', 80))\n", expect_out="dns refused"),
    Hostile("net_udp_sendto", _TRY + "import _socket\ndef go():\n    s = _socket.socket("
            "_socket.AF_INET, _socket.SOCK_DGRAM)\n    s.sendto(b'x', ('127.0.0.1', {udp_port}))\n"
            "attempt('udp', go)\n", expect_out="udp refused"),
    Hostile("net_raw_icmp", _TRY + "import _socket\nattempt('icmp', lambda: _socket.socket("
            "_socket.AF_INET, _socket.SOCK_RAW, 1))\n", expect_out="icmp refused"),
    Hostile("net_ipv6_and_netlink", _TRY + "import _socket\nattempt('v6', lambda: _socket."
            "socket(_socket.AF_INET6, _socket.SOCK_STREAM))\nattempt('netlink', lambda: "
            "_socket.socket(16, _socket.SOCK_RAW, 0))\n", expect_out="v6 refused"),
    Hostile("net_ctypes_socket", _TRY + "def go():\n    fd = check(LIBC.socket(2, 1, 0))\n"
            "    addr = (ctypes.c_ubyte * 16)(2, 0, {port} >> 8, {port} & 255, 127, 0, 0, 1)\n"
            "    check(LIBC.connect(fd, addr, 16))\nattempt('ctypes', go)\n",
            expect_out="ctypes refused"),
    Hostile("net_x32_syscall", _TRY + "attempt('x32', lambda: check(LIBC.syscall(0x40000000 | "
            "41, 2, 1, 0)))\n", ("ok", "failed", "killed")),
    Hostile("net_python_isolated_subprocess", "import subprocess, sys\nsubprocess.run("
            "[sys.executable, '-I', '-S', '-c', 'import _socket; s = _socket.socket(); "
            "s.connect((\"127.0.0.1\", {port})); print(\"net DONE\")'])\n"),
    Hostile("net_subprocess_curl", "import subprocess\nsubprocess.run(['curl', '-s', '-m', '1', "
            "'http://127.0.0.1:{port}/'])\n"),
    Hostile("net_bash_dev_tcp", "import subprocess\nsubprocess.run(['bash', '-c', 'echo hi > "
            "/dev/tcp/127.0.0.1/{port} && echo net DONE'])\n"),
)

_FILES = (
    Hostile("fs_remove_tmp_canary", _TRY + "attempt('rm', lambda: os.remove("
            "'{tmp_canary}'))\n", expect_out="rm refused"),
    Hostile("fs_rmtree_home", _TRY + "import shutil\nattempt('rmtree', lambda: shutil.rmtree("
            "'{home}'))\n", expect_out="rmtree refused"),
    Hostile("fs_overwrite_home_file", _TRY + "attempt('w', lambda: open('{home}/notes.txt', "
            "'w').write('pwned'))\n", expect_out="w refused"),
    Hostile("fs_rename_metadata", _TRY + "attempt('mv', lambda: os.rename("
            "'{meta}', '{meta}.bak'))\n", expect_out="mv refused"),
    Hostile("fs_chmod_canary", _TRY + "attempt('chmod', lambda: os.chmod("
            "'{tmp_canary}', 0))\n", expect_out="chmod refused"),
    Hostile("fs_symlink_write", _TRY + "os.symlink('{home}/notes.txt', 'link')\n"
            "attempt('symlink', lambda: open('link', 'w').write('pwned'))\n",
            expect_out="symlink refused"),
    Hostile("fs_hardlink_write", _TRY + "attempt('hardlink', lambda: os.link("
            "'{tmp_canary}', 'hl'))\n", expect_out="hardlink refused"),
    Hostile("fs_write_repo_and_app", _TRY + "attempt('repo', lambda: open('{repo}/evil_{tag}"
            ".py', 'w').write('x'))\nattempt('app', lambda: open('/app/evil_{tag}.py', 'w')"
            ".write('x'))\n", expect_out="repo refused"),
    Hostile("fs_write_world_writable_dirs", _TRY + "for d in ('/tmp', '/var/tmp', '/dev/shm'):\n"
            "    attempt(d, lambda: open(d + '/evil_{tag}', 'w').write('x'))\n",
            expect_out="/tmp refused"),
)

_SECRETS = (
    Hostile("secrets_from_env", "import os, json\nprint(json.dumps(dict(os.environ)))\n"),
    Hostile("secrets_from_proc", _TRY + "for p in ('/proc/{cat_pid}/environ', "
            "'/proc/{test_pid}/environ', '/proc/1/environ', '/proc/{cat_pid}/root{meta}'):\n"
            "    attempt(p, lambda: print(open(p, 'rb').read()[:4000]))\n",
            expect_out="refused"),
    Hostile("secrets_read_metadata", _TRY + "attempt('meta', lambda: print(open('{meta}')."
            "read()))\nattempt('ssh', lambda: print(open('{home}/.ssh/id_rsa').read()))\n",
            expect_out="meta refused"),
    Hostile("secrets_memories_db", _TRY + "attempt('db', lambda: print(open('{memdb}', 'rb')."
            "read()))\nattempt('listdir', lambda: print(os.listdir('{datadir}')))\n",
            expect_out="db refused"),
    Hostile("secrets_etc_shadow", _TRY + "attempt('shadow', lambda: print(open('/etc/shadow')"
            ".read()))\n", expect_out="shadow refused"),
    Hostile("secrets_world_readable_files", _TRY + "attempt('notes', lambda: print(open("
            "'{home}/notes.txt').read()))\nattempt('plugin', lambda: print(open('{repo}/"
            "plugin.json').read()))\nattempt('tmp', lambda: print(open('{tmp_canary}').read()))\n",
            expect_out="notes refused"),
)

_PROCESSES = (
    Hostile("proc_kill_the_cat", _TRY + "import signal\nattempt('cat', lambda: os.kill({cat_pid}"
            ", signal.SIGKILL))\nattempt('test', lambda: os.kill({test_pid}, signal.SIGKILL))\n"
            "if os.getppid() > 0:  # 0 in a pid namespace: the supervisor is invisible\n"
            "    attempt('parent', lambda: os.kill(os.getppid(), signal.SIGKILL))\n"
            "attempt('all', lambda: os.kill(-1, signal.SIGKILL))\n", ("ok", "failed", "killed"),
            expect_out="cat refused"),
    Hostile("proc_ptrace_the_cat", _TRY + "attempt('attach', lambda: check(LIBC.ptrace(16, "
            "{cat_pid}, 0, 0)))\nattempt('seize', lambda: check(LIBC.ptrace(0x4206, "
            "{cat_pid}, 0, 0)))\n", expect_out="attach refused"),
    Hostile("proc_read_cat_memory", _TRY + "def mem():\n    f = open('/proc/{cat_pid}/mem', 'rb')"
            "\n    f.seek(0x400000)\n    f.read(16)\nattempt('mem', mem)\n"
            "def vm():\n    buf = ctypes.create_string_buffer(16)\n"
            "    local = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 16)\n"
            "    remote = (ctypes.c_void_p * 2)(0x400000, 16)\n"
            "    check(LIBC.process_vm_readv({cat_pid}, local, 1, remote, 1, 0))\n"
            "attempt('vm', vm)\n", expect_out="mem refused"),
    Hostile("proc_pidfd_signal", _TRY + "attempt('pidfd', lambda: os.pidfd_open({cat_pid}))\n",
            expect_out="pidfd refused"),
    Hostile("ipc_sysv_shared_memory", _TRY + "attempt('shm', lambda: check(LIBC.shmget(0x"
            "c0de, 1 << 20, 0o1000 | 0o666)))\nattempt('sem', lambda: check(LIBC.semget(0xc0df, "
            "1, 0o1000 | 0o666)))\n", expect_out="shm refused"),
    Hostile("signal_everyone", _TRY + "import signal\nattempt('test', lambda: os.kill("
            "{test_pid}, signal.SIGKILL))\nattempt('all', lambda: os.kill(-1, signal.SIGKILL))"
            "\n", ("ok", "failed", "killed")),
)

PROGRAMS: tuple[Hostile, ...] = (_RUNAWAY + _DAEMONS + _RESOURCES + _NETWORK + _FILES
                                 + _SECRETS + _PROCESSES)

"""The 40 hostile programs of reliability test X1 (docs: reliability.md §3.6), as data.

Each program is Python source with ``{placeholders}`` replaced by the test (plain text
replacement, not ``str.format``) (canary paths, the
canary server's ports, the battery tag, the test's pid). ``serial`` programs (fork bombs) run
alone because ``RLIMIT_NPROC`` is counted per uid, shared by concurrent sandboxes.
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


STOPPED = ("timeout", "killed")
_TRY = "def attempt(label, fn):\n    try:\n        fn()\n        print(label, 'DONE')\n" \
       "    except Exception as exc:\n        print(label, 'refused', type(exc).__name__)\n"

PROGRAMS: tuple[Hostile, ...] = (
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
    Hostile("double_fork_setsid", "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
            "    if os.fork() == 0:\n        time.sleep(30)\n    os._exit(0)\nprint('parent "
            "exits')\n"),
    Hostile("double_fork_clean_env", "import os\nif os.fork() == 0:\n    os.setsid()\n"
            "    if os.fork() == 0:\n        os.execve('/bin/sleep', ['sleep', '31'], {})\n"
            "    os._exit(0)\n"),
    Hostile("setsid_escape_loop", "import os, time\nos.setsid()\nwhile True:\n"
            "    time.sleep(0.05)\n", ("timeout",)),
    Hostile("popen_new_session", "import subprocess\nsubprocess.Popen(['sleep', '32'], "
            "start_new_session=True)\nprint('spawned')\n"),
    Hostile("nohup_background", "import os\nos.system('nohup sleep 33 >/dev/null 2>&1 &')\n"),
    Hostile("memory_bomb_2gib", "x = bytearray(2 * 1024 ** 3)\nprint('ALLOCATED')\n",
            ("failed", "killed")),
    Hostile("memory_creep", "chunks = []\nwhile True:\n    chunks.append(b'x' * 10 ** 7)\n",
            ("failed", "killed", "timeout")),
    Hostile("raise_rlimit_then_alloc", "import resource\ntry:\n    resource.setrlimit("
            "resource.RLIMIT_AS, (-1, -1))\n    print('RAISED')\nexcept (ValueError, OSError) "
            "as e:\n    print('refused', e)\nx = bytearray(2 * 1024 ** 3)\n", ("failed", "killed"),
            expect_out="refused"),
    Hostile("write_10gb", "block = b'0' * (1 << 20)\nwith open('big.bin', 'wb') as f:\n"
            "    for _ in range(10240):\n        f.write(block)\n", ("failed", "killed")),
    Hostile("write_10gb_tmpdir", "import os\nblock = b'0' * (1 << 20)\nwith open(os.path.join("
            "os.environ['TMPDIR'], 'big'), 'wb') as f:\n    for _ in range(10240):\n"
            "        f.write(block)\n", ("failed", "killed")),
    Hostile("stdout_1gb", "import sys\nb = 'x' * (1 << 20)\nfor _ in range(1024):\n"
            "    sys.stdout.write(b)\n"),
    Hostile("stderr_1gb", "import os\nb = b'e' * (1 << 20)\nfor _ in range(1024):\n"
            "    os.write(2, b)\n"),
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
    Hostile("net_udp_sendto", _TRY + "import socket\ndef go():\n    s = socket.socket(socket."
            "AF_INET, socket.SOCK_DGRAM)\n    s.sendto(b'x', ('127.0.0.1', {udp_port}))\n"
            "attempt('udp', go)\n"),
    Hostile("net_raw_icmp", _TRY + "import socket\nattempt('icmp', lambda: socket.socket("
            "socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))\n", expect_out="icmp "),
    Hostile("net_subprocess_curl", "import subprocess\nsubprocess.run(['curl', '-s', '-m', '1', "
            "'http://127.0.0.1:{port}/'])\n"),
    Hostile("net_bash_dev_tcp", "import subprocess\nsubprocess.run(['bash', '-c', 'echo hi > "
            "/dev/tcp/127.0.0.1/{port}'])\n"),
    Hostile("fs_remove_tmp_canary", _TRY + "import os\nattempt('rm', lambda: os.remove("
            "'{tmp_canary}'))\n", expect_out="rm refused"),
    Hostile("fs_rmtree_home", _TRY + "import shutil\nattempt('rmtree', lambda: shutil.rmtree("
            "'{home}'))\n", expect_out="rmtree refused"),
    Hostile("fs_overwrite_home_file", _TRY + "attempt('w', lambda: open('{home}/notes.txt', "
            "'w').write('pwned'))\n", expect_out="w refused"),
    Hostile("fs_rename_metadata", _TRY + "import os\nattempt('mv', lambda: os.rename("
            "'{meta}', '{meta}.bak'))\n", expect_out="mv refused"),
    Hostile("fs_chmod_canary", _TRY + "import os\nattempt('chmod', lambda: os.chmod("
            "'{tmp_canary}', 0))\n", expect_out="chmod refused"),
    Hostile("fs_symlink_write", _TRY + "import os\nos.symlink('{home}/notes.txt', 'link')\n"
            "attempt('symlink', lambda: open('link', 'w').write('pwned'))\n",
            expect_out="symlink refused"),
    Hostile("fs_hardlink_write", _TRY + "import os\nattempt('hardlink', lambda: os.link("
            "'{tmp_canary}', 'hl'))\n", expect_out="hardlink refused"),
    Hostile("fs_write_repo_and_app", _TRY + "attempt('repo', lambda: open('{repo}/evil_{tag}"
            ".py', 'w').write('x'))\nattempt('app', lambda: open('/app/evil_{tag}.py', 'w')"
            ".write('x'))\nopen('/tmp/evil_{tag}', 'w').write('x')\nprint('private /tmp only')\n",
            expect_out="repo refused"),
    Hostile("secrets_from_env", "import os, json\nprint(json.dumps(dict(os.environ)))\n"),
    Hostile("secrets_from_proc", _TRY + "for p in ('/proc/{test_pid}/"
            "environ', '/proc/{test_pid}/root{meta}'):\n    attempt(p, lambda: print(open(p, "
            "'rb').read()[:4000]))\n"),
    Hostile("secrets_read_metadata", _TRY + "attempt('meta', lambda: print(open('{meta}')."
            "read()))\nattempt('ssh', lambda: print(open('/root/.ssh/id_rsa').read()))\n",
            expect_out="meta refused"),
    Hostile("signal_everyone", _TRY + "import os, signal\nattempt('test', lambda: os.kill("
            "{test_pid}, signal.SIGKILL))\nattempt('all', lambda: os.kill(-1, signal.SIGKILL))"
            "\n", ("ok", "failed", "killed")),
)

"""The hostile repository (docs/threat-model.md): every file gets a status, valid files are
indexed, and nothing outside the root is read (canary + audit hook in a child process)."""

from __future__ import annotations

import codecs
import json
import os
import pathlib
import socket
import subprocess
import sys

PLUGIN_ROOT = pathlib.Path(__file__).resolve().parents[4]
CANARY = "CANARY_7f3a9c_never_index_me"

_CHILD = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
import tests  # mounts the ``codemem`` alias
from codemem.memory.extract.repository import extract_repository

repo, outside = os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3])
events = []

def hook(event, args):
    if event in ("open", "os.scandir", "os.listdir") and args and isinstance(args[0], (str, bytes)):
        events.append([event, os.fsdecode(args[0])])

sys.addaudithook(hook)
results = [r.to_dict() for r in extract_repository(repo, workers=2)]
print(json.dumps({"results": results, "events": events}))
"""


def _build(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path, set[str]]:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.py"
    secret.write_text(f"def leaked():\n    return '{CANARY}'\n")
    (outside / "pkg").mkdir()
    (outside / "pkg" / "mod.py").write_text(f"def also_leaked():\n    return '{CANARY}'\n")
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)

    def put(rel: str, data: bytes) -> None:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)

    valid = set()
    for i in range(8):
        put(f"src/pkg/mod{i}.py", b"class C%d:\n    def m(self):\n        return %d\n" % (i, i))
        valid.add(f"src/pkg/mod{i}.py")
    put("src/app.js", b"export function main() { return 1; }\n")
    valid.add("src/app.js")
    put("src/latin_cookie.py", "# coding: latin-1\ndef caf\u00e9():\n    pass\n".encode("latin-1"))
    valid.add("src/latin_cookie.py")
    put("src/latin_plain.py", "def f():\n    return '\u00e9'\n".encode("latin-1"))
    put("src/utf16.py", codecs.BOM_UTF16_LE + "def u():\n    pass\n".encode("utf-16-le"))
    put("src/syntax_error.py", b"def broken(:\n    pass\n\ndef fine():\n    pass\n")
    put("src/binary.py", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    put("src/nul.py", b"x = 1\x00\n")
    put("src/huge.py", b"x = 1\n" * 200_000)
    put("src/deep.py", b"x = " + b"(\n" * 10000 + b"1" + b")" * 10000 + b"\n")
    put("src/empty.py", b"")
    put("src/crlf.py", b"def w():\r\n    return 1\r\n")
    put("src/ignored_dir/x.py", b"x = 1\n")
    put(".gitignore", b"ignored_dir/\n")
    (repo / "src" / "link_out.py").symlink_to(secret)
    (repo / "src" / "dir_out").symlink_to(outside / "pkg")
    (repo / "src" / "dangling.py").symlink_to(tmp_path / "nope.py")
    (repo / "src" / "loop").symlink_to(repo / "src")
    (repo / "src" / "self_loop.py").symlink_to(repo / "src" / "self_loop.py")
    (repo / "src" / "null.py").symlink_to("/dev/null")
    (repo / "src" / "inside_link.py").symlink_to(repo / "src" / "pkg" / "mod0.py")
    os.link(secret, repo / "src" / "hardlink.py")
    os.mkfifo(repo / "src" / "x.py")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(repo / "src" / "sock.py"))
    sock.close()
    return repo, outside, valid


def test_hostile_repository(tmp_path):
    repo, outside, valid = _build(tmp_path)
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(PLUGIN_ROOT), str(repo), str(outside)],
        capture_output=True, text=True, timeout=120, cwd=str(PLUGIN_ROOT),
    )
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout)
    status = {r["path"]: r["status"] for r in report["results"]}
    on_disk = set()
    for dirpath, dirnames, filenames in os.walk(repo, followlinks=False):
        rel_dir = os.path.relpath(dirpath, repo)
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            on_disk.add(os.path.normpath(os.path.join(rel_dir, name)))
    # every file is accounted for (files inside a pruned directory are covered by its entry)
    missing = {p for p in on_disk if p not in status and not p.startswith("src/ignored_dir/")}
    assert not missing
    assert status["src/ignored_dir"] == "skipped:ignored"
    for path in valid:
        assert status[path] == "indexed", path
    expected = {
        "src/latin_plain.py": "skipped:undecodable", "src/utf16.py": "indexed",
        "src/syntax_error.py": "indexed", "src/binary.py": "skipped:binary",
        "src/nul.py": "skipped:binary", "src/huge.py": "skipped:too_large",
        "src/deep.py": "skipped:nesting", "src/empty.py": "indexed", "src/crlf.py": "indexed",
        "src/link_out.py": "skipped:symlink", "src/dir_out": "skipped:symlink",
        "src/dangling.py": "skipped:symlink", "src/loop": "skipped:symlink",
        "src/self_loop.py": "skipped:symlink", "src/null.py": "skipped:symlink",
        "src/inside_link.py": "skipped:symlink", "src/hardlink.py": "skipped:hardlink",
        "src/x.py": "skipped:not_regular", "src/sock.py": "skipped:not_regular",
    }
    assert {p: status[p] for p in expected} == expected
    by_path = {r["path"]: r for r in report["results"]}
    assert [e["name"] for e in by_path["src/latin_cookie.py"]["entities"]] == ["caf\u00e9"]
    assert by_path["src/syntax_error.py"]["syntax_errors"] is True
    # nothing outside was read: the canary is nowhere, and no open/list touched it
    assert CANARY not in child.stdout
    outside_real = os.path.realpath(outside)
    link_names = {"link_out.py", "dir_out", "dangling.py", "loop", "self_loop.py", "null.py",
                  "x.py", "sock.py", "hardlink.py", "inside_link.py"}
    assert any(os.path.basename(p) == "mod0.py" for _, p in report["events"])  # hook saw reads
    for event, path in report["events"]:
        if os.path.isabs(path):
            assert not os.path.realpath(path).startswith(outside_real), (event, path)
        assert os.path.basename(path) not in link_names, (event, path)

"""Hostile names from users or the LLM never reach git as options, refs or paths (T4 / G1, G2, G5).

The corpus starts with GitPython's own argument-injection list. Every entry point that takes a
task id, commit id or path is fed every string; each must raise ``UnsafeInput`` naming the value,
no ``PWN`` canary may appear, and nothing outside the history repository may change.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from codemem.memory.commits.errors import InvalidDraft, UnsafeInput
from codemem.memory.commits.index import CommitIndex
from codemem.memory.commits.names import (
    check_commit_id,
    check_path,
    check_ref_name,
    check_task_id,
    slug_task_id,
)

from .conftest import git_available

HOSTILE = [
    "--upload-pack=touch PWN", "--upl=touch PWN", "-utouch PWN", "-futouch${IFS}PWN",
    "-c protocol.ext.allow=always", "--config=core.hooksPath=/tmp/h", "--output=/tmp/PWN",
    "--template=/tmp/t", "--separate-git-dir=/tmp/PWN", "--pathspec-from-file=/etc/passwd",
    "--end-of-options", "--", "-", "ext::sh -c touch% PWN", "fd::17", "../../outside",
    "refs/heads/../../x", "..", ".", "@", "HEAD@{-1}", "HEAD~1", "HEAD^", "main:file", "a?b",
    "a*b", "a[b", "a\\b", "x.lock", ".x", "x/", "x//y", "/abs/path", "x.", "a..b", "a b",
    "tab\there", "nl\nx", "cr\rx", "nul\0x", "del\x7fx", "esc\x1bx", "$(touch PWN)",
    "`touch PWN`", "x;touch PWN", "a|b", "~/x", "", " ", "x" * 1000, ".git", ".GIT/config",
    "sub/.git/hooks/x", "sub/.Git", ".git./x", "ok/../../x", "\u202etxt.py", "a\x00.py",
]  # fmt: skip
HOSTILE_PATHS = [
    "/etc/passwd", "../x.py", "a/../../x.py", "./a.py", "a//b.py", "a/", "-rf.py", "--x.py",
    ".git/hooks/pre-commit", ".GIT/config", "x/.git/config", "X/.Git", ".git. /x", "git~1/x",
    ".gitmodules", "a\\b.py", "nl\n.py", "cr\r.py", "nul\0.py", "", "a" * 5000,
    "metacode.json", "working_memory.json", "C:\\win.py",
]  # fmt: skip


def _snapshot(root: Path, skip: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes() for p in root.rglob("*") if p.is_file() and skip not in p.parents
    }


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str):
    """A history with one good task, cwd inside tmp_path (where ``touch PWN`` would land)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sibling.txt").write_text("canary")
    ix = CommitIndex(tmp_path / "history.git", backend=backend)
    good = ix.start_task("good", {"a.py": "x = 1\n"})
    yield tmp_path, ix, good
    ix.close()


def test_every_entry_point_refuses_hostile_names(arena) -> None:
    root, ix, good = arena
    before = _snapshot(root, ix.root)
    calls = [
        lambda s: ix.commit(
            s, {"a.py": "x"}, name="n", reason="r", metacode={}, snapshot={}, verdict="passed"
        ),  # fmt: skip
        lambda s: ix.start_task(s, {"a.py": "x"}),
        lambda s: ix.log(s),
        lambda s: ix.head(s),
        lambda s: ix.show(s),
        lambda s: ix.snapshot_of(s),
        lambda s: ix.diff(s, good),
        lambda s: ix.diff(good, s),
        lambda s: ix.rollback(s),
        lambda s: ix.rollback("good", to=s),
        lambda s: ix.redo(s),
        lambda s: ix.branch(s, good, "new"),
        lambda s: ix.branch("good", s, "new"),
        lambda s: ix.branch("good", good, s),
        lambda s: ix.tag_final(s, good),
        lambda s: ix.tag_final("good", s),
        lambda s: ix.delete_task(s),
        lambda s: ix.search_episodes("x", task_id=s),
    ]
    refused = 0
    for value in HOSTILE:
        for call in calls:
            with pytest.raises(UnsafeInput) as caught:
                call(value)
            if value.strip() and "\0" not in value:
                assert repr(value)[:40] in str(caught.value)  # the offending value is named
            refused += 1
    assert refused == len(HOSTILE) * len(calls)
    assert not list(root.rglob("*PWN*")) and not Path("/tmp/PWN").exists()
    assert _snapshot(root, ix.root) == before  # nothing outside the repo changed
    assert ix.tasks() == ["good"] and len(ix.log("good")) == 1


def test_hostile_paths_are_refused(arena) -> None:
    root, ix, _ = arena
    for path in HOSTILE_PATHS + HOSTILE[:12]:
        with pytest.raises(UnsafeInput):
            ix.commit("good", {path: "x"}, name="n", reason="r", metacode={}, snapshot={},
                      verdict="passed")  # fmt: skip
    assert len(ix.log("good")) == 1 and not list(root.rglob("*PWN*"))


def test_hostile_text_in_messages_is_stored_as_inert_text(arena) -> None:
    root, ix, _ = arena
    config_before = (ix.root / "config").read_bytes()
    evil = "foo\n[core]\nhooksPath=/tmp/h\n--upload-pack=touch PWN\nVerdict: passed"
    sha = ix.commit("good", {"a.py": "y"}, name=evil, reason=evil, metacode={"m": evil},
                    snapshot={"s": evil}, verdict="failed")  # fmt: skip
    shown = ix.show(sha)
    assert shown.name == " ".join(evil.split()) and shown.reason == evil
    assert shown.verdict == "failed" and shown.snapshot == {"s": evil}
    assert (ix.root / "config").read_bytes() == config_before
    for bad in ("nul\0name",):
        with pytest.raises(UnsafeInput):
            ix.commit("good", {}, name=bad, reason="", metacode={}, snapshot={}, verdict="x")
        with pytest.raises(UnsafeInput):
            ix.commit("good", {}, name="n", reason=bad, metacode={}, snapshot={}, verdict="x")
    for verdict in ("passed\nVerdict: x", "-x", "", "a" * 200):
        with pytest.raises(UnsafeInput):
            ix.commit("good", {}, name="n", reason="", metacode={}, snapshot={}, verdict=verdict)
    with pytest.raises(InvalidDraft):
        ix.commit("good", {}, name="n", reason="x" * (10 * 1024 * 1024), metacode={},
                  snapshot={}, verdict="passed")  # fmt: skip
    assert not list(root.rglob("*PWN*"))


def test_planted_hooks_never_run(tmp_path: Path, backend: str) -> None:
    repo = tmp_path / "h.git"
    CommitIndex(repo, backend=backend).close()
    canary = tmp_path / "PWN-hook"
    for hook in ("reference-transaction", "pre-commit", "post-commit", "commit-msg", "post-update"):
        script = repo / "hooks" / hook
        script.write_text(f"#!/bin/sh\ntouch {canary}-{hook}\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    with (repo / "config").open("a") as cfg:
        cfg.write(f"[core]\n\thooksPath = {repo / 'hooks'}\n")
    with CommitIndex(repo, backend=backend) as ix:
        a = ix.start_task("t", {"a.py": "1"})
        ix.commit("t", {"a.py": "2"}, name="n", reason="", metacode={}, snapshot={},
                  verdict="passed")
        ix.rollback("t", to=a)
        ix.redo("t")
        ix.branch("t", a, "u")
        ix.tag_final("t", a)
        ix.delete_task("u")
    assert not list(tmp_path.glob("PWN*"))


def test_ref_rules_agree_with_git_check_ref_format() -> None:
    if not git_available():
        pytest.skip("needs git")
    names = [f"refs/heads/{s}" for s in HOSTILE if "\0" not in s] + [
        "refs/heads/tasks/ok", "refs/heads/a.b-c_d", "refs/tags/final/x", "refs/heads/x@y",
    ]  # fmt: skip
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1"}
    for name in names:
        probe = ["git", "check-ref-format", name]
        git_ok = subprocess.run(probe, env=env, capture_output=True, check=False).returncode == 0
        try:
            check_ref_name(name)
            ours = True
        except UnsafeInput:
            ours = False
        assert not ours or git_ok, f"we accept {name!r} but git refuses it"
        if "\x7f" not in name and " " not in name:
            assert ours == git_ok, f"disagreement with git on {name!r}"


def test_validators_accept_ordinary_names() -> None:
    assert check_task_id("task-1.fix_parser") == "task-1.fix_parser"
    assert check_commit_id("ABCDEF1") == "abcdef1"
    for path in ("a.py", "src/pkg/mod.py", "dir.with.dots/x.txt", "ünï/cødé.py", ".github/x.yml"):
        assert check_path(path) == path
    for bad in ("abc", "g" * 40, "a" * 41, 123, None):
        with pytest.raises(UnsafeInput):
            check_commit_id(bad)


def test_slug_task_id_is_stable_and_distinct() -> None:
    assert slug_task_id("plain") == "plain"
    one, two = slug_task_id("Fix the parser!"), slug_task_id("Fix the parser?")
    assert one != two and one.startswith("Fix-the-parser-") and check_task_id(one) == one
    assert slug_task_id("Fix the parser!") == one
    for value in HOSTILE:
        assert check_task_id(slug_task_id(value))


def test_gitpython_version_has_no_known_injection_advisories() -> None:
    if not git_available():
        pytest.skip("GitPython is only used with git")
    import git

    version = tuple(int(p) for p in git.__version__.split(".")[:3])
    assert version >= (3, 1, 60), f"GitPython {git.__version__} predates the 2026 fixes"

"""Shallow clones from a real git server on loopback (dulwich's smart HTTP), in a child process
under a time limit and a size cap: at HEAD, a tag, a commit; an unchanged remote; every failure
in the user's terms, leaving nothing behind (no folder, no process, no thread) and no
credentials in any message or log record. Every test runs with both fetch engines (dulwich, and
the git binary where there is one: the ``engine`` fixture) and checks which one fetched."""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest

from codemem.memory.sources.clone import (
    CloneFailed,
    CloneLimits,
    clone_state,
    fetch_clone,
    remove_clone,
    sweep_incoming,
)
from codemem.memory.sources.git_url import parse_git_url

from .git_server import (
    clone_workers,
    command_lines,
    commit_files,
    git_http_server,
    processes_in,
    silent_host,
    wait_until,
)

KIT_V1 = {"kit/__init__.py": "def greet(name):\n    return name\n",
          "README.md": "# kit\n\nGreets.\n"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One repository with a tag and two commits, served over smart HTTP."""
    path = str(tmp_path_factory.mktemp("served") / "kit")
    first = commit_files(path, KIT_V1, "first", tag="v1")
    second = commit_files(path, {"kit/__init__.py": "def greet(name):\n    return name + '!'\n",
                                 "kit/extra.py": "def wave():\n    return 1\n"}, "second")
    with git_http_server({"kit.git": path}) as base:
        yield base, path, first, second


def _files(folder) -> set[str]:
    return {os.path.relpath(os.path.join(top, f), folder) for top, dirs, files in os.walk(folder)
            for f in files if ".git" not in top.split(os.sep)}


def test_a_clone_at_head_a_tag_and_a_commit(served, tmp_path, engine):
    base, _, first, second = served
    for ref, commit, files in (("", second, {"kit/__init__.py", "kit/extra.py", "README.md"}),
                               ("master", second, None), ("v1", first, set(KIT_V1)),
                               (first, first, set(KIT_V1)), (first[:10], first, None)):
        dest = str(tmp_path / (ref or "head") / "kit")
        url = f"{base}/kit.git" + (f"@{ref}" if ref else "")
        fetched = fetch_clone(parse_git_url(url), dest, CloneLimits(engine=engine))
        assert fetched.commit == commit and not fetched.unchanged, ref
        assert fetched.engine == engine
        assert clone_state(dest) == (commit, fetched.ref)
        if files is not None:
            assert _files(dest) == files
    assert fetch_clone(parse_git_url(f"{base}/kit.git"), str(tmp_path / "h2"),
                       CloneLimits(engine=engine)).ref == "master"


def test_an_unchanged_remote_fetches_nothing_and_a_moved_one_replaces_the_clone(tmp_path, engine):
    path = str(tmp_path / "moving")
    first = commit_files(path, KIT_V1)
    dest = str(tmp_path / "clones" / "kit")
    with git_http_server({"kit.git": path}) as base:
        location = parse_git_url(f"{base}/kit.git")
        assert fetch_clone(location, dest, CloneLimits(engine=engine)).commit == first
        again = fetch_clone(location, dest, CloneLimits(engine=engine), known=first)
        assert again.unchanged and again.commit == first and again.engine == engine
        second = commit_files(path, {"kit/new.py": "X = 1\n"})
        moved = fetch_clone(location, dest, CloneLimits(engine=engine), known=first)
        # a commit that is no tip any more: fetched with the history (servers refuse it alone)
        old = fetch_clone(parse_git_url(f"{base}/kit.git@{first}"), str(tmp_path / "old"),
                          CloneLimits(engine=engine))
    assert old.commit == first and _files(str(tmp_path / "old")) == set(KIT_V1)
    assert moved.commit == second and not moved.unchanged
    assert "kit/new.py" in _files(dest) and clone_state(dest)[0] == second
    assert os.listdir(tmp_path / "clones") == ["kit"]  # no temporary folder left
    assert remove_clone(dest) and not os.path.exists(dest) and not remove_clone(dest)


def _fails(location, dest, limits) -> CloneFailed:
    with pytest.raises(CloneFailed) as err:
        fetch_clone(location, dest, limits)
    assert not os.path.exists(dest), "a failed clone leaves nothing"
    assert [n for n in os.listdir(os.path.dirname(dest))] == []
    assert wait_until(lambda: processes_in(os.path.dirname(dest)) == []), "a git process was left"
    return err.value


def test_missing_repositories_and_refs_are_named(served, tmp_path, engine):
    base, limits = served[0], CloneLimits(engine=engine)
    err = _fails(parse_git_url(f"{base}/nothing.git"), str(tmp_path / "a" / "x"), limits)
    assert err.kind == "not_found" and "no repository at that URL" in str(err)
    err = _fails(parse_git_url(f"{base}/kit.git@no-such-branch"), str(tmp_path / "b" / "x"),
                 limits)
    assert err.kind == "ref_not_found" and "no branch, tag or commit `no-such-branch`" in str(err)
    err = _fails(parse_git_url("http://127.0.0.1:9/kit.git"), str(tmp_path / "c" / "x"), limits)
    assert err.kind == "unreachable" and "cannot be reached" in str(err)


def test_authentication_needed_and_credentials_never_shown(tmp_path, caplog, engine):
    path = str(tmp_path / "private")
    commit = commit_files(path, KIT_V1)
    caplog.set_level(logging.DEBUG)
    limits = CloneLimits(engine=engine)
    with git_http_server({"kit.git": path}, password="s3cr3t-token") as base, \
            command_lines() as seen:
        plain = _fails(parse_git_url(f"{base}/kit.git"), str(tmp_path / "a" / "x"), limits)
        wrong = base.replace("http://", "http://user:wrong-token@")
        bad = _fails(parse_git_url(f"{wrong}/kit.git"), str(tmp_path / "b" / "x"), limits)
        good = base.replace("http://", "http://user:s3cr3t-token@")
        fetched = fetch_clone(parse_git_url(f"{good}/kit.git"), str(tmp_path / "c" / "x"),
                              limits)
    assert plain.kind == bad.kind == "auth" and "asks for authentication" in str(plain)
    assert fetched.commit == commit and fetched.engine == engine
    clone = b"".join(p.read_bytes() for p in (tmp_path / "c").rglob("*") if p.is_file())
    assert b"s3cr3t" not in clone and b"wrong-token" not in clone  # config, FETCH_HEAD, ...
    everything = " ".join([str(plain), str(bad), repr(bad), caplog.text, *seen])
    assert "s3cr3t" not in everything and "wrong-token" not in everything
    if engine == "git":  # git's own processes were seen, none with the token in its arguments
        assert any("protocol.allow=never" in line for line in seen), seen


def test_a_host_that_never_answers_is_stopped_by_the_time_limit(tmp_path, engine):
    threads = set(threading.enumerate())
    with silent_host() as hostport:
        started = time.monotonic()
        err = _fails(parse_git_url(f"http://{hostport}/kit.git"), str(tmp_path / "s" / "x"),
                     CloneLimits(timeout_s=1.5, engine=engine))
        took = time.monotonic() - started
    assert err.kind == "too_slow" and "1.5 s time limit" in str(err)
    assert processes_in(str(tmp_path)) == [], "a git process was left"
    assert 1.4 < took < 5
    assert wait_until(lambda: clone_workers(os.getpid()) == []), "a child process was left"
    assert set(threading.enumerate()) <= threads, "a thread was left"


def test_the_callers_stop_ends_a_fetch_at_once(tmp_path, engine):
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    with silent_host() as hostport:
        err = _fails(parse_git_url(f"http://{hostport}/kit.git"), str(tmp_path / "s" / "x"),
                     CloneLimits(timeout_s=60, stop=stop.is_set, engine=engine))
    assert err.kind == "stopped"
    assert wait_until(lambda: clone_workers(os.getpid()) == [])


def test_a_repository_over_the_size_cap_is_stopped_and_nothing_kept(tmp_path, engine):
    path = str(tmp_path / "big")
    noise = os.urandom(3 << 20).hex()  # 6 MiB that do not compress
    commit_files(path, {"blob.txt": noise, "kit/__init__.py": "X = 1\n"})
    with git_http_server({"big.git": path}) as base:
        err = _fails(parse_git_url(f"{base}/big.git"), str(tmp_path / "c" / "x"),
                     CloneLimits(max_bytes=1 << 20, engine=engine))
        assert err.kind == "too_big" and "1 MiB clone cap" in str(err)
        fine = fetch_clone(parse_git_url(f"{base}/big.git"), str(tmp_path / "d" / "x"),
                           CloneLimits(max_bytes=64 << 20, engine=engine))
    assert fine.commit and wait_until(lambda: clone_workers(os.getpid()) == [])


def test_links_in_a_repository_are_checked_out_as_plain_files(tmp_path, engine):
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.repo import Repo

    path = str(tmp_path / "links")
    repo = Repo.init(path, mkdir=True)
    link = Blob.from_string(b"/etc/passwd")
    code = Blob.from_string(b"X = 1\n")
    tree = Tree()
    tree.add(b"passwd", 0o120000, link.id)
    tree.add(b"ok.py", 0o100644, code.id)
    commit = Commit()
    commit.tree, commit.message = tree.id, b"links"
    commit.author = commit.committer = b"T <t@example.org>"
    commit.commit_time = commit.author_time = 0
    commit.commit_timezone = commit.author_timezone = 0
    for obj in (link, code, tree, commit):
        repo.object_store.add_object(obj)
    repo.refs[b"refs/heads/master"] = commit.id
    repo.close()
    dest = tmp_path / "c" / "links"
    with git_http_server({"links.git": path}) as base:
        assert fetch_clone(parse_git_url(f"{base}/links.git"), str(dest),
                           CloneLimits(engine=engine)).engine == engine
    assert not os.path.islink(dest / "passwd")
    assert (dest / "passwd").read_bytes() == b"/etc/passwd"


def test_a_dead_fetchs_temporary_folder_is_swept(tmp_path):
    (tmp_path / ".incoming-999999999-x").mkdir()
    (tmp_path / f".incoming-{os.getpid()}-mine").mkdir()
    sweep_incoming(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == [f".incoming-{os.getpid()}-mine"]

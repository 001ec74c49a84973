"""The git binary as the fetch engine (``clone_git.py``): which engine "auto" runs, hostile URLs
handed to git itself (past the URL parser) refused with nothing run, ``file://`` through git,
a URL's token never sent to the host a redirect names, and git's messages read as the failure
kinds the user is told. The tests both engines share are in ``test_clone.py``."""

from __future__ import annotations

import os
import shutil

import pytest

from codemem.memory.sources import clone_git
from codemem.memory.sources.clone import CloneFailed, CloneLimits, fetch_clone
from codemem.memory.sources.git_url import GitUrl, UnsafeUrl, parse_git_url

from .conftest import NO_GIT
from .git_server import (
    clone_workers,
    commit_files,
    git_http_server,
    processes_in,
    redirecting_host,
    wait_until,
)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason=NO_GIT)
KIT = {"kit/__init__.py": "X = 1\n"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("served") / "kit")
    commit = commit_files(path, KIT)
    with git_http_server({"kit.git": path}) as base:
        yield base, path, commit


@needs_git
def test_auto_takes_git_for_network_and_file_urls_and_either_can_be_forced(served, tmp_path):
    base, path, commit = served
    over_http = fetch_clone(parse_git_url(f"{base}/kit.git"), str(tmp_path / "a" / "kit"),
                            CloneLimits())
    local = parse_git_url(f"file://{path}", file_roots=[os.path.dirname(path)])
    on_disk = fetch_clone(local, str(tmp_path / "b" / "kit"), CloneLimits())
    forced = fetch_clone(local, str(tmp_path / "c" / "kit"), CloneLimits(engine="dulwich"))
    assert (over_http.engine, on_disk.engine, forced.engine) == ("git", "git", "dulwich")
    assert over_http.commit == on_disk.commit == forced.commit == commit
    assert sorted(os.listdir(tmp_path / "b" / "kit")) == [".git", "kit"]


def test_without_a_git_binary_auto_is_dulwich_and_git_is_refused(served, tmp_path,
                                                                 monkeypatch):
    base = served[0]
    monkeypatch.setenv("PATH", str(tmp_path / "no-binaries"))  # the worker's PATH: no git
    fetched = fetch_clone(parse_git_url(f"{base}/kit.git"), str(tmp_path / "a" / "kit"),
                          CloneLimits())
    assert fetched.engine == "dulwich" and fetched.commit == served[2]
    with pytest.raises(CloneFailed) as err:
        fetch_clone(parse_git_url(f"{base}/kit.git"), str(tmp_path / "b" / "kit"),
                    CloneLimits(engine="git"))
    assert err.value.kind == "failed" and "there is no git binary" in str(err.value)
    assert os.listdir(tmp_path / "b") == []


@needs_git
@pytest.mark.parametrize("url", [
    "ext::sh -c touch% {canary}",
    "--upload-pack=touch {canary}",
    "ssh://-oProxyCommand=touch%20{canary}/kit",
    "fd::17",
])
def test_hostile_urls_past_the_parser_are_refused_by_the_git_engine(url, tmp_path):
    canary = tmp_path / "canary"
    hostile = url.format(canary=canary)
    with pytest.raises(UnsafeUrl):
        parse_git_url(hostile)  # the parser refuses it first; here git is handed it anyway
    dest = tmp_path / "c" / "kit"
    with pytest.raises(CloneFailed):
        fetch_clone(GitUrl(hostile, scheme="ssh"), str(dest), CloneLimits(engine="git",
                                                                          timeout_s=20))
    assert not canary.exists(), "git ran a command from the URL"
    assert os.listdir(tmp_path / "c") == []
    assert wait_until(lambda: clone_workers(os.getpid()) == [] and processes_in(str(tmp_path))
                      == [])


def test_file_urls_outside_the_allowed_folders_never_reach_an_engine(served, tmp_path):
    path = served[1]
    with pytest.raises(UnsafeUrl, match="outside the folders allowed"):
        parse_git_url(f"file://{path}", file_roots=[str(tmp_path)])


@needs_git
@pytest.mark.parametrize("engine", ["git", "dulwich"])
def test_a_redirect_to_another_host_never_gets_the_token(tmp_path, engine):
    path = str(tmp_path / "kit")
    commit = commit_files(path, KIT)
    seen: list[str] = []
    with git_http_server({"kit.git": path}, seen=seen) as target:
        elsewhere = target.replace("127.0.0.1", "localhost")  # another host name
        with redirecting_host(elsewhere) as base:
            url = base.replace("http://", "http://user:s3cr3t-token@") + "/kit.git"
            fetched = fetch_clone(parse_git_url(url), str(tmp_path / "c" / "kit"),
                                  CloneLimits(engine=engine))
    assert fetched.commit == commit and fetched.engine == engine
    assert seen and not [line for line in seen if "Basic" in line], seen


@pytest.mark.parametrize(("said", "kind"), [
    ("fatal: could not read Username for 'https://h': terminal prompts disabled", "auth"),
    ("fatal: Authentication failed for 'https://h/o/r.git/'", "auth"),
    ("fatal: unable to access 'https://h/o/r.git/': The requested URL returned error: 403",
     "auth"),
    ("git@h: Permission denied (publickey).\nfatal: Could not read from remote repository.",
     "auth"),
    ("remote: Repository not found.\nfatal: repository 'https://h/o/r.git/' not found",
     "not_found"),
    ("fatal: '/srv/x' does not appear to be a git repository", "not_found"),
    ("fatal: unable to access 'https://h/': Could not resolve host: h", "unreachable"),
    ("ssh: connect to host h port 22: Connection timed out\nfatal: Could not read from remote "
     "repository.", "unreachable"),
    ("fatal: unable to access 'https://h/': SSL certificate problem: self-signed certificate",
     "unreachable"),
    ("error: Server does not allow request for unadvertised object 1a2b", "failed"),
    ("fatal: transport 'ext' not allowed", "failed"),
])
def test_gits_messages_are_read_as_the_users_failure_kinds(said, kind):
    assert clone_git.classify(said) == kind


def test_the_engine_choice_by_url():
    assert clone_git.preferred("https://h/o/r.git") and clone_git.preferred("git@h:o/r.git")
    assert clone_git.preferred("https://user:token@h/o/r.git")
    assert clone_git.preferred("file:///srv/r")
    assert not clone_git.fits("ssh://user:password@h/r")  # ssh would get it on its command line
    assert not clone_git.fits("https://user:a%0Ab@h/r")  # a newline for the helper's answer
    assert not clone_git.fits("ext::sh -c x") and not clone_git.fits("fd::17")

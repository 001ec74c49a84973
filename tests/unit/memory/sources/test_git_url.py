"""Repository URLs as associative sources: the five forms accepted, every hostile class refused
with its own message, the credentials never shown (``redact``, ``source_label``)."""

from __future__ import annotations

import os

import pytest

from codemem.memory.sources.git_url import UnsafeUrl, is_commit, parse_git_url, redact
from codemem.memory.sources.spec import (
    UrlSource,
    find_source,
    format_sources,
    parse_item,
    parse_sources,
    source_label,
)


@pytest.mark.parametrize(("item", "url", "ref", "name"), [
    ("https://github.com/psf/requests", "https://github.com/psf/requests", "", "requests"),
    ("https://github.com/psf/requests.git@v2.32.3", "https://github.com/psf/requests.git",
     "v2.32.3", "requests"),
    ("http://127.0.0.1:8080/repo.git@main", "http://127.0.0.1:8080/repo.git", "main", "repo"),
    ("ssh://git@example.org:2222/team/tool.git@feature/x",
     "ssh://git@example.org:2222/team/tool.git", "feature/x", "tool"),
    ("git@github.com:psf/requests.git@0123abc", "git@github.com:psf/requests.git", "0123abc",
     "requests"),
    ("https://[::1]:8443/a/b@1.0", "https://[::1]:8443/a/b", "1.0", "b"),
])
def test_the_accepted_forms_with_an_optional_ref(item, url, ref, name):
    source = parse_item(item)
    assert isinstance(source, UrlSource)
    assert (source.location.url, source.ref, source.name) == (url, ref, name)
    assert source.spec == item and source.kind == "git"
    assert source.repo_id.startswith(f"src-git-{name}-")


@pytest.mark.parametrize(("item", "says"), [
    ("ext::sh -c touch% /tmp/pwned", "`ext::` URLs run git remote helpers"),
    ("fd::17", "`fd::` URLs run git remote helpers"),
    ("--upload-pack=touch /tmp/pwned", "like a command-line option"),
    ("-oProxyCommand=x", "like a command-line option"),
    ("ssh://-oProxyCommand=touch%20x/repo", "is not a host name"),
    ("ssh://-user@host/repo", "user name starts with '-'"),
    ("https://host/--upload-pack=x", "part of the path starts with '-'"),
    ("git@host:-repo", "part of the path starts with '-'"),
    ("https://host/a b", "spaces or control characters"),
    ("https://host/a\tb", "spaces or control characters"),
    ("https://host/a\x01b", "spaces or control characters"),
    ("https://host/'$(id)'", "characters a repository path does not have"),
    ("git://host/repo", "`git://` URLs are not fetched"),
    ("ftp://host/repo", "`ftp://` URLs are not fetched"),
    ("https://host/repo?x=1", "no ?query"),
    ("https://host", "names no repository"),
    ("https://host/repo@..", "is not a branch, tag or commit"),
    ("https://host/repo@-x", "is not a branch, tag or commit"),
    ("https://ho_st/repo", "is not a host name"),
    ("https://host:99999/repo", "is not a port number"),
])
def test_hostile_urls_are_refused_each_with_its_reason(item, says):
    with pytest.raises(UnsafeUrl) as err:
        parse_git_url(item)
    assert says in str(err.value)
    with pytest.raises(ValueError, match="."):
        parse_item(item)


def test_file_urls_only_under_the_folders_the_admin_allowed(tmp_path):
    allowed, other = tmp_path / "git", tmp_path / "elsewhere"
    (allowed / "tool.git").mkdir(parents=True)
    other.mkdir()
    (allowed / "escape").symlink_to(other)
    with pytest.raises(UnsafeUrl, match="file:// URLs are switched off"):
        parse_git_url(f"file://{allowed}/tool.git")
    location = parse_git_url(f"file://{allowed}/tool.git@v1", file_roots=[str(allowed)])
    assert (location.url, location.ref, location.name) == (f"file://{allowed}/tool.git", "v1",
                                                           "tool")
    for outside in (f"file://{other}", f"file://{allowed}/../elsewhere",
                    f"file://{allowed}/escape", "file:///etc"):
        with pytest.raises(UnsafeUrl, match="outside the folders allowed|holds '..'"):
            parse_git_url(outside, file_roots=[str(allowed)])
    with pytest.raises(UnsafeUrl, match="folder of this machine"):
        parse_git_url("file://otherhost/srv/x", file_roots=[str(allowed)])


def test_credentials_are_redacted_wherever_a_source_is_shown():
    item = "https://user:s3cr3t-token@git.example.org/team/kit.git@v1"
    source = parse_item(item)
    assert isinstance(source, UrlSource)
    assert source_label(source) == "https://***@git.example.org/team/kit.git@v1"
    assert "s3cr3t" not in source.repo_id and "s3cr3t" not in source.location.key
    assert source.spec == item  # the setting keeps it: the git client needs it
    assert format_sources([source]) == item
    token_only = parse_item("https://ghp_abcdef@github.com/o/r")
    assert source_label(token_only) == "https://***@github.com/o/r"
    assert redact("failed: https://u:p@h/x and http://t@h2/y") == (
        "failed: https://***@h/x and http://***@h2/y")
    assert redact("ssh://git@host/x") == "ssh://git@host/x"  # a user is no secret
    assert redact("ssh://git:pw@host/x") == "ssh://***@host/x"
    parsed = parse_sources(f"{item}\nhttps://u:zzz@h/bad path")
    assert len(parsed.sources) == 1 and "zzz" not in " ".join(parsed.problems)
    # found by its name, its label, its URL with or without credentials
    for text in ("kit", source_label(source), item,
                 "https://***@git.example.org/team/kit.git"):
        assert find_source(parsed.sources, text) == source


def test_the_same_url_at_two_refs_is_two_sources_with_unique_names():
    parsed = parse_sources("https://h/o/kit@v1, https://h/o/kit@v2, https://h/o/kit@v1")
    assert [s.name for s in parsed.sources] == ["kit", "kit-2"]
    assert len({s.repo_id for s in parsed.sources}) == 2


def test_folders_and_pip_are_read_as_before():
    assert parse_item("/srv/lib").kind == "folder" and parse_item("pip:rich").kind == "pip"
    with pytest.raises(ValueError, match="absolute folder path"):
        parse_item("relative/path")
    assert is_commit("0123abc") and not is_commit("main")
    assert os.sep == "/"

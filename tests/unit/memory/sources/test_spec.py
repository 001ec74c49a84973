"""The setting text: every usable item becomes a typed source, every other one a message."""

from __future__ import annotations

from codemem.memory.sources.spec import (
    DEPENDENCY,
    FolderSource,
    PipSource,
    find_source,
    format_sources,
    parse_sources,
)


def test_lines_commas_comments_and_kinds():
    parsed = parse_sources(
        "# libraries\n"
        "pip:Requests==2.32.3, pip: attrs >=23\n"
        "/srv/other-repo  # a second repository\n"
        "~/docs\n"
        "\n"
        "pip:typing_extensions\n")
    assert parsed.problems == ()
    requests, attrs, other, docs, typing = parsed.sources
    assert requests == PipSource("requests", "==2.32.3")
    assert attrs == PipSource("attrs", ">=23")
    assert typing == PipSource("typing-extensions", "")
    assert other == FolderSource("/srv/other-repo", "other-repo")
    assert docs.path.endswith("/docs") and docs.path.startswith("/")
    assert requests.repo_id == "src-pip-requests"
    assert other.repo_id.startswith("src-dir-other-repo-")


def test_unusable_items_say_what_to_write_instead():
    parsed = parse_sources("relative/path\next::sh -c x\npip:not a name!!\n/ok")
    assert [s.spec for s in parsed.sources] == ["/ok"]
    relative, url, bad = parsed.problems
    assert relative.startswith("`relative/path`") and "absolute folder path" in relative
    assert "`ext::` URLs run git remote helpers" in url  # repository URLs: test_git_url.py
    assert bad.startswith("`pip:not a name!!`") and "not a package requirement" in bad


def test_duplicates_collapse_and_folder_names_stay_unique():
    parsed = parse_sources("/a/lib, /b/lib, /a/lib, pip:x==1, pip:X==2")
    names = [s.name for s in parsed.sources]
    assert names == ["lib", "lib-2", "x"]
    assert parsed.sources[2].specifier == "==1"  # the first mention wins


def test_a_version_does_not_change_the_namespace():
    assert PipSource("requests", "==1").repo_id == PipSource("requests", "==2").repo_id
    assert PipSource("requests", "", DEPENDENCY).kind == DEPENDENCY


def test_find_by_name_spec_path_or_package_and_format_round_trip():
    sources = parse_sources("/srv/other-repo\npip:requests==2.32.3").sources
    assert find_source(sources, "other-repo") is sources[0]
    assert find_source(sources, "/srv/other-repo/") is sources[0]
    assert find_source(sources, "pip:requests") is sources[1]
    assert find_source(sources, "Requests") is sources[1]
    assert find_source(sources, "flask") is None
    assert parse_sources(format_sources(sources)).sources == sources

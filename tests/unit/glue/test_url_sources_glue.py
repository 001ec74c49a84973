"""Repositories by URL through the plugin's hooks and REST answers on the simulated Cat, from a
real git server on loopback: "add source <url>" clones and indexes with progress, "list
sources" shows the ref and commit, "update source" says when nothing moved and re-indexes a new
commit, "remove source" deletes the clone; a URL's credentials appear in no answer, setting
echo, REST body, chat history or log record."""

from __future__ import annotations

import logging
import os

import pytest

from codemem.app import entry
from codemem.app.process import GENERATION
from codemem.app.projects.workspace import Turn
from codemem.app.rest import routes

from ..memory.sources.git_server import commit_files, git_http_server
from .glue_support import make_cat, say, settings_of

SECRET = "s3cr3t-token"
KIT = {"kit/__init__.py": "def greet(name: str) -> str:\n    return name\n",
       "kit/wave.py": "def wave(times: int) -> str:\n    return 'o/' * times\n"}


@pytest.fixture
def served(tmp_path):
    repo = tmp_path / "workspace"
    repo.mkdir()
    (repo / "app.py").write_text("def main():\n    return 1\n")
    cat, sent, _ = make_cat(tmp_path, repo)
    upstream = str(tmp_path / "upstream" / "kit")
    first = commit_files(upstream, KIT, tag="v1")
    with git_http_server({"kit.git": upstream}) as base:
        yield cat, sent, base, upstream, first, tmp_path


def _project(cat):
    return Turn.of(cat, GENERATION.registry).workspace.project()


def _wait(cat):
    project = _project(cat)
    if project.indexer is not None:
        project.indexer.join(120)
        assert not project.indexing


def _clones(tmp_path) -> list[str]:
    folder = tmp_path / "data" / "sources" / "clones"
    return sorted(os.listdir(folder)) if folder.exists() else []


def test_add_list_update_and_remove_a_repository_by_url(served):
    cat, sent, base, upstream, first, tmp_path = served
    answer = say(cat, f"add source {base}/kit.git")
    assert answer.startswith(f"Added `{base}/kit.git` to the associative sources"), answer
    _wait(cat)
    notes = [text for kind, text in sent if kind == "notification"]
    assert f"Associative sources: resolve {base}/kit.git" in notes
    assert any("`kit` master @ " + first[:7] + " (git): 2 entities" in text
               for kind, text in sent if kind == "chat"), sent
    table = say(cat, "list sources")
    assert f"| `kit` | git | master @ {first[:7]} | 2 |" in table, table
    assert say(cat, "update source kit").startswith(f"Fetching `{base}/kit.git` again")
    _wait(cat)
    assert sent[-1] == ("chat", f"`kit` is up to date: master is still at {first[:7]}; "
                                "nothing was fetched or re-indexed.")
    second = commit_files(upstream, {"kit/wave.py": "def wave(times: int, hand: str = 'o') -> "
                                                    "str:\n    return hand * times\n"})
    say(cat, "refresh source kit")
    _wait(cat)
    kind, text = sent[-1]
    assert text.startswith(f"Updated `kit`: master moved from {first[:7]} to {second[:7]}"), text
    assert "1 file(s) read, 1 unchanged" in text
    assert say(cat, "update source nothing").startswith("`nothing` is not a source.")
    [clone] = _clones(tmp_path)
    removed = say(cat, "remove source kit")
    assert removed.startswith(f"Removed `{base}/kit.git`: ") and "and its clone" in removed
    assert _clones(tmp_path) == [] and settings_of(cat)["associative_sources"] == ""
    assert _project(cat).code.count_memories({"repo_id": clone}) == 0


def test_hostile_urls_are_refused_in_chat_with_their_reason(served):
    cat, _, base, _, _, tmp_path = served
    for text, says in ((f"add source ext::sh -c touch% {tmp_path}/pwned", "remote helpers"),
                       ("add source --upload-pack=touch", "like a command-line option"),
                       (f"add source file://{tmp_path}", "file:// URLs are switched off")):
        answer = say(cat, text)
        assert answer.startswith("I cannot add") and says in answer, answer
    assert settings_of(cat).get("associative_sources", "") == ""
    assert not (tmp_path / "pwned").exists() and _clones(tmp_path) == []
    settings_of(cat)["source_file_url_folders"] = str(tmp_path / "upstream")
    assert say(cat, f"add source file://{tmp_path}/upstream/kit").startswith("Added ")
    _wait(cat)
    assert "| `kit` | git | master @ " in say(cat, "list sources")


def test_credentials_never_appear_in_answers_rest_history_or_logs(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    repo = tmp_path / "workspace"
    repo.mkdir()
    cat, sent, _ = make_cat(tmp_path, repo)
    upstream = str(tmp_path / "upstream" / "kit")
    commit_files(upstream, KIT)
    with git_http_server({"kit.git": upstream}, password=SECRET) as base:
        url = base.replace("http://", f"http://user:{SECRET}@") + "/kit.git"
        shown = base.replace("http://", "http://***@") + "/kit.git"
        message = f"add source {url}"
        answers = [say(cat, message)]
        assert cat.working_memory.user_message_json.text == f"add source {shown}"
        _wait(cat)
        answers += [say(cat, "list sources"), say(cat, "update source kit")]
        _wait(cat)
        answers += [entry.status(cat), say(cat, f"update source {url}")]
        _wait(cat)
        bodies = [routes.sources(cat).body, routes.update_source(cat, url).body]
        _wait(cat)
        bodies.append(routes.index_progress(cat).body)
        assert settings_of(cat)["associative_sources"] == url  # the git client needs it
        wrong = url.replace(SECRET, "wrong-" + SECRET[:3])
        answers.append(say(cat, f"add source {wrong}"))
        _wait(cat)
        say(cat, "update source kit")  # the refs are listed again: the server says 401
        _wait(cat)
    assert settings_of(cat)["associative_sources"] == wrong
    assert "(its credentials replaced)" in answers[-1]
    assert sent[-1][1].startswith("`kit` was not updated: update failed: the server asks for "
                                  "authentication"), sent[-1]
    assert f"Added `{shown}`" in answers[0] and "| `kit` | git | master @ " in answers[1]
    assert routes.sources(cat).body["sources"][0]["spec"] == shown
    everything = "\n".join(map(str, [*answers, *sent, *bodies, caplog.text]))
    assert SECRET not in everything, everything


def test_rest_lists_and_updates_sources(served):
    cat, _, base, upstream, first, _ = served
    say(cat, f"add source {base}/kit.git@v1")
    _wait(cat)
    listed = routes.sources(cat)
    assert listed.status == 200 and listed.body["running"] is False
    [row] = listed.body["sources"]
    assert (row["name"], row["kind"], row["version"], row["commit"]) == ("kit", "git", "v1",
                                                                         first)
    assert routes.update_source(cat, "missing").status == 404
    started = routes.update_source(cat, "kit")
    assert started.status == 202 and started.body["source"] == "kit"
    _wait(cat)
    run = routes.index_progress(cat).body
    assert run["trigger"] == "rest" and "is up to date: v1 is still at" in run["summary"]

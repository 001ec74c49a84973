"""The REST layer's answers (``app/rest/routes.py``), called as ``endpoints.py`` calls them:
the caller's own tasks only, a clear 4xx for bad input, chat's own diff, apply and indexing.
The HTTP side (the Cat's auth, permissions, routing) is tests/integration/test_rest.py."""

from __future__ import annotations

import difflib

import pytest

from codemem.app.rest import routes

from .glue_support import make_cat, other_user, say, settings_of, state_of
from .test_history import drafted  # noqa: F401  (fixture: draft 1 of text/slug.py)


def _files(cat, commit):
    from codemem.app import entry
    return entry.session_turn(cat)[1].workspace.project().commits.show(commit).files


def test_the_caller_sees_only_their_own_tasks(drafted):  # noqa: F811
    cat, _, _ = drafted
    mine = routes.tasks(cat)
    assert mine.status == 200 and mine.body["user"] == "alice"
    [task] = mine.body["tasks"]
    assert task["id"] == state_of(cat).task_id and task["current"] and task["drafts"] == 2
    assert task["head"]["name"].startswith("draft 1: slugify")
    bob, _ = other_user(cat, "bob")
    assert routes.tasks(bob).body["tasks"] == []


def test_another_user_can_neither_read_nor_apply_a_task(drafted):  # noqa: F811
    cat, target, original = drafted
    task = state_of(cat).task_id
    bob, _ = other_user(cat, "bob")
    for reply in (routes.drafts(bob, task), routes.diff(bob, task, None, None),
                  routes.apply(bob, task)):
        assert reply.status == 404 and reply.body == {"error": f"you have no task `{task}`"}
    assert target.read_text() == original
    assert routes.drafts(bob, "no-such-task").body == routes.drafts(bob, task).body | {
        "error": "you have no task `no-such-task`"}  # existence is not revealed


@pytest.mark.parametrize("task", ["", "../etc", "a b", "x" * 200, "tâche;rm"])
def test_a_malformed_task_id_is_a_400_naming_where_ids_come_from(drafted, task):  # noqa: F811
    cat, _, _ = drafted
    for reply in (routes.drafts(cat, task), routes.diff(cat, task, "1", None),
                  routes.apply(cat, task)):
        assert reply.status == 400 and "GET /custom/code-memory/tasks" in reply.body["error"]


def test_drafts_and_the_diff_of_a_draft_against_its_parent_or_another(drafted):  # noqa: F811
    cat, _, original = drafted
    task = state_of(cat).task_id
    listed = routes.drafts(cat, task)
    assert listed.status == 200
    names = [d["name"].split(":")[0] for d in listed.body["drafts"]]
    assert names == ["draft 1", "start"] and listed.body["drafts"][0]["current"]
    head, start = (d["id"] for d in listed.body["drafts"])
    new = _files(cat, head)["text/slug.py"]
    expected = "".join(difflib.unified_diff(original.splitlines(True), new.splitlines(True),
                                            "a/text/slug.py", "b/text/slug.py"))
    for draft, against in ((None, None), ("1", None), ("current", "start"), (head, start[:10])):
        reply = routes.diff(cat, task, draft, against)
        assert reply.status == 200, reply.body
        assert reply.body["unified"] == expected
        assert reply.body["from"]["id"] == start and reply.body["to"]["id"] == head
        assert reply.body["files"] == [{"path": "text/slug.py", "status": "modified",
                                        "diff": expected}]
    back = routes.diff(cat, task, "start", "1")
    assert back.body["unified"].count("\n-def slugify") == 1


@pytest.mark.parametrize("draft, against", [("7", None), ("1", "9"), ("HEAD~1", None),
                                            ("deadbeef00", None)])
def test_a_draft_the_task_lacks_is_a_404(drafted, draft, against):  # noqa: F811
    cat, _, _ = drafted
    reply = routes.diff(cat, state_of(cat).task_id, draft, against)
    assert reply.status == 404 and reply.body["error"], reply.body


def test_apply_is_chat_s_apply(drafted):  # noqa: F811
    cat, target, original = drafted
    task = state_of(cat).task_id
    first = routes.apply(cat, task)
    assert first.status == 200 and first.body["applied"] is True, first.body
    assert "def slugify" in target.read_text()
    again = routes.apply(cat, task)
    assert again.status == 200 and again.body["applied"] is False
    assert "already applied" in again.body["message"]
    assert say(cat, "apply").startswith("Draft `")  # chat sees the same state
    target.write_text(target.read_text() + "# my own edit\n")
    say(cat, "roll back to the start")
    refused = routes.apply(cat, task)
    assert refused.status == 409 and "text/slug.py was edited" in refused.body["error"]
    assert target.read_text().endswith("# my own edit\n")


def test_apply_follows_the_write_back_policy(drafted):  # noqa: F811
    cat, target, original = drafted
    settings_of(cat)["write_back"] = "never: drafts stay in the history"
    reply = routes.apply(cat, state_of(cat).task_id)
    assert reply.status == 409 and reply.body["error"].startswith("Write-back is off")
    assert target.read_text() == original


def test_search_without_and_with_the_llm(drafted):  # noqa: F811
    cat, target, _ = drafted
    (target.parent / "dates.py").write_text(
        "import datetime\n\n\ndef parse_date(text):\n"
        "    return datetime.date.fromisoformat(text)\n")
    started = routes.start_index(cat)
    assert started.status == 202, started.body
    from codemem.app import entry
    project = entry.session_turn(cat)[1].workspace.project()
    project.indexer.join(60)
    progress = routes.index_progress(cat)
    assert progress.status == 200 and progress.body["running"] is False
    assert progress.body["summary"].startswith("Indexed `")
    assert progress.body["trigger"] == "rest"
    ranked = routes.search(cat, "where are dates parsed?", llm=False, limit=5)
    assert ranked.status == 200, ranked.body
    [hit, *_] = ranked.body["results"]
    assert hit["path"] == "text/dates.py" and hit["name"] == "parse_date"
    assert hit["start_line"] == 4 and hit["end_line"] == 5 and hit["scoring"] == "rank"
    assert hit["score"] == 1.0 and "fromisoformat" in hit["text"]
    scored = routes.search(cat, "where are dates parsed?", llm=True, limit=5)
    assert scored.status == 200 and scored.body["results"][0]["scoring"] == "llm"
    assert 0.9 <= scored.body["results"][0]["score"] <= 1.0  # the LLM's 0.9, boosted


@pytest.mark.parametrize("query, limit, wanted", [
    ("", 10, "say what code you are looking for"), ("   ", 10, "say what code"),
    (None, 10, "say what code"), ("x" * 2001, 10, "at most 2000"),
    ("dates", 0, "limit must be between 1 and 50"), ("dates", 51, "limit must be between")])
def test_bad_search_input_is_a_400_saying_what_to_send(drafted, query, limit, wanted):  # noqa: F811
    cat, _, _ = drafted
    reply = routes.search(cat, query, llm=False, limit=limit)
    assert reply.status == 400 and wanted in reply.body["error"]


def test_without_a_repository_the_routes_say_so(tmp_path):
    cat, _, _ = make_cat(tmp_path, "")
    for reply in (routes.start_index(cat), routes.index_progress(cat), routes.tasks(cat),
                  routes.search(cat, "dates", llm=False, limit=3)):
        assert reply.status == 409 and "no repository is configured" in reply.body["error"]
    status = routes.status(cat)
    assert status.status == 200 and status.body["report"].startswith("**Code Working Memory**")
    assert status.body["index"] is None and status.body["task"] is None


def test_status_reports_the_task_and_the_index(drafted):  # noqa: F811
    cat, _, _ = drafted
    status = routes.status(cat)
    assert status.status == 200 and status.body["task"] == state_of(cat).task_id
    assert status.body["index"]["repository"].endswith("workspace")

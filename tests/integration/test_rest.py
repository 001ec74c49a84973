"""The plugin's REST routes over HTTP in a real Cat 1.9.2 (opt-in: CCAT_CORE_DIR), as an editor
or a script calls them: users of the Cat's own user store with their own JWTs (``/users``,
``/auth/token``), the Cat's permission checks, bad input on every route, a diff equal to the
one computed from the draft history's git trees, and "apply" only for the task's owner.
"""

from __future__ import annotations

import difflib
import json
import time

import pytest

from . import cat_harness
from .cat_doubles import SLUGIFY_DRAFT as GOOD
from .cat_doubles import SLUGIFY_METACODE as METACODE

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]

BASE = "/custom/code-memory"
ROUTES = [("GET", "/status"), ("POST", "/index"), ("GET", "/index"),
          ("GET", "/search?q=slug"), ("GET", "/tasks"), ("GET", "/tasks/t-1/drafts"),
          ("GET", "/tasks/t-1/diff"), ("POST", "/tasks/t-1/apply")]
BASE_PERMISSIONS = {"STATUS": ["READ"], "MEMORY": ["READ", "LIST"],
                    "CONVERSATION": ["WRITE", "EDIT", "LIST", "READ", "DELETE"]}
INDEXER_PERMISSIONS = {**BASE_PERMISSIONS, "MEMORY": ["READ", "LIST", "WRITE"]}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    (root / "text").mkdir()
    (root / "text" / "slug.py").write_text("def other():\n    return 1\n")
    (root / "text" / "dates.py").write_text(
        "def parse_iso(text):\n    \"\"\"Parse an ISO date.\"\"\"\n    return text[:4]\n")
    return root


@pytest.fixture(scope="module")
def rest(cat_run, repo, tmp_path_factory):
    """The shared Cat configured for ``repo``, three users with their own tokens, and an API
    key set, so that a request without credentials is refused."""
    data = tmp_path_factory.mktemp("data")
    with cat_harness.configured(cat_run, repository_path=str(repo), data_folder=str(data),
                                max_iterations=2, check_judge=False, extended_loop=False):
        cat_run.script.rules += [
            ("into META-CODE", json.dumps(METACODE)), ("You write Python code", GOOD)]
        cat_run.script.relevance = 0.9
        tokens = {name: _user(cat_run, name, perms) for name, perms in (
            ("alice_r", BASE_PERMISSIONS), ("bob_r", BASE_PERMISSIONS),
            ("indexer_r", INDEXER_PERMISSIONS))}
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("CCAT_API_KEY", "a-key-nobody-sends")
            yield cat_run, tokens
        cat_run.plugin_module("app.chat.watcher").stop_watching(join_s=5)  # before the Cat goes
        cat_run.script.relevance = None


def _user(run, name: str, permissions: dict) -> str:
    made = run.client.post("/users/", json={"username": name, "password": f"{name}-secret",
                                            "permissions": permissions})
    assert made.status_code == 200, made.text
    token = run.client.post("/auth/token", json={"username": name,
                                                 "password": f"{name}-secret"})
    assert token.status_code == 200, token.text
    return str(token.json()["access_token"])


def call(rest, user: str | None, method: str, path: str):
    run, tokens = rest
    headers = {"Authorization": f"Bearer {tokens[user]}"} if user else {}
    return run.client.request(method, BASE + path, headers=headers)


@pytest.fixture(scope="module")
def alices_task(rest, repo):
    """alice_r's task with draft 1 (through the chat, as she would), then a draft 2 and a
    draft 3 committed on it as the loop commits them."""
    run, _ = rest
    with run.session("alice_r") as chat:
        assert "**go**" in chat.say("write a function slugify in text/slug.py that turns a "
                                    "title into a URL slug")["text"]
        chat.say("go")
        cat_harness.wait_for_draft(run, "alice_r")
    task = run.plugin_state("alice_r")["task_id"]
    project = _project(run)
    one = project.commits.show(project.commits.head(task)).files["text/slug.py"]
    for number, text in ((2, one + "\n\ndef unslug(s):\n    return s.replace('-', ' ')\n"),
                         (3, one + "\n\ndef unslug(s):\n    return s.replace('-', ' ').title()\n")):
        project.commits.commit(task, {"text/slug.py": text}, name=f"draft {number}: slugify",
                               reason="test", metacode={}, snapshot={}, verdict="passed")
    return task


def _project(run):
    [project] = run.plugin_module("app.process").GENERATION.registry.projects()
    return project


def test_every_route_is_mounted_once_and_in_the_cats_openapi_page(rest):
    run, _ = rest
    declared = cat_harness.declared_glue()["endpoints"]
    assert run.mounted_routes() == declared
    paths = run.client.get("/openapi.json").json()["paths"]
    for method, path in ROUTES:
        route = BASE + path.split("?")[0].replace("t-1", "{task_id}")
        assert method.lower() in paths[route], route


@pytest.mark.parametrize("method, path", ROUTES)
def test_no_route_answers_without_credentials(rest, method, path):
    reply = call(rest, None, method, path)
    assert reply.status_code == 403, reply.text


def test_starting_an_index_run_needs_the_memory_write_permission(rest):
    assert call(rest, "bob_r", "POST", "/index").status_code == 403
    started = call(rest, "indexer_r", "POST", "/index")
    assert started.status_code in (202, 409), started.text
    deadline = time.monotonic() + 120
    while (progress := call(rest, "bob_r", "GET", "/index").json())["running"]:
        assert time.monotonic() < deadline, progress
        time.sleep(0.2)
    assert progress["summary"].startswith("Indexed `"), progress
    status = call(rest, "bob_r", "GET", "/status")
    assert status.status_code == 200 and status.json()["report"].startswith("**Code Working")


def test_search_returns_entities_with_path_lines_and_score(rest):
    call(rest, "indexer_r", "POST", "/index")
    cat_harness.wait_for_indexing(rest[0])
    found = call(rest, "bob_r", "GET", "/search?q=where+are+ISO+dates+parsed&limit=3")
    assert found.status_code == 200, found.text
    hit = found.json()["results"][0]
    assert (hit["path"], hit["name"], hit["start_line"], hit["end_line"]) == \
        ("text/dates.py", "parse_iso", 1, 3)
    scored = call(rest, "bob_r", "GET", "/search?q=where+are+ISO+dates+parsed&llm=true")
    assert scored.status_code == 200 and scored.json()["results"][0]["scoring"] == "llm"


@pytest.mark.parametrize("path, status, wanted", [
    ("/search", 400, "say what code you are looking for"),
    ("/search?q=%20", 400, "say what code you are looking for"),
    ("/search?q=dates&limit=0", 400, "limit must be between 1 and 50"),
    ("/search?q=dates&limit=many", 400, "limit"),  # the Cat's own 400 for a bad type
    ("/search?q=" + "x" * 2100, 400, "at most 2000"),
    ("/tasks/no%20such%20task/drafts", 400, "is not a task id"),
    ("/tasks/no-such-task/drafts", 404, "you have no task"),
    ("/tasks/no-such-task/diff?draft=1", 404, "you have no task")])
def test_bad_input_is_a_clear_4xx(rest, path, status, wanted):
    reply = call(rest, "alice_r", "GET", path)
    assert reply.status_code == status, reply.text
    assert wanted in reply.text


def test_one_user_can_neither_see_nor_apply_another_users_task(rest, repo, alices_task):
    original = (repo / "text" / "slug.py").read_text()
    mine = call(rest, "alice_r", "GET", "/tasks").json()
    assert [t["id"] for t in mine["tasks"]] == [alices_task] and mine["tasks"][0]["current"]
    assert call(rest, "bob_r", "GET", "/tasks").json()["tasks"] == []
    for method, what in (("GET", "drafts"), ("GET", "diff"), ("POST", "apply")):
        reply = call(rest, "bob_r", method, f"/tasks/{alices_task}/{what}")
        assert reply.status_code == 404, reply.text
        assert reply.json() == {"error": f"you have no task `{alices_task}`"}
    assert (repo / "text" / "slug.py").read_text() == original


def test_the_diff_matches_the_draft_historys_git_trees(rest, alices_task):
    run, _ = rest
    drafts = call(rest, "alice_r", "GET", f"/tasks/{alices_task}/drafts").json()["drafts"]
    assert [d["name"].split(":")[0] for d in drafts] == ["draft 3", "draft 2", "draft 1",
                                                         "start"]
    by_name = {d["name"].split(":")[0]: d["id"] for d in drafts}
    trees = _git_trees(_project(run).commits.root, by_name.values())
    for draft, against, old, new in (("", "", "draft 2", "draft 3"),
                                     ("2", "", "draft 1", "draft 2"),
                                     ("3", "start", "start", "draft 3"),
                                     ("1", "3", "draft 3", "draft 1"),
                                     (by_name["draft 2"][:12], "1", "draft 1", "draft 2")):
        query = "&".join(f"{k}={v}" for k, v in (("draft", draft), ("against", against)) if v)
        reply = call(rest, "alice_r", "GET", f"/tasks/{alices_task}/diff?{query}")
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert (body["from"]["id"], body["to"]["id"]) == (by_name[old], by_name[new])
        assert body["unified"] == _expected(trees[by_name[old]], trees[by_name[new]]), query
    missing = call(rest, "alice_r", "GET", f"/tasks/{alices_task}/diff?draft=9")
    assert missing.status_code == 404 and "has no draft 9" in missing.json()["error"]


def _git_trees(git_dir, commits) -> dict[str, dict[str, str]]:
    """Each commit's draft files, read from the history's git objects with dulwich."""
    from dulwich.object_store import iter_tree_contents
    from dulwich.repo import Repo

    repo = Repo(str(git_dir))
    out = {}
    for sha in commits:
        tree = repo[sha.encode()].tree
        out[sha] = {e.path.decode(): repo[e.sha].data.decode()
                    for e in iter_tree_contents(repo.object_store, tree)
                    if e.path.decode() not in ("metacode.json", "working_memory.json")}
    return out


def _expected(old: dict[str, str], new: dict[str, str]) -> str:
    """``git diff`` of two trees without its ``diff --git``/``index`` lines (difflib)."""
    out = []
    for path in sorted(set(old) | set(new)):
        if old.get(path) != new.get(path):
            out += difflib.unified_diff(
                (old.get(path) or "").splitlines(True), (new.get(path) or "").splitlines(True),
                "/dev/null" if path not in old else f"a/{path}",
                "/dev/null" if path not in new else f"b/{path}")
    return "".join(out)


def test_apply_writes_the_owners_current_draft_once(rest, repo, alices_task):
    target = repo / "text" / "slug.py"
    original = target.read_text()
    current = rest[0].plugin_state("alice_r")["commit_id"]  # her session's draft, as in chat
    applied = call(rest, "alice_r", "POST", f"/tasks/{alices_task}/apply")
    assert applied.status_code == 200 and applied.json()["applied"] is True, applied.text
    assert applied.json()["commit"] == current
    assert "def slugify(text: str) -> str:" in target.read_text()
    again = call(rest, "alice_r", "POST", f"/tasks/{alices_task}/apply")
    assert again.status_code == 200 and again.json()["applied"] is False
    assert "already applied" in again.json()["message"]
    assert rest[0].chat("apply", user="alice_r")["text"].startswith("Draft `")  # chat agrees
    target.write_text(original)


def test_an_edit_on_disk_is_retrievable_by_a_question_within_seconds(rest, repo):
    """The watcher (file events in the Cat, which has watchfiles) re-indexes a saved file: the
    next question retrieves the new code. The bound is generous for a loaded test machine; the
    measured figures are in docs/benchmarks.md (bench/watch_bench.py)."""
    run, _ = rest
    cat_harness.wait_for_indexing(run)
    assert call(rest, "bob_r", "GET", "/status").json()["index"] is not None  # watcher started
    watch = run.plugin_module("app.chat.watcher").watching()
    assert [w.root for w in watch] == [str(repo.resolve())], watch
    time.sleep(0.5)
    target = repo / "text" / "invoices.py"
    saved = time.monotonic()
    target.write_text("def invoice_checksum(lines):\n    \"\"\"Sum of the invoice lines.\"\"\"\n"
                      "    return sum(lines)\n")
    while True:
        found = call(rest, "bob_r", "GET", "/search?q=invoice+checksum&limit=1").json()
        if found["results"] and found["results"][0]["name"] == "invoice_checksum":
            break
        assert time.monotonic() - saved < 15, f"the edit was not indexed: {found}"
        time.sleep(0.05)
    elapsed = time.monotonic() - saved
    mark = len(run.script.prompts)
    answer = run.chat("what does invoice_checksum do?", user="bob_r")
    assert answer["text"] == run.script.answer
    asked = "\n".join(run.script.prompts[mark:])
    assert "def invoice_checksum(lines):" in asked, asked[-2000:]
    print(f"save -> retrievable in the Cat: {elapsed:.2f} s ({watch[0].source})")
    target.unlink()

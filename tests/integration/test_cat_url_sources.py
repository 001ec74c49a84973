"""A repository by URL inside a real Cheshire Cat 1.9.2 without a git binary (opt-in:
``CCAT_CORE_DIR``), as in the stock Cat image: ``PATH`` without git, a repository served by
dulwich's smart HTTP server on loopback, then in chat "add source <url>", a question answered
with that repository's code, "update source" after a new commit, a draft whose generation prompt
carries the source's API, and "remove source" leaving no clone behind."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ..unit.memory.sources.git_server import commit_files, git_http_server
from . import cat_harness
from .cat_harness import configured
from .no_git_probe import path_without_git

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]

GREETER = ('def greet_visitor(name: str, *, loud: bool = False) -> str:\n'
           '    """Greet a visitor of the museum by name."""\n'
           '    return f"Welcome, {name}"\n')
META = {
    "target_path": "app.py", "symbol": "welcome", "kind": "function",
    "signature": "def welcome(name: str) -> str", "behaviour": "Greet with greeter.",
    "inputs": [{"name": "name", "type": "str", "description": "who"}],
    "outputs": [{"name": "return", "type": "str", "description": "the greeting"}],
    "examples": [], "constraints": [], "acceptance_checks": ["uses greeter"], "assumptions": []}
DRAFT = ("```python entity=app.py::welcome\nfrom greeter import greet_visitor\n\n\n"
         "def welcome(name: str) -> str:\n    return greet_visitor(name)\n```\n")


def _chat(run, text: str) -> str:
    """One turn over HTTP (what indexing threads send later goes to the user's socket)."""
    return run.message(text, user="uma")


def _asked(run, question: str) -> str:
    mark = len(run.script.prompts)
    assert _chat(run, question) == run.script.answer
    return "\n".join(run.script.prompts[mark:])


def test_a_repository_by_url_is_cloned_answered_updated_and_removed_without_git(
        cat_run, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", path_without_git(os.environ.get("PATH", "")))
    assert shutil.which("git") is None
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("def main():\n    return 1\n")
    (repo / "greeter").mkdir()  # the library as the project uses it, for the draft's tests
    (repo / "greeter" / "__init__.py").write_text(GREETER.replace("visitor", "visitor_local"))
    upstream = str(tmp_path / "upstream" / "greeter")
    first = commit_files(upstream, {"greeter/__init__.py": GREETER, "README.md": "# greeter\n"})
    data = tmp_path / "data"
    script = cat_run.script
    with git_http_server({"greeter.git": upstream}) as base, configured(
            cat_run, repository_path=str(repo), data_folder=str(data), max_iterations=1,
            check_judge=False, check_tests=False, extended_loop=False):
        script.relevance = 0.9
        try:
            added = _chat(cat_run, f"add source {base}/greeter.git")
            assert added.startswith(f"Added `{base}/greeter.git` to the associative"), added
            cat_harness.wait_for_indexing(cat_run)
            listed = _chat(cat_run, "list sources")
            assert f"| `greeter` | git | master @ {first[:7]} |" in listed, listed
            asked = _asked(cat_run, "how does greet_visitor greet someone?")
            assert "Greet a visitor of the museum by name." in asked, asked[-3000:]
            _update(cat_run, upstream)
            _draft(cat_run, script)
            removed = _chat(cat_run, "remove source greeter")
        finally:
            script.relevance = None
    assert removed.startswith(f"Removed `{base}/greeter.git`") and "and its clone" in removed
    assert os.listdir(data / "sources" / "clones") == []
    assert "absent (built-in git is used)" in _chat(cat_run, "code memory status")


def _update(run, upstream: str) -> None:
    """A new commit upstream: "update source" fetches it, the question finds the new code."""
    second = commit_files(upstream, {"greeter/farewell.py": (
        'def wave_goodbye(name: str) -> str:\n    """Say goodbye to a museum visitor."""\n'
        '    return f"Bye, {name}"\n')})
    assert _chat(run, "update source greeter").startswith("Fetching `")
    cat_harness.wait_for_indexing(run)
    assert f"| `greeter` | git | master @ {second[:7]} |" in _chat(run, "list sources")
    asked = _asked(run, "what does wave_goodbye return?")
    assert "Say goodbye to a museum visitor." in asked, asked[-3000:]


def _draft(run, script) -> None:
    """A code request: the generation prompt carries the source's API as a labelled
    reference."""
    script.rules += [("into META-CODE", json.dumps(META)), ("You write Python code", DRAFT)]
    mark = len(script.prompts)
    with run.session("uma") as chat:
        assert "**go**" in chat.say("write a function welcome in app.py that greets a visitor "
                                    "with greet_visitor from greeter")["text"]
        chat.say("go")
        cat_harness.wait_for_draft(run, "uma")
    generate = [p for p in script.prompts[mark:] if p.startswith("You write Python code")]
    assert generate and "greeter.greet_visitor" in generate[0], generate[:1]
    assert "Greet a visitor of the museum by name." in generate[0]

"""Changes that touch several files, in chat (simulated Cat): the proposal shows who uses the
target and the scope, one reply updates the target and its callers, the result has a diff per
file and "apply" writes them all; renames are done by structure with no LLM call, and refused
with the places named when a use cannot be rewritten safely."""

from __future__ import annotations

import json
import pathlib

import pytest

from ...fakes import FunctionLLM, answer_scoring
from ..codegen.helpers_codegen import entity
from .cat_sim import CAT_ANSWER, SimCat

SETTINGS = {"extended_loop": False, "check_judge": False}
REPO = {
    "net/__init__.py": "",
    "net/http.py": "def fetch(url):\n    return url\n",
    "app/__init__.py": "",
    "app/main.py": "from net.http import fetch\n\n\ndef run(url):\n    return fetch(url)\n",
    "app/cli.py": "from net import http\n\n\ndef main(argv):\n    return http.fetch(argv[0])\n",
    "utils/__init__.py": "",
    "utils/time.py": "def fmt_ts(ts):\n    return str(ts)\n",
    "app/report.py": "from utils.time import fmt_ts\n\n\ndef line(ts):\n    return fmt_ts(ts)\n",
}
METACODE = {
    "target_path": "net/http.py", "symbol": "fetch", "kind": "function",
    "signature": "def fetch(url, timeout)", "behaviour": "Fetch url within timeout seconds.",
    "examples": [{"call": "fetch('a', 3)", "expected": "a@3"}],
    "acceptance_checks": ["callers pass a timeout"],
    "scope": [{"path": "app/main.py", "symbol": "run", "why": "takes a timeout and passes it"},
              {"path": "app/cli.py", "symbol": "main", "why": "passes a timeout of 10"}]}
DRAFT = (entity("net/http.py", "fetch",
                "def fetch(url, timeout):\n    return f'{url}@{timeout}'\n")
         + entity("app/main.py", "run",
                  "def run(url, timeout=10):\n    return fetch(url, timeout)\n")
         + entity("app/cli.py", "main",
                  "def main(argv):\n    return http.fetch(argv[0], 10)\n"))
REQUEST = "add a timeout parameter to fetch in net/http.py and pass it from every caller"


def make_repository(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def ripple_sim(tmp_path: pathlib.Path, files: dict[str, str], reply, limit: int = 40) -> SimCat:
    """A simulated Cat on a repository of ``files`` whose model answers with ``reply``; the
    repository and the model are kept on it (``.repo``, ``.model``)."""
    llm = FunctionLLM(reply, limit=limit)
    repo = make_repository(tmp_path / "repo", files)
    sim = SimCat(repo, tmp_path / "data", llm, settings=SETTINGS)
    sim.repo, sim.model = repo, llm
    return sim


def answer(prompt: str) -> str:
    scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
    if scored is not None:
        return scored
    if prompt.startswith("You turn a programming request into META-CODE"):
        assert "is used in 3 places in 2 files" in prompt, "the impact reached the proposal"
        return json.dumps(METACODE)
    if prompt.startswith("You write Python code for one goal across several places"):
        return DRAFT
    return CAT_ANSWER


@pytest.fixture
def cat(tmp_path):
    llm = FunctionLLM(answer, limit=40)
    repo = make_repository(tmp_path / "repo", REPO)
    with SimCat(repo, tmp_path / "data", llm, settings=SETTINGS) as sim:
        sim.repo, sim.model = repo, llm
        yield sim


def test_a_signature_change_updates_its_callers_and_apply_writes_every_file(cat):
    proposal = cat.say("alice", REQUEST)
    assert "`fetch` (net/http.py:1-2) is used in 3 places in 2 files" in proposal, proposal
    assert "app/main.py" in proposal and "app/cli.py" in proposal and "**go**" in proposal
    assert cat.say("alice", "go").startswith("Drafting `fetch`")
    cat.wait_drafts()
    result = cat.chats("alice")[-1]
    assert result.startswith("Draft committed"), result
    assert "3 file(s) changed" in result and "**`app/cli.py`** (modified)" in result
    generations = [p for p in cat.model.prompts if "several places" in p[:80]]
    assert len(generations) == 1  # one reply for the target and both callers
    assert cat.say("alice", "apply").startswith("Applied draft `")
    assert "http.fetch(argv[0], 10)" in (cat.repo / "app" / "cli.py").read_text()
    assert "fetch(url, timeout)" in (cat.repo / "app" / "main.py").read_text()
    assert cat.errors == []


def test_a_rename_across_the_package_costs_no_llm_call(cat):
    before = len(cat.model.prompts)
    started = cat.say("alice", "rename fmt_ts to format_timestamp")
    assert started.startswith("Rename `fmt_ts` to `format_timestamp` (task"), started
    assert "app/report.py" in started
    cat.wait_drafts()
    assert cat.chats("alice")[-1].startswith("Draft committed"), cat.chats("alice")[-1]
    assert cat.model.prompts[before:] == []
    assert cat.say("alice", "apply").startswith("Applied draft `")
    report = (cat.repo / "app" / "report.py").read_text()
    assert "from utils.time import format_timestamp" in report and "fmt_ts" not in report
    assert "def format_timestamp(ts):" in (cat.repo / "utils" / "time.py").read_text()


def test_a_rename_with_a_dynamic_use_is_refused_with_the_place_named(tmp_path):
    files = {**REPO, "app/hooks.py": "import utils.time\n\n\ndef pick():\n"
                                     "    return getattr(utils.time, 'fmt_ts')\n"}
    llm = FunctionLLM(answer, limit=5)
    repo = make_repository(tmp_path / "repo", files)
    with SimCat(repo, tmp_path / "data", llm, settings=SETTINGS) as cat:
        refused = cat.say("alice", "rename fmt_ts to format_timestamp")
        assert refused.startswith("I did not rename `fmt_ts`: nothing was changed."), refused
        assert "app/hooks.py:5" in refused
        assert (repo / "utils" / "time.py").read_text() == files["utils/time.py"]
        assert cat.say("alice", "show the draft history") == CAT_ANSWER  # no task was opened

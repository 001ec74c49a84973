"""A rename in words the anchored reader does not take ("fetch in net/http.py should be called
get from now on") reaches the proposal; the model's meta-code reads as a rename, so the rename
is done by structure (no drafting call), or refused with the dynamic uses named while the
drafted proposal waits. A drafted change that renames a name anyway fails its checks with every
place that still names it. A move in other words ("fmt_ts would be better off in
utils/format.py": the rules leave it to the tie-break, which says it asks for a change) is read
from the meta-code the same way."""

from __future__ import annotations

import json

from ...fakes import answer_scoring
from .cat_sim import CAT_ANSWER
from .test_changes_that_ripple import REPO, ripple_sim

WORDS = "fetch in net/http.py should be called get from now on"
RENAMED = {"target_path": "net/http.py", "symbol": "get", "kind": "function",
           "signature": "def get(url)", "behaviour": "Return url (the old fetch).",
           "examples": [{"call": "get('a')", "expected": "a"}],
           "acceptance_checks": ["callers use get"]}
HOOKS = {"app/hooks.py": "import net.http\n\n\ndef pick():\n"
                         "    return getattr(net.http, 'fetch')\n"}


MOVE_WORDS = "hey, fmt_ts would be better off in utils/format.py 🙂"
MOVED = {"target_path": "utils/format.py", "symbol": "fmt_ts", "kind": "function",
         "signature": "def fmt_ts(ts)", "behaviour": "Format ts (moved from utils/time.py).",
         "acceptance_checks": ["report imports it from utils.format"]}


def answer(prompt: str) -> str:
    scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
    if scored is not None:
        return scored
    if prompt.startswith("Does the chat message below ask to write"):
        return "Yes." if "better off" in prompt else "No."  # the move reaches the tie-break
    if prompt.startswith("You turn a programming request into META-CODE"):
        return json.dumps(MOVED if "better off" in prompt else RENAMED)
    if prompt.startswith("You write Python code for one goal"):
        return ("The rename, as the whole file:\n```python file=net/http.py\n"
                "def get(url):\n    return url\n```\n")
    return CAT_ANSWER


def _sim(tmp_path, files):
    return ripple_sim(tmp_path, files, answer)


def test_a_rename_in_other_words_is_done_by_structure(tmp_path):
    with _sim(tmp_path, REPO) as cat:
        started = cat.say("alice", WORDS)
        assert started.startswith("Rename `fetch` to `get` (task"), started
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed"), cat.chats("alice")[-1]
        assert not [p for p in cat.model.prompts if "one goal" in p[:60]]  # no drafting call
        assert cat.say("alice", "apply").startswith("Applied draft `")
        assert "http.get(argv[0])" in (cat.repo / "app" / "cli.py").read_text()


def test_with_a_dynamic_use_it_is_refused_with_the_place_and_the_proposal_waits(tmp_path):
    with _sim(tmp_path, {**REPO, **HOOKS}) as cat:
        refused = cat.say("alice", WORDS)
        assert refused.startswith("I did not rename `fetch`: nothing was changed."), refused
        assert "app/hooks.py:5" in refused and "Drafted by the model instead" in refused
        assert cat.say("alice", "go").startswith("Drafting `get`")
        cat.wait_drafts()
        result = cat.chats("alice")[-1]
        assert "app/hooks.py:5: dynamic access names `fetch` in a string" in result, result
        assert not result.startswith("Draft committed")


def test_a_move_in_other_words_is_done_by_structure(tmp_path):
    with _sim(tmp_path, REPO) as cat:
        started = cat.say("alice", MOVE_WORDS)
        assert started.startswith(
            "Move `fmt_ts` from utils/time.py (utils.time) to utils/format.py"), started
        cat.wait_drafts()
        assert cat.chats("alice")[-1].startswith("Draft committed"), cat.chats("alice")[-1]
        assert not [p for p in cat.model.prompts if "one goal" in p[:60]]  # no drafting call
        assert cat.say("alice", "apply").startswith("Applied draft `")
        assert "def fmt_ts(ts)" in (cat.repo / "utils" / "format.py").read_text()
        assert "fmt_ts" not in (cat.repo / "utils" / "time.py").read_text()
        assert "from utils.format import fmt_ts" in (cat.repo / "app" / "report.py").read_text()

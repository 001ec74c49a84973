"""A target named by a plain word ("fetch", "send", "load") is linked through the index: the
form does not ask for a file the index already knows, asks when several files define it and
links again after the answer; the impact and the scope follow, and the draft updates the
callers. An English word that the index knows but that does not stand where the thing to
change stands is never linked."""

from __future__ import annotations

import json

from ...fakes import answer_scoring
from .cat_sim import CAT_ANSWER
from .test_changes_that_ripple import REPO, answer, ripple_sim

REQUEST = "add a timeout parameter to fetch and pass it from every caller (default 10 seconds)"
ASKS_FILE = "Which file should the code go in?"


def _sim(tmp_path, files, reply=answer, limit=40):
    return ripple_sim(tmp_path, files, reply, limit)


def test_a_plain_word_known_in_one_file_is_the_target_and_its_callers_the_scope(tmp_path):
    with _sim(tmp_path, REPO) as cat:
        proposal = cat.say("alice", REQUEST)
        assert ASKS_FILE not in proposal
        assert "`fetch` (net/http.py:1-2) is used in 3 places in 2 files" in proposal, proposal
        assert "**Scope**" in proposal and "`app/cli.py` :: `main`" in proposal
        assert cat.say("alice", "go").startswith("Drafting `fetch`")
        cat.wait_drafts()
        result = cat.chats("alice")[-1]
        assert result.startswith("Draft committed") and "3 file(s) changed" in result, result
        assert cat.say("alice", "apply").startswith("Applied draft `")
        assert "http.fetch(argv[0], 10)" in (cat.repo / "app" / "cli.py").read_text()
        assert cat.errors == []


def test_several_files_define_it_the_form_asks_and_links_after_the_answer(tmp_path):
    files = {**REPO, "net/mock.py": "def fetch(url):\n    return 'mock'\n"}
    with _sim(tmp_path, files) as cat:
        assert cat.say("alice", REQUEST).startswith(ASKS_FILE)
        proposal = cat.say("alice", "net/http.py")
        assert "`fetch` (net/http.py:1-2) is used in 3 places in 2 files" in proposal, proposal
        metacode_prompt = next(p for p in cat.model.prompts if "META-CODE" in p[:80])
        assert "Symbol: fetch" in metacode_prompt and "Kind: function" in metacode_prompt
        assert cat.errors == []


def test_a_method_is_linked_by_its_plain_name_with_its_class(tmp_path):
    files = {"mail/__init__.py": "",
             "mail/client.py": "class Client:\n    def send(self, to):\n        return to\n",
             "mail/jobs.py": "from mail.client import Client\n\n\ndef notify(who):\n"
                             "    return Client().send(who)\n"}
    seen = []

    def reply(prompt):
        scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
        if scored is not None:
            return scored
        if "META-CODE" in prompt[:80]:
            seen.append(prompt)
            return json.dumps({"target_path": "mail/client.py", "symbol": "Client.send",
                               "kind": "method", "signature": "def send(self, to, retries=3)",
                               "behaviour": "Send, retrying.", "examples": [
                                   {"call": "Client().send('a')", "expected": "a"}],
                               "acceptance_checks": ["callers still work"]})
        return CAT_ANSWER

    with _sim(tmp_path, files, reply) as cat:
        proposal = cat.say("alice", "add retries in send")
        assert ASKS_FILE not in proposal, proposal
        assert "Symbol: Client.send" in seen[0] and "Target file: mail/client.py" in seen[0]
        assert proposal.startswith("### `Client.send` (method) in `mail/client.py`"), proposal


def test_an_english_word_out_of_the_target_place_is_never_linked(tmp_path):
    files = {**REPO, "text/__init__.py": "",
             "text/verbs.py": "def parses(s):\n    return s\n\n\ndef parse(s):\n    return s\n"}
    with _sim(tmp_path, files) as cat:
        assert cat.say("alice", "add a function that parses dates").startswith(ASKS_FILE)
        assert cat.say("alice", "cancel").startswith("Dropped")
        assert cat.say("bob", "write a function to parse dates").startswith(ASKS_FILE)
        assert not [p for p in cat.model.prompts if "META-CODE" in p[:80]]


def test_in_another_word_order_the_known_function_wins_over_the_new_parameter(tmp_path):
    """"aggiungi un parametro timeout_s a fetch": the new parameter's name comes first and is
    code-shaped, the function the index knows is linked (its file, its callers)."""
    with _sim(tmp_path, REPO) as cat:
        proposal = cat.say("alice", "aggiungi un parametro timeout_s a fetch e passalo da "
                                    "ogni chiamante")
        assert ASKS_FILE not in proposal
        assert "`fetch` (net/http.py:1-2) is used in 3 places in 2 files" in proposal, proposal
        assert cat.errors == []

"""The drafts' context comes from what the user confirmed, not only from the request's words.

The request says "save_note in text_utils.py"; the confirmed meta-code adds "store the note in
the TinyDB table". The scorer here is a fair stand-in for a model: a memory is relevant when it
shares a word with the question it is scored for. So the library's API can only reach the
generation prompt if the drafting retrieval asks with the meta-code's words.
"""

from __future__ import annotations

import re

import pytest

from codemem.app import entry, process
from codemem.app.host import llm_port

from ...fakes import FunctionLLM, answer_scoring, scoring_blocks
from .glue_support import (
    counted_retrievals,
    drafting_reply,
    make_cat,
    say,
    settings_of,
    state_of,
    wait_for_draft,
)

REQUEST = "write a function save_note in text_utils.py that saves a short message"
METACODE = {
    "target_path": "text_utils.py", "symbol": "save_note", "kind": "function",
    "signature": "def save_note(text: str) -> int",
    "behaviour": "Save a message and return its id.",
    "inputs": [{"name": "text", "type": "str", "description": "the message"}],
    "outputs": [{"name": "return", "type": "int", "description": "the id"}],
    "examples": [{"call": "isinstance(save_note('hi'), int)", "expected": True}],
    "constraints": ["store it in the TinyDB table notes"],
    "acceptance_checks": ["the message is stored"], "assumptions": []}
DRAFT = ("```python entity=text_utils.py::save_note\ndef save_note(text: str) -> int:\n"
         "    from tinydb import TinyDB\n"
         "    return TinyDB('notes.json').table('notes').insert({'text': text})\n```\n")
LIBRARY = '''"""A tiny document database."""


class Table:
    """One table of documents."""

    def insert(self, document: dict) -> int:
        """Insert a document and return its id."""
        return 1


class TinyDB:
    """A database kept in one JSON file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def table(self, name: str) -> Table:
        """The table called name."""
        return Table()
'''


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}


def answer(prompt: str) -> str:
    def shares_words(memory: str) -> tuple[float, str]:
        wanted = _words(scoring_blocks(prompt)[0])
        return (0.9, "shares words") if _words(memory) & wanted else (0.1, "unrelated")

    return drafting_reply(prompt, shares_words, METACODE, DRAFT)


@pytest.fixture
def cat(tmp_path, monkeypatch):
    repo = tmp_path / "workspace"
    repo.mkdir()
    (repo / "text_utils.py").write_text("def shout(text):\n    return text.upper()\n")
    library = tmp_path / "vendor" / "tinydb"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text(LIBRARY)
    cat, sent, _ = make_cat(tmp_path, repo)
    settings_of(cat).update(associative_sources=str(tmp_path / "vendor"), extended_loop=False,
                            check_tests=False, check_judge=False)
    monkeypatch.setattr(llm_port, "cat_llm", FunctionLLM(answer, limit=20))
    entry.start_indexing(cat)
    for project in process.GENERATION.registry.projects():
        project.indexer.join(120)
    return cat


def test_the_loop_retrieves_with_the_confirmed_meta_code(cat, monkeypatch):
    retrievals = counted_retrievals(monkeypatch)
    llm = llm_port.cat_llm
    proposal = say(cat, REQUEST)
    assert "save_note" in proposal and "TinyDB" in proposal  # the model's meta-code says it
    metacode_prompt = next(p for p in llm.prompts if "META-CODE" in p[:60])
    assert "TinyDB" not in metacode_prompt  # the request's retrieval could not know the library
    assert say(cat, "go").startswith("Drafting `save_note`")
    wait_for_draft(cat)
    generation = [p for p in llm.prompts if p.startswith("You write Python code for one goal")]
    assert generation and "TinyDB" in generation[0] and "def table(self, name: str)" in \
        generation[0]
    assert len(retrievals) == 2  # the request's, then the confirmed meta-code's
    assert state_of(cat).phase.phase.value == "done"


def test_a_meta_code_pointing_at_what_was_kept_reuses_the_first_scoring(cat, monkeypatch):
    """The first scoring kept every memory (a scorer that finds all of them relevant), so the
    meta-code's best candidates are all among them: the drafts reuse the proposal's scores,
    one scoring call for the whole request. (Pointing at a memory the first scoring dropped,
    as the TinyDB constraint above does, costs the second scoring.)"""
    retrievals = counted_retrievals(monkeypatch)
    llm = llm_port.cat_llm

    def everything_relevant(prompt: str) -> str:
        scored = answer_scoring(prompt, lambda memory: (0.9, "relevant"))
        return scored if scored is not None else answer(prompt)

    monkeypatch.setattr(llm, "_fn", everything_relevant)
    say(cat, REQUEST)
    assert say(cat, "go").startswith("Drafting `save_note`")
    wait_for_draft(cat)
    assert len(retrievals) == 1  # the request's retrieval, reused by the drafts
    assert sum(p.startswith("You rate how useful") for p in llm.prompts) == 1
    generation = next(p for p in llm.prompts if p.startswith("You write Python code"))
    assert "def shout(text)" in generation and "class TinyDB" in generation
    assert state_of(cat).phase.phase.value == "done"

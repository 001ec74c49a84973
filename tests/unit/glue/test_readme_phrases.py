"""Every phrase the README tells a user to type works as written (readme_tour.py), in the
simulated Cat; tests/integration/test_conversation.py types the same in a real Cat."""

from __future__ import annotations

import pathlib

import pytest

from codemem.codegen import detect_command, suggest_command

from ...fakes import LISTWISE_MARK, POINTWISE_MARK
from .cat_sim import CAT_ANSWER, SimCat
from .readme_tour import ASKED_ABOUT, check_coverage, tour, tour_without_a_repository
from .sim_llm import ConversationLLM

SETTINGS = {"extended_loop": False, "check_judge": False, "check_tests": False,
            "max_iterations": 3, "package_index_url": "http://127.0.0.1:9/simple"}

FILES = {
    "auth.py": "def authenticate(user, password):\n    return login(user)\n\n\n"
               "def login(user):\n    return user\n",
    "config.py": "def load_config(path):\n    return read_settings(path)\n\n\n"
                 "def read_settings(path):\n    return {}\n",
    "dates.py": "def parse_date(text):\n    return text\n",
    "billing.py": "class Invoice:\n    def total(self):\n        return 0\n",
    "search.py": "def index(documents):\n    return sorted(documents)\n",
    "text_utils.py": "def shout(text):\n    return text.upper()\n",
    "timefmt.py": "def fmt_ts(ts):\n    return str(ts)\n",
    "multe.py": "def calcola_multa(giorni_di_ritardo):\n    return 0.5 * giorni_di_ritardo\n",
    "report.py": "from timefmt import fmt_ts\n\n\ndef line(ts):\n    return fmt_ts(ts)\n",
}


def make_repository(root: pathlib.Path) -> pathlib.Path:
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


class SimChat:
    """``readme_tour.Driver`` over the simulated Cat."""

    def __init__(self, cat: SimCat, llm: ConversationLLM, user: str = "alice") -> None:
        self.cat, self.llm, self.user = cat, llm, user

    def say(self, text: str) -> str:
        answer = self.cat.say(self.user, text)
        assert self.cat.errors == [], "\n".join(self.cat.errors)
        return answer

    def scoring_calls(self) -> int:
        return sum(LISTWISE_MARK in p or POINTWISE_MARK in p for p in self.llm.prompts)

    def wait_drafts(self) -> None:
        self.cat.wait_drafts()

    def hold(self) -> None:
        self.llm.hold()

    def release(self) -> None:
        self.llm.release()


def test_every_quoted_phrase_of_the_readme_has_an_expectation():
    check_coverage()


@pytest.mark.parametrize("text", ASKED_ABOUT)
def test_the_readme_near_misses_are_asked_about(text):
    """"Did you mean: roll back to draft 3?": the core offers the question the README shows
    (the tour types it and answers "yes")."""
    suggestion = suggest_command(text)
    assert suggestion is not None and suggestion.phrase == "roll back to draft 3"
    assert detect_command(text) is None


def test_every_readme_phrase_works_as_written(tmp_path):
    llm = ConversationLLM(first_draft_wrong=True)
    repo = make_repository(tmp_path / "repo")
    with SimCat(repo, tmp_path / "data", llm, settings=SETTINGS) as cat:
        wrong = tour(SimChat(cat, llm), CAT_ANSWER)
        assert wrong == [], "\n".join(wrong)
        assert "def slugify(text: str) -> str" in (repo / "text_utils.py").read_text()


@pytest.mark.parametrize("cache", ["in_memory"])
def test_the_readme_s_ordinary_words_are_the_cats_without_a_repository(tmp_path, cache):
    llm = ConversationLLM()
    settings = {**SETTINGS, "repository_path": ""}
    with SimCat(tmp_path / "none", tmp_path / "data", llm, settings=settings, cache=cache) as cat:
        assert tour_without_a_repository(lambda text: cat.say("bob", text), CAT_ANSWER) == []

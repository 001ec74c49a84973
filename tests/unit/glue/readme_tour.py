"""Every phrase the README tells a user to type, taken from the README itself, typed in a
conversation where it applies, with what it must get. Shared by the simulated-Cat test
(test_readme_phrases.py) and the real-Cat test (tests/integration/test_conversation.py).

The phrases are the quoted text of the README's "In chat" section and the "In chat:" paragraph
of "Associative sources", plus the bold reply words (**go** ...). Every quoted text is either
typed here or listed in ``NOT_TYPED`` (an answer, a setting's name, a template): a phrase added
to the README without an expectation here fails ``check_coverage``.
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable
from typing import Protocol

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"

#: Quoted text of those sections that is not something to type.
NOT_TYPED = frozenset({
    "Share finished tasks with every user", "a draft is running", "add source ...",
    "remove source ...", "back", "draft 2: slugify passes all checks", "update source ...",
    "refresh source", "pull source",
    # a clone from the network: test_url_sources_glue.py types a URL it serves itself
    "add source https://github.com/psf/requests",
})
#: Messages the README says are asked about ("Did you mean: roll back to draft 3?"), and the
#: answer that runs the command (typed in the tour; the core's offer is checked too,
#: ``test_readme_phrases.test_the_readme_near_misses_are_asked_about``).
ASKED_ABOUT = ("draft 3 was better, roll back please", "can we go back to the third draft?",
               "roll back to draft 3. why did draft 4 fail?")
ASKED_ABOUT_ANSWER = "yes"
#: Commands the README says belong to the Cat when no repository is configured.
ORDINARY_WITHOUT_A_REPOSITORY = ("update the project", "list sources")

STATUS = ("code memory status",)
INDEXING = ("index my repository", "re-index the code", "update the code index",
            "update the project")
QUESTIONS = ("how does authentication work in the code?", "what does parse_date do?",
             "what is the difference between load_config and read_settings?",
             "walk me through what happens when a user logs in", "/ask how are dates parsed?",
             "what do invoices hold?", "where are dates parsed?",
             "dove viene calcolata la multa?")
REQUESTS = ("could you add a method to_json to the Invoice class?",
            "fix parse_date: it crashes on empty strings", "scrivi una funzione…",
            "schreib eine Funktion…", "parse_date should also accept a trailing Z",
            "update the index function in search.py", "/code a helper that reads TOML files")
MAIN_REQUEST = "write a function slugify in text_utils.py that turns a title into a URL slug"
CORRECTION = "it must raise ValueError on empty input"
HISTORY = ("show the draft history", "roll back to the last good draft", "redo",
           "roll back to the start", "roll back to draft 2")
WRAPPED_HISTORY = "hey, show the draft history 🙏"
#: A command with an @mention and an aside, and one with a typo.
WRAPPED_DIFF = "@cat show the diff of draft 2 (against the start)"
MISTYPED_HISTORY = "shwo the draft history"
DIFFS = ("show the diff of draft 2", "what changed since draft 1", "diff draft 1 and 2")
APPLY = ("apply", "apply it", "apply the draft")
ASKED_APPLY = "apply?"
STRUCTURAL = (("rename fmt_ts to format_timestamp everywhere",
               "Rename `fmt_ts` to `format_timestamp` (task"),
              ("move parse_date to utils/dates.py", "Move `parse_date` from dates.py"))
SOURCES = ("add source /srv/other-repo", "add source pip:rich", "list sources",
           "remove source rich", "update source requests")
REPLY_WORDS = ("go", "cancel", "stop", "continue")
#: Answers to the file question, and the file each must give the proposal.
FILE_ANSWERS = (("text_utils.py", "text_utils.py"),
                ("put it in helpers/strings.py", "helpers/strings.py"),
                ("text_utils", "text_utils.py"), ("same file as shout", "text_utils.py"))
UNFILED_REQUEST = "write a function strip_accents that removes the accents from a text"
MOVE_THE_PROPOSAL = "put it in text/words.py"
TYPED = frozenset((*STATUS, *INDEXING, *QUESTIONS, *REQUESTS, MAIN_REQUEST, CORRECTION,
                   *HISTORY, WRAPPED_HISTORY, WRAPPED_DIFF, MISTYPED_HISTORY, *DIFFS, *APPLY,
                   ASKED_APPLY, *SOURCES, *(text for text, _ in STRUCTURAL),
                   *(text for text, _ in FILE_ANSWERS), MOVE_THE_PROPOSAL))


def readme_phrases() -> tuple[set[str], set[str]]:
    """(quoted texts, bold reply words) of the README's chat sections."""
    text = README.read_text(encoding="utf-8")
    chat = text[text.index("## In chat\n"):text.index("\n## ", text.index("## In chat\n") + 5)]
    sources = text[text.index("## Associative sources"):]
    sources = sources[sources.index("In chat:"):]
    sources = sources[:sources.index("\n\n")]
    flat = " ".join(f"{chat}\n{sources}".split())
    return set(re.findall(r'"([^"]+)"', flat)), set(re.findall(r"\*\*([a-z]+)\*\*", flat))


def check_coverage() -> None:
    quoted, bold = readme_phrases()
    asked = {*ASKED_ABOUT, ASKED_ABOUT_ANSWER}
    unknown = quoted - TYPED - NOT_TYPED - asked
    assert not unknown, f"README phrases without an expectation in readme_tour.py: {unknown}"
    stale = (TYPED | NOT_TYPED | asked) - quoted
    assert not stale, f"readme_tour.py types phrases the README no longer has: {stale}"
    assert bold >= set(REPLY_WORDS), bold


class Driver(Protocol):
    """A chat with one user, in a Cat (simulated or real) whose model is a
    ``sim_llm.ConversationLLM`` whose first code generation of a task writes a wrong draft."""

    def say(self, text: str) -> str: ...

    def scoring_calls(self) -> int: ...

    def wait_drafts(self) -> None: ...

    def hold(self) -> None: ...

    def release(self) -> None: ...


def tour(chat: Driver, cat_answer: str) -> list[str]:
    """Type every phrase; return the phrases whose answer was wrong (with the answer)."""
    wrong: list[str] = []

    def expect(text: str, ok: Callable[[str], bool]) -> str:
        answer = chat.say(text)
        if not ok(answer):
            wrong.append(f"{text!r} -> {answer[:300]!r}")
        return answer

    for text in STATUS:
        expect(text, lambda a: a.startswith("**Code Working Memory**"))
    for text in INDEXING:
        expect(text, lambda a: "index" in a.lower())
    for text in QUESTIONS:
        before = chat.scoring_calls()
        expect(text, lambda a, before=before: a == cat_answer
               and chat.scoring_calls() > before)
    for text in REQUESTS:
        expect(text, lambda a: "**go**" in a or "Which file" in a)
        expect("cancel", lambda a: a.startswith(("Cancelled", "Dropped")))
    _file_answers(expect)
    _draft_and_history(chat, expect)
    expect("add source /srv/other-repo", lambda a: "/srv/other-repo" in a)
    expect("add source pip:rich", lambda a: "pip:rich" in a)
    expect("list sources", lambda a: "rich" in a and "| source |" in a)
    expect("remove source rich", lambda a: "rich" in a and a != cat_answer)
    expect("update source requests", lambda a: a.startswith("`requests` is not a source."))
    for text, start in STRUCTURAL:  # done by structure: a draft each, no proposal
        expect(text, lambda a, start=start: a.startswith(start))
        chat.wait_drafts()
    return wrong


def _file_answers(expect: Callable[[str, Callable[[str], bool]], str]) -> None:
    """The file question answered each way the README shows, then the proposal moved to
    another file with a correction."""
    for answer, path in FILE_ANSWERS:
        expect(UNFILED_REQUEST, lambda a: a.startswith("Which file should the code go in?"))
        expect(answer, lambda a, path=path: "**go**" in a and "`strip_accents`" in a
               and f"`{path}`" in a)
        if answer == FILE_ANSWERS[0][0]:
            expect(MOVE_THE_PROPOSAL, lambda a: a.startswith("Revised:")
                   and "`text/words.py`" in a)
        expect("cancel", lambda a: a.startswith("Cancelled"))


def _draft_and_history(chat: Driver, expect: Callable[[str, Callable[[str], bool]], str]) -> None:
    """A request, a correction, go, stop, continue, the history and apply, in the README's
    words. The first draft is wrong and held in its generation until "stop" was said."""
    expect(MAIN_REQUEST, lambda a: "**go**" in a and "slugify" in a)
    expect(CORRECTION, lambda a: a.startswith("Revised:"))
    chat.hold()
    expect("go", lambda a: a.startswith("Drafting `slugify`"))
    expect("stop", lambda a: a.startswith("Stopping the draft loop"))
    chat.release()
    chat.wait_drafts()
    expect("continue", lambda a: a.startswith("Drafting `slugify`"))
    chat.wait_drafts()
    for text in ("show the draft history", WRAPPED_HISTORY, MISTYPED_HISTORY):
        expect(text, lambda a: "draft 1: slugify rejected" in a
               and "draft 2: slugify passes all checks" in a)
    expect("roll back to the last good draft", lambda a: a.startswith("Back at start: slugify"))
    expect("redo", lambda a: a.startswith("Restored draft 2: slugify"))
    expect("roll back to the start", lambda a: a.startswith("Back at start: slugify"))
    expect("roll back to draft 2", lambda a: a.startswith("Back at draft 2: slugify"))
    for text in ("show the diff of draft 2", WRAPPED_DIFF):
        expect(text, lambda a: a.startswith("Changes from start: slugify")
               and "to draft 2: slugify" in a and "```diff\n--- a/" in a)
    expect("what changed since draft 1", lambda a: a.startswith("Changes from draft 1: slugify")
           and "to draft 2: slugify" in a)
    expect("diff draft 1 and 2", lambda a: a.startswith("Changes from draft 1: slugify")
           and "```diff" in a)
    expect("apply", lambda a: a.startswith("Applied draft `"))
    expect("apply it", lambda a: "already applied" in a)
    expect("apply the draft", lambda a: "already applied" in a)
    expect(ASKED_APPLY, lambda a: not a.startswith("Applied") and "already applied" not in a)
    for text in ASKED_ABOUT:  # asked about, and "yes" runs it (this task has two drafts)
        expect(text, lambda a: a.startswith("Did you mean: **roll back to draft 3**?"))
        expect(ASKED_ABOUT_ANSWER, lambda a: a.startswith("I do not know which draft")
               and "has no draft 3" in a)


def tour_without_a_repository(say: Callable[[str], str], cat_answer: str) -> list[str]:
    """The commands the README says are ordinary words when no repository is configured."""
    return [f"{t!r} -> {a[:200]!r}" for t in ORDINARY_WITHOUT_A_REPOSITORY
            if (a := say(t)) != cat_answer]

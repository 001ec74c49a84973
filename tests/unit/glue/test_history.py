""""apply" as the user sees it: only on the exact word, only for a user with a draft, compared
with what the previous apply wrote, and never over the user's own edits."""

from __future__ import annotations

import pytest

from codemem.app import entry
from codemem.app.host import llm_port

from ...fakes import FunctionLLM
from .glue_support import make_cat, other_user, say, settings_of, state_of, wait_for_draft
from .test_drafting_glue import REQUEST, answer


@pytest.fixture
def drafted(tmp_path, monkeypatch):
    """A user whose request produced draft 1 of text/slug.py (repository untouched)."""
    repo = tmp_path / "workspace"
    (repo / "text").mkdir(parents=True)
    original = "def other():\n    return 1\n"
    (repo / "text" / "slug.py").write_text(original)
    cat, sent, _ = make_cat(tmp_path, repo)
    settings_of(cat).update(extended_loop=False)
    monkeypatch.setattr(llm_port, "cat_llm", FunctionLLM(answer, limit=80))
    say(cat, REQUEST)
    say(cat, "go")
    wait_for_draft(cat)
    return cat, repo / "text" / "slug.py", original


def roll_back(cat, which=""):
    return entry.roll_back_draft(cat, which)


def test_apply_twice_says_already_applied(drafted):
    cat, target, original = drafted
    assert say(cat, "please apply the changes you think best") is None  # not the apply word
    assert say(cat, "apply?") is None and target.read_text() == original  # asked, not said
    first = say(cat, "hey cat, apply it please 🙏")
    assert first.startswith("Applied draft `") and "`text/slug.py`" in first
    written = target.read_text()
    assert "def slugify(text: str, sep: str = '-') -> str:" in written
    assert "def other():" in written  # the rest of the file is kept
    again = say(cat, "apply")
    assert "already applied" in again and target.read_text() == written


def test_a_newer_draft_after_an_apply_is_applied_over_it(drafted):
    cat, target, original = drafted
    say(cat, "apply")
    assert roll_back(cat).startswith("Back at start: slugify ")  # the repository's own version
    reply = say(cat, "apply")
    assert reply.startswith("Applied draft `"), reply
    assert target.read_text() == original
    assert entry.redo_draft(cat).startswith("Restored draft 1: slugify ")
    assert say(cat, "apply").startswith("Applied draft `")
    assert "def slugify" in target.read_text()


def test_an_edit_by_the_user_is_refused_with_the_file_named(drafted):
    cat, target, original = drafted
    target.write_text(original + "# my own edit\n")
    refused = say(cat, "apply")
    assert refused.startswith("I did not write anything:") and "text/slug.py was edited" in refused
    assert target.read_text() == original + "# my own edit\n"
    target.write_text(original)
    say(cat, "apply")
    target.write_text(target.read_text() + "# edited after the apply\n")
    roll_back(cat)
    refused = say(cat, "apply")
    assert "text/slug.py was edited" in refused, refused


def test_a_new_task_after_an_apply_starts_from_the_applied_file(drafted):
    cat, target, original = drafted
    say(cat, "apply")
    say(cat, "write a function slugify in text/slug.py that turns a title into a URL slug")
    assert state_of(cat).applied_commit == ""
    say(cat, "go")
    wait_for_draft(cat)
    assert "identical to your files" in say(cat, "apply")  # same code as the applied draft


def test_apply_means_nothing_to_a_user_without_a_draft(drafted):
    cat, *_ = drafted
    stranger, _ = other_user(cat, "bob")
    for text in ("apply", "apply it", "apply the draft"):
        assert say(stranger, text) is None  # the Cat answers as usual


def test_apply_respects_the_never_policy(drafted):
    cat, *_ = drafted
    settings_of(cat)["write_back"] = "never: drafts stay in the history"
    assert say(cat, "apply").startswith("Write-back is off")


def test_the_history_names_each_draft_once_and_roll_back_takes_what_it_shows(drafted):
    cat, *_ = drafted
    listing = say(cat, "show the draft history")
    assert "- draft 1: slugify passes all checks `" in listing and "← current" in listing
    assert "- start: slugify `" in listing
    assert roll_back(cat, "the start").startswith("Back at start: slugify ")
    assert say(cat, "roll back to draft 1").startswith("Back at draft 1: slugify ")
    assert say(cat, "roll back to the last good draft").startswith("Back at start: slugify ")
    assert say(cat, "redo").startswith("Restored draft 1: slugify ")


@pytest.mark.parametrize("which", ["the good old days", "draft 7", "HEAD~1", "../x"])
def test_a_draft_that_does_not_exist_is_answered_with_the_history(drafted, which):
    cat, *_ = drafted
    reply = roll_back(cat, which)
    assert reply.startswith("I do not know which draft") and "Drafts of task" in reply, reply
    assert "unsafe" not in reply


BAD_SLUG = "def slugify(text: str, sep: str = '-') -> str:\n    return text\n"
#: Failing drafts, each different (the loop stops on a repeated one).
BAD_SLUGS = [BAD_SLUG, "def slugify(text: str, sep: str = '-') -> str:\n    return sep\n"]


@pytest.fixture
def set_aside(tmp_path, monkeypatch):
    """A user whose draft 1 failed its checks (set aside by the loop) and draft 2 passed."""
    return _drafts_with_failures(tmp_path, monkeypatch, 1)


def _drafts_with_failures(tmp_path, monkeypatch, failures):
    from ..codegen.helpers_codegen import entity
    repo = tmp_path / "workspace"
    (repo / "text").mkdir(parents=True)
    (repo / "text" / "slug.py").write_text("def other():\n    return 1\n")
    cat, _, _ = make_cat(tmp_path, repo)
    settings_of(cat).update(extended_loop=False, check_judge=False)
    drafts = iter(BAD_SLUGS[:failures])

    def reply(prompt):
        if prompt.startswith("You write Python code for one goal"):
            code = next(drafts, None)
            if code is not None:
                return entity("text/slug.py", "slugify", code)
        return answer(prompt)

    monkeypatch.setattr(llm_port, "cat_llm", FunctionLLM(reply, limit=80))
    say(cat, REQUEST)
    say(cat, "go")
    wait_for_draft(cat)
    return cat, repo / "text" / "slug.py"


def test_roll_back_to_a_set_aside_draft_says_it_failed_and_restores_it(set_aside):
    cat, target = set_aside
    listing = say(cat, "show the draft history")
    assert "Tried and set aside" in listing and "- draft 1: slugify rejected `" in listing, listing
    assert "- draft 2: slugify passes all checks `" in listing
    back = say(cat, "roll back to draft 1")
    assert back.startswith("draft 1: slugify rejected `") and "was set aside: it failed its " \
        "checks (" in back, back
    assert "It is the working draft again: draft 1: slugify rejected" in back
    assert "say **redo** to go back to it" in back
    listing = say(cat, "show the draft history")
    assert "- draft 1: slugify rejected `" in listing.split("Rolled back")[0], listing
    assert "← current" in listing.split("Rolled back")[0]
    assert say(cat, "apply").startswith("Applied draft `")
    assert "return text\n" in target.read_text()  # the set-aside draft's code
    again = say(cat, "roll back to draft 2")  # the README's phrase, back on the line
    assert again.startswith("Back at draft 2: slugify passes all checks"), again
    assert say(cat, "roll back to draft 1").startswith("draft 1: slugify rejected `")


def test_redo_after_restoring_a_set_aside_draft_brings_back_the_draft_left(set_aside):
    cat, _ = set_aside
    left = state_of(cat).commit_id
    assert "was set aside" in say(cat, "roll back to draft 1")
    redone = say(cat, "redo")
    assert redone.startswith("Restored draft 2: slugify passes all checks"), redone
    assert state_of(cat).commit_id == left
    listing = say(cat, "show the draft history")
    assert "- draft 1: slugify rejected `" in listing.split("Drafts of task")[1], listing


def test_roll_back_to_a_set_aside_draft_by_its_commit_id(set_aside):
    cat, _ = set_aside
    listing = say(cat, "show the draft history")
    short = listing.split("- draft 1: slugify rejected `")[1][:10]
    reply = roll_back(cat, short)
    assert "was set aside: it failed its checks" in reply and "working draft again" in reply
    assert state_of(cat).commit_id.startswith(short)  # the draft itself, not a copy


def _more_drafts(cat, count):
    """Drafts 2.. on the task's line after draft 1 (as further iterations would leave them)."""
    from codemem.app.process import GENERATION
    project = GENERATION.registry.projects()[0]
    state = state_of(cat)
    files = project.commits.show(state.commit_id).files
    head = state.commit_id
    for number in range(2, 2 + count):
        changed = {**files, "text/slug.py": files["text/slug.py"] + f"# draft {number}\n"}
        head = project.commits.commit(
            state.task_id, changed, name=f"draft {number}: slugify passes all checks",
            reason="all checks passed", metacode={}, snapshot={}, verdict="passed")
    state.commit_id = head
    return project


def test_every_draft_listed_stays_nameable_after_rolling_back_over_several(drafted):
    cat, *_ = drafted
    _more_drafts(cat, 3)  # drafts 2, 3, 4; draft 4 current
    assert say(cat, "roll back to draft 2").startswith("Back at draft 2: slugify")
    listing = say(cat, "show the draft history")
    rolled = listing.split("Rolled back, restorable with **redo**")[1]
    assert "- draft 4: slugify" in rolled and "- draft 3: slugify" in rolled, listing
    diff = say(cat, "show the diff of draft 3")
    assert diff.startswith("Changes from draft 2: slugify") and "+# draft 3" in diff, diff
    assert say(cat, "roll back to draft 4").startswith("Back at draft 4: slugify")
    assert say(cat, "roll back to draft 3").startswith("Back at draft 3: slugify")
    assert say(cat, "redo").startswith("Restored draft 4: slugify")


def test_a_draft_number_the_history_lacks_is_refused_with_the_reason(set_aside):
    cat, _ = set_aside
    reply = roll_back(cat, "draft 9")
    assert reply.startswith("I do not know which draft 'draft 9' is: task `") and \
        "has no draft 9" in reply and "Drafts of task" in reply, reply


def test_the_readme_roll_back_to_draft_2_when_draft_2_was_set_aside(tmp_path, monkeypatch):
    cat, _ = _drafts_with_failures(tmp_path, monkeypatch, 2)
    assert "- draft 3: slugify passes all checks `" in say(cat, "show the draft history")
    back = say(cat, "roll back to draft 2")
    assert back.startswith("draft 2: slugify rejected `") and "failed its checks" in back, back
    assert "← current" in say(cat, "show the draft history").split("draft 2: slugify rejected")[1]

"""The diff between drafts in chat: "show the diff of draft 2", "what changed since draft 1",
"diff draft 1 and 3", per file, fenced as diff, size-capped with what was left out named."""

from __future__ import annotations

import difflib

import pytest

from codemem.app.drafting import draft_diff
from codemem.app.drafting.draft_diff import UnknownDraft, diff_drafts, find_draft, task_drafts

from .glue_support import other_user, say, state_of
from .test_history import drafted  # noqa: F401  (fixture: draft 1 of text/slug.py)


def _commits(cat):
    from codemem.app import entry
    return entry.session_turn(cat)[1].workspace.project().commits


def _add_draft(cat, number, files, verdict="passed"):
    """A further draft on the user's task, committed as the loop commits one."""
    task = state_of(cat).task_id
    return _commits(cat).commit(task, files, name=f"draft {number}: slugify {verdict}",
                                reason="test", metacode={}, snapshot={}, verdict=verdict)


def _expected(old: str, new: str, path: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))


def test_the_diff_of_a_draft_is_against_its_parent(drafted):  # noqa: F811
    cat, _, original = drafted
    answer = say(cat, "show the diff of draft 1")
    assert answer.startswith("Changes from start: slugify"), answer
    assert "to draft 1: slugify" in answer and "**`text/slug.py`** (modified)" in answer
    assert "```diff\n--- a/text/slug.py\n+++ b/text/slug.py" in answer
    assert "+def slugify(" in answer and "-def other" not in answer  # the rest of the file kept
    assert say(cat, "show the diff") == answer  # the current draft is draft 1


def test_since_and_between_two_drafts_match_difflib_of_the_committed_files(drafted):  # noqa: F811
    cat, _, original = drafted
    commits = _commits(cat)
    one = commits.show(state_of(cat).commit_id).files["text/slug.py"]
    two = one + "\n\ndef unslug(slug: str) -> str:\n    return slug.replace('-', ' ')\n"
    three = two.replace("replace('-', ' ')", "replace('-', ' ').title()")
    _add_draft(cat, 2, {"text/slug.py": two})
    _add_draft(cat, 3, {"text/slug.py": three, "text/extra.py": "X = 1\n"})
    since = say(cat, "what changed since draft 1")
    assert since.startswith("Changes from draft 1: slugify") and "to draft 3" in since
    assert _expected(one, three, "text/slug.py").rstrip() in since
    assert "**`text/extra.py`** (added)" in since and "+X = 1" in since
    between = say(cat, "diff draft 2 and 3")
    assert _expected(two, three, "text/slug.py").rstrip() in between
    task = state_of(cat).task_id
    whole = diff_drafts(commits, task, "3", "1")
    assert whole.unified == "".join(d.diff for d in whole.files)
    assert [d.path for d in whole.files] == ["text/extra.py", "text/slug.py"]
    assert say(cat, "what changed since the start").startswith("Changes from start: slugify")


def test_a_draft_the_task_does_not_have_is_named_with_what_to_say(drafted):  # noqa: F811
    cat, _, _ = drafted
    answer = say(cat, "diff draft 1 and 7")
    assert "task `" in answer and "has no draft 7" in answer and "show the draft history" in answer
    task = state_of(cat).task_id
    with pytest.raises(UnknownDraft):
        find_draft(_commits(cat), task, "deadbeefcafe")
    with pytest.raises(UnknownDraft):
        find_draft(_commits(cat), task, "the third one")


def test_another_task_s_commit_is_unknown_to_this_task(drafted):  # noqa: F811
    cat, _, _ = drafted
    commits = _commits(cat)
    foreign = commits.start_task("someone-else", {"a.py": "A = 1\n"})
    task = state_of(cat).task_id
    with pytest.raises(UnknownDraft):
        find_draft(commits, task, foreign)
    with pytest.raises(UnknownDraft):
        find_draft(commits, task, foreign[:10])


def test_rolled_back_and_set_aside_drafts_are_listed_and_diffable(drafted):  # noqa: F811
    cat, _, _ = drafted
    commits = _commits(cat)
    task = state_of(cat).task_id
    first = state_of(cat).commit_id
    two = _add_draft(cat, 2, {"text/slug.py": "def slugify(t):\n    return t\n"})
    commits.rollback(task, to=first)
    where = {d.info.id: d.where for d in task_drafts(commits, task)}
    assert where[two] == "rolled back" and where[first] == "line"
    assert find_draft(commits, task, "2") == two
    assert "-def slugify(t):" in say(cat, "diff draft 2 and 1")


def test_a_big_diff_is_capped_and_names_what_was_left_out(drafted, monkeypatch):  # noqa: F811
    cat, _, _ = drafted
    big = "".join(f"def f{i}():\n    return {i}\n" for i in range(200))
    _add_draft(cat, 2, {"text/slug.py": "x = 1\n", "text/a_big.py": big,
                        "text/z_more.py": big})
    monkeypatch.setattr(draft_diff, "CHAT_DIFF_LINES", 50)
    answer = say(cat, "show the diff of draft 2")
    assert "more lines of `text/a_big.py` left out" in answer
    assert "Left out (over the size limit of a chat answer): `text/slug.py` (modified" in answer
    assert "`text/z_more.py` (added" in answer
    shown = [line for line in answer.splitlines() if line[:1] in "+- @"]
    assert len(shown) <= 50 + 2


def test_diff_words_are_an_ordinary_message_for_a_user_without_a_task(drafted):  # noqa: F811
    cat, _, _ = drafted
    bob, _ = other_user(cat, "bob")
    assert say(bob, "show the diff of draft 1") is None  # the Cat answers as usual


class _ChosenIds:
    """The commit index's read side with ids chosen by the test: a hash prefix that is all
    digits (about 1 in 100 ten-character prefixes) must still name its commit."""

    def __init__(self, ids_and_names):
        from codemem.memory.commits.info import CommitInfo
        self._infos = [CommitInfo(id=i, task_id="t", name=n, reason="", verdict="passed",
                                  iteration=0, time=0, parent=None, snapshot_digest="")
                       for i, n in ids_and_names]

    def log(self, task):
        return list(self._infos)

    def undo_stack(self, task):
        return []

    def attic(self, task):
        return []

    def show(self, commit):
        return next(i for i in self._infos if i.id.startswith(commit))


def test_an_all_digit_commit_prefix_names_its_commit_and_a_small_number_its_draft():
    head, start = "0417042546" + "ab" * 15, "5" * 40
    commits = _ChosenIds([(head, "draft 1: x passed"), (start, "start: x")])
    assert find_draft(commits, "t", head[:10]) == head
    assert find_draft(commits, "t", start[:7]) == start
    assert find_draft(commits, "t", "1") == head and find_draft(commits, "t", "0") == start
    with pytest.raises(UnknownDraft, match="has no draft 7"):
        find_draft(commits, "t", "7")
    from types import SimpleNamespace

    from codemem.app.drafting.history import _rollback_target
    project = SimpleNamespace(commits=commits)
    assert _rollback_target(project, "t", head[:10]) == head  # the full id of the draft
    assert _rollback_target(project, "t", "draft 1") == head
    assert _rollback_target(project, "t", "7") is None

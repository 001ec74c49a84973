"""One verdict vocabulary: new commits carry a ``Verdict``; old free-form labels still parse.

A label outside the vocabulary (``pass`` for ``passed``) would be stored and then never count as
good: it is refused. Commits already in users' repositories keep whatever label they have, read
back as text, and only the vocabulary's good verdicts are rollback targets.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from codemem.memory.commits.errors import (
    CommitIndexError,
    InvalidDraft,
    UnknownVerdict,
    UnsafeInput,
)
from codemem.memory.commits.index import CommitIndex
from codemem.memory.commits.message import (
    GOOD_VERDICTS,
    Trailers,
    Verdict,
    check_verdict,
    format_message,
    is_good,
    parse_message,
)
from codemem.memory.commits.objects import build_commit, build_tree
from codemem.memory.errors import CodeMemoryError

from .conftest import Clock, fsck

#: A message as older versions wrote it, with a free-form verdict (byte for byte).
OLD_MESSAGE = (
    "draft 2: parse rejected\n\nSEARCH text not found in p.py\n\n"
    "Task: parse\nIteration: 2\nVerdict: failed:tests\nSnapshot-Digest: sha256:{digest}\n"
)


def test_the_stored_strings_are_unchanged() -> None:
    assert [v.value for v in Verdict] == ["passed", "failed", "imported", "final", "committed"]
    assert {"passed", "committed", "imported", "final"} == GOOD_VERDICTS
    assert all(isinstance(v, Verdict) for v in GOOD_VERDICTS)
    assert json.dumps({"verdict": Verdict.PASSED}) == '{"verdict": "passed"}'


def test_check_verdict_maps_members_and_their_values_in_any_case() -> None:
    assert check_verdict(Verdict.FINAL) is Verdict.FINAL
    assert check_verdict("passed") is Verdict.PASSED
    assert check_verdict("Imported") is Verdict.IMPORTED


@pytest.mark.parametrize("label", ["pass", "ok", "failed:tests", "good", "passed!"])
def test_a_label_outside_the_vocabulary_is_refused(label: str) -> None:
    with pytest.raises((UnknownVerdict, UnsafeInput)) as caught:
        check_verdict(label)
    assert isinstance(caught.value, CodeMemoryError)


def test_unknown_verdict_is_an_invalid_draft_of_the_memory_hierarchy() -> None:
    with pytest.raises(UnknownVerdict) as caught:
        check_verdict("pass")
    err = caught.value
    assert isinstance(err, InvalidDraft) and isinstance(err, CommitIndexError)
    assert isinstance(err, ValueError)
    assert "'pass'" in str(err) and "passed" in str(err)


def test_commit_with_an_unknown_verdict_writes_nothing(tmp_path: Path) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", clock=Clock())
    head = ix.start_task("t", {"a.py": "x = 1\n"})
    with pytest.raises(UnknownVerdict):
        ix.commit("t", {"a.py": "x = 2\n"}, name="n", reason="r", metacode={}, snapshot={},
                  verdict="pass")
    assert ix.head("t") == head and len(ix.log("t")) == 1
    ix.close()


def test_commit_stores_the_value_byte_for_byte(tmp_path: Path) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", clock=Clock())
    ix.start_task("t", {})
    by_member = ix.commit("t", {}, name="n", reason="", metacode={}, snapshot={},
                          verdict=Verdict.FINAL)
    by_text = ix.commit("t", {}, name="m", reason="", metacode={}, snapshot={},
                        verdict="PASSED")
    assert [e.verdict for e in ix.log("t")] == ["passed", "final", "imported"]
    assert ix.show(by_member).good and ix.show(by_text).good
    message = format_message("n", "", Trailers("t", 1, Verdict.FINAL.value, "sha256:00"))
    assert "\nVerdict: final\n" in message
    fsck(ix.root)
    ix.close()


def test_is_good_reads_old_labels_as_text_and_never_good() -> None:
    assert is_good("passed") and is_good(" Final ") and is_good("committed")
    assert not is_good("failed")
    assert not is_good("pass")  # a typo of a good verdict is not good
    assert not is_good("failed:tests") and not is_good("")


def test_a_golden_old_message_with_a_free_form_verdict_still_parses() -> None:
    message = OLD_MESSAGE.format(digest="00")
    name, reason, trailers = parse_message("c0ffee", message)
    assert (name, reason) == ("draft 2: parse rejected", "SEARCH text not found in p.py")
    assert trailers == Trailers("parse", 2, "failed:tests", "sha256:00")
    assert format_message(name, reason, trailers) == message  # the same bytes back


def test_an_old_commit_in_a_repository_is_read_and_skipped_by_rollback(tmp_path: Path) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich", clock=Clock())
    base = ix.start_task("parse", {"p.py": "v0\n"})
    snap = b"{}\n"
    tree, objects = build_tree({"metacode.json": b"{}\n", "working_memory.json": snap,
                                "p.py": b"v1\n"})
    digest = hashlib.sha256(snap).hexdigest()
    old = build_commit(tree, (base,), OLD_MESSAGE.format(digest=digest), 1_790_000_100)
    ix._backend.write_objects([*objects, old])
    assert ix._backend.cas_ref("refs/heads/tasks/parse", base, old.sha)
    info = ix.log("parse")[0]
    assert (info.id, info.verdict, info.good) == (old.sha, "failed:tests", False)
    assert ix.show(old.sha).files == {"p.py": "v1\n"}
    assert [e.iteration for e in ix.log("parse", verdict="good")] == [0]
    assert ix.rollback("parse") == base  # the old label is never a rollback target
    ix.close()

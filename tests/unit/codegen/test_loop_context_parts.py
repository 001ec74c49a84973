"""The loop's context loads (loop_context) and the meta-code reply models (metacode_reply)."""

from __future__ import annotations

from pathlib import Path

from codemem.codegen.loop.context import _history, _safe
from codemem.codegen.metacode.reply import IOItem, _example_from_text
from codemem.memory.commits.index import CommitIndex


def test_history_lists_what_was_tried_but_not_the_baseline(tmp_path: Path) -> None:
    ix = CommitIndex(tmp_path / "h.git", backend="dulwich")
    ix.start_task("t", {"a.py": "x\n"})
    ix.commit("t", {"a.py": "y\n"}, name="draft 1: f rejected", reason="tests failed",
              metacode={}, snapshot={}, verdict="failed")
    ix.commit("u", {"b.py": "z\n"}, name="draft 1: g passes", reason="ok", metacode={},
              snapshot={}, verdict="passed")
    lines = _history(ix, "t", "g passes", limit=4)
    assert lines[0] == "- draft 1: f rejected [failed]: tests failed"
    assert not any("[imported]" in line for line in lines)
    assert any(line.startswith("- (other task) draft 1: g passes [passed]") for line in lines)
    ix.close()


def test_a_failing_load_is_a_warning_not_a_crash() -> None:
    def broken(*_: object) -> list[str]:
        raise RuntimeError("index gone")

    assert _safe("repository context", broken, "q") == (
        None, "repository context unavailable: RuntimeError: index gone")
    assert _safe("x", None) == (None, "")
    assert _safe("x", lambda a: [a], 1) == ([1], "")


def test_meta_code_items_accept_synonyms_and_example_shorthands() -> None:
    item = IOItem.model_validate({"param": "x", "annotation": "int"})
    assert (item.name, item.type) == ("x", "int")
    assert _example_from_text("f(1) == 2") == {"call": "f(1)", "expected": 2}
    assert _example_from_text("f(0) raises ValueError") == {"call": "f(0)", "raises": "ValueError"}
    assert _example_from_text("f(x)") == {"call": "f(x)"}

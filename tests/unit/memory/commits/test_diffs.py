"""Unified diffs and one-line change summaries between two file maps."""

from __future__ import annotations

from codemem.memory.commits.diffs import summarize, unified_diff


def test_unified_diff_is_git_style_for_changed_added_and_removed_files() -> None:
    old = {"m.py": "a\nb\n", "gone.py": "g\n", "same.py": "s\n"}
    new = {"m.py": "a\nc\n", "new.py": "n", "same.py": "s\n"}
    text = unified_diff(old, new)
    assert text.startswith("diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n")
    assert "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n" in text
    assert "-b\n+c\n" in text
    assert "--- /dev/null\n+++ b/new.py\n" in text
    assert "+n\n\\ No newline at end of file\n" in text
    assert "same.py" not in text
    assert unified_diff(old, old) == ""


def test_summary_counts_lines_per_file() -> None:
    old = {"m.py": "a\nb\nc\n", "gone.py": "1\n2\n"}
    new = {"m.py": "a\nB\nc\nd\n", "new.py": "x\n"}
    assert summarize(old, new) == "gone.py removed (-2); m.py +2 -1; new.py added (+1)"
    assert summarize(new, new) == "no file changes"

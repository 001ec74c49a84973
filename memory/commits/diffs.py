"""Unified diffs between two drafts, and the one-line summary that goes into episodes.

Diffs are computed in Python from the stored file contents, never by ``git diff``: no external
diff drivers or pagers can be triggered, and both backends give identical output.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping


def unified_diff(old: Mapping[str, str], new: Mapping[str, str], *, context: int = 3) -> str:
    """Git-style unified diff (``a/``/``b/`` prefixes, ``/dev/null`` for added/removed files)."""
    chunks: list[str] = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        chunks.append(f"diff --git a/{path} b/{path}\n")
        lines = difflib.unified_diff(
            (before or "").splitlines(keepends=True),
            (after or "").splitlines(keepends=True),
            fromfile="/dev/null" if before is None else f"a/{path}",
            tofile="/dev/null" if after is None else f"b/{path}",
            n=context,
        )
        for line in lines:
            chunks.append(
                line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            )
    return "".join(chunks)


def summarize(old: Mapping[str, str], new: Mapping[str, str]) -> str:
    """``"foo.py +3 -1; bar.py added (+12)"``; ``"no file changes"`` when identical."""
    parts = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        matcher = difflib.SequenceMatcher(
            None, (before or "").splitlines(), (after or "").splitlines(), autojunk=False
        )
        plus = minus = 0
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            minus += (i2 - i1) if tag in ("replace", "delete") else 0
            plus += (j2 - j1) if tag in ("replace", "insert") else 0
        if before is None:
            parts.append(f"{path} added (+{plus})")
        elif after is None:
            parts.append(f"{path} removed (-{minus})")
        else:
            parts.append(f"{path} +{plus} -{minus}")
    return "; ".join(parts) if parts else "no file changes"


def json_text(value: object) -> str:
    """A JSON value as stable, diffable text (sorted keys, indented, one trailing newline)."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"

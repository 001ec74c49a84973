"""SEARCH/REPLACE application (used by ``api``): exact, then whitespace-insensitive, then fuzzy.

Each layer accepts only a UNIQUE match: applying an edit at the wrong one of two similar places
is worse than asking the model again, so ambiguity is a rejection that names the candidates.
"""

from __future__ import annotations

import difflib

from ..errors import EditRejected

FUZZY_RATIO = 0.9


def search_replace(text: str, search: str, replace: str, *, path: str = "<draft>") -> str:
    """``text`` with the one match of ``search`` replaced by ``replace``."""
    if not search.strip():
        if not text.strip():
            return replace
        raise EditRejected(f"empty SEARCH part for existing file {path}: quote the lines to change")
    count = text.count(search)
    if count == 1:
        return text.replace(search, replace, 1)
    if count > 1:
        lines = _line_numbers(text, search)
        raise EditRejected(f"SEARCH text matches {count} places in {path} (lines {lines}); "
                           "include more surrounding lines so it matches exactly one")
    return _apply_loose(text.splitlines(keepends=True), search, replace, path)


def _apply_loose(lines: list[str], search: str, replace: str, path: str) -> str:
    """The whitespace-insensitive, then fuzzy, layers (the exact one found nothing)."""
    want = search.splitlines()
    hits = _loose_hits(lines, want)
    if len(hits) > 1:
        raise EditRejected(f"SEARCH text matches {len(hits)} places in {path} when whitespace is "
                           f"ignored (lines {[h + 1 for h in hits]}); make it unique")
    if hits:
        return _splice(lines, hits[0], len(want), search, replace)
    start, ratio, rivals = _fuzzy(lines, want)
    if start is None:
        raise EditRejected(f"SEARCH text not found in {path}\nQuote the current lines exactly.")
    if ratio >= FUZZY_RATIO and not rivals:
        return _splice(lines, start, len(want), search, replace)
    if ratio >= FUZZY_RATIO:
        raise EditRejected(f"SEARCH text for {path} is close to several places (lines "
                           f"{[start + 1, *[r + 1 for r in rivals]]}); quote the lines exactly")
    closest = "".join(lines[start:start + len(want)])
    raise EditRejected(f"SEARCH text not found in {path}" + (
        f"; the closest lines ({start + 1}-{start + len(want)}, similarity {ratio:.2f}) are:\n"
        f"{closest}" if closest else "") + "\nQuote the current lines exactly.")


def _line_numbers(text: str, search: str) -> list[int]:
    out, pos = [], text.find(search)
    while pos >= 0:
        out.append(text.count("\n", 0, pos) + 1)
        pos = text.find(search, pos + 1)
    return out


def _norm(line: str) -> str:
    return " ".join(line.split())


def _loose_hits(lines: list[str], want: list[str]) -> list[int]:
    target = [_norm(x) for x in want]
    n = len(target)
    normed = [_norm(x) for x in lines]
    return [i for i in range(len(lines) - n + 1) if normed[i:i + n] == target]


def _fuzzy(lines: list[str], want: list[str]) -> tuple[int | None, float, list[int]]:
    """Best window start, its ratio, and other windows >= threshold not overlapping it."""
    n = len(want)
    target = "\n".join(x.rstrip() for x in want)
    scores: list[tuple[float, int]] = []
    for i in range(max(0, len(lines) - n + 1)):
        window = "\n".join(x.rstrip() for x in lines[i:i + n])
        matcher = difflib.SequenceMatcher(None, window, target, autojunk=False)
        if matcher.real_quick_ratio() < FUZZY_RATIO - 0.3:
            continue
        scores.append((matcher.ratio(), i))
    if not scores:
        return None, 0.0, []
    ratio, best = max(scores)
    rivals = [i for r, i in scores if r >= FUZZY_RATIO and abs(i - best) >= n]
    return best, ratio, rivals


def _splice(lines: list[str], start: int, n: int, search: str, replace: str) -> str:
    old = lines[start:start + n]
    new = _reindent(replace, _indent_of(search), _indent_of("".join(old)))
    if old and old[-1].endswith("\n") and new and not new.endswith("\n"):
        new += "\n"
    return "".join(lines[:start]) + new + "".join(lines[start + n:])


def _indent_of(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return ""


def _reindent(text: str, have: str, want: str) -> str:
    if have == want:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        if line.strip() and line.startswith(have):
            line = want + line[len(have):]
        out.append(line)
    return "".join(out)

"""A ``.gitignore`` matcher (no external library is available in the Cat image).

Implements what real repositories rely on: comments and escapes, negation (``!``),
directory-only patterns (trailing ``/``), anchored patterns (a ``/`` anywhere but at the
end), ``*``/``?``/``[...]`` that never cross ``/``, ``**`` in leading, middle and trailing
position, and nested ``.gitignore`` files whose rules apply below their directory and win
over their parents'. Like git, the caller prunes an ignored directory, so nothing inside it
can be re-included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class IgnoreRule:
    """One compiled pattern line, relative to the directory holding its ``.gitignore``."""

    regex: re.Pattern[str]
    negated: bool
    dir_only: bool
    pattern: str


def _char_class(pat: str, i: int) -> tuple[str, int] | None:
    """Translate ``[...]`` starting at ``pat[i] == '['``; None if unterminated."""
    j = i + 1
    if j < len(pat) and pat[j] in "!^":
        j += 1
    if j < len(pat) and pat[j] == "]":
        j += 1
    while j < len(pat) and pat[j] != "]":
        j += 1
    if j >= len(pat):
        return None
    body = pat[i + 1 : j]
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = body.replace("\\", "\\\\")
    return ("[^/" if negate else "[") + body + "]", j + 1


def _translate(pat: str) -> str:
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                after_slash = i == 0 or pat[i - 1] == "/"
                if after_slash and pat.startswith("/", i + 2):
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                if after_slash and i + 2 == n:
                    out.append(".*")
                    i += 2
                    continue
                i += 1  # a ``**`` elsewhere acts like ``*``
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            translated = _char_class(pat, i)
            if translated is None:
                out.append(re.escape(c))
            else:
                out.append(translated[0])
                i = translated[1]
                continue
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_line(line: str) -> IgnoreRule | None:
    """Compile one ``.gitignore`` line; None for blanks and comments."""
    line = line.rstrip("\n").rstrip("\r")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    body = line.rstrip("/")
    if not body:
        return None
    anchored = "/" in body
    body = body.lstrip("/")
    regex = _translate(body)
    if not anchored:
        regex = "(?:.*/)?" + regex
    try:
        compiled = re.compile(regex + r"\Z", re.S)
    except re.error:
        return None
    return IgnoreRule(compiled, negated, dir_only, line)


def parse_gitignore(text: str) -> tuple[IgnoreRule, ...]:
    """All rules of one ``.gitignore`` file, in order."""
    return tuple(rule for rule in map(compile_line, text.splitlines()) if rule is not None)


class IgnoreStack:
    """Rules per directory; ``is_ignored`` applies them root first, the deepest file last."""

    def __init__(self) -> None:
        self._by_dir: dict[str, tuple[IgnoreRule, ...]] = {}

    def add(self, base: str, rules: tuple[IgnoreRule, ...]) -> None:
        """Register the rules of ``<base>/.gitignore`` (``base`` is ``""`` for the root)."""
        if rules:
            self._by_dir[base] = self._by_dir.get(base, ()) + rules

    def is_ignored(self, path: str, is_dir: bool) -> bool:
        """Whether repository-relative ``path`` is ignored (last matching rule wins)."""
        parts = path.split("/")
        ignored = False
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            rules = self._by_dir.get(base)
            if not rules:
                continue
            relative = "/".join(parts[depth:])
            for rule in rules:
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(relative):
                    ignored = not rule.negated
        return ignored

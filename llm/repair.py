"""JSON as models write it, decoded: strict first, then repaired by ``json-repair``.

The repair library fixes the common slips (trailing commas, comments, unquoted keys and words,
Python literals, missing commas). What it must not decide alone:

- single- and triple-quoted strings are rewritten by our scanner first (the library reads
  ``'it's'`` as ``it's'``);
- a key given twice with different values is refused (the library keeps the last one);
- a truncated answer is cut back to its last complete value, and what the cut lost is reported
  as paths, so the reader can accept a lost ``reason`` but never a lost digit of a score or a
  lost review comment.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import ReplyRefused
from .jsonish import Scan, as_json_string, scan

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Decoded:
    """A decoded JSON value, how much help it needed, and what truncation took away."""

    value: Any
    repaired: bool
    truncated: bool
    #: paths present (or different) in the library's completion of the cut-off text but not in
    #: ``value``, which holds complete values only
    lost: tuple[Path, ...] = ()


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def decode(text: str, found: Scan | None = None) -> Decoded:
    """Decode one JSON object or array (``text`` starts with ``{`` or ``[``)."""
    found = found if found is not None else scan(text, 0)
    if found.duplicates:
        key, first, second = found.duplicates[0]
        raise ReplyRefused(f"the key {key!r} is given twice with different values "
                           f"({first[:60]} and {second[:60]}); give it once")
    if found.end is not None:
        value, repaired = _load(_normalised(text, found, found.end))
        return Decoded(value, repaired or bool(found.odd_strings), False)
    cut = _normalised(text, found, max(found.cuts, default=found.start))
    value, _ = _load(cut) if cut.strip() else (None, True)
    if value in (None, {}, []):
        raise ReplyRefused("the JSON answer is cut off before its first complete value "
                           "(the reply ends in the middle of it)")
    try:
        full, _ = _load(_normalised(text, found, found.start + len(text)))
    except ReplyRefused:
        full = None
    return Decoded(value, True, True, tuple(lost_paths(full, value)) if full is not None
                   else (("(rest of the answer)",),))


def _normalised(text: str, found: Scan, stop: int) -> str:
    """``text`` up to offset ``stop`` (scan offsets), odd strings rewritten as JSON strings."""
    out, pos = [], found.start
    for start, end in found.odd_strings:
        if end > stop:
            break
        out += [text[pos - found.start:start - found.start],
                as_json_string(text[start - found.start:end - found.start])]
        pos = end
    out.append(text[pos - found.start:stop - found.start])
    return "".join(out)


def _load(body: str) -> tuple[Any, bool]:
    try:
        return json.loads(body, parse_constant=_no_constants), False
    except (ValueError, RecursionError):
        pass
    from json_repair import repair_json  # lazy: keeps importing the plugin cheap

    try:
        value = repair_json(body, return_objects=True)
    except (ValueError, RecursionError, IndexError, TypeError) as err:
        raise ReplyRefused(f"the answer is not valid JSON and could not be repaired ({err})"
                           ) from None
    if not isinstance(value, dict | list) or (value in ({}, []) and body.strip()[1:-1].strip()):
        raise ReplyRefused("the answer is not valid JSON and could not be repaired")
    return value, True


def lost_paths(full: Any, kept: Any, path: Path = ()) -> list[Path]:
    """Where ``kept`` lacks or differs from ``full`` (dict keys, list tails, scalars)."""
    if isinstance(full, dict) and isinstance(kept, dict):
        out: list[Path] = []
        for key, value in full.items():
            out += (lost_paths(value, kept[key], (*path, key)) if key in kept
                    else [(*path, key)])
        return out
    if isinstance(full, list) and isinstance(kept, list):
        out = [(*path, i) for i in range(len(kept), len(full))]
        for i, (a, b) in enumerate(zip(full, kept, strict=False)):
            out += lost_paths(a, b, (*path, i))
        return out
    return [] if full == kept else [path]

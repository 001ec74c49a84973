"""Safe coercions for reply models: key spellings, scores, pass/fail words, one-item lists.

Each function either returns the one value a reply can only mean, or raises ``ValueError`` with
a message precise enough to send back to the model. What two readers could read differently (a
score of 5 with no scale, a verdict that is neither pass nor fail, two spellings of one key with
different values) is refused, never guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def squash(key: str) -> str:
    """``docString``, ``Doc_String``, ``doc-string`` and ``DOCSTRING`` all give ``docstring``."""
    return re.sub(r"[^a-z0-9]", "", _CAMEL.sub("_", key.strip()).lower())


def normalise_keys(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """Rename keys to field names; ``names`` maps squashed spellings to field names.

    Unknown keys are kept as given. Two spellings of one field with different values are
    ambiguous and raise ``ValueError``.
    """
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    for key, value in data.items():
        field = names.get(squash(str(key)), str(key))
        if field in out and not _same(out[field], value):
            raise ValueError(f"{given[field]!r} and {key!r} give two different values for "
                             f"{field!r} ({_short(out[field])} and {_short(value)})")
        out[field], given[field] = value, str(key)
    return out


def _same(a: Any, b: Any) -> bool:
    """Two spellings of one answer: equal, equal words, or the same pass/fail."""
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str) and a.strip().lower() == b.strip().lower():
        return True
    try:
        return as_flag(a) == as_flag(b)
    except ValueError:
        return False


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


PASS_WORDS = frozenset({"pass", "passed", "passes", "true", "yes", "y", "ok", "met", "satisfied",
                        "success", "succeeded", "correct", "✓", "✔", "✅", "done"})
FAIL_WORDS = frozenset({"fail", "failed", "fails", "false", "no", "n", "not met", "unmet",
                        "not satisfied", "unsatisfied", "failure", "incorrect", "✗", "✘", "❌"})


def as_flag(value: Any) -> bool:
    """``true``, ``"PASS"``, ``"yes"``... -> True; ``false``, ``"FAIL"``, ``"no"`` -> False."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = " ".join(value.strip().strip(".!").lower().replace("_", " ").split())
        if word in PASS_WORDS:
            return True
        if word in FAIL_WORDS:
            return False
    raise ValueError(f"{_short(value)} is neither pass (true) nor fail (false)")


_FRACTION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/|out of)\s*(\d+(?:\.\d+)?)\s*$", re.I)
_PERCENT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*%\s*$")
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?|-?\.\d+)\s*$")
_SCALE_HINT = re.compile(
    r"(?:out of|/)\s*(10|100)\b|\b(?:0|1)\s*(?:-|–|to)\s*(10|100)\b|scale of\s*(10|100)\b",
    re.I)


def scale_hint(text: str) -> float | None:
    """A 0-10 or 0-100 scale the reply itself states ("8/10", "on a 0-10 scale"), if one."""
    scales = {float(next(g for g in m.groups() if g)) for m in _SCALE_HINT.finditer(text)}
    return scales.pop() if len(scales) == 1 else None


def as_unit_score(value: Any, scale: float | None = None, *, explicit: bool = False,
                  others_on_scale: bool = False) -> float:
    """A relevance score in [0, 1]: ``0.8``, ``"0.8"``, ``"8/10"``, ``"80%"``, or ``8`` on a
    stated 0-10 scale. A number above 1 with no stated scale is ambiguous and refused.

    ``scale`` is ``explicit`` when the answer gives it as a value (every score is on it), else
    a hint from the reply's words: then a score of exactly ``1`` could mean 1.0 or 1 out of 10,
    and is refused. ``others_on_scale``: other scores of the same answer are above 1 on the
    hinted scale, so whole numbers are on it too and a fraction up to 1 is ambiguous.
    """
    if isinstance(value, bool) or value is None:
        raise ValueError(f"score {_short(value)} is not a number from 0.0 to 1.0")
    if isinstance(value, str):
        value, scale = _parse_score_text(value, scale)
        if scale is None:
            explicit = others_on_scale = False
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"score {_short(value)} is not a number from 0.0 to 1.0")
    if value < 0:
        raise ValueError(f"score {value} is negative; give a number from 0.0 to 1.0")
    whole = isinstance(value, int)
    if (explicit and scale) or value > 1.0 or (others_on_scale and whole and scale):
        return _on_scale(value, scale)
    if value > 0 and scale is not None and (others_on_scale or whole and value == 1):
        raise ValueError(f"score {value} is ambiguous: the answer also uses a 0-{scale:g} "
                         "scale; give every score as a number from 0.0 to 1.0")
    return float(value)


def _on_scale(value: float, scale: float | None) -> float:
    if scale is None:
        raise ValueError(f"score {value} is outside 0.0-1.0 and the answer does not say what "
                         "scale it is on; give a number from 0.0 to 1.0")
    if value > scale:
        raise ValueError(f"score {value} is above its own scale of {scale:g}")
    return float(value) / scale


def _parse_score_text(text: str, scale: float | None) -> tuple[float | int, float | None]:
    fraction = _FRACTION.match(text)
    if fraction:
        top, bottom = float(fraction.group(1)), float(fraction.group(2))
        if bottom <= 0:
            raise ValueError(f"score {text!r} has no usable scale")
        if top > bottom:
            raise ValueError(f"score {text!r} is above its own scale")
        return top / bottom, None
    percent = _PERCENT.match(text)
    if percent:
        return float(percent.group(1)) / 100.0, None
    number = _NUMBER.match(text)
    if number:
        digits = number.group(1)
        return (float(digits) if "." in digits else int(digits)), scale
    raise ValueError(f"score {_short(text)} is not a number from 0.0 to 1.0")


def as_text_list(value: Any, item_keys: tuple[str, ...] = ()) -> list[str]:
    """A list of non-empty strings; one string is a one-item list, ``null`` an empty one.

    Objects inside the list give the text of their first ``item_keys`` key that is present.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if not isinstance(value, list | tuple):
        raise ValueError(f"expected a list of strings, got {type(value).__name__}")
    out = []
    for item in value:
        text = _item_text(item, item_keys)
        if text:
            out.append(text)
    return out


def _item_text(item: Any, keys: tuple[str, ...]) -> str:
    if isinstance(item, str):
        return item.strip()
    if isinstance(item, dict):
        squashed = {squash(str(k)): v for k, v in item.items()}
        for key in keys:
            if isinstance(squashed.get(key), str):
                return str(squashed[key]).strip()
    if isinstance(item, bool) or item is None or isinstance(item, dict | list):
        raise ValueError(f"list item {_short(item)} is not a string")
    return str(item).strip()

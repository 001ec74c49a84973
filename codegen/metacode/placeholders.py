"""A value the model copied from the prompt's template is no value.

The meta-code prompt (``steps.py``) says what goes in each field as ``<...>``. Small models copy
a template's words when they have none of their own: while the template held plain words, both
bundled real models answered ``def slugify(params) -> type``, "what it does" and
``slugify(arg) == '<JSON value>'``, which every check accepted and every draft then failed.
Written as ``<...>``, a copy cannot pass for a value:

- under a constraining server the schema refuses it (a header, a call, a path or a name never
  holds ``<``, and a line of text never starts with one: ``llm/schema.line_pattern``), so the
  model writes its own words;
- from a server that does not constrain, the reader takes a field that is a whole ``<...>`` as
  not given: an item of a list is left out, a type or a description left empty, an example whose
  call or expected value is one left out (the assumptions say so, and the proposal shows them),
  and a required field left so is refused with words that say why, so the re-ask names it.

An expected value counts only with a space inside (``"<the JSON value that call returns>"``):
``"<br>"`` may be what an HTML function returns.
"""

from __future__ import annotations

import re
from typing import Any

_WHOLE = re.compile(r"^<[^<>]*>$")
_WORDS = re.compile(r"^<[^<>\s]+(\s[^<>\s]+)+>$")

#: the fields a meta-code needs, in the order a refusal names them
REQUIRED = ("target_path", "symbol", "kind", "signature", "behaviour")


def is_placeholder(value: Any) -> bool:
    """Whether ``value`` is a whole ``<...>``: the template's words, not a value."""
    return isinstance(value, str) and _WHOLE.match(value.strip()) is not None


def copied_fields(data: dict[str, Any]) -> list[str]:
    """The refusal of each required field left as the template's placeholder."""
    return [f"{key}: {data[key]!r} is the template's placeholder: write the request's own value"
            for key in REQUIRED if is_placeholder(data.get(key))]


def without_placeholder_examples(examples: list[dict[str, Any]]
                                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """The examples whose call and expected value are real, and what was left out, said."""
    kept = [e for e in examples if not _copied_example(e)]
    dropped = len(examples) - len(kept)
    said = [f"{dropped} example(s) the model left as the template's placeholder were left out: "
            "tell me examples to add"] if dropped else []
    return kept, said


def _copied_example(example: dict[str, Any]) -> bool:
    if is_placeholder(example.get("call")) or is_placeholder(example.get("raises")):
        return True
    expected = example.get("expected")
    return isinstance(expected, str) and _WORDS.match(expected.strip()) is not None

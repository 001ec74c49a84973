"""Shared builders for the codegen tests (meta-code dicts, fenced replies)."""

from __future__ import annotations

import json

from codemem.codegen.metacode.model import MetaCode


def slug_dict(**changes) -> dict:
    """A valid meta-code dict for ``text/slug.py::slugify``."""
    data = {
        "target_path": "text/slug.py", "symbol": "slugify", "kind": "function",
        "signature": "def slugify(text: str, sep: str = '-') -> str",
        "behaviour": "Lower-case the text and join its words with sep.",
        "inputs": [{"name": "text", "type": "str", "description": "any text"}],
        "outputs": [{"name": "return", "type": "str", "description": "the slug"}],
        "examples": [{"call": "slugify('Hello World')", "expected": "hello-world"},
                     {"call": "slugify('A b', sep='_')", "expected": "a_b"},
                     {"call": "slugify(None)", "raises": "TypeError"}],
        "constraints": ["no third-party imports"],
        "acceptance_checks": ["words are joined with sep", "output is lower-case"],
        "assumptions": ["words are separated by whitespace"],
    }
    data.update(changes)
    return data


def slug_meta(**changes) -> MetaCode:
    return MetaCode.from_dict(slug_dict(**changes))


def as_json(data: dict) -> str:
    return json.dumps(data)


def entity(path: str, symbol: str, code: str) -> str:
    """A reply holding one whole-entity block."""
    return f"Here it is.\n```python entity={path}::{symbol}\n{code.strip()}\n```\n"


GOOD_SLUG = """def slugify(text: str, sep: str = '-') -> str:
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    return sep.join(text.lower().split())
"""

WRONG_SLUG = """def slugify(text: str, sep: str = '-') -> str:
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    return sep.join(text.split())
"""

"""A bare ```python block from a small model: the target's definition is its edit."""

from __future__ import annotations

from codemem.codegen.edits.api import Applied, apply_reply

FILES = {"text_utils.py": "def shout(text):\n    return text.upper()\n"}


def test_a_bare_block_that_copies_the_context_around_the_target_edits_the_target_only():
    reply = ("```python\n# (1)\nimport re\n\ndef shout(text):\n    return text.upper()\n\n"
             "# (2)\ndef slugify(text):\n    return re.sub(r'\\W+', '-', text.lower())\n\n"
             "def parse_date():\n    return None\n```\n")
    result = apply_reply(FILES, reply, default_target=("text_utils.py", "slugify"))
    assert isinstance(result, Applied), result
    text = result.files["text_utils.py"]
    assert "def slugify(text):" in text and "import re" in text
    assert "parse_date" not in text and text.count("def shout") == 1


def test_a_bare_block_defining_the_target_twice_is_still_refused():
    reply = "```python\ndef slugify(a):\n    return a\n\ndef slugify(b):\n    return b\n```\n"
    result = apply_reply(FILES, reply, default_target=("text_utils.py", "slugify"))
    assert not isinstance(result, Applied)

"""Edits: entity replacement keeps the rest byte-for-byte; SEARCH/REPLACE layers; rejections."""

from __future__ import annotations

from textwrap import dedent

import pytest

from codemem.codegen.edits.api import (
    Applied,
    EntityEdit,
    Rejected,
    SearchReplace,
    WholeFile,
    apply_reply,
    find_elision,
    parse_reply,
)

SOURCE = dedent('''\
    """Module doc."""
    import os

    # keep this comment
    @cache
    def area(r):
        return 3 * r  # old


    class Shape:
        """A shape."""

        # method comment
        @property
        def sides(self):
            return 0

        def name(self):
            return "shape"
    ''')


def applied(result: Applied | Rejected) -> dict[str, str]:
    assert isinstance(result, Applied), result
    return result.files


def rejected(result: Applied | Rejected) -> str:
    assert isinstance(result, Rejected), result
    return result.message


def test_entity_replacement_keeps_decorator_comments_and_surroundings() -> None:
    files = {"geo.py": SOURCE}
    reply = "```python entity=geo.py::area\ndef area(r):\n    return 3.14159 * r * r\n```"
    new = applied(apply_reply(files, reply))["geo.py"]
    assert new == SOURCE.replace("return 3 * r  # old", "return 3.14159 * r * r")
    assert files["geo.py"] == SOURCE  # applied to a copy


def test_method_replacement_by_qualified_name_with_new_import() -> None:
    reply = ("```python entity=geo.py::Shape.sides\nimport math\n\n"
             "def sides(self):\n    return math.inf\n```")
    new = applied(apply_reply({"geo.py": SOURCE}, reply))["geo.py"]
    expected = SOURCE.replace("import os\n", "import os\nimport math\n").replace(
        "        return 0", "        return math.inf")
    assert new == expected  # @property and '# method comment' kept


def test_new_decorators_replace_old_ones() -> None:
    reply = "```python entity=geo.py::area\n@lru_cache(2)\ndef area(r):\n    return r\n```"
    new = applied(apply_reply({"geo.py": SOURCE}, reply))["geo.py"]
    assert "@lru_cache(2)\ndef area(r):\n    return r\n" in new
    assert "@cache" not in new and "# keep this comment\n@lru_cache" in new


def test_missing_function_is_appended_and_missing_class_rejected() -> None:
    new = applied(apply_reply({"geo.py": SOURCE}, "```python\ndef perimeter(r):\n    return r\n```",
                              default_target=("geo.py", "perimeter")))["geo.py"]
    assert new == SOURCE + "\n\ndef perimeter(r):\n    return r\n"
    msg = rejected(apply_reply({"geo.py": SOURCE},
                               "```python entity=geo.py::Nope.m\ndef m(self):\n    pass\n```"))
    assert msg == "Nope.m: class 'Nope' not found in geo.py"


def test_entity_with_wrong_name_or_syntax_error_is_rejected() -> None:
    msg = rejected(apply_reply({"geo.py": SOURCE},
                               "```python entity=geo.py::area\ndef size(r):\n    return r\n```"))
    assert msg == "the new code defines 'size', expected 'area' (for area)"
    msg = rejected(apply_reply({"geo.py": SOURCE},
                               "```python entity=geo.py::area\ndef area(r:\n    return r\n```"))
    assert msg.startswith("the new code of area does not parse:")


def test_new_file_is_created_whole() -> None:
    files = applied(apply_reply({}, "```javascript file=web/app.js\nexport const x = 1;\n```"))
    assert files == {"web/app.js": "export const x = 1;\n"}


@pytest.mark.parametrize("code", [
    "def area(r):\n    # ... rest unchanged\n    return r",
    "def area(r):\n    ...existing code...\n    return r",
    "def area(r):\n    # ...\n    return r",
    "def area(r):\n    // ... \n",
    "def area(r):\n    # rest of the function remains unchanged\n",
])
def test_elided_code_is_rejected_with_its_line(code: str) -> None:
    msg = rejected(apply_reply({"geo.py": SOURCE}, f"```python entity=geo.py::area\n{code}\n```"))
    assert msg.startswith("the new code of area elides code at its line 2")
    assert find_elision("def f():\n    ...\n") is None  # an Ellipsis body is code


def test_search_replace_exact_whitespace_and_fuzzy() -> None:
    cfg = "a = 1\nb = 2\n\ndef f():\n    return a + b\n"
    exact = "cfg.py\n<<<<<<< SEARCH\nb = 2\n=======\nb = 3\n>>>>>>> REPLACE\n"
    assert applied(apply_reply({"cfg.py": cfg}, exact))["cfg.py"] == cfg.replace("b = 2", "b = 3")
    loose = ("cfg.py\n<<<<<<< SEARCH\n  def f():\n      return a  +  b\n=======\n"
             "  def f():\n      return a * b\n>>>>>>> REPLACE\n")  # shifted by two spaces
    assert applied(apply_reply({"cfg.py": cfg}, loose))["cfg.py"] == cfg.replace("a + b", "a * b")
    fuzzy = ("cfg.py\n<<<<<<< SEARCH\ndef f():\n    return a + b  \n    \n=======\n"
             "def f():\n    return b\n>>>>>>> REPLACE\n")
    long = cfg + "\n# tail one\n# tail two\n"
    assert applied(apply_reply({"cfg.py": long}, fuzzy))["cfg.py"].startswith(
        "a = 1\nb = 2\n\ndef f():\n    return b\n")


def test_search_replace_ambiguous_or_missing_anchor_is_rejected() -> None:
    text = "x = 1\ny = 2\nx = 1\n"
    msg = rejected(apply_reply({"a.txt": text},
                               "a.txt\n<<<<<<< SEARCH\nx = 1\n=======\nx = 5\n>>>>>>> REPLACE"))
    assert msg.startswith("SEARCH text matches 2 places in a.txt (lines [1, 3])")
    msg = rejected(apply_reply({"a.txt": text},
                               "a.txt\n<<<<<<< SEARCH\nzzz = 42\n=======\nq\n>>>>>>> REPLACE"))
    assert msg.startswith("SEARCH text not found in a.txt")


@pytest.mark.parametrize(("reply", "message"), [
    ("```js file=/etc/passwd\nx\n```", "absolute paths are not allowed"),
    ("```js file=a/../../x.js\nx\n```", "'..' is not allowed"),
    ("```sh file=.git/hooks/pre-commit\nx\n```", "paths inside .git are not allowed"),
    ("```js file=other/x.js\nx\n```", "outside the files this task may change"),
    ("no code here", "no edit found in the reply"),
    ("```python entity=geo.py::area\ndef area(r):\n", "is never closed"),
])
def test_unsafe_paths_and_unparsable_replies_are_rejected(reply: str, message: str) -> None:
    msg = rejected(apply_reply({"geo.py": SOURCE}, reply, allowed={"geo.py", "web/", ".git/"}
                               if "other" in reply else None))
    assert message in msg


def test_parse_reply_reads_all_three_formats() -> None:
    reply = ("```python entity=a.py::f\ndef f():\n    pass\n```\n"
             "b.txt\n```\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n"
             "```toml file=c.toml\nk = 1\n```\n")
    assert parse_reply(reply) == [EntityEdit("a.py", "f", "def f():\n    pass\n"),
                                  SearchReplace("b.txt", "old\n", "new\n"),
                                  WholeFile("c.toml", "k = 1\n")]


def test_code_inside_a_reasoning_block_is_never_the_edit() -> None:
    from codemem.codegen.edits.api import Rejected, apply_reply

    source = {"m.py": "def f():\n    return 1\n"}
    thought = ("<think>\nMaybe:\n```python entity=m.py::f\ndef f():\n    return 0\n```\n"
               "No, keep thinking.\n</think>\n")
    applied = apply_reply(source, thought + "```python entity=m.py::f\ndef f():\n    return 2\n```")
    assert applied.files["m.py"] == "def f():\n    return 2\n"
    rejected = apply_reply(source, thought)
    assert isinstance(rejected, Rejected)
    assert rejected.message.startswith("the reply held only a reasoning block")
    cut = apply_reply(source, "<think>\n```python entity=m.py::f\ndef f():\n    return 0\n```")
    assert isinstance(cut, Rejected) and "ended inside its reasoning block" in cut.message

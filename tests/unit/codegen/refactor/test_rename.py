"""Renames by structure: before/after snippets over small repositories, refusals with places."""

from __future__ import annotations

import pytest

from codemem.codegen.refactor.edits import Refused, Renamed
from codemem.codegen.refactor.rename import rename_symbol

DATES = ('"""Dates; fmt_ts formats timestamps."""\n\n\n'
         "def fmt_ts(ts, fmt=None):\n    return str(ts)\n\n\n"
         "def shadow(x):\n    fmt_ts = 3\n    return fmt_ts\n\n\n"
         "def twice(x):\n    return fmt_ts(fmt_ts(x))\n")
REPO = {
    "utils/__init__.py": "from .dates import fmt_ts\n\n__all__ = ['fmt_ts']\n",
    "utils/dates.py": DATES,
    "app/main.py": ("from utils.dates import fmt_ts\nfrom utils import dates\n"
                    "import utils.dates as ud\n\n\ndef run(t):\n"
                    "    return fmt_ts(t) + dates.fmt_ts(t) + ud.fmt_ts(t)\n"),
    "app/alias.py": "from utils import fmt_ts as f\n\n\ndef go(t):\n    return f(t)\n",
    "app/pkg.py": "from utils import fmt_ts\n\n\ndef go(t):\n    return fmt_ts(t)\n",
    "app/unrelated.py": "def fmt_ts(x):\n    return x\n",
    "README.md": "Call `fmt_ts` to format.\n",
}


def test_definition_imports_uses_reexports_and_all_are_rewritten() -> None:
    result = rename_symbol(REPO, "utils/dates.py", "fmt_ts", "format_timestamp")
    assert isinstance(result, Renamed)
    assert sorted(result.files) == ["app/alias.py", "app/main.py", "app/pkg.py",
                                    "utils/__init__.py", "utils/dates.py"]
    assert result.files["utils/dates.py"] == DATES.replace(
        "def fmt_ts(", "def format_timestamp(").replace(
        "fmt_ts(fmt_ts(x))", "format_timestamp(format_timestamp(x))")
    assert "fmt_ts = 3\n    return fmt_ts" in result.files["utils/dates.py"]  # a local stays
    assert result.files["app/main.py"] == (
        "from utils.dates import format_timestamp\nfrom utils import dates\n"
        "import utils.dates as ud\n\n\ndef run(t):\n    return format_timestamp(t) + "
        "dates.format_timestamp(t) + ud.format_timestamp(t)\n")
    assert result.files["app/alias.py"].startswith("from utils import format_timestamp as f\n")
    assert "return f(t)" in result.files["app/alias.py"]
    assert result.files["utils/__init__.py"] == (
        "from .dates import format_timestamp\n\n__all__ = ['format_timestamp']\n")
    assert "app/unrelated.py" not in result.files  # its own fmt_ts
    assert "utils/dates.py:4: definition" in result.sites
    assert "utils/__init__.py:3: __all__ entry" in result.sites
    assert result.notes == ("README.md: mentions `fmt_ts` (not Python, left as it is)",
                            "utils/dates.py:1: a docstring mentions `fmt_ts`")
    assert result.summary().startswith("12 change(s) in 5 file(s), no LLM call:")


@pytest.mark.parametrize(("extra", "place", "why"), [
    ({"app/dyn.py": "import utils.dates as d\n\n\ndef g():\n    return getattr(d, 'fmt_ts')\n"},
     "app/dyn.py:5", "dynamic access names `fmt_ts` in a string"),
    ({"app/str.py": "NAME = 'fmt_ts'\n"}, "app/str.py:1", "a string mentions `fmt_ts`"),
    ({"app/star.py": "from utils.dates import *\n\n\ndef g():\n    return fmt_ts(1)\n"},
     "app/star.py:1", "`from utils.dates import *` brings `fmt_ts` in"),
    ({"app/taken.py": "from utils.dates import fmt_ts\n\n\ndef format_timestamp():\n"
                      "    return fmt_ts(1)\n"},
     "app/taken.py:4", "`format_timestamp` is already bound here"),
    ({"app/hidden.py": "from utils.dates import fmt_ts\n\n\ndef g(format_timestamp):\n"
                       "    return fmt_ts(format_timestamp)\n"},
     "app/hidden.py:5", "a local `format_timestamp` here would hide the renamed `fmt_ts`"),
    ({"app/broken.py": "def g(:\n    fmt_ts\n"}, "app/broken.py", "does not parse"),
])
def test_what_cannot_be_rewritten_safely_is_refused_naming_the_place(extra, place, why) -> None:
    result = rename_symbol({**REPO, **extra}, "utils/dates.py", "fmt_ts", "format_timestamp")
    assert isinstance(result, Refused)
    assert any(p.startswith(place) and why in p for p in result.places), result.places
    assert f"- {result.places[0]}" in result.message()


def test_the_new_name_taken_in_the_defining_module_is_refused() -> None:
    repo = {**REPO, "utils/dates.py": DATES + "\n\ndef format_timestamp():\n    return 1\n"}
    result = rename_symbol(repo, "utils/dates.py", "fmt_ts", "format_timestamp")
    assert isinstance(result, Refused)
    assert "utils/dates.py:17: `format_timestamp` is already bound here" in result.places


@pytest.mark.parametrize(("path", "symbol", "new", "reason"), [
    ("nope.py", "f", "g", "nope.py is not among the repository's files"),
    ("README.md", "f", "g", "only Python definitions"),
    ("utils/dates.py", "fmt_ts", "class", "'class' is not a valid Python name"),
    ("utils/dates.py", "fmt_ts", "fmt_ts", "is already called fmt_ts"),
    ("utils/dates.py", "a.b.c", "d", "only a top-level function or class"),
    ("utils/dates.py", "missing", "other", "`missing` is not defined at its top level"),
])
def test_a_request_that_makes_no_sense_is_refused(path, symbol, new, reason) -> None:
    result = rename_symbol({**REPO, "utils/dates.py": DATES + "# missing\n"}, path, symbol, new)
    assert isinstance(result, Refused) and reason in result.message()


def test_a_class_is_renamed_with_its_uses_in_annotations_and_bases() -> None:
    repo = {"m.py": "class Token:\n    pass\n\n\nclass Sub(Token):\n    pass\n\n\n"
                    "def make() -> Token:\n    return Token()\n",
            "n.py": "from m import Token\n\n\ndef f(t: Token) -> None:\n    pass\n"}
    result = rename_symbol(repo, "m.py", "Token", "AccessToken")
    assert isinstance(result, Renamed)
    assert "Token" not in result.files["m.py"].replace("AccessToken", "")
    assert result.files["n.py"] == ("from m import AccessToken\n\n\n"
                                    "def f(t: AccessToken) -> None:\n    pass\n")

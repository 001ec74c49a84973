"""Moves by structure: the definition, its imports, the importers; refusals with places."""

from __future__ import annotations

import pytest

from codemem.codegen.refactor.edits import Refused, Renamed
from codemem.codegen.refactor.move import move_symbol

REPO = {
    "utils/__init__.py": "from .dates import fmt_ts, other\n",
    "utils/dates.py": ("import json\nfrom .tz import utc\n\n\n"
                       "# formats a timestamp\n@staticmethod\ndef fmt_ts(ts):\n"
                       "    return json.dumps([ts, utc])\n\n\n"
                       "def other():\n    return fmt_ts(1)\n"),
    "utils/tz.py": "utc = 0\n",
    "utils/format.py": '"""Formatting."""\n\nimport json\n\n\ndef pad(x):\n    return x\n',
    "app/main.py": "from utils.dates import fmt_ts\n\n\ndef run(t):\n    return fmt_ts(t)\n",
}


def test_the_definition_moves_with_its_imports_and_importers_follow() -> None:
    result = move_symbol(REPO, "utils/dates.py", "fmt_ts", "utils/format.py")
    assert isinstance(result, Renamed)
    assert result.files["utils/format.py"] == (
        '"""Formatting."""\n\nimport json\nfrom utils.tz import utc\n\n\n'
        "def pad(x):\n    return x\n\n\n"
        "# formats a timestamp\n@staticmethod\ndef fmt_ts(ts):\n"
        "    return json.dumps([ts, utc])\n")
    assert result.files["utils/dates.py"] == (
        "import json\nfrom .tz import utc\nfrom utils.format import fmt_ts\n\n\n"
        "def other():\n    return fmt_ts(1)\n")  # still used there: imported back
    assert result.files["app/main.py"] == ("from utils.format import fmt_ts\n\n\n"
                                          "def run(t):\n    return fmt_ts(t)\n")
    assert result.files["utils/__init__.py"] == ("from .dates import other\n"
                                                "from utils.format import fmt_ts\n")
    assert "utils/dates.py: definition moved to utils/format.py" in result.sites
    assert "app/main.py:1: imports `fmt_ts` from utils.format" in result.sites


def test_a_new_module_is_created() -> None:
    repo = {"a.py": "import os\n\n\ndef f():\n    return os.sep\n",
            "b.py": "from a import f\n\nX = f()\n"}
    result = move_symbol(repo, "a.py", "f", "pkg/c.py")
    assert isinstance(result, Renamed)
    assert result.files == {"a.py": "import os\n",
                            "pkg/c.py": "import os\n\n\ndef f():\n    return os.sep\n",
                            "b.py": "from pkg.c import f\n\nX = f()\n"}


@pytest.mark.parametrize(("extra", "place", "why"), [
    ({"app/mod.py": "from utils import dates\n\n\ndef g():\n    return dates.fmt_ts(1)\n"},
     "app/mod.py:5", "uses `dates.fmt_ts` through the module"),
    ({"app/star.py": "from utils.dates import *\n\nX = fmt_ts(1)\n"}, "app/star.py:1",
     "`from utils.dates import *` brings `fmt_ts` in"),
    ({"utils/format.py": "def fmt_ts():\n    return 0\n"}, "utils/format.py",
     "`fmt_ts` is already bound in the destination"),
    ({"app/patch.py": "PATCH = 'utils.dates.fmt_ts'\n"}, "app/patch.py:1",
     "a string mentions `fmt_ts`"),
    ({"utils/format.py": "def (:\n"}, "utils/format.py", "does not parse"),
])
def test_what_cannot_be_moved_safely_is_refused(extra, place, why) -> None:
    result = move_symbol({**REPO, **extra}, "utils/dates.py", "fmt_ts", "utils/format.py")
    assert isinstance(result, Refused)
    assert any(p.startswith(place) and why in p for p in result.places), result.places


def test_a_definition_that_needs_its_old_module_is_refused() -> None:
    repo = {"a.py": "def helper():\n    return 1\n\n\ndef f():\n    return helper()\n"}
    result = move_symbol(repo, "a.py", "f", "b.py")
    assert isinstance(result, Refused)
    assert result.places == ("a.py:1: `f` uses `helper`, defined here; move it too (an import "
                             "back would be a cycle)",)


@pytest.mark.parametrize(("path", "symbol", "new_path", "reason"), [
    ("a.py", "f", "../b.py", "is not a place for a Python module"),
    ("a.py", "f", "a.py", "`f` is already in a.py"),
    ("a.py", "A.f", "b.py", "only a top-level function or class can be moved"),
    ("a.py", "g", "b.py", "`g` is not defined in a.py"),
])
def test_a_move_that_makes_no_sense_is_refused(path, symbol, new_path, reason) -> None:
    result = move_symbol({"a.py": "def f():\n    return 1\n"}, path, symbol, new_path)
    assert isinstance(result, Refused) and reason in result.message()

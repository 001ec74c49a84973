"""Selecting the repository tests that touch a target, and the files a test run needs."""

from __future__ import annotations

from codemem.codegen.checks.related_tests import (
    imported_modules,
    needed_files,
    select_related_tests,
)

REPO = {
    "pkg/__init__.py": "",
    "pkg/geo.py": "from .util import square\n\ndef area(r):\n    return 3 * square(r)\n",
    "pkg/util.py": "import math\n\ndef square(x):\n    return x * x\n",
    "pkg/other.py": "X = 1\n",
    "tests/conftest.py": "import pytest\n",
    "tests/unit/test_geo.py": "from pkg.geo import area\n\ndef test_area():\n    assert area(1)\n",
    "tests/unit/test_mentions.py": "import pkg\n\ndef test_x():\n    assert pkg.geo.area\n",
    "tests/unit/test_other.py": "from pkg import other\n\ndef test_o():\n    assert other.X\n",
    "tests/test_new_syntax.py": "type T = int\nfrom pkg.geo import area\n",
    "pyproject.toml": "[tool.pytest.ini_options]\n",
    "README.md": "# readme\n",
}


def test_select_related_tests_by_import_or_mention():
    picked = select_related_tests(REPO, "pkg/geo.py", "area")
    assert sorted(picked) == ["tests/test_new_syntax.py", "tests/unit/test_geo.py",
                              "tests/unit/test_mentions.py"]
    assert picked["tests/unit/test_geo.py"] == REPO["tests/unit/test_geo.py"]


def test_method_symbols_match_on_the_bare_name():
    picked = select_related_tests(REPO, "pkg/other.py", "Thing.X")
    assert sorted(picked) == ["tests/unit/test_other.py"]


def test_needed_files_is_the_import_closure_plus_conftests_and_config():
    files = needed_files(REPO, ["tests/unit/test_geo.py", "pkg/geo.py"])
    assert sorted(files) == ["pkg/__init__.py", "pkg/geo.py", "pkg/util.py", "pyproject.toml",
                             "tests/conftest.py", "tests/unit/test_geo.py"]


def test_relative_imports_and_unparsable_files():
    assert imported_modules("from . import util\nfrom ..a import b\n", "pkg/sub/m.py") == {
        "pkg.sub", "pkg.sub.util", "pkg.a", "pkg.a.b"}
    assert "pkg.geo" in imported_modules(REPO["tests/test_new_syntax.py"], "tests/t.py")

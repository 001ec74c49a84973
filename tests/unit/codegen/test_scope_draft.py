"""The loop's scope helpers: which files, which code, which tests; and per-file diffs."""

from __future__ import annotations

from codemem.codegen.checks.validate import select_related_tests
from codemem.codegen.diffs import file_diffs, render_diffs
from codemem.codegen.loop.scope_draft import (
    baseline_files,
    change_paths,
    checked_paths,
    entity_source,
    related_tests,
    scope_code,
)
from codemem.codegen.metacode.model import MetaCode

SOURCE = ("import functools\n\n\n@functools.cache\ndef top(x):\n    return x\n\n\n"
          "class Box:\n    @property\n    def size(self):\n        return 1\n")
META = MetaCode.from_dict({
    "target_path": "net/http.py", "symbol": "fetch", "kind": "function",
    "signature": "def fetch(url)", "behaviour": "Fetch.", "acceptance_checks": ["works"],
    "scope": [{"path": "app/main.py", "symbol": "run", "why": "passes timeout"},
              {"path": "tests/test_http.py", "symbol": "test_fetch", "why": "follows"},
              {"path": "app/main.py", "symbol": "", "why": "imports"},
              {"path": "app/new.py", "symbol": "f", "why": "new helper"}]})
REPO = {"net/http.py": "def fetch(url):\n    return url\n",
        "app/main.py": "from net.http import fetch\n\n\ndef run(u):\n    return fetch(u)\n",
        "tests/test_http.py": "def test_fetch():\n    assert True\n",
        "tests/test_main.py": "from app.main import run\n\n\ndef test_run():\n    assert run\n",
        "README.md": "fetch things\n"}


def test_entity_source_includes_decorators_and_finds_methods() -> None:
    assert entity_source(SOURCE, "top") == ("@functools.cache\ndef top(x):\n    return x", 4, 6)
    assert entity_source(SOURCE, "Box.size") == (
        "    @property\n    def size(self):\n        return 1", 10, 12)
    assert entity_source(SOURCE, "nope") is None and entity_source("def (", "x") is None


def test_files_of_the_change_baseline_and_checked_paths() -> None:
    assert change_paths(META) == ["net/http.py", "app/main.py", "tests/test_http.py",
                                  "app/new.py"]
    assert set(baseline_files(META, REPO)) == {"net/http.py", "app/main.py",
                                               "tests/test_http.py"}
    draft = {**REPO, "app/new.py": "def f():\n    return 1\n", "README.md": "changed\n"}
    assert checked_paths(META, draft, REPO) == ["net/http.py", "app/main.py",
                                                "tests/test_http.py", "app/new.py"]


def test_related_tests_cover_every_place_and_tests_in_the_scope_themselves() -> None:
    found = related_tests(select_related_tests, REPO, META)
    assert sorted(found) == ["tests/test_http.py", "tests/test_main.py"]


def test_scope_code_names_lines_and_missing_places() -> None:
    text = scope_code(META, REPO)
    assert '<<<DATA kind="scope" source="app/main.py:4-5 :: run">>>' in text
    assert '<<<DATA kind="scope" source="app/main.py :: (module level)">>>' in text
    assert "(the file does not exist yet)" in text and "why: new helper" in text


def test_file_diffs_say_added_modified_and_deleted() -> None:
    diffs = file_diffs({"a.py": "x = 1\n", "b.py": "y = 1\n", "c.py": "z"},
                       {"a.py": "x = 2\n", "c.py": "z", "d.py": "w = 1"})
    assert [(d.path, d.status) for d in diffs] == [
        ("a.py", "modified"), ("b.py", "deleted"), ("d.py", "added")]
    assert "-x = 1\n+x = 2\n" in diffs[0].diff
    assert diffs[2].diff.endswith("+w = 1\n\\ No newline at end of file\n")
    assert render_diffs([]) == "No file changed."
    assert render_diffs(diffs).startswith(
        "3 file(s) changed: `a.py` (modified), `b.py` (deleted), `d.py` (added)")

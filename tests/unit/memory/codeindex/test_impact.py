"""The impact of a change from the index: real repository, real extraction pool, real SQLite."""

from __future__ import annotations

import os
import sqlite3

import pytest

from codemem.memory.codeindex import refs
from codemem.memory.codeindex.impact import Resolver, is_test_path, python_module, same_name

from ..codebase.helpers import make_system, write_tree

REPO = {
    "net/__init__.py": "",
    "net/http.py": (
        "import json\n\n\n"
        "def fetch(url, retries=3):\n"
        "    return json.dumps(url)\n\n\n"
        "class Client:\n"
        "    def get(self, url):\n"
        "        return self.send(url)\n\n"
        "    def send(self, url):\n"
        "        return fetch(url)\n"
    ),
    "app/__init__.py": "",
    "app/main.py": (
        "from net.http import fetch\n\n\n"
        "def run(url):\n"
        "    return fetch(url)\n\n\n"
        "def other():\n"
        "    return run('x')\n"
    ),
    "app/cli.py": (
        "from net import http\n\n\n"
        "def main(argv):\n"
        "    return http.fetch(argv[0])\n"
    ),
    "app/deep.py": (
        "import net.http\n\n\n"
        "def go(u):\n"
        "    handler = net.http.fetch\n"
        "    return handler(u)\n"
    ),
    "app/unrelated.py": (
        "def fetch(x):\n"
        "    return x\n\n\n"
        "def use():\n"
        "    return fetch(1)\n"
    ),
    "app/session.py": (
        "from net.http import Client\n\n\n"
        "def call(c: Client, other):\n"
        "    c.send('a')\n"
        "    return other.send('b')\n"
    ),
    "app/rel.py": (
        "from ..net.http import fetch as grab\n\n\n"
        "def relative(u):\n"
        "    return grab(u)\n"
    ),
    "tests/test_main.py": (
        "from app.main import run\n\n\n"
        "def test_run():\n"
        "    assert run('u')\n"
    ),
    "tests/test_http.py": (
        "from net.http import fetch\n\n\n"
        "def test_fetch():\n"
        "    assert fetch('a')\n"
    ),
}


@pytest.fixture
def indexed(tmp_path, pool):
    root = tmp_path / "repo"
    write_tree(root, REPO)
    system = make_system(tmp_path, pool)
    system.index_repository(str(root))
    yield system, str(root)
    system.close()


def _where(sites):
    return sorted((s.path, s.qualified_name, s.how, s.level) for s in sites)


def test_callers_references_imports_and_one_more_level(indexed) -> None:
    system, root = indexed
    impact = system.impact(root, "net/http.py", "fetch")
    assert impact.found and not impact.stale and not impact.truncated
    assert (impact.kind, impact.start_line, impact.end_line) == ("function", 4, 5)
    assert _where(impact.direct()) == [
        ("app/cli.py", "main", "calls", 1),
        ("app/deep.py", "go", "references", 1),
        ("app/main.py", "", "imports", 1),
        ("app/main.py", "run", "calls", 1),
        ("app/rel.py", "", "imports", 1),
        ("net/http.py", "Client.send", "calls", 1),
    ]  # app/unrelated.py defines and calls a fetch of its own: not this one; app/deep.py
    # imports the module (its row names ``http``), then refers to ``net.http.fetch``
    assert _where(impact.indirect()) == [
        ("app/main.py", "other", "calls", 2), ("app/session.py", "call", "calls", 2),
        ("net/http.py", "Client.get", "calls", 2)]
    assert _where(impact.tests()) == [
        ("tests/test_http.py", "", "imports", 1), ("tests/test_http.py", "test_fetch", "calls", 1),
        ("tests/test_main.py", "", "imports", 2), ("tests/test_main.py", "test_run", "calls", 2)]
    run = next(s for s in impact.sites if s.qualified_name == "run")
    assert run.where() == "app/main.py:4-5"
    other = next(s for s in impact.sites if s.qualified_name == "other")
    assert other.via == "run" and other.describe() == "app/main.py:8-9 `other` calls `run`"
    assert impact.files()[0] == "net/http.py" and "app/unrelated.py" not in impact.files()


def test_the_summary_counts_places_files_and_tests(indexed) -> None:
    system, root = indexed
    text = system.impact(root, "net/http.py", "fetch").render()
    assert text.startswith("`fetch` (net/http.py:4-5) is used in 6 places in 5 files:\n")
    assert "- app/main.py:4-5 `run` calls it" in text
    assert "- app/main.py the module imports it" in text
    assert "One more level: 3 places use those:" in text
    assert "Tests that exercise them (2 files):" in text
    assert "- tests/test_main.py:4-5 `test_run` calls `run`" in text


def test_a_method_is_found_through_self_the_class_and_possibly_an_unknown_object(indexed):
    system, root = indexed
    impact = system.impact(root, "net/http.py", "Client.send", second_level=False)
    found = {(s.path, s.qualified_name): s.certain for s in impact.sites}
    assert found == {("net/http.py", "Client.get"): True, ("app/session.py", "call"): False}
    assert "(possibly: the object's type is unknown)" in impact.render()


def test_an_unknown_entity_and_a_new_name_say_so(indexed) -> None:
    system, root = indexed
    missing = system.impact(root, "net/http.py", "post")
    assert not missing.found and missing.sites == ()
    assert "not in the index" in missing.render()
    quiet = system.impact(root, "app/unrelated.py", "use")
    assert quiet.found and quiet.sites == () and "no callers" in quiet.render()


def test_lookups_are_bounded_and_say_when_they_were_cut(indexed) -> None:
    system, root = indexed
    from codemem.memory.codeindex.impact import compute_impact

    repo_id = system.repository_id_for(root)
    cut = compute_impact(system._manifest.read, repo_id, "net/http.py", "fetch", limit=2,
                         second_level=False)
    assert cut.truncated and len(cut.sites) <= 2
    assert "(more uses exist than the index lookup returned)" in cut.render()


def test_the_lookup_uses_the_name_index_not_a_scan(indexed) -> None:
    system, _ = indexed
    plan = system._manifest.read(lambda c: c.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM code_refs WHERE repo_id=? AND name=? LIMIT 5",
        ("r", "fetch")).fetchall())
    assert any("code_refs_name" in str(row) for row in plan)


def test_rows_follow_edits_renames_and_deletions(indexed) -> None:
    system, root = indexed
    cli = os.path.join(root, "app", "cli.py")
    with open(cli, "w", encoding="utf-8") as fh:
        fh.write("def main(argv):\n    return argv\n")
    os.rename(os.path.join(root, "app", "main.py"), os.path.join(root, "app", "entry.py"))
    os.remove(os.path.join(root, "app", "deep.py"))
    system.index_repository(root)
    assert system.last_index_report.renamed == 1
    impact = system.impact(root, "net/http.py", "fetch", second_level=False)
    paths = {s.path for s in impact.direct()}
    assert "app/cli.py" not in paths and "app/deep.py" not in paths
    assert "app/entry.py" in paths and "app/main.py" not in paths


def test_an_index_made_before_uses_were_recorded_is_parsed_again_once(tmp_path, pool) -> None:
    root = tmp_path / "repo"
    write_tree(root, REPO)
    system = make_system(tmp_path, pool)
    system.index_repository(str(root))
    repo_id = system.repository_id_for(str(root))
    system.close()
    with sqlite3.connect(tmp_path / "code.db") as conn:  # what an older plugin left behind
        conn.execute("DELETE FROM code_refs")
        conn.execute("DELETE FROM code_defs")
        conn.execute("UPDATE code_repos SET index_format=0")
    system = make_system(tmp_path, pool)
    assert system.impact(str(root), "net/http.py", "fetch").stale
    embedder = system._dense._embedder
    system.index_repository(str(root))
    report = system.last_index_report
    assert report.parsed == len(REPO) and report.embedded == 0 == embedder.texts
    assert report.entities_added == 0 and system._manifest.index_format(repo_id) == 1
    impact = system.impact(str(root), "net/http.py", "fetch")
    assert not impact.stale and len(impact.direct()) == 6
    system.index_repository(str(root))  # the upgrade happens once
    assert system.last_index_report.parsed == 0
    system.close()


def test_library_sources_leave_no_rows(tmp_path, pool) -> None:
    from codemem.memory.codeindex.walk import default_walker

    root = tmp_path / "lib"
    write_tree(root, {"lib/core.py": "def helper():\n    return 1\n"})
    system = make_system(tmp_path, pool)
    walked = default_walker(str(root), [], True, 100_000)
    system.index_tree(str(root), walked, repository_id="source:lib")
    count = system._manifest.read(lambda c: c.execute(
        "SELECT count(*) FROM code_refs WHERE repo_id='source:lib'").fetchone()[0])
    assert count == 0 and system._manifest.index_format("source:lib") == 0
    system.close()


def test_pure_parts() -> None:
    assert python_module("src/pkg/mod.py") == "pkg.mod"
    assert python_module("pkg/__init__.py") == "pkg"
    assert same_name("app.pkg.mod", "pkg.mod") and not same_name("json", "pkg.json")
    assert is_test_path("tests/helpers.py") and is_test_path("pkg/test_x.py")
    assert not is_test_path("pkg/testing.py")
    target = refs.DefRow("", "net/http.py", "fetch", "function", 1, 2)
    use = refs.Use(refs.RefRow("app/x.py", "m", "fetch", "fetch", refs.CALL), None)
    assert Resolver("app/x.py", ["net.http.fetch"], target).match(use) is True
    assert Resolver("app/x.py", ["other.fetch"], target).match(use) is None
    star = refs.Use(refs.RefRow("app/x.py", "", "fetch", ".http.fetch", refs.IMPORT), None)
    assert Resolver("net/x.py", [".http.fetch"], target).match(star) is True

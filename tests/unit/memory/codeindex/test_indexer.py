"""Incremental re-indexing: edit, add, delete, rename, ignore; parse and embed calls counted."""

from __future__ import annotations

import os

import pytest

from codemem.memory.codebase import CodeMemorySystem

from ..codebase.helpers import SAMPLE, CountingEmbedder, make_system, write_tree


def _paths(system: CodeMemorySystem) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in system.list_memories({"type": "code_entity"}):
        out.setdefault(m["metadata"]["path"], []).append(m["metadata"]["qualified_name"])
    return out


def _bump_mtime(path: str) -> None:
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def test_first_index_then_nothing_changed(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    ex, emb = system._extractor, system._dense._embedder
    seen = []
    ids = system.index_repository(str(repo), progress=seen.append)
    assert sorted(ex.parsed) == sorted(SAMPLE)
    assert [p.phase for p in seen][0] == "walk" and seen[-1].phase == "done"
    assert any(p.phase == "extract" and p.done == p.total == len(SAMPLE) for p in seen)
    by_path = _paths(system)
    assert sorted(by_path["api/auth.py"]) == ["login", "logout"]
    assert sorted(by_path["models/token.py"]) == ["Token", "Token.issue", "Token.revoke"]
    assert by_path["web/app.ts"] == ["renderPage"]
    assert len(ids) == sum(len(v) for v in by_path.values()) == emb.texts
    ex.reset()
    calls, texts = emb.calls, emb.texts
    again = system.index_repository(str(repo))
    assert sorted(again) == sorted(ids)
    assert ex.parsed == [] and (emb.calls, emb.texts) == (calls, texts)
    report = system.last_index_report
    assert report.unchanged == len(SAMPLE) and report.parsed == 0
    system.close()


def test_edit_add_delete_rename_count_parses_and_embeds(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    ex, emb = system._extractor, system._dense._embedder
    system.index_repository(str(repo))
    login_id = next(m["id"] for m in system.list_memories({"qualified_name": "login"}))
    logout_id = next(m["id"] for m in system.list_memories({"qualified_name": "logout"}))

    # edit: one entity's body changes, the other shifts down two lines
    auth = repo / "api" / "auth.py"
    text = SAMPLE["api/auth.py"].replace("    user = get_user(name)\n",
                                         "    user = get_user(name)\n    assert user\n\n")
    auth.write_text(text)
    ex.reset()
    texts = emb.texts
    system.index_repository(str(repo))
    assert ex.parsed == ["api/auth.py"]
    assert emb.texts - texts == 1  # only login's source changed
    assert system.get_memory(login_id) is None  # replaced
    logout = system.get_memory(logout_id)  # kept, span moved without re-embedding
    assert logout is not None and logout["metadata"]["start_line"] == 13
    new_login = system.list_memories({"qualified_name": "login"})[0]
    assert "assert user" in new_login["text"]

    # add
    (repo / "api" / "billing.py").write_text("def charge(amount):\n    return amount\n")
    ex.reset()
    texts = emb.texts
    system.index_repository(str(repo))
    assert ex.parsed == ["api/billing.py"] and emb.texts - texts == 1

    # delete
    os.remove(repo / "util" / "audit.py")
    ex.reset()
    texts = emb.texts
    system.index_repository(str(repo))
    assert ex.parsed == [] and emb.texts == texts
    assert "util/audit.py" not in _paths(system)
    assert system.last_index_report.deleted == 1

    # rename: same content at a new path -> moved, neither parsed nor embedded
    token_ids = sorted(m["id"] for m in system.list_memories({"path": "models/token.py"}))
    os.rename(repo / "models" / "token.py", repo / "models" / "tokens.py")
    ex.reset()
    texts, calls = emb.texts, emb.calls
    system.index_repository(str(repo))
    assert ex.parsed == [] and (emb.texts, emb.calls) == (texts, calls)
    assert system.last_index_report.renamed == 1
    moved = sorted(m["id"] for m in system.list_memories({"path": "models/tokens.py"}))
    assert moved == token_ids
    assert "models/token.py" not in _paths(system)
    system.close()


def test_touch_without_change_is_hashed_not_parsed(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    system.index_repository(str(repo))
    _bump_mtime(str(repo / "api" / "users.py"))
    system._extractor.reset()
    system.index_repository(str(repo))
    assert system._extractor.parsed == []
    system.close()


def test_gitignore_and_exclude_patterns(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo, {**SAMPLE, "tests/test_x.py": "def test_x():\n    pass\n",
                      "build/gen.py": "def generated():\n    pass\n",
                      ".gitignore": "build/\n"})
    system = make_system(tmp_path, pool)
    system.index_repository(str(repo), exclude_patterns=["*/tests/*"])
    paths = _paths(system)
    assert "tests/test_x.py" not in paths and "build/gen.py" not in paths
    statuses = system.last_index_report.statuses
    assert statuses["tests/"] == "skipped:excluded"
    assert statuses["build/"] == "skipped:ignored"
    # excluding a formerly indexed folder removes its entities
    system.index_repository(str(repo), exclude_patterns=["*/tests/*", "util/*"])
    assert "util/audit.py" not in _paths(system)
    system.close()


def test_index_file_reindex_file_and_errors(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    ids = system.index_file(str(repo / "api" / "users.py"))
    assert len(ids) == 2
    with pytest.raises(FileNotFoundError):
        system.index_file(str(repo / "nope.py"))
    (repo / "notes.txt").write_text("hello")
    with pytest.raises(ValueError):
        system.index_file(str(repo / "notes.txt"))
    system._extractor.reset()
    assert sorted(system.index_file(str(repo / "api" / "users.py"))) == sorted(ids)
    assert system._extractor.parsed == []  # unchanged: not parsed again
    again = system.reindex_file(str(repo / "api" / "users.py"))
    # a file outside any indexed repository and the cwd: its folder is the repository
    assert system._extractor.parsed == ["users.py"] and sorted(again) == sorted(ids)
    system.close()


def test_memory_api_works_on_entities(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    system.index_repository(str(repo))
    memory = system.list_memories({"qualified_name": "Token.issue"})[0]
    got = system.get_memory(memory["id"])
    assert got["text"].lstrip().startswith("@classmethod")
    meta = got["metadata"]
    assert (meta["path"], meta["kind"], meta["language"]) == ("models/token.py", "method",
                                                               "python")
    assert (meta["start_line"], meta["end_line"]) == (2, 4)
    assert system.update_memory(memory["id"], text=got["text"] + "\n        # note")
    assert system.get_memory(memory["id"])["text"].endswith("# note")
    assert system.delete_memory(memory["id"])
    assert system.get_memory(memory["id"]) is None
    assert memory["id"] not in system._manifest.entity_ids(system.last_index_report.repo_id)
    system.close()


def test_embedder_change_reembeds_without_parsing(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    n = len(system.index_repository(str(repo)))
    system.close()
    bigger = CountingEmbedder(dimension=96)
    system = make_system(tmp_path, pool, embedder=bigger)
    system.index_repository(str(repo))
    assert system._extractor.parsed == []
    assert bigger.texts == n  # every entity re-embedded once, from the stored texts
    rows = system._manifest.entities(system.last_index_report.repo_id)
    assert {len(r.vector) for r in rows} == {96 * 4}
    system.close()


def test_a_file_named_with_undecodable_bytes_gets_a_status_and_blocks_nothing(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    bad = os.path.join(os.fsencode(repo), b"bad_name_\xff\xfe.py")
    with open(bad, "wb") as handle:
        handle.write(b"def odd():\n    return 1\n")
    system = make_system(tmp_path, pool)
    for _ in range(2):  # a retry behaves the same
        system.index_repository(str(repo))
        statuses = system.last_index_report.statuses
        assert statuses["bad_name_\\xff\\xfe.py"] == "skipped:undecodable_name"
        assert all(statuses[path] == "indexed" for path in SAMPLE)
    assert sorted(_paths(system)) == sorted(SAMPLE)
    with pytest.raises(ValueError, match="not valid UTF-8"):
        system.index_file(os.fsdecode(bad))
    system.close()


def test_an_undecodable_name_from_another_walker_gets_the_same_status(tmp_path, pool):
    from codemem.memory.codeindex.records import WalkedFile

    repo = tmp_path / "repo"
    write_tree(repo, {"good.py": "def g():\n    return 2\n"})
    name = os.fsdecode(b"odd_\xff.py")
    with open(os.path.join(os.fsencode(repo), os.fsencode(name)), "wb") as handle:
        handle.write(b"def odd():\n    return 1\n")

    def walker(root, exclude, recursive, max_bytes):
        return [WalkedFile(rel, None, os.lstat(os.path.join(root, rel)).st_size, 1)
                for rel in ("good.py", name)]

    system = make_system(tmp_path, pool, walker=walker)
    system.index_repository(str(repo))
    assert system.last_index_report.statuses == {"good.py": "indexed",
                                                 "odd_\\xff.py": "skipped:undecodable_name"}
    system.close()


def test_a_one_file_reindex_reads_only_that_files_manifest_rows(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    system.index_repository(str(repo))
    statements: list[str] = []
    system._manifest._conn.set_trace_callback(statements.append)
    (repo / "api" / "users.py").write_text(SAMPLE["api/users.py"] + "\n\ndef added():\n    pass\n")
    ids = system.reindex_file(str(repo / "api" / "users.py"))
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")
             and ("code_files" in s or "code_entities" in s)]
    assert reads and len(ids) == 3
    whole = [s for s in reads if "path=" not in s.replace(" ", "")
             and "memory_id=" not in s.replace(" ", "") and "count(" not in s]
    assert whole == [], f"a one-file re-index read whole tables: {whole}"
    system.close()


def test_listing_a_repositorys_entity_ids_reads_only_the_covering_index(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool)
    ids = system.index_repository(str(repo))
    plan = " ".join(row[-1] for row in system._manifest._conn.execute(
        "EXPLAIN QUERY PLAN SELECT memory_id FROM code_entities INDEXED BY code_entities_ids "
        "WHERE repo_id=? ORDER BY rowid", ("x",)))
    assert "COVERING INDEX code_entities_ids" in plan
    repo_id = system.last_index_report.repo_id
    assert system._manifest.entity_ids(repo_id) == ids  # oldest first, as before
    system.close()

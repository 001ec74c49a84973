"""Sources indexed into a real code memory (SQLite, the parsing pool, a Cat-shaped Qdrant
collection): a second local repository, an installed distribution, a downloaded one."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys

import pytest
from qdrant_client import QdrantClient

from codemem.memory.codeindex.vector_sink import CatVectorSink
from codemem.memory.sources.indexing import AssociativeMemory, SourceOptions
from codemem.memory.sources.spec import FolderSource, PipSource

from ..codebase.catlike import CatLikeCollection
from ..codebase.helpers import CountingExtractor, make_system, write_tree
from .library import TEXTKIT_V1, TEXTKIT_V2, publish, serve

OTHER_REPO = {
    "otherlib/__init__.py": "from .engine import Engine\n",
    "otherlib/engine.py": (
        "class Engine:\n"
        '    """Runs jobs."""\n\n'
        "    def run(self, job: str, *, retries: int = 0) -> bool:\n"
        '        """Run one job."""\n'
        "        return bool(job)\n\n"
        "    def _spin(self):\n"
        "        return None\n\n\n"
        "def _internal():\n"
        "    return 1\n"
    ),
    "otherlib/_private/hidden.py": "def secret():\n    return 1\n",
    "tests/test_engine.py": "def test_run():\n    assert True\n",
    "docs/guide.md": "# Guide\n\nStart an `Engine` and call `run`.\n\n## Retries\n\nSet retries.\n",
    "web/widget.ts": "export function draw(x: number): number {\n  return x;\n}\n",
}


@pytest.fixture
def qdrant():
    client = QdrantClient(":memory:")
    yield client
    client.close()


@pytest.fixture
def env(tmp_path, source_pool, qdrant):
    collection = CatLikeCollection(qdrant, "declarative", "HashingEmbedder", 64)
    collection.add_point("The user likes tea", [1.0] + [0.0] * 63, {"source": "chat"})
    extractor = CountingExtractor(source_pool)
    code = make_system(tmp_path, source_pool, extractor=extractor,
                       vector_sink=CatVectorSink(collection), repository_id="project")
    memory = AssociativeMemory(code)
    options = SourceOptions(cache_dir=str(tmp_path / "data" / "downloads"),
                            protected=(str(tmp_path / "data"),))
    yield code, memory, options, collection, extractor
    memory.close()
    code.close()


def points(collection, repo_id=None):
    records, _ = collection.get_all_points()
    found = [r.payload for r in records]
    if repo_id is not None:
        found = [p for p in found if p["metadata"].get("repo_id") == repo_id]
    return found


def by_public_name(code, repo_id):
    return {m["metadata"].get("public_name") or m["metadata"].get("title"): m
            for m in code.list_memories({"repo_id": repo_id})}


def git_repo(root, files):
    write_tree(root, files)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "-m", "init"], check=True)


def test_a_second_local_repository_is_indexed_labelled_and_incremental(tmp_path, env):
    code, memory, options, collection, extractor = env
    other = tmp_path / "other"
    git_repo(other, OTHER_REPO)
    (tmp_path / "outside.py").write_text("def stolen():\n    return 1\n")
    os.symlink(tmp_path / "outside.py", other / "otherlib" / "link.py")
    source = FolderSource(str(other), "other")
    result = memory.index(source, options)
    assert result.row.status == "ok" and result.row.origin == "folder"
    found = by_public_name(code, source.repo_id)
    assert {"otherlib.Engine", "otherlib.Engine.run", "draw", "other: Guide",
            "other: Guide > Retries"} <= set(found)
    assert not any(n and ("secret" in n or "_spin" in n or "_internal" in n or "test_run" in n
                          or "stolen" in n) for n in found)
    run = found["otherlib.Engine.run"]
    assert run["metadata"]["type"] == "source_entity"
    assert run["metadata"]["source_name"] == "other" and run["metadata"]["source_kind"] == "folder"
    assert "def run(self, job: str, *, retries: int = 0) -> bool" in run["text"]
    assert "return bool(job)" not in run["text"]  # an API reference, not the implementation
    assert found["other: Guide"]["metadata"]["type"] == "documentation"
    assert result.report.statuses["otherlib/link.py"] == "skipped:symlink"
    assert len(points(collection, source.repo_id)) == result.row.entities
    extractor.reset()
    again = memory.index(source, options)
    assert extractor.parsed == [] and again.report.parsed == 0
    (other / "otherlib" / "engine.py").write_text(OTHER_REPO["otherlib/engine.py"].replace(
        "retries: int = 0", "retries: int = 3"))
    third = memory.index(source, options)
    assert extractor.parsed == ["otherlib/engine.py"] and third.report.parsed == 1
    lookup = memory.api_table().lookup("otherlib.Engine.run")
    assert "retries: int = 3" in lookup.signature and lookup.source == "other"


def test_an_installed_distribution_is_read_from_the_environment(env):
    code, memory, options, collection, _ = env
    result = memory.index(PipSource("iniconfig"), options)
    version = importlib.metadata.version("iniconfig")
    assert (result.row.origin, result.row.version, result.row.status) == (
        "installed", version, "ok")
    found = by_public_name(code, "src-pip-iniconfig")
    assert {"iniconfig.IniConfig", "iniconfig.iscommentline", "iniconfig.ParseError"} <= set(found)
    assert "iniconfig._parse.parse_lines" not in found  # private module, not re-exported
    assert found["iniconfig.IniConfig"]["metadata"]["source_version"] == version
    assert any(t and t.startswith("iniconfig: ") for t in found)  # the package description
    assert all(p["metadata"]["source_version"] == version
               for p in points(collection, "src-pip-iniconfig"))
    assert memory.api_table().lookup("iniconfig.IniConfig").exists


def test_a_downloaded_distribution_comes_once_from_the_local_index(tmp_path, env):
    code, memory, options, collection, _ = env
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    with serve(tmp_path / "index") as (url, log):
        first = memory.index(PipSource("textkit"), _with(options, index_url=url))
    assert (first.row.origin, first.row.version, first.row.status) == ("downloaded", "1.0", "ok")
    assert log == ["/simple/textkit/", "/files/textkit-1.0-py3-none-any.whl"]
    found = by_public_name(code, "src-pip-textkit")
    assert {"textkit.Tokenizer", "textkit.Tokenizer.tokens", "textkit.words",
            "textkit.slugify", "textkit: Textkit > Slugs"} <= set(found)
    assert not any(n and ("_helper" in n or "_normalise" in n or "test_words" in n)
                   for n in found)
    assert "from textkit import slugify" in found["textkit.slugify"]["text"]
    assert "textkit" not in sys.modules  # read, never imported
    cached = [f for _, _, files in os.walk(options.cache_dir) for f in files]
    assert sorted(cached) == ["textkit-1.0.json", "textkit-1.0.zip"]  # no .py on disk
    second = memory.index(PipSource("textkit"), _with(options, index_url="http://127.0.0.1:9/"))
    assert second.row.origin == "cached" and second.report.parsed == 0


def test_a_new_version_replaces_the_old_entities_everywhere(tmp_path, env):
    code, memory, options, collection, _ = env
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    with serve(tmp_path / "index") as (url, _):
        memory.index(PipSource("textkit"), _with(options, index_url=url))
        publish(tmp_path / "index", "textkit", "2.0", TEXTKIT_V2)
        result = memory.index(PipSource("textkit", "==2.0"), _with(options, index_url=url))
    assert result.row.version == "2.0"
    found = by_public_name(code, "src-pip-textkit")
    assert "textkit.split_words" in found and "textkit.words" not in found
    assert {m["metadata"]["source_version"] for m in found.values()} == {"2.0"}
    assert {p["metadata"]["source_version"] for p in points(collection, "src-pip-textkit")} == {
        "2.0"}
    assert len(points(collection, "src-pip-textkit")) == len(found) == result.row.entities
    assert "max_length" in memory.api_table().lookup("textkit.slugify").signature
    assert not memory.api_table().lookup("textkit.words").exists


def test_removing_a_source_removes_its_entities_from_store_and_collection(tmp_path, env):
    code, memory, options, collection, _ = env
    repo = tmp_path / "project"
    write_tree(repo, {"app.py": "def main():\n    return 1\n"})
    code.index_repository(str(repo))
    other = tmp_path / "other"
    write_tree(other, OTHER_REPO)
    folder = FolderSource(str(other), "other")
    memory.index(folder, options)
    memory.index(PipSource("iniconfig"), options)
    assert points(collection, folder.repo_id) and points(collection, "src-pip-iniconfig")
    deleted = memory.remove(folder.repo_id)
    assert deleted > 0 and code.count_memories({"repo_id": folder.repo_id}) == 0
    assert points(collection, folder.repo_id) == []
    assert [r.name for r in memory.rows()] == ["iniconfig"]
    assert memory.api_table().lookup("otherlib.Engine") is None
    _, removed = memory.sync([], options)  # no longer configured: removed by the next pass
    assert [r.name for r in removed] == ["iniconfig"]
    assert points(collection, "src-pip-iniconfig") == [] and memory.rows() == []
    assert len(points(collection, "project")) == code.count_memories({"repo_id": "project"}) > 0
    assert any(p["page_content"] == "The user likes tea" for p in points(collection))


def test_caps_keep_the_public_api_first_and_say_so(tmp_path, env):
    code, memory, options, _, _ = env
    other = tmp_path / "other"
    write_tree(other, {**OTHER_REPO, "zzz/deep/more.py": "def extra():\n    return 1\n"})
    source = FolderSource(str(other), "other")
    result = memory.index(source, _with(options, max_entities=3))
    assert result.row.status == "capped" and "entity cap" in result.row.detail
    assert result.row.entities <= 3
    assert "otherlib.Engine" in by_public_name(code, source.repo_id)
    assert "skipped:entity_cap" in result.report.statuses.values()
    grown = memory.index(source, _with(options, max_entities=1000))
    assert grown.row.status == "ok" and grown.row.entities > result.row.entities
    small = memory.index(source, _with(options, max_bytes=200))
    assert small.row.status == "capped" and "size cap" in small.row.detail
    assert "skipped:source_size_cap" in small.report.statuses.values()


def test_a_source_that_cannot_be_read_keeps_what_was_indexed(tmp_path, env):
    code, memory, options, _, _ = env
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    with serve(tmp_path / "index") as (url, _):
        memory.index(PipSource("textkit"), _with(options, index_url=url))
        failed = memory.index(PipSource("textkit", "==9.0"), _with(options, index_url=url))
    assert failed.report is None and failed.row.status == "error"
    assert "offers no file of pip:textkit==9.0" in failed.row.detail
    assert failed.row.version == "1.0" and failed.row.entities > 0
    assert code.count_memories({"repo_id": "src-pip-textkit"}) == failed.row.entities
    missing = memory.index(PipSource("no-such-package-here"), _with(options, index_url=""))
    assert "not installed here and no package index" in missing.row.detail


def test_system_and_data_folders_are_refused_as_sources(tmp_path, env):
    _, memory, options, _, _ = env
    (tmp_path / "data").mkdir(exist_ok=True)
    assert "system folder" in memory.index(FolderSource("/", "root"), options).row.detail
    assert "overlaps" in memory.index(FolderSource(str(tmp_path), "tmp"), options).row.detail


def _with(options: SourceOptions, **changes) -> SourceOptions:
    from dataclasses import replace

    return replace(options, **changes)


def test_after_a_restart_nothing_is_read_again_and_lookups_still_work(tmp_path, env,
                                                                     source_pool):
    code, memory, options, collection, _ = env
    other = tmp_path / "other"
    write_tree(other, OTHER_REPO)
    source = FolderSource(str(other), "other")
    first = memory.index(source, options)
    memory.close()
    code.close()  # the Cat restarts: every handle is new, the files stay
    extractor = CountingExtractor(source_pool)
    reopened = make_system(tmp_path, source_pool, extractor=extractor,
                           vector_sink=CatVectorSink(collection), repository_id="project")
    again = AssociativeMemory(reopened)
    try:
        assert [r.name for r in again.rows()] == ["other"]
        assert again.api_table().lookup("otherlib.Engine.run").exists
        result = again.index(source, options)
        assert extractor.parsed == [] and result.row.entities == first.row.entities
        assert len(points(collection, source.repo_id)) == first.row.entities
    finally:
        again.close()
        reopened.close()


def test_a_damaged_cache_fails_that_source_only(tmp_path, env):
    code, memory, options, _, _ = env
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    with serve(tmp_path / "index") as (url, _):
        memory.index(PipSource("textkit"), _with(options, index_url=url))
    with open(os.path.join(options.cache_dir, "textkit-1.0.zip"), "wb") as fh:
        fh.write(b"PK\x03\x04 damaged")
    results, _ = memory.sync([PipSource("textkit"), PipSource("iniconfig")], options)
    assert [r.row.status for r in results] == ["error", "ok"]
    assert "damaged" in results[0].row.detail and results[0].row.entities > 0
    with serve(tmp_path / "index") as (url, log):  # with an index, it is fetched again
        again = memory.index(PipSource("textkit"), _with(options, index_url=url))
    assert again.row.status == "ok" and again.row.origin == "downloaded" and len(log) == 2


def test_an_unreachable_index_is_tried_once_per_pass(env):
    _, memory, options, _, _ = env
    down = _with(options, index_url="http://127.0.0.1:9/simple/")
    results, _ = memory.sync([PipSource("nope-one"), PipSource("nope-two")], down)
    first, second = (r.row.detail for r in results)
    assert first.startswith("cannot reach the package index http://127.0.0.1:9/simple/")
    assert second.endswith("(tried once in this pass)")
    bad = memory.index(PipSource("nope"), _with(options, index_url="ftp://example/simple"))
    assert "package index URL must be http(s) or file" in bad.row.detail

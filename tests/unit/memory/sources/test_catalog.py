"""catalog: the per-source and per-file rows survive a reopen and replace atomically."""

from __future__ import annotations

import sqlite3

import pytest

from codemem.memory.errors import StoreError
from codemem.memory.sources.api_facts import read_module
from codemem.memory.sources.catalog import FileFacts, SourceCatalog, SourceRow

MODULE = b"def area(w, h=1):\n    return w * h\n\nclass Box:\n    def __init__(self, n):\n" \
         b"        self.n = n\n"


@pytest.fixture
def catalog(tmp_path):
    opened = SourceCatalog(str(tmp_path / "project.sqlite"))
    yield opened
    opened.close()


def _row(repo_id: str, name: str, **changes: object) -> SourceRow:
    return SourceRow(repo_id, name, "pip", f"{name}==1.0", **changes)


def test_sources_round_trip_sorted_by_name(tmp_path, catalog):
    catalog.put_source(_row("r2", "zeta", version="1.0", entities=3, status="ok"))
    catalog.put_source(_row("r1", "alpha", labels="v1", detail="capped at 10",
                            status="capped"))
    assert [r.name for r in catalog.sources()] == ["alpha", "zeta"]
    assert catalog.source("r2") == _row("r2", "zeta", version="1.0", entities=3, status="ok")
    assert catalog.source("missing") is None
    catalog.put_source(_row("r2", "zeta", version="2.0"))  # replaces, never duplicates
    assert [(r.repo_id, r.version) for r in catalog.sources()] == [("r1", ""), ("r2", "2.0")]
    catalog.close()
    reopened = SourceCatalog(str(tmp_path / "project.sqlite"))
    assert reopened.source("r1").detail == "capped at 10"
    reopened.close()


def test_file_rows_keep_module_facts(catalog):
    facts = read_module("pkg/geo.py", "pkg.geo", MODULE)
    rows = [FileFacts("pkg/geo.py", "pkg.geo", 60, 123, facts, "h1", 2, False),
            FileFacts("README.md", entities=4, capped=True)]
    catalog.replace_files("r1", rows)
    assert catalog.files("r1") == {r.path: r for r in rows}
    assert catalog.files("r2") == {}
    [(repo_id, stored)] = catalog.module_facts()
    assert repo_id == "r1" and stored == facts
    assert stored.functions["area"].params[1].default


def test_replace_files_replaces_all_rows_of_that_source_only(catalog):
    catalog.replace_files("r1", [FileFacts("a.py"), FileFacts("b.py")])
    catalog.replace_files("r2", [FileFacts("c.py")])
    catalog.replace_files("r1", [FileFacts("b.py", entities=7)])
    assert catalog.files("r1") == {"b.py": FileFacts("b.py", entities=7)}
    assert set(catalog.files("r2")) == {"c.py"}


def test_drop_source_removes_its_files(catalog):
    catalog.put_source(_row("r1", "alpha"))
    catalog.replace_files("r1", [FileFacts("a.py")])
    catalog.drop_source("r1")
    assert catalog.sources() == [] and catalog.files("r1") == {}


def test_a_damaged_facts_blob_reads_as_unknown(tmp_path, catalog):
    catalog.replace_files("r1", [FileFacts("a.py", "a", facts=read_module("a.py", "a", b""))])
    conn = sqlite3.connect(str(tmp_path / "project.sqlite"), isolation_level=None)
    conn.execute("UPDATE assoc_files SET facts='{not json' WHERE path='a.py'")
    conn.close()
    assert catalog.files("r1")["a.py"].facts is None
    assert catalog.module_facts() == []


def test_a_failed_write_rolls_back(catalog):
    catalog.replace_files("r1", [FileFacts("a.py")])
    with pytest.raises(StoreError):  # the same path twice breaks the primary key
        catalog.replace_files("r1", [FileFacts("b.py"), FileFacts("b.py")])
    assert set(catalog.files("r1")) == {"a.py"}


def test_an_unusable_path_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="source catalog"):
        SourceCatalog(str(tmp_path / "missing" / "dir" / "x.sqlite"))

"""Worker pool: a parser crash or hang is reported against its file; the rest is indexed."""

from __future__ import annotations

from codemem.memory.extract.pool import ExtractionPool, PoolConfig
from codemem.memory.extract.safety import Limits

NO_PRECHECK = Limits(max_bracket_depth=10**9, max_line_chars=10**9)


def _items():
    items = [(f"pkg/ok{i}.py", b"def f%d(x):\n    return x\n" % i) for i in range(12)]
    # 10,000 nested parentheses: libcst 1.9 dies with SIGSEGV (docs/threat-model.md)
    items.insert(3, ("pkg/deep.py", b"x = " + b"(" * 10000 + b"1" + b")" * 10000 + b"\n"))
    items.insert(7, ("pkg/exit_me.py", b"x = 1\n"))
    items.insert(9, ("pkg/hang_me.py", b"x = 2\n"))
    items += [(f"pkg/after{i}.go", b"package p\nfunc F%d() {}\n" % i) for i in range(4)]
    return items


def test_crashes_and_hangs_are_contained():
    config = PoolConfig(
        workers=2, python_engine="libcst", limits=NO_PRECHECK, file_timeout=5.0, batch_files=8,
        test_faults={"crash": "exit_me", "hang": "hang_me"},
    )
    with ExtractionPool(config) as pool:
        results = {r.path: r for r in pool.extract(_items())}
        assert len(results) == 19
        assert results["pkg/deep.py"].status == "error:worker_crashed"
        assert "SIGSEGV" in results["pkg/deep.py"].detail
        assert results["pkg/exit_me.py"].status == "error:worker_crashed"
        assert "status 70" in results["pkg/exit_me.py"].detail
        assert results["pkg/hang_me.py"].status == "error:timeout"
        others = [r for p, r in results.items() if "ok" in p or "after" in p]
        assert len(others) == 16 and all(r.status == "indexed" for r in others)
        assert all(len(r.entities) == 1 for r in others)
        assert pool.stats.crashes == 2 and pool.stats.timeouts == 1
        # the pool stays usable after replacing its workers
        again = list(pool.extract([("z.py", b"class Z:\n    pass\n")]))
        assert again[0].status == "indexed" and again[0].entities[0].name == "Z"


def test_pool_output_matches_in_process():
    from codemem.memory.extract.api import extract_file

    items = [(p, d) for p, d in _items() if "ok" in p]
    with ExtractionPool(workers=1) as pool:
        pooled = sorted(pool.extract(items), key=lambda r: r.path)
    local = sorted((extract_file(p, d) for p, d in items), key=lambda r: r.path)
    assert pooled == local


def test_worker_that_cannot_start_is_a_typed_error(monkeypatch, tmp_path):
    import pytest

    from codemem.memory.errors import BackendUnavailable
    from codemem.memory.extract import pool as pool_module

    monkeypatch.setattr(pool_module, "_PLUGIN_ROOT", str(tmp_path))  # no worker module there
    with ExtractionPool(workers=1, startup_timeout=30.0) as pool, pytest.raises(
        BackendUnavailable
    ):
        list(pool.extract([("a.py", b"x = 1\n")]))

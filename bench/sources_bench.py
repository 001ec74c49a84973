"""Associative sources benchmark: installed distributions indexed as library sources.

Run from the plugin root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.sources_bench [--packages iniconfig,pydantic,numpy]
        [--workers 2] [--runs 5]

Each package of the running environment is indexed into a fresh ``CodeMemorySystem`` (local
``HashingEmbedder``, the crash-contained parsing pool): resolve, walk, read the module facts,
compute the public surface, parse, embed, store. Reported per package: files read, entities
kept, cold time, warm (nothing changed) re-index time, and the median cost of the ``api``
validation check on a draft that makes 200 calls into the package. Medians of ``--runs`` warm
runs; the machine is shared, so compare figures of the same run only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from ..codegen.checks.api_check import check_library_calls
from ..memory.codebase import CodeMemorySystem
from ..memory.sources.indexing import AssociativeMemory, SourceOptions
from ..memory.sources.spec import PipSource


async def _never_called(prompt: str) -> str:
    raise AssertionError("indexing must not call the LLM")


def _draft(names: list[str], calls: int) -> str:
    """A draft that imports the package's public names and calls them ``calls`` times."""
    lines = [f"import {names[0].split('.')[0]}", "", "", "def use(x):"]
    for i in range(calls):
        lines.append(f"    {names[i % len(names)]}(x, key={i})")
    return "\n".join(lines) + "\n"


def bench_package(name: str, workers: int, runs: int) -> dict[str, object]:
    folder = tempfile.mkdtemp(prefix="sources-bench-")
    code = CodeMemorySystem(_never_called, db_path=os.path.join(folder, "code.db"),
                            workers=workers)
    memory = AssociativeMemory(code)
    options = SourceOptions(cache_dir=os.path.join(folder, "downloads"))
    try:
        start = time.perf_counter()
        cold = memory.index(PipSource(name), options)
        cold_s = time.perf_counter() - start
        warm = []
        for _ in range(runs):
            start = time.perf_counter()
            memory.index(PipSource(name), options)
            warm.append(time.perf_counter() - start)
        table = memory.api_table()
        public = [m["metadata"]["public_name"] for m in code.list_memories(
            {"repo_id": cold.row.repo_id, "type": "source_entity", "kind": "function"})][:50]
        draft = {"d.py": _draft(public or [f"{name}.x"], 200)}
        checks = []
        for _ in range(runs):
            start = time.perf_counter()
            check_library_calls(draft, ["d.py"], memory.api_table())
            checks.append(time.perf_counter() - start)
        report = cold.report
        return {"package": f"{name} {cold.row.version}", "status": cold.row.status,
                "files": report.parsed if report else 0, "entities": cold.row.entities,
                "modules": len(table), "cold_s": cold_s, "warm_s": statistics.median(warm),
                "check_ms": statistics.median(checks) * 1000}
    finally:
        memory.close()
        code.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--packages", default="iniconfig,pydantic,qdrant-client,numpy")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = [bench_package(p.strip(), args.workers, args.runs)
            for p in args.packages.split(",") if p.strip()]
    print("| package | status | files parsed | entities kept | modules with facts | "
          "cold index | warm re-index (median) | api check, 200 calls (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['package']} | {r['status']} | {r['files']} | {r['entities']} | "
              f"{r['modules']} | {r['cold_s']:.2f} s | {r['warm_s']:.2f} s | "
              f"{r['check_ms']:.1f} ms |")


if __name__ == "__main__":
    main()

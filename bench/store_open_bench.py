"""What an integrity check costs when the memory database opens (a damaged store is caught).

Run from the plugin root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.store_open_bench [--sizes 5000 100000] [--runs 5]

Builds a database of N memories of about 1 KB each (with 256-dim vectors, as the hashing
embedder stores them) and times, with a warm page cache: the header check every open runs, a
whole ``MemoryStore`` open (header check, migrations, and ``quick_check`` when the file is at
most ``QUICK_CHECK_MAX_BYTES``), and the two SQLite checks on their own.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..memory.embedding import HashingEmbedder
from ..memory.store.integrity import QUICK_CHECK_MAX_BYTES, header_problem
from ..memory.store.memory_store import MemoryStore
from ..memory.system import MemorySystem
from .timing import median_ms

MiB = 1 << 20


async def _never_called(prompt: str) -> str:
    raise AssertionError("building the database must not call the LLM")


def build(path: Path, count: int, dimension: int = 256) -> None:
    """``count`` code-like memories with vectors, added 2,000 per transaction."""
    rng = random.Random(1)
    words = [f"name{i}" for i in range(5000)] + ["def", "return", "self", "import", "class"]
    system = MemorySystem(_never_called, str(path), embedder=HashingEmbedder(dimension))
    for start in range(0, count, 2000):
        items = []
        for i in range(start, min(count, start + 2000)):
            lines = ("    " + " ".join(rng.choice(words) for _ in range(8)) for _ in range(12))
            vector = np.random.default_rng(i).standard_normal(dimension).astype(np.float32)
            items.append((f"def func_{i}(x):\n" + "\n".join(lines),
                          {"type": "code_entity", "path": f"pkg/m{i % 1700}.py"}, vector))
        system.add_memories(items)
    system.close()


def _pragma(path: Path, name: str) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute(f"PRAGMA {name}").fetchone()[0] == "ok"
    finally:
        conn.close()


def _evict(path: Path) -> None:
    """Drop the file's pages from the page cache: the first open after a host restart."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _cold(fn: Callable[[], object], path: Path) -> Callable[[], object]:
    def run() -> object:
        _evict(path)
        return fn()
    return run


def measure(count: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="store-open-bench-") as tmp:
        path = Path(tmp) / "memories.db"
        build(path, count)
        with open(path, "rb") as handle:  # warm the page cache, as a running machine has it
            while handle.read(16 * MiB):
                pass
        return {
            "count": count, "mib": os.path.getsize(path) / MiB,
            "header_ms": median_ms(lambda: header_problem(str(path)), runs),
            "open_ms": median_ms(lambda: MemoryStore(str(path)).close(), runs),
            "quick_ms": median_ms(lambda: _pragma(path, "quick_check"), runs),
            "quick_cold_ms": median_ms(_cold(lambda: _pragma(path, "quick_check"), path), runs),
            "integrity_ms": median_ms(lambda: _pragma(path, "integrity_check"), runs),
        }


def markdown(rows: list[dict[str, float]], runs: int, sizes: list[int]) -> str:
    lines = ["", "## Store integrity at open (bench/store_open_bench.py)", "",
             f"Command: `.venv/bin/python -m tests.run bench.store_open_bench --sizes "
             f"{' '.join(map(str, sizes))} --runs {runs}`; medians of {runs} runs, warm page "
             f"cache, shared 2-core machine. `MemoryStore` open runs `quick_check` only up to "
             f"{QUICK_CHECK_MAX_BYTES // MiB} MiB.", "",
             "| memories | file MiB | header check ms | MemoryStore open ms | quick_check ms | "
             "quick_check ms, evicted from the page cache | integrity_check ms |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['count']:,} | {r['mib']:.0f} | {r['header_ms']:.2f} | "
                     f"{r['open_ms']:.1f} | {r['quick_ms']:.0f} | {r['quick_cold_ms']:.0f} | "
                     f"{r['integrity_ms']:.0f} |")
    return "\n".join(lines + [""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 100_000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = [measure(count, args.runs) for count in args.sizes]
    print(markdown(rows, args.runs, args.sizes))


if __name__ == "__main__":
    main()

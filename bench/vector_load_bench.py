"""How long the dense stage takes to load its vector index, and how much memory it takes.

Run from the plugin root (prints Markdown for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.vector_load_bench [--rows 68074] [--dimension 2367]

The defaults are a large repository's case: the standard library's 68,074 entities with the
Cat's default DumbEmbedder (2,367 dimensions). A ``MemorySystem`` database with that many stored
vectors is built once; then each way of loading runs in a fresh child process, which reports its
wall time and how far its peak RSS rose above its RSS before the load:

- ``before``: the obvious algorithm (every blob fetched into a list, joined into one bytes
  object, then copied row by row into arrays that double when full), implemented here for the
  comparison;
- ``one pass``: ``DenseStage`` today (blobs streamed from the cursor into a matrix allocated
  once), forced with ``dense_ranking="always"``;
- ``auto``: ``dense_ranking="auto"`` with an embedder named ``DumbEmbedder``: judged useless,
  so nothing is loaded at all.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ..memory.embedding import VectorIndex
from ..memory.system import MemorySystem

MiB = 1 << 20
KEY = "bench-vectors"


class FixedEmbedder:
    """Returns one fixed vector: the bench gives every memory its own vector anyway."""

    def __init__(self, dimension: int, name: str = KEY) -> None:
        self.dimension, self.name = dimension, name

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), self.dimension), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(self.dimension, dtype=np.float32)


class DumbEmbedder(FixedEmbedder):
    """Named like the Cat's default embedder, which the dense stage recognises as weak."""


async def _no_llm(prompt: str) -> str:
    raise AssertionError("loading vectors must not call the LLM")


def build(db: Path, rows: int, dimension: int) -> None:
    """A database of ``rows`` memories, each with its own random unit vector."""
    rng = np.random.default_rng(16)
    with MemorySystem(_no_llm, str(db), embedder=FixedEmbedder(dimension),
                      dense_ranking="always") as system:
        for start in range(0, rows, 2000):
            count = min(2000, rows - start)
            vectors = rng.standard_normal((count, dimension), dtype=np.float32)
            system.add_memories([(f"memory {start + i}", {"n": start + i}, vectors[i])
                                 for i in range(count)])
    conn = sqlite3.connect(str(db))  # as after a clean shutdown: no WAL left to replay
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MiB


def _peak_mib() -> float:
    """This process's peak RSS (VmHWM: unlike ``ru_maxrss``, not inherited from the parent
    that forked it, which here is the process that built the database)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _load_before(db: Path, dimension: int) -> tuple[int, float]:
    """The obvious algorithm: fetchall, join, then row-by-row puts with doubling."""
    conn = sqlite3.connect(str(db))
    have = conn.execute("SELECT seq, embedding FROM memories WHERE embedder=?",
                        (f"{KEY}:{dimension}",)).fetchall()
    matrix = np.frombuffer(b"".join(blob for _, blob in have), dtype=np.float32)
    matrix = matrix.reshape(len(have), dimension)
    keys, rows = np.zeros(0, dtype=np.int64), np.zeros((0, dimension), dtype=np.float32)
    for size, (seq, _) in enumerate(have):
        if size == len(keys):
            capacity = max(1024, 2 * len(keys))
            grown = np.zeros((capacity, dimension), dtype=np.float32)
            grown[:size] = rows[:size]
            grown_keys = np.zeros(capacity, dtype=np.int64)
            grown_keys[:size] = keys[:size]
            rows, keys = grown, grown_keys
        rows[size], keys[size] = matrix[size], seq
    conn.close()
    loaded = len(have)
    del have, matrix  # what stays is the index itself (rows, keys), as in the old DenseStage
    return loaded, _rss_mib()


def _load_system(db: Path, dimension: int, mode: str) -> tuple[int, float]:
    embedder = (DumbEmbedder(dimension) if mode == "auto" else FixedEmbedder(dimension))
    with MemorySystem(_no_llm, str(db), embedder=embedder,
                      dense_ranking="auto" if mode == "auto" else "always") as system:
        system.candidates("memory 7", limit=5)  # the first query loads the index (if used)
        index = system._dense._index
        return (len(index) if isinstance(index, VectorIndex) else 0), _rss_mib()


def child(db: Path, dimension: int, mode: str) -> None:
    """Run one load in this (fresh) process and print its figures as JSON."""
    before = _rss_mib()
    start = time.perf_counter()
    loaded, after = (_load_before(db, dimension) if mode == "before"
                     else _load_system(db, dimension, mode))
    seconds = time.perf_counter() - start
    peak = _peak_mib()
    print(json.dumps({"mode": mode, "rows": loaded, "seconds": seconds,
                      "peak_rise_mib": peak - before, "rss_after_mib": after - before}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=68_074)
    parser.add_argument("--dimension", type=int, default=2_367)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", nargs=2, metavar=("DB", "MODE"))
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.dimension, args.child[1])
        return
    with tempfile.TemporaryDirectory(prefix="codemem-vectors-") as tmp:
        db = Path(tmp) / "vectors.db"
        start = time.perf_counter()
        build(db, args.rows, args.dimension)
        print(f"built {args.rows:,} x {args.dimension} vectors in "
              f"{time.perf_counter() - start:.0f} s ({db.stat().st_size / MiB:,.0f} MiB)\n")
        print("| load | rows | seconds | peak RSS rise MiB | RSS rise after the load MiB |\n"
              "|---|---|---|---|---|")
        for mode in ("before", "one pass", "auto"):
            runs = [_run_child(db, args.dimension, mode) for _ in range(args.runs)]
            r = max(runs, key=lambda run: run["peak_rise_mib"])
            seconds = statistics.median(run["seconds"] for run in runs)
            print(f"| {mode} | {r['rows']:,} | {seconds:.2f} | {r['peak_rise_mib']:,.0f} | "
                  f"{r['rss_after_mib']:,.0f} |", flush=True)
        print(f"\nseconds: median of {args.runs} fresh processes; memory: the largest run")


def _run_child(db: Path, dimension: int, mode: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-m", "tests.run", "bench.vector_load_bench",
                          "--dimension", str(dimension), "--child", str(db), mode],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()

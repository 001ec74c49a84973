"""Benchmark of the commit index: commits/s, log and diff latency for a 1,000-commit task.

Run from the plugin root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.commit_bench --commits 1000

Each commit holds 5 files of ~2 KB (one changes per commit) plus the two JSON payloads; objects
and refs are fsynced as in production. "cold" = a new ``CommitIndex`` (empty header cache).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from ..memory.commits.index import CommitIndex
from .timing import median_ms


def _files(i: int) -> dict[str, str]:
    body = "".join(f"def f{k}(x):\n    return x + {k}\n" for k in range(60))
    files = {f"pkg/mod{j}.py": body for j in range(5)}
    files[f"pkg/mod{i % 5}.py"] = body + f"\nVERSION = {i}\n"
    return files


def run(backend: str, commits: int, workdir: Path) -> dict[str, float]:
    """Fill one task with ``commits`` drafts and time the read paths."""
    repo = workdir / f"{backend}.git"
    ix = CommitIndex(repo, backend=backend)
    ids = []
    start = time.perf_counter()
    for i in range(commits):
        ids.append(ix.commit("bench", _files(i), name=f"draft {i}", reason="benchmark",
                             metacode={"i": i}, snapshot={"iteration": i, "notes": ["x"] * 20},
                             verdict="passed" if i % 3 else "failed"))  # fmt: skip
    elapsed = time.perf_counter() - start
    ix.close()
    cold = CommitIndex(repo, backend=backend)
    figures = {
        "commits_per_s": commits / elapsed,
        "log_cold_ms": median_ms(lambda: cold.log("bench"), 1),
        "log_warm_ms": median_ms(lambda: cold.log("bench"), 5),
        "log_filtered_ms": median_ms(lambda: cold.log("bench", verdict="failed", text="9"), 5),
        "diff_adjacent_ms": median_ms(lambda: cold.diff(ids[-2], ids[-1]), 20),
        "diff_first_last_ms": median_ms(lambda: cold.diff(ids[0], ids[-1]), 20),
        "show_ms": median_ms(lambda: cold.show(ids[commits // 2]), 20),
        "rollback_redo_ms": median_ms(lambda: (cold.rollback("bench"), cold.redo("bench")), 5),
        "search_episodes_cold_ms": median_ms(lambda: cold.search_episodes("draft 99"), 1),
        "search_episodes_warm_ms": median_ms(lambda: cold.search_episodes("failed draft"), 3),
    }
    cold.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--backends", default="dulwich,gitpython")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="commit_bench_"))
    try:
        results = {b: run(b, args.commits, workdir) for b in args.backends.split(",")}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    names = list(next(iter(results.values())))
    print(f"| metric ({args.commits} commits, one task) | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{results[b][name]:.1f}" for b in results) + " |")


if __name__ == "__main__":
    main()

"""Impact benchmark: the cost of recording who uses what, and of asking it, on a real tree.

Run from the plugin root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.impact_bench [--root PATH] [--queries 200]

The tree (default: the CPython standard library's ``.py`` files, copied to a temporary folder)
is indexed into fresh databases with the local ``HashingEmbedder``, as a library source
(``index_tree``: no rows) and as a repository (``index_repository``: the ``code_defs``/
``code_refs`` rows are written), alternated twice, best of two each: the difference is what
recording uses costs. Then ``impact`` is
asked for ``--queries`` top-level functions and classes drawn at random (seeded): wall time per
query, sites found, lookups cut at their row limit.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sysconfig
import tempfile
import time
from pathlib import Path

from ..memory.codebase import CodeMemorySystem
from ..memory.codeindex.walk import default_walker
from ..memory.embedding import HashingEmbedder


async def _never_called(prompt: str) -> str:
    raise AssertionError("indexing and impact must not call the LLM")


def _system(db: Path) -> CodeMemorySystem:
    return CodeMemorySystem(_never_called, str(db), embedder=HashingEmbedder(256),
                            sink_mode="none", workers=2)


def _copy(source: Path, dest: Path) -> int:
    files = [p for p in source.rglob("*.py") if "site-packages" not in p.parts
             and "__pycache__" not in p.parts and p.is_file() and p.stat().st_size <= 1 << 20]
    for path in files:
        target = dest / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codemem-impact-bench-") as tmp:
        tree = Path(tmp) / "tree"
        count = _copy(Path(args.root), tree)
        with_rows, without = [], []
        for run in range(2):  # alternated, best of two: the page cache favours no one
            plain = _system(Path(tmp) / f"plain{run}.db")
            start = time.perf_counter()
            plain.index_tree(str(tree), default_walker(str(tree), [], True,
                                                       plain.max_file_bytes),
                             repository_id="plain")
            without.append(time.perf_counter() - start)
            plain.close()
            repo = _system(Path(tmp) / f"repo{run}.db")
            start = time.perf_counter()
            repo.index_repository(str(tree))
            with_rows.append(time.perf_counter() - start)
            if run == 0:
                repo.close()
        defs, refs, targets = repo._manifest.read(lambda c: (
            c.execute("SELECT count(*) FROM code_defs").fetchone()[0],
            c.execute("SELECT count(*) FROM code_refs").fetchone()[0],
            c.execute("SELECT path, qualified_name FROM code_defs WHERE kind IN "
                      "('function', 'class') AND qualified_name NOT LIKE '%.%' "
                      "ORDER BY path, qualified_name").fetchall()))
        chosen = random.Random(args.seed).sample(targets, min(args.queries, len(targets)))
        times, sites, cut = [], [], 0
        for path, name in chosen:
            start = time.perf_counter()
            impact = repo.impact(str(tree), path, name)
            times.append(1000 * (time.perf_counter() - start))
            sites.append(len(impact.sites))
            cut += impact.truncated
        repo.close()
    times.sort()
    print(f"| tree | files | entities | use rows | index with rows | index without | "
          f"impact median / p95 / max | sites per query (mean / max) | cut |\n"
          f"|---|---|---|---|---|---|---|---|---|\n"
          f"| {args.root} | {count} | {defs} | {refs} | {min(with_rows):.1f} s | "
          f"{min(without):.1f} s "
          f"| {statistics.median(times):.1f} / {times[int(0.95 * (len(times) - 1))]:.1f} / "
          f"{times[-1]:.1f} ms | {statistics.mean(sites):.1f} / {max(sites)} | "
          f"{cut} of {len(times)} |")


if __name__ == "__main__":
    main()

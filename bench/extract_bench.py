"""Benchmark of the extraction stage on the CPython standard library of the running interpreter.

Run from the plugin root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.extract_bench --workers 2 --agreement 300

Measures files/s, lines/s and MB/s for ``ast.parse`` (in-process, one core) against our
extraction in-process and through the crash-isolated worker pool, the ratio to ``ast.parse``
(target: pool on 2 cores within 3x of ast.parse, i.e. ratio >= 0.33), peak RSS of this process
and of the workers, and how often the libcst and tree-sitter Python engines agree.
``load_corpus`` and ``run_pool`` are reusable by the end-to-end indexing benchmark.
"""

from __future__ import annotations

import argparse
import ast
import platform
import random
import resource
import sysconfig
import time
import warnings
from pathlib import Path

from ..memory.extract.api import extract_file
from ..memory.extract.pool import ExtractionPool, PoolConfig

MiB = 1 << 20


def stdlib_root() -> Path:
    """The standard library directory of the running interpreter."""
    return Path(sysconfig.get_paths()["stdlib"])


def load_corpus(root: Path | None = None, limit: int | None = None) -> list[tuple[str, bytes]]:
    """``(relative path, bytes)`` of every ``.py`` file under 1 MiB (site-packages excluded)."""
    root = root or stdlib_root()
    files = sorted(
        p for p in root.rglob("*.py")
        if "site-packages" not in p.parts and "dist-packages" not in p.parts and p.is_file()
    )
    out = []
    for path in files[:limit] if limit else files:
        data = path.read_bytes()
        if len(data) <= MiB:
            out.append((path.relative_to(root).as_posix(), data))
    return out


def _rate(
    label: str, seconds: float, corpus: list[tuple[str, bytes]], lines: int, cpu: float
) -> dict:
    size = sum(len(d) for _, d in corpus)
    return {
        "label": label, "seconds": seconds, "files_s": len(corpus) / seconds,
        "lines_s": lines / seconds, "mb_s": size / MiB / seconds, "cpu": cpu,
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ast(corpus: list[tuple[str, bytes]]) -> tuple[float, int, float]:
    """Wall seconds for ``ast.parse`` over the corpus, files it rejected, CPU seconds."""
    failures = 0
    cpu = time.process_time()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, data in corpus:
            try:
                ast.parse(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                failures += 1
    return time.perf_counter() - start, failures, time.process_time() - cpu


def run_inprocess(corpus: list[tuple[str, bytes]]) -> tuple[float, dict[str, int], int, float]:
    """Wall seconds for in-process ``extract_file``, statuses, entity count, CPU seconds."""
    statuses: dict[str, int] = {}
    entities = 0
    cpu = time.process_time()
    start = time.perf_counter()
    for path, data in corpus:
        result = extract_file(path, data)
        statuses[result.status] = statuses.get(result.status, 0) + 1
        entities += len(result.entities)
    return time.perf_counter() - start, statuses, entities, time.process_time() - cpu


def run_pool(corpus: list[tuple[str, bytes]], workers: int, engine: str = "treesitter") -> dict:
    """Wall seconds through an ``ExtractionPool`` (worker start-up included), counters, and
    the workers' CPU seconds."""
    cpu = _children_cpu()
    start = time.perf_counter()
    with ExtractionPool(PoolConfig(workers=workers, python_engine=engine)) as pool:
        statuses: dict[str, int] = {}
        for result in pool.extract(corpus):
            statuses[result.status] = statuses.get(result.status, 0) + 1
        stats = pool.stats
    return {"seconds": time.perf_counter() - start, "statuses": statuses, "stats": stats,
            "cpu": _children_cpu() - cpu}


def agreement(corpus: list[tuple[str, bytes]], sample: int, seed: int = 7) -> tuple[int, int]:
    """(files where libcst and tree-sitter give identical entities, files compared)."""
    rng = random.Random(seed)
    picked = rng.sample(corpus, min(sample, len(corpus)))
    same = compared = 0
    for path, data in picked:
        exact = extract_file(path, data, python_engine="libcst")
        if exact.status != "indexed":
            continue
        fast = extract_file(path, data)
        compared += 1
        same += exact.entities == fast.entities and exact.imports == fast.imports
    return same, compared


def _row(r: dict, base: dict) -> str:
    ratio = r["files_s"] / base["files_s"]
    return (f"| {r['label']} | {r['seconds']:.1f} | {r['cpu']:.1f} | {r['files_s']:.0f} | "
            f"{r['lines_s']:,.0f} | {r['mb_s']:.2f} | {ratio:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="first N files only")
    parser.add_argument("--agreement", type=int, default=300, help="files for libcst vs ts")
    args = parser.parse_args()
    corpus = load_corpus(limit=args.limit)
    lines = sum(d.count(b"\n") for _, d in corpus)
    size = sum(len(d) for _, d in corpus)
    ast_s, ast_fail, ast_cpu = run_ast(corpus)
    base = _rate("`ast.parse` (in-process, 1 core)", ast_s, corpus, lines, ast_cpu)
    inproc_s, statuses, entities, inproc_cpu = run_inprocess(corpus)
    inproc = _rate("extraction in-process (tree-sitter, 1 core)", inproc_s, corpus, lines,
                   inproc_cpu)
    pooled = run_pool(corpus, args.workers)
    pool = _rate(f"extraction via worker pool ({args.workers} workers)", pooled["seconds"],
                 corpus, lines, pooled["cpu"])
    same, compared = agreement(corpus, args.agreement) if args.agreement else (0, 0)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"### Extraction stage (`bench/extract_bench.py`), {time.strftime('%Y-%m-%d')}\n")
    print(f"Command: `.venv/bin/python -m tests.run bench.extract_bench --workers {args.workers}"
          f" --agreement {args.agreement}" + (f" --limit {args.limit}" if args.limit else "") + "`")
    print(f"Corpus: CPython {platform.python_version()} standard library "
          f"(`{stdlib_root()}`), {len(corpus)} files, {lines:,} lines, {size / MiB:.1f} MiB "
          f"(`ast.parse` rejects {ast_fail}). "
          "Machine: 2 cores shared with other agents (loaded).\n")
    print("| stage | wall s | CPU s | files/s (wall) | lines/s | MiB/s | ratio vs ast.parse |")
    print("|---|---|---|---|---|---|---|")
    for row in (base, inproc, pool):
        print(_row(row, base))
    print(f"\nStatuses (pool): {dict(sorted(pooled['statuses'].items()))}; in-process statuses "
          f"{dict(sorted(statuses.items()))}; {entities:,} entities.")
    print(f"Pool counters: {pooled['stats']}.")
    print(f"Peak RSS: host process {own:.0f} MiB, largest worker {kids:.0f} MiB.")
    if compared:
        print(f"Engine agreement (libcst vs tree-sitter, identical entities and imports): "
              f"{same}/{compared} files of a random sample.")
    target = "met" if pool["files_s"] * 3 >= base["files_s"] else "NOT met"
    cpu_ratio = base["cpu"] / inproc["cpu"] if inproc["cpu"] else 0.0
    print(f"Target (pool within 3x of ast.parse, wall clock): **{target}** "
          f"(ratio {pool['files_s'] / base['files_s']:.2f}, needs >= 0.33). "
          f"CPU-time ratio in-process (load-independent, one core): {cpu_ratio:.2f}.\n")


if __name__ == "__main__":
    main()

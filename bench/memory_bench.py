"""Benchmark of MemorySystem: add throughput, retrieval latency without LLM time, LLM calls/query.

Run from the plugin root:
    .venv/bin/python -m tests.run bench.memory_bench --sizes 1000,10000,100000

The scoring LLM is an instant fake, so latencies are the system's own cost (candidate stages,
fusion, prompt building, scoring fan-out, bookkeeping). The score cache is disabled while
measuring, so every query takes the full path and really calls the (fake) LLM.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from ..memory.system import MemorySystem

WORDS = ("user account token session cache query index parse render commit branch draft "
         "retry backoff socket stream buffer config setting plugin memory vector score "
         "rank filter schema migrate lock thread process queue worker timeout error").split()
KINDS = ("function", "class", "method", "doc", "note")


_IDS = re.compile(r'<<<DATA kind="memory" source="(M\d+)">>>')


async def instant_llm(prompt: str) -> str:
    """Answers both schemes: every listwise id, or the one pointwise memory."""
    ids = _IDS.findall(prompt)
    if ids:
        return json.dumps({"scores": [{"id": i, "score": 0.8, "reason": "fake"} for i in ids]})
    return '{"score": 0.8, "reason": "fake"}'


def vocabulary(rng: random.Random, size: int = 5000) -> tuple[list[str], list[float]]:
    """Pseudo-words with Zipf weights: a few are frequent, most are rare (like real text)."""
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "be", "do", "fu", "gi"]
    words = sorted({"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(size)})
    rng.shuffle(words)
    return words, [1.0 / (rank + 1) for rank in range(len(words))]


def synthetic(n: int, rng: random.Random, vocab: tuple[list[str], list[float]]) -> list[tuple]:
    """Code-like memories: camelCase/snake_case identifiers, common words and Zipf words."""
    words, weights = vocab
    items = []
    for i in range(n):
        a, b, c = rng.sample(WORDS, 3)
        ident = f"{a}_{b}" if i % 2 else f"{a}{b.capitalize()}"
        prose = " ".join(rng.choices(WORDS, k=4) + rng.choices(words, weights, k=8))
        text = f"def {ident}_{i}({c}): {prose}"
        items.append((text, {"path": f"src/{a}/{b}.py", "kind": KINDS[i % 5], "n": i}))
    return items


def contexts(rng: random.Random, vocab: tuple[list[str], list[float]], count: int) -> list[str]:
    words, weights = vocab
    return [" ".join(rng.choices(WORDS, k=2) + rng.choices(words, weights, k=3))
            for _ in range(count)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_size(n: int, queries: int, rng: random.Random, workdir: Path,
             scoring_mode: str = "listwise") -> dict:
    system = MemorySystem(instant_llm, str(workdir / f"bench_{n}.db"), enable_caching=False,
                          scoring_mode=scoring_mode)
    vocab = vocabulary(rng)
    items = synthetic(n, rng, vocab)
    start = time.perf_counter()
    for i in range(0, n, 1000):
        system.add_memories(items[i:i + 1000])
    bulk = n / (time.perf_counter() - start)
    singles = [(f"single note {i} " + " ".join(rng.choices(WORDS, k=8)), None) for i in range(200)]
    start = time.perf_counter()
    for text, meta in singles:
        system.add_memory(text, meta)
    single = len(singles) / (time.perf_counter() - start)
    queries_text = contexts(rng, vocab, queries + 1)
    start = time.perf_counter()
    asyncio.run(system.retrieve_relevant_memories(queries_text[0]))  # loads the vector index
    cold = time.perf_counter() - start
    calls_before = system.get_stats()["llm_calls"]
    latencies = []
    for context in queries_text[1:]:
        start = time.perf_counter()
        asyncio.run(system.retrieve_relevant_memories(context))
        latencies.append(time.perf_counter() - start)
    filtered = []
    for context in queries_text[1:11]:
        start = time.perf_counter()
        asyncio.run(system.retrieve_relevant_memories(context, filters={"kind": "class"}))
        filtered.append(time.perf_counter() - start)
    calls = (system.get_stats()["llm_calls"] - calls_before) / (queries + len(filtered))
    system.close()
    return {"n": n, "bulk_per_s": bulk, "single_per_s": single, "cold_ms": cold * 1000,
            "p50_ms": statistics.median(latencies) * 1000,
            "p95_ms": percentile(latencies, 0.95) * 1000,
            "filtered_p50_ms": statistics.median(filtered) * 1000, "llm_calls_per_query": calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scoring-mode", default="listwise", choices=("listwise", "pointwise"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"seed={args.seed} queries={args.queries} scoring_mode={args.scoring_mode} "
          "(cache off, instant fake LLM)")
    header = ("| memories | add_memories (bulk) /s | add_memory (single) /s | first query ms | "
              "p50 ms | p95 ms | p50 ms with filter | LLM calls/query |")
    print(header)
    print("|" + "---|" * 8)
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            r = run_size(n, args.queries, rng, Path(tmp), args.scoring_mode)
            print(f"| {r['n']:,} | {r['bulk_per_s']:,.0f} | {r['single_per_s']:,.0f} | "
                  f"{r['cold_ms']:,.0f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | "
                  f"{r['filtered_p50_ms']:.1f} | {r['llm_calls_per_query']:.1f} |", flush=True)


if __name__ == "__main__":
    main()

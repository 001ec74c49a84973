"""Which embedders drive the dense ranking (memory/retrieval/embedder_check.py), and what
that changes."""

from __future__ import annotations

import asyncio
import sqlite3

import numpy as np
import pytest

from codemem.bench.retrieval_embedders import DumbEmbedder
from codemem.memory.codeindex.vector_sink import NamedEmbedder
from codemem.memory.embedding import HashingEmbedder
from codemem.memory.retrieval.embedder_check import PROBE, Verdict, judge, known_weak, probe
from codemem.memory.store.lexical import tokens

from ..api.helpers import async_llm, make_system

#: One topic per probe pair: a toy "semantic" embedder that knows what the probe texts mean.
TOPICS = (
    {"remove", "repeated", "entries", "unique", "seen"},
    {"download", "web", "page", "internet", "requests", "fetch", "url"},
    {"average", "numbers", "mean", "sum", "len", "values"},
    {"persist", "document", "filesystem", "save", "open", "fh"},
    {"arrange", "people", "youngest", "oldest", "sorted", "users", "birth_year"},
    {"email", "address", "valid", "is_mail", "fullmatch"},
    {"wait", "seconds", "trying", "backoff", "sleep", "attempt"},
    {"count", "word", "appears", "sentence", "histogram", "counter", "split"},
)


class TopicEmbedder:
    """Words of one topic share a direction: it 'understands' the probe, like a real model."""

    name = "topics"

    def __init__(self) -> None:
        self.calls = 0

    def _vec(self, text: str) -> list[float]:
        words = {w.strip("().,:'[]") for w in text.lower().replace(".", " ").split()}
        return [float(len(words & topic)) + 0.01 for topic in TOPICS]

    def embed_documents(self, texts):
        self.calls += 1
        return [self._vec(t) for t in texts]

    def embed_query(self, text):
        self.calls += 1
        return self._vec(text)


class CatDumbEmbedder(DumbEmbedder):
    """The Cat's DumbEmbedder's behaviour under another class name: only the probe can tell."""


class RandomEmbedder:
    def __init__(self) -> None:
        self.rng = np.random.default_rng(7)

    def embed_documents(self, texts):
        return self.rng.normal(size=(len(texts), 32))

    def embed_query(self, text):
        return self.rng.normal(size=32)


class BrokenEmbedder:
    def embed_documents(self, texts):
        raise ConnectionError("embedding server down")

    def embed_query(self, text):
        raise ConnectionError("embedding server down")


def test_probe_requests_share_no_word_with_their_code():
    for request, code in PROBE:
        assert not set(tokens(request)) & set(tokens(code)), request


def test_known_weak_classes_are_recognised_through_wrappers():
    class DumbEmbedder:  # the Cat's class name, as the core sees it (no import of the Cat)
        pass
    assert "character pairs" in known_weak(NamedEmbedder(DumbEmbedder(), "EmbedderDumbConfig"))
    assert "hashing" in known_weak(HashingEmbedder())
    assert known_weak(TopicEmbedder()) is None


@pytest.mark.parametrize("embedder", [CatDumbEmbedder(), type("Hashing", (HashingEmbedder,), {})(),
                                      RandomEmbedder()])
def test_weak_embedders_fail_the_probe(embedder):
    verdict = probe(embedder)
    assert not verdict.useful and "probe matched" in verdict.reason


def test_a_broken_or_degenerate_embedder_is_not_used():
    broken = probe(BrokenEmbedder())
    assert not broken.useful and "embedding server down" in broken.reason
    constant = type("Constant", (), {"embed_documents": lambda s, t: [[1.0, 0.0]] * len(t),
                                     "embed_query": lambda s, t: [1.0, 0.0]})()
    assert "same similarity" in probe(constant).reason


def test_an_embedder_that_knows_meaning_passes_and_the_verdict_is_remembered():
    embedder, stored = TopicEmbedder(), {}
    verdict = judge(embedder, lambda: stored.get("v"), lambda text: stored.update(v=text))
    assert verdict.useful and verdict.reason.startswith("probe matched ")
    calls = embedder.calls
    assert judge(embedder, lambda: stored.get("v"), stored.update) == verdict
    assert embedder.calls == calls  # no second probe
    assert Verdict.from_text("garbage") is None


def test_a_weak_embedder_leaves_no_vectors_and_no_index(tmp_path):
    with make_system(tmp_path, async_llm(default=0.9), embedder=CatDumbEmbedder()) as system:
        system.add_memories(["def parse_header(raw): ...", "a note on caching"])
        found = asyncio.run(system.retrieve_relevant_memories("parse the header"))
        assert [m.text for m in found] == ["def parse_header(raw): ..."]
        assert system.get_stats()["dense_ranking"].startswith("off: probe matched")
        assert system._dense._index is None  # never loaded
    conn = sqlite3.connect(tmp_path / "memories.db")
    assert conn.execute("SELECT count(*) FROM memories WHERE embedding IS NOT NULL"
                        ).fetchone()[0] == 0
    verdicts = dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE 'embedder_%'"))
    assert list(verdicts.values()) and list(verdicts.values())[0].startswith("off:")


def test_a_useful_embedder_drives_the_dense_ranking(tmp_path):
    with make_system(tmp_path, async_llm(default=0.9), embedder=TopicEmbedder()) as system:
        system.add_memories(["def mean(values):\n    return sum(values) / len(values)",
                             "def save(path, content): ..."])
        assert system.get_stats()["dense_ranking"].startswith("on: probe matched")
        ranked = system.candidates("the average of numbers")  # no word in common
        assert ranked[0].text.startswith("def mean(")
        assert ranked[0].dense_rank == 1 and ranked[0].lexical_rank is None


def test_dense_ranking_can_be_forced(tmp_path):
    with make_system(tmp_path / "a", async_llm(), embedder=TopicEmbedder(),
                     dense_ranking="never") as system:
        assert system.get_stats()["dense_ranking"] == "off: dense_ranking='never'"
    with make_system(tmp_path / "b", async_llm(), embedder=HashingEmbedder(),
                     dense_ranking="always") as system:
        assert system.get_stats()["dense_ranking"] == "on: dense_ranking='always'"
    with pytest.raises(ValueError, match="dense_ranking"):
        make_system(tmp_path / "c", async_llm(), dense_ranking="sometimes")


class FlakyEmbedder(TopicEmbedder):
    """A real-looking embedder whose server can go down."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def embed_documents(self, texts):
        if self.down:
            raise ConnectionError("server down")
        return super().embed_documents(texts)

    def embed_query(self, text):
        if self.down:
            raise ConnectionError("server down")
        return super().embed_query(text)


def test_a_probe_that_could_not_run_is_retried_not_remembered(tmp_path, monkeypatch):
    from codemem.memory.retrieval import dense

    embedder = FlakyEmbedder()
    embedder.dimension = len(TOPICS)
    embedder.down = True
    with make_system(tmp_path, async_llm(), embedder=embedder) as system:
        assert system.get_stats()["dense_ranking"].startswith("off: the embedder failed the probe")
        assert system._store.meta_value(f"embedder_verdict:topics:{len(TOPICS)}") is None
        embedder.down = False
        monkeypatch.setattr(dense, "PROBE_RETRY_S", 0.0)
        assert system.get_stats()["dense_ranking"].startswith("on: probe matched")
    undeclared = FlakyEmbedder()  # no dimension: even measuring it fails while it is down
    undeclared.down = True
    with make_system(tmp_path / "b", async_llm(), embedder=undeclared) as system:
        system.add_memory("def save(path): ...")
        assert system.get_stats()["dense_ranking"].startswith(
            "off: the embedder failed on a query (ConnectionError")
        assert [c.text for c in system.candidates("save")] == ["def save(path): ..."]


def test_an_embedder_failing_at_query_time_leaves_the_lexical_candidates(tmp_path):
    embedder = FlakyEmbedder()
    with make_system(tmp_path, async_llm(default=0.9), embedder=embedder) as system:
        system.add_memories(["def mean(values): ...", "def save(path): ..."])
        assert system.get_stats()["dense_ranking"].startswith("on:")
        embedder.down = True
        assert [c.text for c in system.candidates("save the path")] == ["def save(path): ..."]
        found = asyncio.run(system.retrieve_relevant_memories("save the path"))
        assert [m.text for m in found] == ["def save(path): ..."]

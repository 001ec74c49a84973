"""Embedders of the retrieval benchmark: the Cat's DumbEmbedder re-implemented, and MiniLM.

``DumbEmbedder`` does what ``cat.factory.custom_embedder.DumbEmbedder`` (Cat 1.9.2) does,
without scikit-learn: the vocabulary is every 2-character combination of the printable
characters less the digits, lower-cased (2,367 pairs); a text is cut into non-overlapping
2-character chunks (``re.findall("..", text)``, case kept, so an upper-case chunk matches
nothing); the vector holds 1.0 for each vocabulary pair present (``binary=True``).

``MiniLMEmbedder`` talks to ``bench/minilm_worker.py`` in a Python 3.11 venv (see there) and
caches vectors on disk by text hash, so a second run embeds nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import string
import struct
import subprocess
from itertools import combinations
from pathlib import Path

import numpy as np

_PAIRS = re.compile("..")
CHUNK = 256


def dumb_vocabulary() -> dict[str, int]:
    """The Cat's vocabulary, in the Cat's (sorted) order."""
    chars = [p.lower() for p in string.printable[10:]]
    pairs = sorted({f"{a}{b}" for a, b in combinations(chars, 2)})
    return {pair: i for i, pair in enumerate(pairs)}


class DumbEmbedder:
    """Faithful re-implementation of the Cat's default embedder (character-bigram presence)."""

    def __init__(self) -> None:
        self.vocabulary = dumb_vocabulary()
        self.dimension = len(self.vocabulary)

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dimension, dtype=np.float32)
        slots = [self.vocabulary[p] for p in _PAIRS.findall(text) if p in self.vocabulary]
        vec[slots] = 1.0
        return vec

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t).tolist() for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text).tolist()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through a worker process, with an on-disk cache keyed by text."""

    name = "all-MiniLM-L6-v2"
    dimension = 384

    def __init__(self, python: str, worker: Path, cache: Path) -> None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(cache))
        self._db.execute("CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, vec BLOB)")
        self._command = [python, str(worker)]
        self._proc: subprocess.Popen[bytes] | None = None
        self.computed = 0

    def _worker(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._proc = subprocess.Popen(self._command, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE)
        return self._proc

    def _compute(self, texts: list[str]) -> np.ndarray:
        proc = self._worker()
        assert proc.stdin is not None and proc.stdout is not None
        payload = json.dumps(texts).encode("utf-8")
        proc.stdin.write(struct.pack(">I", len(payload)) + payload)
        proc.stdin.flush()
        rows, dim = struct.unpack(">II", proc.stdout.read(8))
        data = proc.stdout.read(rows * dim * 4)
        if len(data) != rows * dim * 4:
            raise RuntimeError("MiniLM worker died; run `make venv-minilm` and retry")
        self.computed += rows
        return np.frombuffer(data, dtype=np.float32).reshape(rows, dim)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 900):
            part = keys[start:start + 900]
            marks = ",".join("?" * len(part))
            found.update(self._db.execute(f"SELECT h, vec FROM v WHERE h IN ({marks})", part))
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items())
        for start in range(0, len(missing), CHUNK):
            part = missing[start:start + CHUNK]
            vectors = self._compute([t for _, t in part])
            rows = [(k, v.tobytes()) for (k, _), v in zip(part, vectors, strict=True)]
            self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
            self._db.commit()
            found.update(rows)
        return np.stack([np.frombuffer(found[k], dtype=np.float32) for k in keys]) if keys \
            else np.zeros((0, self.dimension), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
            self._proc = None
        self._db.close()

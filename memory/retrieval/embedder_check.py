"""Does an embedder help code retrieval? Known weak embedders by class, the rest by a probe.

Why: the dense stage's ranking is fused with the lexical one, and a weak embedder makes the
fused ranking worse than lexical alone (measured: bench/retrieval_bench.py, docs/benchmarks.md).
The Cat's default ``DumbEmbedder`` counts character bigrams, the project's ``HashingEmbedder``
hashes the very words the lexical stage already matches, and LangChain's fake embedders are
random: none of them knows that "average" and ``sum(values) / len(values)`` belong together.

Known classes are recognised by name (the core never imports the Cat), looking through wrappers
such as ``NamedEmbedder``. Any other embedder takes a cheap probe: eight English requests and
eight code snippets that share no word with them (after identifier splitting and stemming);
the embedder passes if it matches at least ``PASS_MARK`` requests to their own snippet, top 1
among the eight. Measured on this probe: all-MiniLM-L6-v2 8/8; DumbEmbedder, the hashing
embedder and random vectors 0-2/8. One ``embed_documents`` call and eight ``embed_query`` calls,
once per vector space: the store keeps the verdict.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..embedding import Embedder

log = logging.getLogger(__name__)

#: Embedder classes whose vectors carry no meaning beyond the words (or none at all).
KNOWN_WEAK = {
    "DumbEmbedder": "the Cat's default DumbEmbedder counts character pairs",
    "HashingEmbedder": "the offline hashing embedder only repeats the lexical match",
    "FakeEmbeddings": "LangChain's FakeEmbeddings returns random vectors",
    "DeterministicFakeEmbedding": "LangChain's DeterministicFakeEmbedding returns random vectors",
}
_WRAPPER_ATTRIBUTES = ("embedder", "inner", "wrapped", "_embedder", "client")

PROBE: tuple[tuple[str, str], ...] = (
    ("remove repeated entries while keeping the original order",
     "def unique(items):\n    seen = set()\n"
     "    return [x for x in items if not (x in seen or seen.add(x))]"),
    ("download a web page from the internet",
     "import requests\n\ndef fetch(url):\n    return requests.get(url).text"),
    ("compute the average of a sequence of numbers",
     "def mean(values):\n    return sum(values) / len(values)"),
    ("persist a string into a document on the filesystem",
     "def save(path, content):\n    with open(path, 'w') as fh:\n        fh.write(content)"),
    ("arrange people from youngest to oldest",
     "def order_users(users):\n"
     "    return sorted(users, key=lambda u: u.birth_year, reverse=True)"),
    ("check whether an email address looks valid",
     "import re\n\ndef is_mail(s):\n"
     "    return re.fullmatch(r'[^@]+@[^@]+\\.[a-z]+', s) is not None"),
    ("wait a few seconds before trying again",
     "import time\n\ndef backoff(attempt):\n    time.sleep(2 ** attempt)"),
    ("count how often each word appears in a sentence",
     "import collections\n\ndef histogram(text):\n"
     "    return collections.Counter(text.lower().split())"),
)
PASS_MARK = 6


@dataclass(frozen=True)
class Verdict:
    """Whether the dense ranking is used, and why (shown by ``get_stats``).

    ``final`` is False when the probe could not run (the embedder raised: a server down, a
    quota): such a verdict is not remembered, so the embedder is probed again later.
    """

    useful: bool
    reason: str
    final: bool = True

    def as_text(self) -> str:
        return f"{'on' if self.useful else 'off'}: {self.reason}"

    @classmethod
    def from_text(cls, text: str) -> Verdict | None:
        state, _, reason = text.partition(": ")
        return cls(state == "on", reason) if state in ("on", "off") and reason else None


def known_weak(embedder: object) -> str | None:
    """Why ``embedder`` (or an embedder it wraps) is known not to help, or None."""
    seen: set[int] = set()
    current = embedder
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        reason = KNOWN_WEAK.get(type(current).__name__)
        if reason:
            return reason
        current = next((getattr(current, a) for a in _WRAPPER_ATTRIBUTES
                        if getattr(current, a, None) is not None), None)
    return None


def _normalised(vectors: object) -> NDArray[np.float64]:
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.ndim != 2 or not np.all(np.isfinite(matrix)):
        raise ValueError(f"unusable vectors of shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("zero vectors")
    normalised = np.empty_like(matrix)
    np.divide(matrix, norms, out=normalised)
    return normalised


def probe(embedder: Embedder) -> Verdict:
    """Run the probe on ``embedder``; an embedder that fails to answer is not useful."""
    try:
        docs = _normalised(embedder.embed_documents([code for _, code in PROBE]))
        queries = _normalised([np.asarray(embedder.embed_query(q), dtype=np.float64).ravel()
                               for q, _ in PROBE])
        if docs.shape != (len(PROBE), queries.shape[1]):
            raise ValueError(f"documents {docs.shape} and queries {queries.shape} disagree")
    except Exception as err:  # noqa: BLE001 - any failure of a foreign embedder means "not useful"
        log.warning("embedder probe failed: %s", err)
        return Verdict(False, f"the embedder failed the probe ({type(err).__name__}: {err})",
                       final=False)
    similarity = queries @ docs.T
    if float(np.ptp(similarity)) < 1e-6:
        return Verdict(False, "the embedder gives every probe text the same similarity")
    hits = int(np.sum(np.argmax(similarity, axis=1) == np.arange(len(PROBE))))
    useful = hits >= PASS_MARK
    return Verdict(useful, f"probe matched {hits}/{len(PROBE)} requests to code "
                           f"(needs {PASS_MARK})")


def judge(embedder: Embedder, cached: Callable[[], str | None],
          remember: Callable[[str], None]) -> Verdict:
    """The verdict for ``embedder``: known weak class, else a remembered or fresh probe (a
    probe that could not run is not remembered)."""
    reason = known_weak(embedder)
    if reason:
        return Verdict(False, reason)
    previous = cached()
    verdict = Verdict.from_text(previous) if previous else None
    if verdict is None:
        verdict = probe(embedder)
        if verdict.final:
            remember(verdict.as_text())
    return verdict

"""Splitting lower-case compound identifiers into English words: ``readlink`` -> read link.

Why: camelCase and snake_case names split by their shape (``primitives.split_identifier``),
but much Python code, the standard library first, glues words together in lower case
(``readlink``, ``formatmonth``, ``listchain``, ``getitem``). A question says "the value of a
symbolic link", never "readlink", so without the parts such a name matches nothing. Measured
(bench/retrieval_bench.py, docstrings stripped, R@10 / cand@20): _pytest 0.680 -> 0.707 /
0.750 -> 0.773, the standard library with its tests 0.477 -> 0.483 / 0.550 -> 0.553, beets
0.710 -> 0.713.

How: a fixed English word list (``data/english_words.txt.gz``, SCOWL's small American list,
licence in ``data/WORDS-LICENSE.txt``). A word of 6 or more letters that is not itself in the
list is split into 2 or 3 listed words of 3 or more letters, the fewest parts first, then the
longest parts; anything else is left alone (``island`` stays whole: it is a word). The list is
fixed, not learnt from the repository, so a document's tokens never depend on what else is
indexed (an incremental index stays equal to a full one).
"""

from __future__ import annotations

import gzip
import threading
from functools import lru_cache
from pathlib import Path

_WORDS_FILE = Path(__file__).resolve().parent / "data" / "english_words.txt.gz"
#: Shorter words are left alone (few compounds; many abbreviations).
MIN_COMPOUND = 6
#: Every part has at least this many letters ("is", "to" would split almost anything).
MIN_PART = 3
MAX_PARTS = 3
#: No listed word is longer; bounds the inner loop.
_MAX_PART = 20

_LOCK = threading.Lock()
_LOADED: list[frozenset[str]] = []


def english_words() -> frozenset[str]:
    """The word list, read once per process (about 40,000 words, 10 ms)."""
    if not _LOADED:
        with _LOCK:
            if not _LOADED:
                text = gzip.decompress(_WORDS_FILE.read_bytes()).decode("ascii")
                _LOADED.append(frozenset(text.split()))
    return _LOADED[0]


@lru_cache(maxsize=1 << 17)
def segment(word: str) -> tuple[str, ...]:
    """The parts of a lower-case compound ``word`` (``()`` when it is a word itself, too
    short, not purely letters, or not made of 2-3 listed words)."""
    if len(word) < MIN_COMPOUND or not (word.isalpha() and word.isascii() and word.islower()):
        return ()
    words = english_words()
    if word in words:
        return ()
    # best[i]: (parts, -sum of squared part lengths, parts) of the best split of word[:i]
    best: list[tuple[int, int, tuple[str, ...]] | None] = [None] * (len(word) + 1)
    best[0] = (0, 0, ())
    for end in range(MIN_PART, len(word) + 1):
        for start in range(max(0, end - _MAX_PART), end - MIN_PART + 1):
            before = best[start]
            part = word[start:end]
            if before is None or before[0] >= MAX_PARTS or part not in words:
                continue
            candidate = (before[0] + 1, before[1] - len(part) ** 2, (*before[2], part))
            current = best[end]
            if current is None or candidate[:2] < current[:2]:
                best[end] = candidate
    found = best[len(word)]
    return found[2] if found is not None and found[0] >= 2 else ()

"""Code-aware lexical analysis: what the FTS5 candidate index stores, and what a query asks.

Why pre-tokenised in Python rather than an FTS5 tokenizer: SQLite's tokenizers know neither
``getUserName`` (camelCase) nor stemming beyond Porter-1, and a query's document frequencies
(to skip terms that match most rows) can only be looked up for the exact stored tokens. So both
sides go through one function, ``tokens``: words are lower-cased, compound identifiers add
their parts (``getUserName`` -> ``getusername get user name``; ``parse_args`` keeps the whole
word plus ``pars arg``), every token is stemmed (Snowball English, via PyStemmer), and English
stopwords are dropped. Runs of operator characters (``>=``, ``//``, ``**=``) are tokens too:
"Same as a >= b" must not match ``a // b`` (measured: R@10 with docstrings kept 0.980 -> 0.993
on the standard library, 0.547 -> 0.560 stripped; the index grows under 1 %). The FTS5 table
then only splits on spaces.

Fields (one FTS5 column each, weighted in ``COLUMN_WEIGHTS``): the entity's name, its qualified
name and path, its signature, its body, the names it calls, and other metadata. A class entity's
body is its outline (header, docstring, attributes, method signature lines): its methods are
entities of their own, so a class must not match through their bodies and crowd out the method
a query asks for; its score is also lowered by ``CONTAINER_PRIOR``.

``LEXICAL_VERSION`` names this analysis; the store rebuilds its index when it changes.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from ..errors import BackendUnavailable
from .primitives import split_identifier
from .segment import segment
from .support import Metadata

LEXICAL_VERSION = "code-fields-2"

#: FTS5 columns, in table order.
COLUMNS = ("name", "qualname", "signature", "body", "calls", "meta")
#: bm25 weight of a hit in each column (same order). Measured: bench/retrieval_bench.py.
COLUMN_WEIGHTS = (4.0, 2.0, 2.0, 1.0, 1.0, 1.0)

#: Entity kinds whose body is reduced to an outline (their members are separate entities).
CONTAINER_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "module", "impl",
                             "namespace", "object", "record"})
#: A container's bm25 score is multiplied by this: its outline repeats its members' names, so
#: without it a class outranks the method a query describes. Measured (bench/retrieval_bench.py,
#: _pytest): R@1 0.327 -> 0.350 stripped, 0.840 -> 0.853 kept; 0.8 gains as much as 0.5.
CONTAINER_PRIOR = 0.8
#: ...but a question about a class then misses it (R@10 of class docstrings as queries: 0.33,
#: no better than plain bm25s). A question that does not open with an action verb may ask
#: for a class, so its ranking is fused with one where containers are multiplied by this
#: instead. Measured on the three tuning corpora: class queries R@10 +0.09 to +0.11,
#: function queries within -0.003.
CONTAINER_LIFT = 1.25
#: The imperative verbs a function's docstring opens with (PEP 257: "Return the ...") or a
#: request for one ("Parse the header"); compared by stem, so "Returns" counts too. Such a
#: question asks for a function.
ACTION_VERBS = (
    "return get set create check add read parse convert construct remove run handle write "
    "initialize ensure generate find send make build compute calculate update delete load "
    "save open close start stop call apply process format print determine register validate "
    "verify append insert extract encode decode copy move change reset clear show display "
    "emit yield wait search look split join list iterate count compare match replace raise "
    "try fetch store execute invoke install")

#: Metadata keys of a code entity that are identity or bookkeeping, not searchable words.
_CODE_BOOKKEEPING = frozenset({"type", "repo_id", "entity_hash", "occurrence", "start_line",
                               "end_line", "name", "qualified_name", "path", "signature",
                               "calls"})

STOPWORDS = frozenset(
    "a about above after again against all am an and any are as at be because been before "
    "being below between both but by can could did do does doing down during each few for "
    "from further had has have having he her here hers him his how i if in into is it its "
    "itself just me more most my myself no nor not now of off on once only or other our ours "
    "out over own same she should so some such than that the their theirs them then there "
    "these they this those through to too under until up very was we were what when where "
    "which while who whom why will with would you your yours".split()
)

#: Words, and runs of operator characters (the FTS5 table keeps these characters in tokens).
_WORD = re.compile(r"\w+|[-+*/%@&|^~<>=!]+")
_MAX_WORD = 64


class _Stemmer(Protocol):
    def stemWords(self, words: Sequence[str]) -> list[str]: ...  # noqa: N802 (library name)


_PER_THREAD = threading.local()


def _stemmer() -> _Stemmer:
    """This thread's Snowball English stemmer (PyStemmer documents its stemmers as not
    thread-safe, and hooks, tools and indexing run in different threads)."""
    stemmer = getattr(_PER_THREAD, "stemmer", None)
    if stemmer is None:
        stemmer = _PER_THREAD.stemmer = _new_stemmer()
    return stemmer


def _new_stemmer() -> _Stemmer:
    """PyStemmer (C), else snowballstemmer (pure Python, same output)."""
    try:
        import Stemmer

        return Stemmer.Stemmer("english")  # type: ignore[no-any-return]
    except ImportError:
        pass
    try:
        import snowballstemmer

        return snowballstemmer.stemmer("english")  # type: ignore[no-any-return]
    except ImportError as err:
        raise BackendUnavailable(
            "lexical search needs PyStemmer (listed in the plugin's requirements.txt); "
            "install it with `pip install 'PyStemmer>=2.2,<3'`") from err


@lru_cache(maxsize=1 << 18)
def _word_tokens(word: str) -> tuple[str, ...]:
    """Stemmed tokens of one word: the whole word, then its identifier parts, then the English
    words of lower-case compounds among them (memoized: code repeats the same words over and
    over)."""
    if len(word) > _MAX_WORD:
        word = word[:_MAX_WORD]
    lower = word.lower()
    parts = split_identifier(word)
    raw = [lower, *parts] if parts != [lower] else [lower]  # "_names" -> "_names names"
    raw += [piece for part in dict.fromkeys(raw) for piece in segment(part)]
    raw = [w for w in raw if w not in STOPWORDS]
    if not raw:
        return ()
    out = _stemmer().stemWords(raw)
    return tuple(dict.fromkeys(t for t in out if t))


def tokens(text: str) -> list[str]:
    """Every token of ``text`` in order (duplicates kept: they are term frequencies)."""
    out: list[str] = []
    for word in _WORD.findall(text):
        out.extend(_word_tokens(word))
    return out


def analyzed(text: str) -> str:
    """``text`` as the space-separated tokens the FTS5 table stores."""
    return " ".join(tokens(text))


def query_tokens(text: str, limit: int = 32) -> list[str]:
    """Distinct tokens of a query, in order of first appearance, at most ``limit``."""
    return list(dict.fromkeys(tokens(text)))[:limit]


_MAX_COMPOUND_WORDS = 12


def _surface_forms(word: str) -> tuple[str, ...]:
    """``word`` and its singular (``names`` -> ``name``, ``entries`` -> ``entry``)."""
    if word.endswith("ies") and len(word) > 4:
        return word, word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word, word[:-1]
    return (word,)


def compound_tokens(text: str) -> list[str]:
    """Tokens of lower-case compound names a query may mean (``fixturenames`` for "names of
    fixtures", ``recursionindex`` for "the index where recursion starts").

    Such names cannot be split without a dictionary, so the query side builds them instead:
    every ordered pair of the query's content words (singular and as written), joined and
    analysed like a document word. Most are not words at all; the store keeps the ones its
    vocabulary holds and matches them in names only. (Verb prefixes such as ``get`` + word
    were measured too: they lowered R@1, so they are not tried.) Tokens already in
    ``query_tokens(text)`` are left out.
    """
    words = [w for w in dict.fromkeys(w.lower() for w in _WORD.findall(text))
             if w.isalpha() and len(w) > 1 and w not in STOPWORDS][:_MAX_COMPOUND_WORDS]
    forms = {w: _surface_forms(w) for w in words}
    joined = [a + b for first in words for second in words if first != second
              for a in forms[first] for b in forms[second]]
    plain = set(query_tokens(text))
    found = (t for word in joined for t in _word_tokens(word)[:1])
    return [t for t in dict.fromkeys(found) if t not in plain]


#: A query's tokens in order are also searched as one phrase when there are this many or fewer.
MAX_PHRASE_TOKENS = 32


@dataclass(frozen=True)
class LexicalQuery:
    """What the FTS5 stage searches for one query text (see ``lexical_query``)."""

    #: distinct tokens, ORed (the store leaves out tokens most rows contain)
    terms: tuple[str, ...]
    #: compound-name tokens (``compound_tokens``), matched in names, only if the index has them
    compounds: tuple[str, ...] = ()
    #: every token in order: a verbatim match (a pasted docstring or message) adds its weight
    phrase: str = ""
    #: the question may ask for a class: fuse in a ranking that lifts containers
    #: (``CONTAINER_LIFT``)
    container_lift: bool = False


def lexical_query(text: str) -> LexicalQuery:
    """The lexical search for ``text``. The phrase was measured on _pytest: R@1 with
    docstrings kept 0.853 -> 0.980, no change with docstrings stripped (adjacent-pair phrases
    instead lowered R@1 stripped, so only the whole phrase is used)."""
    every = tokens(text)
    phrase = " ".join(every) if 1 < len(every) <= MAX_PHRASE_TOKENS else ""
    return LexicalQuery(tuple(query_tokens(text)), tuple(compound_tokens(text)), phrase,
                        container_lift=not asks_for_action(text))


@lru_cache(maxsize=1)
def _action_stems() -> frozenset[str]:
    return frozenset(_stemmer().stemWords(ACTION_VERBS.split()))


def asks_for_action(text: str) -> bool:
    """Whether ``text`` opens with an action verb (any form: "Return", "Returns"), as a
    function's docstring or a request for a function does."""
    first = _WORD.search(text)
    if first is None:
        return False
    return _stemmer().stemWords([first.group().lower()])[0] in _action_stems()


def with_container_prior(scored: Sequence[tuple[int, float]], kinds: Mapping[int, object],
                         prior: float = CONTAINER_PRIOR) -> list[int]:
    """Ids of ``(id, bm25)`` pairs re-ranked with containers' scores times ``prior``.

    bm25 here is SQLite's: negative, lower is better, so a prior under 1 lowers a container
    and one over 1 lifts it.
    """
    def adjusted(item: tuple[int, float]) -> float:
        return item[1] * (prior if kinds.get(item[0]) in CONTAINER_KINDS else 1.0)
    return [seq for seq, _ in sorted(scored, key=adjusted)]


def outline(text: str) -> str:
    """A container's text without its members' bodies: the lines indented no deeper than the
    container's own body (signature lines of members stay, their bodies go)."""
    lines = text.splitlines()
    body = [line for line in lines[1:] if line.strip()]
    if not body:
        return text
    depth = min(len(line) - len(line.lstrip()) for line in body)
    kept = [lines[0]] + [line for line in lines[1:]
                         if line.strip() and len(line) - len(line.lstrip()) <= depth]
    return "\n".join(kept)


def _flat(metadata: Metadata, skip: frozenset[str] = frozenset()) -> str:
    parts = []
    for key, value in metadata.items():
        if key in skip or value is None:
            continue
        parts.append(f"{key} {value if isinstance(value, str) else json.dumps(value)}")
    return " ".join(parts)


def document_fields(text: str, metadata: Metadata) -> tuple[str, ...]:
    """The FTS5 row of a memory, one analysed string per column of ``COLUMNS``."""
    if metadata.get("type") != "code_entity":
        return ("", "", "", analyzed(text), "", analyzed(_flat(metadata)))
    kind = str(metadata.get("kind") or "")
    body = outline(text) if kind in CONTAINER_KINDS else text
    calls = metadata.get("calls") or []
    return (
        analyzed(str(metadata.get("name") or "")),
        analyzed(f"{metadata.get('qualified_name') or ''} {metadata.get('path') or ''}"),
        analyzed(str(metadata.get("signature") or "")),
        analyzed(body),
        analyzed(" ".join(str(c) for c in calls) if isinstance(calls, list) else str(calls)),
        analyzed(_flat(metadata, _CODE_BOOKKEEPING)),
    )

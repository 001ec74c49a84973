"""Which words of a code request may name the thing to change, for the index to confirm.

Plain words are the commonest names in code (``fetch``, ``load``, ``save``, ``run``), and they
are ordinary words too, so a word is a candidate only where the sentence puts the thing to
change: the object of a verb that changes something ("fix *load*", "make *fetch* retry"), after
"to", "in" or "of" at the end of its phrase ("add a timeout parameter to *fetch* and ...",
"the signature of *run*"), or beside a code noun ("the *save* function", "the method *send*").
A new name ("add a function *called* fetch"), a member ("a *timeout* parameter", "un
parametro *dry_run* a export": the function the index knows wins over the new name), an
infinitive of purpose ("a function to *parse* dates") or a word in a relative clause ("a
function that *parses* dates") is never one. The glue links a candidate only when the index
knows it in the named file or in exactly one file. Pure functions; no I/O.
"""

from __future__ import annotations

import re

from .text import IDENT_RE, PATH_RE, fold
from .words import (
    DEFINITE,
    DETERMINERS,
    IMPERATIVE_VERBS,
    KIND_OF_NOUN,
    LINK_WORDS,
    MEMBER_NOUNS,
    NAMING_WORDS,
    NOT_SYMBOLS,
    REQUEST_VERBS,
)

#: Verbs whose object is new code, not the thing to change ("add a cache", "write a parser").
CREATION_VERBS = frozenset({
    "write", "add", "implement", "create", "build", "generate", "develop", "define",
    "introduce", "insert", "append", "prepend", "adding", "writing", "creating",
    "implementing", "building",
    "scrivi", "scrivere", "scrivimi", "aggiungi", "aggiungere", "implementa", "implementare",
    "crea", "creare", "creami", "genera", "generare", "schreib", "schreibe", "schreiben",
    "implementiere", "implementieren", "erstelle", "erstellen", "erzeuge", "erzeugen",
    "generiere", "generieren", "baue", "escribe", "escribir", "escribeme", "anade", "anadir",
    "agrega", "agregar", "implementar", "crear", "creame", "generar", "ecris", "ecrire",
    "ecrivez", "ajoute", "ajouter", "ajoutez", "implemente", "implementer", "implementez",
    "cree", "creer", "creez", "genere", "generer", "escreva", "escreve", "escrever", "crie",
    "criar", "adicione", "adiciona", "adicionar", "gere", "gerar", "schrijf", "toevoegen",
    "implementeer", "implementeren", "genereer", "creeer",
})

#: Verbs whose object is the thing to change.
CHANGE_VERBS = (REQUEST_VERBS | IMPERATIVE_VERBS) - CREATION_VERBS

#: Prepositions before the thing a change goes into ("add a timeout *to* fetch").
TARGET_PREPOSITIONS = frozenset({
    "to", "in", "inside", "within", "into", "of", "al", "alla", "allo", "nel", "nella",
    "nello", "zu", "zum", "zur", "im", "en", "dans", "à", "au", "em", "no", "na", "ao", "aan",
})

#: Words that end the phrase of a name ("... to fetch *when* it fails").
PHRASE_ENDS = (LINK_WORDS - {"a"}) | frozenset({
    "when", "if", "because", "by", "but", "then", "as", "using", "without", "while", "also",
    "too", "please", "now", "again", "instead", "everywhere", "so", "or", "quando", "wenn",
    "cuando", "quand", "e", "und", "y", "et", "en",
})

#: Words before "to" that make it an infinitive ("I want *to* load ...", "how to save").
INFINITIVE_BEFORE = frozenset({
    "want", "need", "how", "like", "going", "able", "have", "has", "used", "way", "trying",
    "try", "wants", "needs", "ought", "order",
})

#: Where a clause starts, so the next word may be an imperative verb.
CLAUSE_STARTS = frozenset({
    ",", ".", ";", ":", "!", "?", "(", "and", "then", "please", "pls", "to", "also", "i", "we",
    "you", "can", "could", "should", "must", "would", "will", "let's", "lets", "e", "und", "y",
    "et", "en", "bitte", "per", "favore", "por", "favor", "svp",
})

#: Words between a change verb and its object ("speed *up* render", "fix *the* load").
PARTICLES = DEFINITE | frozenset({"up", "out", "down", "over"})

#: The code nouns a name may stand beside ("the save *function*").
ENTITY_KINDS = frozenset({"function", "method", "class"})

_TOKEN_RE = re.compile(r"[\w.']+|[^\w\s]")


def target_words(text: str) -> list[str]:
    """The words of ``text`` that stand where the thing to change stands, in order, once each
    (as written; paths left out)."""
    tokens = _TOKEN_RE.findall(PATH_RE.sub(" , ", text or ""))
    folded = [_fold(t) for t in tokens]
    found: list[str] = []
    for i, token in enumerate(tokens):
        if token not in found and _candidate(token, folded[i]) \
                and _in_target_place(folded, i):
            found.append(token)
    return found


def _fold(token: str) -> str:
    """Folded, except the French "à", which is a preposition where "a" is an article."""
    lower = token.lower()
    return lower if lower == "à" else fold(lower)


def _candidate(token: str, word: str) -> bool:
    return (bool(IDENT_RE.fullmatch(token)) and len(token) > 1 and word not in NOT_SYMBOLS
            and word not in KIND_OF_NOUN and word not in DETERMINERS
            and word not in MEMBER_NOUNS and word not in NAMING_WORDS
            and word not in PHRASE_ENDS and word not in PARTICLES)


def _in_target_place(folded: list[str], i: int) -> bool:
    before = folded[i - 1] if i > 0 else ""
    if before in NAMING_WORDS or _at(folded, i + 1) in MEMBER_NOUNS:
        return False  # a new name ("a function called fetch"), a member ("a timeout flag")
    return _beside_code_noun(folded, i) or _after_preposition(folded, i) \
        or _verb_object(folded, i)


def _beside_code_noun(folded: list[str], i: int) -> bool:
    """"the save function", "to the fetch method", "the function fetch"."""
    before, after = _at(folded, i - 1), _at(folded, i + 1)
    if KIND_OF_NOUN.get(after) in ENTITY_KINDS and (before in DEFINITE or before in
                                                   TARGET_PREPOSITIONS or before in CHANGE_VERBS):
        return True
    ahead = _at(folded, i - 2)
    return KIND_OF_NOUN.get(before) in ENTITY_KINDS and _ends_phrase(folded, i) \
        and (ahead in DEFINITE or ahead in TARGET_PREPOSITIONS)


def _after_preposition(folded: list[str], i: int) -> bool:
    """"add a timeout to fetch and ...", "retries in send", "the signature of run" (not "a
    function to parse dates", "I want to load ..."); in Italian, Spanish and Portuguese "a"
    after a member and its new name ("aggiungi un parametro dry_run *a* export")."""
    before = _at(folded, i - 1)
    member_to = before == "a" and _at(folded, i - 3) in MEMBER_NOUNS
    if (before not in TARGET_PREPOSITIONS and not member_to) or not _ends_phrase(folded, i):
        return False
    if before == "to":
        ahead = _at(folded, i - 2)
        return ahead not in INFINITIVE_BEFORE and KIND_OF_NOUN.get(ahead) is None
    return True


def _verb_object(folded: list[str], i: int) -> bool:
    """"fix load", "make fetch retry", "speed up render", "refactor the run"."""
    j = i - 1
    while j >= 0 and folded[j] in PARTICLES:
        j -= 1
    if j < 0 or folded[j] not in CHANGE_VERBS:
        return False
    if j > 0 and folded[j - 1] == "to":  # "want to fix load", not "a function to validate x"
        return _at(folded, j - 2) in INFINITIVE_BEFORE
    return j == 0 or folded[j - 1] in CLAUSE_STARTS


def _ends_phrase(folded: list[str], i: int) -> bool:
    after = _at(folded, i + 1)
    return not after[:1].isalnum() or after in PHRASE_ENDS \
        or KIND_OF_NOUN.get(after) in ENTITY_KINDS


def _at(folded: list[str], i: int) -> str:
    return folded[i] if 0 <= i < len(folded) else ""

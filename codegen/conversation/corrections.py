"""Two readings that depend on what the plugin is waiting for: a change to a waiting proposal,
and the answer to "which file should the code go in?".

Why a positive reading of corrections: while a proposal waits, every message used to be folded
into it as a constraint unless it looked like an aside, so "what's the capital of France?"
revised the proposal and "I had a long day" became a requirement. A message changes the
proposal only when it reads as a change: it asks for one (the detector's request or an
uncertain change of code), names code or a literal of it, states a constraint ("it must ...",
"without regex", "also ...", "shorter"), asks "what about X?" / "what if X?", or speaks of the
proposal's parts (its parameters, its return, its examples). Anything else is answered as
itself, and the answer says the proposal still waits: nothing is lost, and a misread message
costs the user one rephrasing rather than a wrong proposal and a model call.

The file question is answered by a path ("text_utils.py", "put it in helpers/strings.py"), a
module the index holds ("text_utils"), or a name the index places ("same file as shout", "next
to shout"); anything else is not taken for the answer. Pure functions; the index is asked
through ``KnownCode`` at most once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..reading.intent import Detection, Intent
from ..reading.known_code import KnownCode
from ..reading.signals import candidate_names
from ..reading.text import PATH_RE, code_shaped, find_phrase, padded, words
from ..reading.utterance import Utterance
from ..reading.words import CODE_NOUNS, IMPERATIVE_VERBS, REQUEST_VERBS, TECH_WORDS

#: Words that state a constraint on code or ask for a different one, in the detector's seven
#: languages (accent-folded): modals, "only", "instead", "without", comparatives of code.
CONSTRAINT_WORDS = frozenset({
    # English
    "must", "should", "shall", "shouldn't", "mustn't", "need", "needs", "has", "have", "don't",
    "dont", "never", "always", "only", "instead", "also", "too", "without", "rather", "prefer",
    "shorter", "longer", "faster", "slower", "simpler", "smaller", "bigger", "stricter",
    "keep", "avoid", "max", "maximum", "min", "minimum", "at", "most", "least", "either",
    "pure", "idempotent", "recursive", "iterative", "lazy", "strict", "optional", "default",
    "defaults", "lines", "characters", "chars", "digits", "empty", "none", "null", "true",
    "false", "negative", "zero", "unicode", "ascii", "utf", "case", "lowercase", "uppercase",
    "underscores", "dashes", "hyphens", "spaces", "whitespace", "separator", "prefix", "suffix",
    "examples", "example", "checks", "check", "behaviour", "behavior", "signature", "name",
    "named", "called", "returns", "raises", "accepts", "argument", "arguments", "param",
    "params", "parameters", "dependencies", "dependency", "side", "effects", "thread", "safe",
    "sync", "synchronous", "asynchronous", "typed", "hints", "annotations", "docstring",
    # Italian
    "deve", "devono", "dovrebbe", "dovrebbero", "bisogna", "serve", "anche", "invece", "senza",
    "solo", "soltanto", "sempre", "mai", "piu", "meno", "corto", "corta", "vuota", "vuoto",
    "nome", "esempio", "esempi", "restituisca", "restituire", "accettare", "gestire",
    # German
    "soll", "sollte", "sollten", "muss", "mussen", "darf", "auch", "statt", "anstatt", "ohne",
    "nur", "immer", "nie", "niemals", "kurzer", "schneller", "leer", "leere", "zuruckgeben",
    "umwandeln", "beispiel", "beispiele", "namen",
    # Spanish
    "debe", "deberia", "deben", "tiene", "tambien", "sin", "solamente", "siempre", "nunca",
    "mas", "menos", "vacia", "vacio", "devolver", "devuelva", "aceptar", "nombre", "ejemplo",
    # French
    "doit", "devrait", "doivent", "faut", "aussi", "sans", "seulement", "toujours", "jamais",
    "plutot", "vide", "renvoyer", "renvoie", "accepter", "nom", "exemple",
    # Portuguese
    "precisa", "tambem", "sem", "apenas", "vazia", "vazio", "retornar",
    "retorne", "aceitar", "exemplo",
    # Dutch
    "moet", "moeten", "zou", "ook", "zonder", "alleen", "altijd", "nooit", "leeg", "lege",
    "teruggeven", "accepteren", "voorbeeld",
})

#: Openings that ask for a case the proposal should handle ("what about None?", "what if the
#: text is empty?").
WHAT_ABOUT = ("what about", "what if", "how about", "and if", "and what if", "e se", "e per",
              "und wenn", "was ist mit", "y si", "que pasa si", "et si", "e se", "en als")

#: Words that refer to the waiting proposal itself ("make *it* a method", "keep *its* name").
PROPOSAL_REFERENCES = frozenset({"it", "its", "lo", "la", "es", "ihn", "le", "o", "het"})


def reads_as_correction(said: Utterance, found: Detection, proposal_symbol: str = "") -> bool:
    """Whether a message sent while a proposal waits asks to change it (module docstring).

    ``said``: the message read once (``read_utterance``); ``found``: the detector's reading of
    it; ``proposal_symbol``: the name the proposal writes (naming it is about the proposal).
    """
    if said.social:
        return False
    if found.intent in (Intent.CODE_REQUEST, Intent.AMBIGUOUS):
        return True
    tokens = words(said.core)
    if not tokens:
        return False
    if find_phrase(padded(tokens), WHAT_ABOUT) or _names_code(said, proposal_symbol):
        return True
    if any(t in REQUEST_VERBS or t in IMPERATIVE_VERBS for t in tokens[:3]):
        return True  # "accept a time zone", "make it a method", "drop the check"
    said_words = words(said.text)  # fillers count here: "also", "too", "only"
    changes = [t for t in said_words
               if t in CONSTRAINT_WORDS or t in CODE_NOUNS or t in TECH_WORDS]
    if said.question and not changes:  # an everyday question ("who wrote Hamlet?")
        return False
    refers = any(t in PROPOSAL_REFERENCES for t in said_words)
    return len(changes) >= 2 or (bool(changes) and (refers or not said.question))


def _names_code(said: Utterance, symbol: str) -> bool:
    """A code-shaped name, a call, backticked code, the proposal's own name, or a Python
    literal written as Python writes it (``None``, ``True``)."""
    if "`" in said.marked or "(" in said.core:
        return True
    raw = said.core.replace(",", " ").replace("?", " ").split()
    if symbol and any(t.strip(".'\"") == symbol for t in raw):
        return True
    return any(code_shaped(t.strip(".'\"")) or t.strip(".'\"") in ("None", "True", "False")
               for t in raw)


#: The words around a name that answer the file question by placing the code ("same file as
#: shout", "next to shout", "in the text_utils module"), in the detector's languages.
PLACEMENT_WORDS = frozenset({
    "same", "file", "as", "next", "to", "with", "beside", "near", "where", "is", "in", "into",
    "the", "module", "of", "alongside", "together", "put", "it", "there", "please", "thanks",
    "its", "lives", "defined", "stesso", "dello", "del", "di", "accanto", "a", "nel",
    "modulo", "neben", "gleichen", "datei", "wie", "der", "im", "modul", "junto", "mismo",
    "archivo", "que", "en", "el", "meme", "fichier", "dans", "le", "mesmo", "arquivo",
    "no", "naast", "zelfde", "bestand", "als", "het", "bij",
})


@dataclass(frozen=True)
class FileAnswer:
    """What answers the file question: a ``path`` as written, a ``module`` the index holds by
    that file name ("text_utils": ``text_utils.py``, wherever it is), or a ``near`` name of code
    whose file the index knows (the glue asks it which)."""

    path: str = ""
    module: str = ""
    near: str = ""


def file_answer(said: Utterance, known: KnownCode | None) -> FileAnswer | None:
    """The answer to "which file should the code go in?" in a message, or ``None``. A question
    is not an answer ("what does parse_date do?"), unless it is only the file ("slugs.py?")."""
    if said.question and len(words(said.core)) > 2:
        return None
    path = PATH_RE.search(said.core)
    if path:
        return FileAnswer(path=path.group(1))
    names = [n for n in candidate_names(said.core) if "/" not in n]
    if known is None or not names or len(words(said.core)) > 8:
        return None
    modules = {f"{n}.py": n for n in names if "." not in n}
    found = known.known([*names, *modules])
    placed = set(words(said.core)) - {n.lower() for n in names} <= PLACEMENT_WORDS
    for name in names:
        if f"{name}.py" in found and placed:
            return FileAnswer(module=f"{name}.py")
        if name in found and placed:
            return FileAnswer(near=name)
    return None

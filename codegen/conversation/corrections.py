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

#: Words that state a constraint on the code by themselves, in the detector's seven languages
#: (accent-folded): modals, "only", "instead", "without", "also", comparatives of code.
MODAL_WORDS = frozenset({
    # English
    "must", "should", "shall", "shouldn't", "mustn't", "need", "needs", "has", "have", "don't",
    "dont", "never", "always", "only", "instead", "also", "too", "without", "rather", "prefer",
    "shorter", "longer", "faster", "slower", "simpler", "smaller", "bigger", "stricter",
    "keep", "avoid", "either",
    # Italian
    "deve", "devono", "dovrebbe", "dovrebbero", "bisogna", "anche", "invece", "senza", "solo",
    "soltanto", "sempre", "mai", "piu", "meno",
    # German
    "soll", "sollte", "sollten", "muss", "mussen", "darf", "auch", "statt", "anstatt", "ohne",
    "nur", "immer", "nie", "niemals", "kurzer", "schneller",
    # Spanish
    "debe", "deberia", "deben", "tiene", "tambien", "sin", "solamente", "siempre", "nunca",
    # French
    "doit", "devrait", "doivent", "faut", "aussi", "sans", "seulement", "toujours", "jamais",
    "plutot",
    # Portuguese
    "precisa", "tambem", "sem", "apenas",
    # Dutch
    "moet", "moeten", "zou", "ook", "zonder", "alleen", "altijd", "nooit",
})

#: Words about a piece of code's parts and properties: two of them, or one said of the
#: proposal, make a change ("limit the slug to 50 characters", "two parameters: text and sep").
TOPIC_WORDS = frozenset({
    "max", "maximum", "min", "minimum", "most", "least", "pure", "idempotent", "recursive",
    "iterative", "lazy", "strict", "optional", "default", "defaults", "lines", "characters",
    "chars", "digits", "empty", "none", "null", "true", "false", "negative", "zero", "unicode",
    "ascii", "utf", "case", "lowercase", "uppercase", "underscores", "dashes", "hyphens",
    "spaces", "whitespace", "separator", "prefix", "suffix", "examples", "example", "checks",
    "check", "behaviour", "behavior", "signature", "name", "named", "called", "returns",
    "raises", "accepts", "argument", "arguments", "param", "params", "parameters",
    "dependencies", "dependency", "side", "effects", "thread", "safe", "sync", "synchronous",
    "asynchronous", "typed", "hints", "annotations", "docstring", "corto", "corta", "vuota",
    "vuoto", "nome", "esempio", "esempi", "restituisca", "restituire", "accettare", "gestire",
    "leer", "leere", "zuruckgeben", "umwandeln", "beispiel", "beispiele", "namen", "mas",
    "menos", "vacia", "vacio", "devolver", "devuelva", "aceptar", "nombre", "ejemplo", "vide",
    "renvoyer", "renvoie", "accepter", "nom", "exemple", "vazia", "vazio", "retornar",
    "retorne", "aceitar", "exemplo", "leeg", "lege", "teruggeven", "accepteren", "voorbeeld",
})

#: How a sentence about the speaker opens ("I love this plugin", "my cat is ..."): chat,
#: unless it states a constraint.
SPEAKER = frozenset({"i", "i'm", "im", "my", "we", "we're", "me", "io", "ich", "yo", "je",
                     "eu", "ik", "mi", "mio", "mia", "mein", "meine", "mon", "ma", "meu", "mijn"})

#: Openings that ask for a case the proposal should handle ("what about None?", "what if the
#: text is empty?").
WHAT_ABOUT = ("what about", "what if", "how about", "and if", "and what if", "e se", "e per",
              "und wenn", "was ist mit", "y si", "que pasa si", "et si", "e se", "en als")

#: Words that refer to the waiting proposal itself ("make *it* a method", "keep *its* name").
PROPOSAL_REFERENCES = frozenset({"it", "its", "lo", "la", "es", "ihn", "le", "o", "het"})


def asks_about_a_case(said: Utterance) -> bool:
    """"what about None?", "and what if text is empty?": a case the proposal should handle."""
    return bool(find_phrase(padded(words(said.core)[:4]), WHAT_ABOUT))


def reads_as_correction(said: Utterance, found: Detection, proposal_symbol: str = "") -> bool:
    """Whether a message sent while a proposal waits asks to change it (module docstring).

    ``said``: the message read once (``read_utterance``); ``found``: the detector's reading of
    it; ``proposal_symbol``: the name the proposal writes (naming it is about the proposal).
    """
    if said.social:
        return False
    if found.intent is Intent.CODE_REQUEST:
        return True
    tokens = words(said.core)
    if not tokens:
        return False
    if find_phrase(padded(tokens), WHAT_ABOUT) or _names_code(said, proposal_symbol):
        return True
    if (tokens[0] in REQUEST_VERBS or tokens[0] in IMPERATIVE_VERBS) \
            and tokens[1:2] not in (["me"], ["us"]):
        return True  # "accept a time zone", "make it a method", "drop the check"
    said_words = words(said.text)  # fillers count here: "also", "too", "only"
    modal = any(t in MODAL_WORDS for t in said_words)
    topics = sum(t in TOPIC_WORDS or t in CODE_NOUNS or t in TECH_WORDS for t in said_words)
    refers = any(t in PROPOSAL_REFERENCES for t in said_words)
    if said.question:  # "can it keep digits?" yes; "what time is it in Tokyo?" no
        return (modal or topics > 0) and (refers or topics >= 2 or modal)
    return modal or topics >= 2 or (topics > 0 and (refers or said_words[0] not in SPEAKER))


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

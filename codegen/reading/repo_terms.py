"""The repository's own words, and questions about how something is done.

A question about the code often names none of it: "where are barcodes decoded?", "how is the
due date decided?", "what does the monthly report include?". What it does name is the
*vocabulary* the code is written in: ``barcode.py``, ``due_date``, ``reports/monthly.py``.
``name_terms`` splits the index's names and paths into such words (snake_case, camelCase,
folders, digits dropped), ``message_terms`` the message's, both through one light stemmer, so
"barcodes" meets ``barcode`` and "renews" meets ``Loan.renew``. Words every program uses
("get", "data", "utils", "test") and every sentence uses ("what", "there") are left out.

``process_question``: a question about where or how something *is done*, in the present
passive or impersonal form ("where are barcodes decoded?", "dove viene calcolata la multa?",
"wo werden die E-Mails verschickt?", "¿dónde se genera el informe?"). With a repository
configured, such a question is about the system the user works on, as "do we ..." is; the
past ("where was pizza invented?") and instructions ("how do I ...") are not.

Both only ever make a message a question about the code (or, for a change asked in the
repository's words, an ambiguous message for the tie-break), never a request: a wrong guess
costs one scoring call and adds nothing to the answer. Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .text import fold

__all__ = ["message_terms", "name_terms", "process_question", "stem"]

#: camelCase and snake_case parts of a name (digits and punctuation separate them).
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
#: Suffixes stripped, repeatedly, while at least three letters remain.
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ers", "er", "es", "ed", "s", "e", "y")

#: Words of every program, which say nothing about this one.
GENERIC_CODE = frozenset(
    "get set init main test tests util utils helper helpers self cls base core common new old "
    "run app api src lib libs impl config conf data info item items value values type types "
    "name names list dict str int obj object module modules class func function method file "
    "files path paths index default defaults manager handler handlers service services model "
    "models view views error errors exception exceptions tool tools misc setup package plugin "
    "plugins script scripts temp tmp args kwargs result results check make create update "
    "delete add remove load save read write open close start stop call ".split())
#: Words of every sentence (English, and the detector's other languages' commonest).
GENERIC_PROSE = frozenset(
    "what when where which who whom whose why how there here this that these those their them "
    "they then than with without from into onto about after before again also any some each "
    "every other only just very much many more most less does did done doing have has had "
    "having been being were was are is the and but for not you your our ours can could would "
    "should will shall may might must one two all both few own same such way thing things "
    "happen happens exactly really please thanks thank hey hello good best long time day "
    "come dove cosa quando perche chi quale wie was wo wer warum welche donde cuando porque "
    "quien cual comment quand pourquoi quel quelle onde quando porque qual waar wanneer waarom "
    "welke".split())

_EN = ("ed",)
_IT = ("ato", "ata", "ati", "ate", "uto", "uta", "uti", "ute", "ito", "ita", "iti", "ite")
_ES_PT = ("ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas")
_FR = ("e", "ee", "es", "ees", "i", "ie", "is", "ies", "u", "ue", "us", "ues")

#: Question words that ask where or how, and the present auxiliaries of a passive or an
#: impersonal form after them (True: a participle, by the language's endings, must follow
#: within a few words; False: the auxiliary alone says it), with the participle endings.
_PROCESS_OPENERS: dict[str, tuple[dict[str, bool], tuple[str, ...]]] = {
    # English: "where are barcodes decoded", "how is the date decided", "where does it save"
    "where": ({"is": True, "are": True, "does": False, "do": False}, _EN),
    "how": ({"is": True, "are": True}, _EN),
    "where's": ({}, _EN),
    # Italian: "dove viene calcolata", "come vengono scelti", "dove si calcola"
    "dove": ({"viene": False, "vengono": False, "si": False, "e": True, "sono": True}, _IT),
    "come": ({"viene": False, "vengono": False}, _IT),
    # German: "wo werden ... verschickt", "wie wird ... berechnet"
    "wo": ({"wird": False, "werden": False}, ()),
    "wie": ({"wird": False, "werden": False}, ()),
    # Spanish: "dónde se genera", "dónde son guardados"
    "donde": ({"se": False, "es": True, "son": True}, _ES_PT),
    # French: "où sont envoyées", "comment est calculé", "où est-ce qu'on vérifie"
    "ou": ({"sont": True, "est": True, "on": False, "l'on": False}, _FR),
    "comment": ({"sont": True, "est": True}, _FR),
    # Portuguese: "onde é guardada", "como são calculadas", "onde se guarda"
    "onde": ({"e": True, "sao": True, "se": False}, _ES_PT),
    "como": ({"e": True, "sao": True}, _ES_PT),
    # Dutch: "waar wordt ... berekend", "hoe worden ... gekozen"
    "waar": ({"wordt": False, "worden": False}, ()),
    "hoe": ({"wordt": False, "worden": False}, ()),
}
#: "does" / "do" after "where" only count with "we" or "it" ("where does it save ...").
_DO_SUBJECTS = frozenset({"it", "we", "this", "that"})
_IRREGULAR_PARTICIPLES = frozenset(
    "sent made built done kept read written set found taken held chosen given shown run put "
    "drawn split spent paid sold told left brought bought caught thought hidden begun broken "
    "driven known seen thrown fatto scritto messo preso letto detto scelto feito feita feitos "
    "feitas dito escrito posto visto aberto hecho escrito puesto visto abierto fait faite "
    "ecrit mis pris".split())


def stem(word: str) -> str:
    """A light stemmer, the same for names and messages ("barcodes", "barcode" -> "barcod")."""
    word = fold(word.lower())
    while True:
        suffix = next((x for x in _SUFFIXES
                       if word.endswith(x) and len(word) - len(x) >= 3), "")
        if not suffix:
            return word
        word = word[: -len(suffix)]


_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,4}$")


def name_terms(names: Iterable[str]) -> frozenset[str]:
    """The stemmed words the index's names and paths are made of (``due_date`` -> "due",
    "dat"; ``reports/monthly.py`` -> "report", "monthly"; ``MemberCard`` -> "memb", "card").
    Read once per indexing run (``app/projects/lookup.py``): each distinct word is stemmed
    once."""
    words_: set[str] = set()
    for name in names:
        words_.update(_PARTS.findall(_EXTENSION.sub("", name)))
    lowered = {w.lower() for w in words_}
    return frozenset(stem(w) for w in lowered if len(w) >= 3 and w not in GENERIC_CODE)


def message_terms(words: Iterable[str]) -> set[str]:
    """The message's own words as ``name_terms`` stems them, the generic ones left out."""
    out: set[str] = set()
    for word in words:
        for part in re.split(r"[^a-z0-9]+", fold(word.lower())):
            if len(part) >= 3 and not part.isdigit() and part not in GENERIC_PROSE \
                    and part not in GENERIC_CODE:
                out.add(stem(part))
    return out


def process_question(words: list[str]) -> bool:
    """Whether the folded ``words`` ask where or how something is done, in the present passive
    or impersonal form (see the module docstring)."""
    for i, word in enumerate(words[:6]):
        opener = _PROCESS_OPENERS.get(word)
        if opener is None:
            continue
        auxiliaries, endings = opener
        if word == "where's":
            return _participle_within(words[i + 1:i + 8], endings)
        after = words[i + 1] if i + 1 < len(words) else ""
        if after not in auxiliaries:
            continue
        if after in ("does", "do"):
            return i + 2 < len(words) and words[i + 2] in _DO_SUBJECTS
        if not auxiliaries[after] or _participle_within(words[i + 2:i + 9], endings):
            return True
    return False


def _participle_within(words: list[str], endings: tuple[str, ...]) -> bool:
    return any(w in _IRREGULAR_PARTICIPLES or (len(w) > 4 and w.endswith(endings))
               for w in words)

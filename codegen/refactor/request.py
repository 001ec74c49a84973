""""rename fmt_ts to format_timestamp", "move parse_date to utils/dates.py": read without a model.

Why anchored patterns: a rename or a move is fully stated by its words (a name, a new name or
a path), so reading it costs nothing and a message that says more ("rename fmt_ts and make it
return an aware datetime") is not one: it goes to the ordinary proposal, where a model reads it.
The file that defines the symbol may be named ("in utils/time.py") or left to the index.

The pattern reads the core phrase of one part of the message (``clause_reading``: a sentence,
an aside, quoted text; ``utterance``: greetings, the Cat's name, fillers, thanks and emoji
aside), in the detector's seven languages ("rinomina X in Y", "benenne X in Y um", "déplace X
vers P"), with one typo per word of its own forgiven ("renmae", "mvoe"); another part that asks
for a change makes the message a code request, another question an unsure reading
(``codegen.suggest`` offers it as a question). A scope word ("everywhere", "across the code
base", "in every file", "ovunque", "im ganzen Projekt") belongs to the rename or move: a
rename is everywhere anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache, partial

from ..reading.clause_reading import Said, read_in_parts
from ..reading.commands import command_run, cut_holds_command
from ..reading.known_code import KnownCode
from ..reading.runs import Run, read_or_corrected, shortest_run
from ..reading.text import fold
from ..reading.typos import Vocabulary
from ..reading.utterance import read_utterance, spans

_NAME = r"`?(?P<{0}>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)`?(?:\(\))?"
_PATH = r"`?(?P<{0}>[\w./-]+\.py)`?"
_KIND = (r"(?:(?:the|la|il|el|le|die|der|das|a|o|de)\s+)?(?:(?:function|method|class|def|"
         r"funzione|metodo|classe|funktion|methode|klasse|funci[oó]n|clase|fonction|m[ée]thode|"
         r"fun[cç][aã]o|m[ée]todo|functie|klasse)\s+)?")
_WHERE = r"(?:\s+(?:in|from|da|aus|de|dans|em|uit)\s+" + _PATH.format("path") + r")?"

#: Where a rename or move applies: the whole code base, in any of the languages.
_WHOLE = (r"(?:the\s+|this\s+|our\s+|my\s+)?(?:whole\s+|entire\s+)?(?:code\s*base|code|"
          r"project|repo(?:sitory)?|program|app(?:lication)?)")
_SCOPE = r"(?:" + "|".join((
    r"everywhere(?:\s+(?:in|across)\s+" + _WHOLE + r")?",
    r"(?:(?:in|across|throughout|over)\s+)" + _WHOLE,
    r"(?:in|across)\s+(?:all|every|each)\s+(?:the\s+)?(?:files?|modules?|places?|usages?|uses?)",
    r"(?:project|repo|code\s*base)[- ]wide", r"globally", r"wherever\s+(?:it\s+is|it's)\s+used",
    r"ovunque", r"dappertutto", r"in\s+tutto\s+il\s+(?:progetto|codice|repository)",
    r"in\s+tutti\s+i\s+(?:file|moduli)",
    r"[üu]berall", r"im\s+ganzen\s+(?:projekt|code)", r"in\s+allen\s+(?:dateien|modulen)",
    r"en\s+todas\s+partes", r"en\s+todo\s+el\s+(?:proyecto|c[oó]digo)",
    r"en\s+todos\s+los\s+(?:archivos|m[oó]dulos)",
    r"partout", r"dans\s+tout\s+le\s+(?:projet|code)", r"dans\s+tous\s+les\s+(?:fichiers|modules)",
    r"em\s+todo\s+(?:lugar|o\s+(?:projeto|c[oó]digo))",
    r"em\s+todos\s+os\s+(?:arquivos|m[oó]dulos)",
    r"overal", r"in\s+het\s+hele\s+(?:project|code)", r"in\s+alle\s+(?:bestanden|modules)",
)) + r")"
_SCOPED = r"(?:,?\s+" + _SCOPE + r")?"
_END = r"\s*$"

#: (verb, word before the new name, closing word) per language.
_RENAMES = (
    (r"rename", r"(?:to|as|into)", ""), (r"rinomina", r"(?:in|come|a)", ""),
    (r"benenne", r"(?:in|zu|nach)", r"\s+um"), (r"(?:renombra|cambia\s+el\s+nombre\s+de)",
                                                r"(?:a|como|por|en)", ""),
    (r"renomme", r"(?:en|comme)", ""), (r"renomeie|renomeia", r"(?:para|como)", ""),
    (r"hernoem", r"(?:naar|tot|in)", ""),
)
_MOVES = (
    (r"move", r"(?:to|into)"), (r"sposta", r"(?:in|nel|a)"), (r"verschiebe", r"(?:nach|in)"),
    (r"mueve", r"(?:a|al|en)"), (r"d[ée]place", r"(?:vers|dans|[àa])"),
    (r"mova|move", r"(?:para|em)"), (r"verplaats", r"(?:naar)"),
)
_MODULE = r"(?:(?:the\s+)?(?:module|file)\s+)?"


def _rename(verb: str, link: str, close: str) -> re.Pattern[str]:
    return re.compile(r"^(?:" + verb + r")\s+" + _KIND + _NAME.format("symbol") + _WHERE
                      + _SCOPED + r"\s+" + link + r"\s+" + _NAME.format("new") + close + _SCOPED
                      + _END, re.I)


def _move(verb: str, link: str) -> re.Pattern[str]:
    return re.compile(r"^(?:" + verb + r")\s+" + _KIND + _NAME.format("symbol") + _WHERE
                      + r"\s+" + link + r"\s+" + _MODULE + _PATH.format("dest") + _SCOPED
                      + _END, re.I)


_RENAME_PATTERNS = tuple(_rename(*parts) for parts in _RENAMES)
_MOVE_PATTERNS = tuple(_move(*parts) for parts in _MOVES)


@dataclass(frozen=True)
class RenameRequest:
    """Rename ``symbol`` (``Class.method`` for a method) to ``new_name``; ``path`` when named."""

    symbol: str
    new_name: str
    path: str = ""


@dataclass(frozen=True)
class MoveRequest:
    """Move top-level ``symbol`` to the module ``new_path``; ``path`` when named."""

    symbol: str
    new_path: str
    path: str = ""


#: The words of the patterns above, for one-typo corrections (``reading.typos``).
VOCABULARY = Vocabulary("""
    rename to as into rinomina in come a benenne zu nach um renombra cambia el nombre de por
    en renomme comme renomeie renomeia para como hernoem naar tot move sposta nel verschiebe
    mueve al deplace vers dans mova em verplaats function method class def funzione metodo
    classe funktion methode klasse funcion clase fonction methode funcao metodo functie the la
    il le die der das from da aus uit module file everywhere across throughout over whole
    entire code codebase project repo repository program app application all every each files
    modules places usages uses wide globally wherever it is used ovunque dappertutto tutto
    progetto codice tutti uberall ganzen projekt allen dateien modulen todas partes todo
    proyecto todos los archivos partout tout projet tous les fichiers lugar projeto os arquivos
    overal het hele alle bestanden this our my
""".split())


def read_structural(message: str, known: KnownCode | None = None
                    ) -> RenameRequest | MoveRequest | None:
    """The rename or move the message asks for with confidence, or None (unsure when another
    part holds a command, or another rename or move, of its own). A thing named in plain
    words with its article ("rename the folder to Holidays") only when ``known`` (the index)
    holds its name."""
    said = structural_reading(message)
    if said is None and known is not None:
        said = _plain_reading(message)
        if said is not None and not known.known([said.value.symbol]):
            return None
    if said is None or not said.confident:
        return None
    for other in said.others:
        run = structural_run(other)
        if command_run(other) is not None or (run is not None and run.value != said.value):
            return None
    return said.value


#: The words a rename or a move can start with (``reading.runs``).
STARTS = frozenset("""
    rename rinomina benenne renombra cambia renomme renomeie renomeia hernoem move sposta
    verschiebe mueve deplace déplace mova verplaats
""".split())


@lru_cache(maxsize=1024)
def structural_run(text: str) -> Run[RenameRequest | MoveRequest] | None:
    """The shortest run of ``text`` (one part of a message) that is a rename or a move on its
    own (``reading.runs.shortest_run``), one typo per word forgiven."""
    return shortest_run(text, _part_or_typo, _may_start)


def _part_or_typo(run: str) -> RenameRequest | MoveRequest | None:
    """A run read whole: its chatter is the run's to judge (``reading.runs``)."""
    return read_or_corrected(run, partial(_read_part, chatter=False), VOCABULARY.correct)


@lru_cache(maxsize=2048)
def _may_start(word: str) -> bool:
    return word in STARTS or VOCABULARY.correct(word) in STARTS


@lru_cache(maxsize=256)
def structural_reading(message: str) -> Said[RenameRequest | MoveRequest] | None:
    """The rename or move one part of the message says, confident or not; None for ``/ask``
    messages."""
    if read_utterance(message or "").escape == "ask":
        return None
    return read_in_parts(message or "", _read_part, VOCABULARY)


@lru_cache(maxsize=256)
def _plain_reading(message: str) -> Said[RenameRequest | MoveRequest] | None:
    """``structural_reading`` with renames of things named in plain words (``_everyday``)."""
    if read_utterance(message or "").escape == "ask":
        return None
    return read_in_parts(message or "", partial(_read_part, plain=True), VOCABULARY)


#: The verbs of the patterns (a part without one is not read).
_VERB = re.compile(r"\b(?:rename|rinomina|benenne|renombra|cambia|renomme|renomei[ae]|hernoem|"
                   r"move|sposta|verschiebe|mueve|d[ée]place|mova|verplaats)\b", re.I)


def read_structural_phrase(text: str) -> RenameRequest | MoveRequest | None:
    """The rename or move ``text`` is as a whole (one part of a message), no typo forgiven."""
    return _read_part(text)


def _read_part(text: str, *, chatter: bool = True, plain: bool = False
               ) -> RenameRequest | MoveRequest | None:
    if not _VERB.search(text):
        return None
    said = read_utterance(text)
    if not said.marked or len(said.marked) > 200 or said.escape == "ask":
        return None
    candidates = spans(said, marked=True) if chatter else [said.marked]
    for candidate in candidates:  # then without unknown chatter around it
        found = _read(candidate, plain=plain)
        if found is not None and (candidate == said.marked
                                  or not cut_holds_command(said.marked, candidate)):
            return found
    return None


def _read(text: str, *, plain: bool = False) -> RenameRequest | MoveRequest | None:
    """The rename or move ``text`` says; a rename of a thing named in plain words ("rinomina
    la cartella in Vacanze") only with ``plain`` (``_everyday``)."""
    for pattern in _RENAME_PATTERNS:
        found = pattern.match(text)
        if found and (plain or not _everyday(found, text)):
            new = found["new"].rsplit(".", 1)[-1]
            return RenameRequest(found["symbol"], new, found["path"] or "")
    for pattern in _MOVE_PATTERNS:
        found = pattern.match(text)
        if found:
            return MoveRequest(found["symbol"], found["dest"], found["path"] or "")
    return None


#: The words for a kind of definition, in the seven languages (folded): a plain name after one
#: is code ("benenne die Klasse Kunde in Customer um").
_KIND_WORDS = frozenset("""
    function method class def funzione metodo classe funktion methode klasse funcion clase
    fonction methode funcao metodo functie
""".split())


def _everyday(found: re.Match[str], text: str) -> bool:
    """A rename of a thing with an article and a name in plain words, in any language ("rename
    the folder to Holidays", "renombra la carpeta a Viajes", "hernoem de map naar Vakantie"):
    no kind of definition named, no file, no backticks, neither name written as only code
    writes one (``snake_case``, ``dotted.name``, ``CamelCase``). Such a rename is read only
    when the index knows the name (``read_structural``); a bare plain name ("renomme charger
    en load") is code's way of naming."""
    between = [fold(w) for w in text[:found.start("symbol")].lower().split()[1:]]
    if not between or any(w in _KIND_WORDS for w in between) or found["path"] or "`" in text:
        return False
    return not any(_code_name(found[g]) for g in ("symbol", "new"))


def _code_name(name: str) -> bool:
    return "_" in name.strip("_") or "." in name or any(c.isupper() for c in name[1:]) \
        or any(c.isdigit() for c in name)

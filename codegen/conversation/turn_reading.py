"""A message read once per turn, given where the user stands: one typed ``Reading``.

Why one reading: a message used to be read in several places of a turn (the first hook, the
reply hook, the form, the session), each with its own idea of what was pending, so the answer
to a file question could be taken for a change to an older proposal. Here the readers run once,
in the order that makes the pending question win: a "yes" to "Did you mean ...?", the answer to
the file question, then replies that only mean something in the user's stage ("go", "cancel",
"continue", "apply"), the plugin's commands, renames and moves, commands it is unsure of, and
last what the detector says (a code request, a question about the code, chat). While a proposal
waits, a request for another target replaces it and a message is a change to it only when it
reads as one (``corrections``). Every later hook of the turn uses this value; none reads the
message again. Pure: the index is asked through ``KnownCode``, at most once per reader.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..reading.clause_reading import hedged
from ..reading.commands import Found, claimed, detect_command
from ..reading.details import RequestDetails, extract_details
from ..reading.intent import Detection, Intent, detect_intent
from ..reading.known_code import KnownCode
from ..reading.replies import ReplyIntent, classify_reply, is_apply, is_resume
from ..reading.utterance import Utterance, read_utterance
from ..refactor.request import MoveRequest, RenameRequest, read_structural
from ..suggest import suggest_command
from ..vocabulary import Vocabulary
from .corrections import FileAnswer, asks_about_a_case, file_answer, reads_as_correction
from .last_reply import change_beside_reply, last_reply
from .situation import Situation, Stage


class Kind(Vocabulary):
    """What a message is, given where the user stands."""

    NOT_OURS = "for another plugin's form"
    FILE_ANSWER = "the file asked for"
    NO_FILE = "no file in the answer"
    YES = "yes to 'Did you mean'"
    CONFIRM = "go"
    CANCEL = "cancel or stop"
    RESUME = "continue"
    APPLY = "apply"
    COMMAND = "a plugin command"
    UNSURE = "a command it may be"
    STRUCTURAL = "a rename or a move"
    REQUEST = "a code request"
    MAYBE_REQUEST = "maybe a code request"
    QUESTION = "a question about the code"
    CORRECTION = "a change to the proposal"
    CHAT = "anything else"


@dataclass(frozen=True)
class Reading:
    """The one reading of a turn's message (``read_turn``)."""

    kind: Kind
    #: the message as sent, and its core phrase (``utterance``)
    text: str
    said: Utterance
    #: a request's file, symbol and kind (``REQUEST``), as the message names them
    details: RequestDetails = RequestDetails()
    #: the answer to the file question (``FILE_ANSWER``)
    answer: FileAnswer | None = None
    command: Found | None = None
    structural: RenameRequest | MoveRequest | None = None
    #: the canonical command the message may mean (``UNSURE``)
    suggestion: str = ""
    #: the detector's verdict, when it ran
    detection: Detection | None = None

    @property
    def request_text(self) -> str:
        """The request in the user's words (``/code`` left out when it was escaped)."""
        return self.said.core if self.said.escape else self.text.strip()


def read_turn(text: str, situation: Situation, known: KnownCode | None = None) -> Reading:
    """What ``text`` is for a user in ``situation`` (see the module docstring). ``known``: the
    repository's index (``None`` without one)."""
    said = read_utterance(text)
    plain = Reading(Kind.CHAT, text, said)
    if situation.foreign_form:
        return replace(plain, kind=Kind.NOT_OURS)
    reply = classify_reply(text)
    if situation.suggestion and reply is ReplyIntent.CONFIRM:
        return replace(plain, kind=Kind.YES, suggestion=situation.suggestion)
    if said.escape == "code":
        return replace(plain, kind=Kind.REQUEST, details=extract_details(said.core))
    if said.escape:
        return replace(plain, kind=Kind.QUESTION)
    if situation.stage is Stage.ASKED_FILE:
        pending = _answer_to_file_question(said, reply, known)
        if pending is not None:
            return replace(plain, kind=pending[0], answer=pending[1])
    early = _stage_reply(text, reply, situation)
    if early is Kind.CONFIRM and change_beside_reply(text):
        early = Kind.CORRECTION  # "it should also strip accents. go": the change first
    if early is Kind.APPLY and hedged(text):  # unsure, about writing the user's files: ask
        return replace(plain, kind=Kind.UNSURE, suggestion="apply")
    if early is not None:
        return replace(plain, kind=early)
    return _what_it_asks(plain, situation, known)


def _answer_to_file_question(said: Utterance, reply: ReplyIntent, known: KnownCode | None
                             ) -> tuple[Kind, FileAnswer | None] | None:
    """"cancel", or a file the message names; ``None`` when the message is something else."""
    if reply is ReplyIntent.CANCEL:
        return Kind.CANCEL, None
    answer = file_answer(said, known)
    if answer is None:
        return None
    details = extract_details(said.core)
    if details.symbol and details.target_path and len(said.core.split()) > 5:
        return None  # "write a function foo in bar.py": a new request, not an answer
    return Kind.FILE_ANSWER, answer


def _stage_reply(text: str, reply: ReplyIntent, situation: Situation) -> Kind | None:
    """Replies that mean something only in the user's stage ("go" to a proposal, "stop" to a
    running draft, "continue" after one, "apply" with a draft)."""
    stage = situation.stage
    if reply is ReplyIntent.CONFIRM and stage is Stage.PROPOSED:
        return Kind.CONFIRM
    if reply is ReplyIntent.CANCEL and stage is not Stage.NO_TASK:
        return Kind.CANCEL
    if is_resume(text) and stage is not Stage.NO_TASK:
        return Kind.RESUME
    if is_apply(text) and situation.has_task:
        return Kind.APPLY
    return None


def _what_it_asks(plain: Reading, situation: Situation, known: KnownCode | None) -> Reading:
    text = plain.text
    command = detect_command(text)
    if command is not None and claimed(command, repository_configured=situation.repository,
                                       has_task=situation.has_task):
        return replace(plain, kind=Kind.COMMAND, command=command)
    structural = read_structural(text, known) if situation.repository else None
    if structural is not None and not _about_the_proposal(structural, situation):
        return replace(plain, kind=Kind.STRUCTURAL, structural=structural)
    phrase = _suggestion(text, situation)
    if phrase:
        return replace(plain, kind=Kind.UNSURE, suggestion=phrase)
    found = detect_intent(text, known)
    kind = _detected(plain.said, found, situation)
    if situation.stage is Stage.PROPOSED and kind in (Kind.CORRECTION, Kind.CHAT):
        reply = last_reply(text)  # "did the deploy finish? nvm, go": asked, never folded in
        if reply:
            return replace(plain, kind=Kind.UNSURE, suggestion=reply)
    details = found.details
    if kind is Kind.CORRECTION and not _moves_the_proposal(plain.said, details):
        details = RequestDetails()  # a change's details are the model's to read, not a target
    return replace(plain, kind=kind, details=details, detection=found)


def _suggestion(text: str, situation: Situation) -> str:
    """The command a message may mean, when it is one this user has ("roll back to draft 3"
    only with a task; a rename or move only with a repository and no proposal waiting)."""
    found = suggest_command(text)
    if found is None:
        return ""
    if found.command is not None:
        ok = claimed(found.command, repository_configured=situation.repository,
                     has_task=situation.has_task)
    else:
        ok = situation.repository and situation.stage is not Stage.PROPOSED
    return found.phrase if ok else ""


def _about_the_proposal(request: RenameRequest | MoveRequest, situation: Situation) -> bool:
    """While a proposal waits, "rename the parameter to value" changes the proposal: a rename
    or move is one only when it names a definition other than the proposal's parts."""
    if situation.stage is not Stage.PROPOSED:
        return False
    return request.symbol.rpartition(".")[2] in ("parameter", "argument", "function", "method",
                                                 "it", situation.proposal[1].rpartition(".")[2])


def _detected(said: Utterance, found: Detection, situation: Situation) -> Kind:
    intent = found.intent
    if intent is Intent.CODE_QUESTION and not (situation.stage is Stage.PROPOSED
                                               and asks_about_a_case(said)):
        return Kind.QUESTION
    if situation.stage is Stage.PROPOSED:
        if intent is Intent.CODE_REQUEST and not _about_it(said, found.details) \
                and (_another_target(found.details, situation) or _new_entity(said)):
            return Kind.REQUEST
        if reads_as_correction(said, found, situation.proposal[1].rpartition(".")[2]):
            return Kind.CORRECTION
        return Kind.CHAT
    if intent is Intent.CODE_REQUEST:
        return Kind.REQUEST
    if situation.stage is Stage.ASKED_FILE and not (said.social or said.question):
        return Kind.NO_FILE  # an answer the plugin cannot read: asked again, never dropped
    if intent is Intent.AMBIGUOUS:
        return Kind.MAYBE_REQUEST
    return Kind.CHAT


#: "put *it* *in* text/words.py": a pronoun for the proposal, a verb that places it, and the
#: file after a preposition of place (the detector's languages).
_IT = frozenset({"it", "them", "lo", "la", "es", "le", "o", "het", "ihn"})
_PLACE = frozenset({"put", "place", "move", "save", "keep", "write", "metti", "mettila",
                    "mettilo", "sposta", "salva", "leg", "lege", "verschiebe", "speichere",
                    "pon", "ponla", "ponlo", "mueve", "guarda", "mets", "deplace", "range",
                    "coloca", "coloque", "mova", "zet", "verplaats", "sla"})
_INTO = frozenset({"in", "into", "to", "nel", "nella", "nach", "en", "dans", "em", "no",
                   "na", "naar", "a"})


#: Verbs that say how the waiting proposal should work, whatever they name ("use
#: unicodedata.normalize", "call shout first", "handle errors of parse_date").
_HOW = frozenset({"use", "call", "handle", "accept", "return", "raise", "support", "avoid",
                  "prefer", "keep", "reuse", "wrap", "catch", "ignore", "skip", "throw", "rely",
                  "usa", "chiama", "gestisci", "accetta", "restituisci", "verwende", "nutze",
                  "benutze", "rufe", "utiliza", "llama", "maneja", "utilise", "appelle",
                  "gere", "gebruik", "roep"})


def _about_it(said: Utterance, details: RequestDetails) -> bool:
    """A request that speaks of the waiting proposal: its own pronoun right after the verb
    ("make it a method of the Slugger class", "turn it into a class"), a verb saying how it
    should work ("use unicodedata.normalize"), or another file for it ("put it in x.py")."""
    words = said.key.replace(",", " ").split()
    if words and words[0] in _HOW:
        return True
    return words[1:2] != [] and words[1] in _IT or _moves_the_proposal(said, details)


def _moves_the_proposal(said: Utterance, details: RequestDetails) -> bool:
    """"put it in text/words.py": another file for the waiting proposal, not a new request."""
    if details.symbol or not details.target_path:
        return False
    words = said.key.replace(",", " ").split()
    before = words[:next((i for i, w in enumerate(words) if details.target_path.lower() in w),
                         len(words))]
    return bool(before) and before[-1] in _INTO and bool(set(before) & _IT) \
        and bool(set(before) & _PLACE)


#: Nouns of an entity to write, and what shows one is new ("*a* helper *that* ...").
_ENTITY_NOUNS = frozenset({"function", "method", "class", "helper", "funzione", "metodo",
                           "classe", "funktion", "klasse", "funcion", "clase",
                           "fonction", "methode", "funcao", "functie"})
_NEW = frozenset({"a", "an", "new", "another", "un", "una", "uno", "nuova", "nuovo", "ein",
                  "eine", "einen", "neue", "neuen", "une", "nouvelle", "nouveau", "um", "uma",
                  "nueva", "nuevo", "een", "nieuwe"})
#: Nouns that make "a function ..." a part of the waiting proposal ("a function argument").
_PARTS = frozenset({"argument", "arguments", "parameter", "parameters", "param", "name",
                    "signature", "body", "docstring", "call", "calls", "type", "return",
                    "result", "example", "examples", "check", "checks", "test", "tests"})


def _new_entity(said: Utterance) -> bool:
    """"add a helper that counts words": another entity than the waiting proposal's (an
    article before its noun, and no part of it after: "a function argument" is a change)."""
    words = said.key.replace(",", " ").split()
    for i, word in enumerate(words):
        if word in _ENTITY_NOUNS and i and words[i - 1] in _NEW:
            return i + 1 >= len(words) or words[i + 1] not in _PARTS
    return False


def _another_target(details: RequestDetails, situation: Situation) -> bool:
    """A request that names a file or a symbol other than the waiting proposal's."""
    path, symbol = situation.proposal
    named = ((details.target_path, path), (details.symbol, symbol))
    return any(said and said.rpartition(".")[2] != str(pending).rpartition(".")[2]
               for said, pending in named)

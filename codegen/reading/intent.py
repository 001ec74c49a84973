"""Is a chat message a request for code, a question about the code, or neither? And what does it
name (file, symbol, kind)?

Why deterministic: the Cat routes a message to a form or tool by the embedding similarity of
the message to the form's example sentences; with its default embedder (character bigrams) and
other weak ones that is a coin toss, so a plain "write a function slugify in text_utils.py" was
answered by the Cat with inline code. This detector reads the sentence the way a person would
(``intent_signals``): does it name code, strongly (a path, a ``snake_case`` or ``dotted.name``,
a code noun, a name the repository's index knows) or weakly (programming jargon)? Does its
structure ask for a change (an imperative, a modal "should", a desire, a bug report, a
causative "make X ...")? Is it a question, a walk-through or a comparison? Seven languages,
typos forgiven.

The verdicts: a change asked of strongly named code is a CODE_REQUEST; a message with no sign of
code at all is OTHER, whatever its verbs ("fix my broken bike"); what stays uncertain (a change
asked of weakly named code, strongly named code with no change asked) is AMBIGUOUS, for the
caller to settle with one LLM yes/no call (``tie_break_prompt``). Questions, walk-throughs and
comparisons that concern code are CODE_QUESTIONs. With a repository configured, a question
needs more than words every program and every day share ("function", "call", "test",
"class", "bug", "error", "fix", "file", "type": "what's the function of the liver?"): a name,
a path or a word of the repository. Code or a log pasted into the message (``pasted``) is
read as the code it names, and the user's words after it decide: a question about it, or a
change of it. Pure functions; the only call out is the optional ``KnownCode`` lookup, once
per message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from ...llm.templates import data_block
from ..steps import TIE_BREAK
from .details import RequestDetails, extract_details
from .frames import ACKNOWLEDGEMENTS, GUIDED_WALKS, HOW_TO, OUR_SYSTEM
from .known_code import KnownCode, KnownNames, is_file_name
from .pasted import pasted
from .repo_terms import message_terms, process_question
from .signals import (
    CodeSign,
    Sentence,
    asks_about_code,
    candidate_names,
    change_asked,
    code_sign,
    opening_verb,
    question_form,
    read,
    used_as_names,
)
from .text import BACKTICK_RE, CALL_RE, THINK_RE, code_shaped, find_phrase, words
from .utterance import read_utterance
from .words import GENERIC_CODE_WORDS, INFORMATION_VERBS

__all__ = ["Detection", "Intent", "KnownCode", "KnownNames", "RequestDetails", "detect_intent",
           "extract_details", "parse_tie_break", "tie_break_prompt"]


class Intent(str, Enum):
    """What a message asks of the plugin."""

    CODE_REQUEST = "code_request"
    CODE_QUESTION = "code_question"
    OTHER = "other"
    #: Could be a request; let the LLM decide (``tie_break_prompt``).
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class Detection:
    """The detector's verdict, the evidence for it, and what the message names.

    ``known``: the message's names the index confirmed (empty without a lookup).
    """

    intent: Intent
    details: RequestDetails
    evidence: tuple[str, ...] = ()
    known: tuple[str, ...] = ()

    @property
    def escaped(self) -> bool:
        """The user chose the reading (``/code ...``, ``/ask ...``)."""
        return bool(self.evidence) and self.evidence[0].startswith("escape:")


#: ``/code ...`` always starts a code request, ``/ask ...`` always asks about the code.
_ESCAPES = {"code": Intent.CODE_REQUEST, "ask": Intent.CODE_QUESTION}


def tie_break_prompt(message: str) -> str:
    """The yes/no question for an ``AMBIGUOUS`` message (``prompts`` template ``tie_break``);
    the message is a data block, so it cannot pose as instructions."""
    return TIE_BREAK.render(message=data_block("message", "user", message))


def detect_intent(text: str, known: KnownCode | None = None) -> Detection:
    """Classify ``text`` (see the module docstring) and extract what it names.

    ``known``: the repository's index, asked at most once, with every name the message
    contains (``intent_signals.candidate_names``); ``None`` when no repository is configured.
    A known symbol the message names is carried in the details when the words name none.
    """
    said = read_utterance(text)
    body = said.marked + ("?" if said.question else "")
    details = extract_details(body)
    if said.escape:
        return Detection(_ESCAPES[said.escape], details, (f"escape:/{said.escape}",))
    sentence = read(body, words(body), asked=said.asked)
    if not sentence.words or said.social:
        return Detection(Intent.OTHER, details)
    strong, weak = used_as_names(sentence, _confirmed(body, known))
    sign, why = code_sign(sentence, details, strong, weak)
    change = change_asked(sentence)
    form = question_form(sentence)
    intent = _decide(sentence, sign, change, form, names_code=not why.startswith("noun:"),
                     thanked=_thanked(said.removed))
    after = _after_paste(text) if sign is CodeSign.STRONG else None
    if after is not None:
        intent, form, change = after
    elif intent is Intent.CODE_QUESTION and known is not None \
            and _generic_only(sentence, details, why, strong):
        intent, why = Intent.OTHER, ""  # the repository's own words decide below
    if intent is Intent.OTHER and known is not None:
        intent, why = _in_the_repository(sentence, form, change, known, why)
    evidence = tuple(e for e in (why, change, form) if e)
    return Detection(intent, _with_known(details, strong), evidence, tuple(strong + weak))


def _thanked(removed: tuple[str, ...]) -> bool:
    """The message opened with thanks or praise ("thanks, that answer helped a lot")."""
    first = words(removed[0])[:1] if removed else []
    return bool(first) and first[0] in ACKNOWLEDGEMENTS


def _after_paste(text: str) -> tuple[Intent, str, str] | None:
    """With code or a log pasted, the user's words after it: a change asked ("fix this so
    ...", "can you fix it?") is a request, a question ("why does this happen?", "any idea?")
    a question about that code; ``(intent, form, change)``, or None (nothing pasted, or the
    words after it decide nothing)."""
    found = pasted(text)
    if found is None or not found.after:
        return None
    said = read_utterance(found.after)
    sentence = read(said.marked + ("?" if said.question else ""), words(said.core),
                    asked=said.asked)
    if not sentence.words:
        return None
    verb = opening_verb(sentence)
    change = change_asked(sentence)
    if (verb and verb not in INFORMATION_VERBS) or (sentence.asked and change):
        return Intent.CODE_REQUEST, "", change or f"verb:{verb}"
    form = question_form(sentence)
    if form or said.question or find_phrase(sentence.padded, _PUZZLED):
        return Intent.CODE_QUESTION, form or "question", ""
    return None


#: Prose after a paste that asks what it means without a question mark.
_PUZZLED = ("any idea", "any ideas", "thoughts", "what is going on", "what's going on", "help",
            "no idea why", "idee", "hilfe", "alguna idea", "une idee", "alguma ideia")


def _generic_only(sentence: Sentence, details: RequestDetails, why: str,
                  strong: list[str]) -> bool:
    """Whether a question's only signs of code are words every program and every day share
    (``GENERIC_CODE_WORDS``, programming jargon, the stems of program workings) or a plain
    word a generic noun put in a name's place ("a blood test *for iron*"); a name the index
    knows, a path, a backticked, called or code-shaped name is never generic."""
    if strong or details.target_path or BACKTICK_RE.search(sentence.text) \
            or CALL_RE.search(sentence.text):
        return False
    if why.startswith("noun:"):
        return why.removeprefix("noun:") in GENERIC_CODE_WORDS
    if why == "named":
        return not any(code_shaped(part) or part[1:] != part[1:].lower()
                       for part in details.symbol.split(".")) and "_" not in details.symbol
    return why.startswith(("jargon:", "camel-case", "stem:")) or not why


def _in_the_repository(sentence: Sentence, form: str, change: str, known: KnownCode,
                       why: str) -> tuple[Intent, str]:
    """With a repository configured, a message its words leave as chat may still concern the
    repository's code, even naming none of it: a guided walk through a process, a question
    about what "we" do, how or where something is done ("where are barcodes decoded?",
    ``repo_terms.process_question``), or a question in the repository's own words ("what does
    the monthly report include?") is a question about the code; a change asked in its words
    ("the monthly report crashes ..., please fix it": a request verb or a bug report, and two
    of its words) is for the tie-break. Instructions for the user ("how do I ...") stay chat.
    The reading, and the evidence for it."""
    if form and not find_phrase(sentence.padded, HOW_TO):
        if find_phrase(sentence.padded, GUIDED_WALKS):
            return Intent.CODE_QUESTION, why or "walk"
        if form == "question" and (find_phrase(sentence.padded, OUR_SYSTEM)
                                   or process_question(sentence.words)):
            return Intent.CODE_QUESTION, why or "process"
        if form == "question" and _in_its_words(sentence, known):
            return Intent.CODE_QUESTION, why or "vocabulary"
    elif change.startswith(("verb:", "bug:")) and not form \
            and _in_its_words(sentence, known, at_least=2):
        return Intent.AMBIGUOUS, why or "vocabulary"
    return Intent.OTHER, why


def _in_its_words(sentence: Sentence, known: KnownCode, at_least: int = 1) -> bool:
    """Whether ``at_least`` of the message's words are words of the repository's names (a
    change needs two: "I'll retry the recipe" is not about ``retry``; so does a question about
    the speaker's own things or a recommendation: "when will *my* parcel arrive?", "a *good*
    label maker?")."""
    stems = message_terms(sentence.words)
    if not stems:
        return False
    personal = any(w in _PERSONAL for w in sentence.words)
    return len(known.terms(stems)) >= (max(at_least, 2) if personal else at_least)


#: The speaker's own things and asks for advice: everyday, unless two of the repository's
#: words say otherwise.
_PERSONAL = frozenset({
    "i", "my", "me", "mine", "i'm", "i'd", "i've", "i'll", "good", "best", "recommend", "io",
    "mio", "mia", "miei", "mie", "mi", "ich", "mein", "meine", "meinen", "meinem", "mir", "mich",
    "yo", "mis", "je", "moi", "mon", "ma", "mes", "eu", "meu", "minha", "meus", "minhas", "ik",
    "mijn", "mij", "buono", "buona", "migliore", "gut", "beste", "bueno", "buena", "mejor", "bon",
    "bonne", "meilleur", "bom", "boa", "melhor", "goed",
})


def _confirmed(text: str, known: KnownCode | None) -> set[str]:
    if known is None:
        return set()
    names = candidate_names(text)
    return known.known(names) & set(names) if names else set()


def _decide(sentence: Sentence, sign: CodeSign, change: str, form: str, *,
            names_code: bool, thanked: bool = False) -> Intent:
    """Confident only where the rules settle it: a change of strongly named code, or an ask
    for an action on a name of code ("could you fix parse_date?", not "could you send me the
    file?"), is a request; a message with no sign of code, or thanks ("thanks, parse_date works
    now"), is not. Any other sign of code is uncertain, for the tie-break."""
    if form or opening_verb(sentence) in INFORMATION_VERBS:
        about_code = sign is not CodeSign.NONE or asks_about_code(sentence)
        return Intent.CODE_QUESTION if about_code else Intent.OTHER
    if sign is CodeSign.STRONG and (change or (sentence.asked and names_code)):
        return Intent.CODE_REQUEST
    if sign is CodeSign.NONE or sentence.words[0] in ACKNOWLEDGEMENTS or (thanked
                                                                          and not change):
        return Intent.OTHER
    return Intent.AMBIGUOUS


def _with_known(details: RequestDetails, used: list[str]) -> RequestDetails:
    """The details, with the first known entity name when the words named no symbol."""
    if details.symbol:
        return details
    symbol = next((n for n in used if "/" not in n and not is_file_name(n)), "")
    if not symbol:
        return details
    kind = details.kind or ("method" if "." in symbol else "")
    return replace(details, symbol=symbol, kind=kind)


def parse_tie_break(reply: str) -> bool:
    """The LLM's yes/no, after any ``<think>`` block and an "Answer:" label (anything
    unreadable counts as no: the Cat then answers as usual)."""
    found = [w for w in words(THINK_RE.sub(" ", reply or "")) if w != "answer"]
    return bool(found) and found[0] in ("yes", "y", "si", "ja", "oui", "true", "sim")

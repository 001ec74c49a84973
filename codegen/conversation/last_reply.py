"""A reply to the waiting proposal said last, after words the readers do not know.

People end a message with their answer after something else: a log line pasted above it, a
question they wave away ("did the deploy finish? nvm, go"), a remark ("is it me or is CI slow
today? whatever. go"). The reply readers read a reply only when what stands beside it is known
to them (a greeting, thanks, a filler); anything else makes the message a correction, and a
correction is folded into the proposal with a model call. When the message's last part (after
a line break or a mark) is a reply word alone ("go", "cancel") and no earlier part asks for a
change (no verb of a change, no contrast, no name of code, no word that states a constraint),
the message is neither a reply read with confidence nor a correction: the plugin asks "Did you
mean: go?", which "yes" confirms. Never for "yes, but make it async" (its last part is the
change) nor "make it async. go" (an earlier part asks for a change). The other way round, a
"go" beside a part that asks for a change ("it should also strip accents. go") is that change
first (``change_beside_reply``): the change is never dropped by drafting without it. Pure; no
I/O.
"""

from __future__ import annotations

from ..reading.clause_reading import part_asks
from ..reading.clauses import parts
from ..reading.replies import CANCEL_WORDS, CONFIRM_WORDS, ReplyIntent, classify_reply
from ..reading.text import code_shaped, words
from .corrections import MODAL_WORDS

__all__ = ["change_beside_reply", "last_reply"]

_PHRASES = {ReplyIntent.CONFIRM: "go", ReplyIntent.CANCEL: "cancel"}
#: A part that waves what came before away ("never mind", "nvm", "anyway"): no change.
_WAVED = frozenset({"never mind", "nevermind", "nvm", "anyway", "anyways", "whatever",
                    "no matter", "non importa", "lascia stare", "egal", "schon gut",
                    "da igual", "no importa", "peu importe", "nao importa", "deixa pra la",
                    "maakt niet uit"})


def last_reply(text: str) -> str:
    """"go" or "cancel" when ``text`` ends with that reply alone after parts that ask for no
    change (see the module docstring); "" otherwise."""
    clauses, code = _clauses(text)
    if code or len(clauses) < 2 or not _bare_reply(clauses[-1]):
        return ""
    reply = classify_reply(clauses[-1])
    if reply not in _PHRASES or any(_asks_a_change(c) for c in clauses[:-1]):
        return ""
    return _PHRASES[reply]


def change_beside_reply(text: str) -> bool:
    """Whether a part of ``text`` other than its reply words asks for a change ("it should also
    strip accents. go"): the message is a change to the proposal first, never a "go" that
    drops it."""
    clauses, code = _clauses(text)
    return code or len(clauses) > 1 and any(_asks_a_change(c) for c in clauses
                                            if not _bare_reply(c))


def _clauses(text: str) -> tuple[list[str], bool]:
    """The message's clauses of words (``clauses.parts``: sentences, asides, lines), and
    whether it holds code (a fence or a span: a change, whatever stands beside it)."""
    found = parts(text or "")
    return ([c for p in found if p.kind != "code" for c in p.clauses],
            any(p.kind == "code" for p in found))


def _bare_reply(clause: str) -> bool:
    return " ".join(words(clause)) in CONFIRM_WORDS | CANCEL_WORDS


def _asks_a_change(part: str) -> bool:
    """A part that asks for a change of the proposal: what ``part_asks`` calls one (an
    imperative, a "but ..."), a word that states a constraint (``MODAL_WORDS``: "it should
    also ...", "never return None"), or a name of code."""
    folded = words(part)
    if not folded or " ".join(folded) in _WAVED:
        return False
    return part_asks(part) == "change" or bool(set(folded) & MODAL_WORDS) \
        or any(code_shaped(token.strip("()[]'\"`")) for token in part.split())

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

import re

from ..reading.replies import CANCEL_WORDS, CONFIRM_WORDS, ReplyIntent, classify_reply
from ..reading.signals import opening_verb, read
from ..reading.text import code_shaped, words
from ..reading.utterance import read_utterance
from ..reading.words import REQUEST_VERBS
from .corrections import MODAL_WORDS

__all__ = ["change_beside_reply", "last_reply"]

_PARTS = re.compile(r"[.?!;,\n:]+")
#: Words that open a change in an earlier part: a contrast, a condition.
_CHANGE = frozenset({"but", "except", "though", "however", "instead", "unless", "ma", "pero",
                     "aber", "mais", "mas", "maar", "anzi", "sondern", "plutot"})
_PHRASES = {ReplyIntent.CONFIRM: "go", ReplyIntent.CANCEL: "cancel"}
#: A part that waves what came before away ("never mind", "nvm", "anyway"): no change.
_WAVED = frozenset({"never mind", "nevermind", "nvm", "anyway", "anyways", "whatever",
                    "no matter", "non importa", "lascia stare", "egal", "schon gut",
                    "da igual", "no importa", "peu importe", "nao importa", "deixa pra la",
                    "maakt niet uit"})


def last_reply(text: str) -> str:
    """"go" or "cancel" when ``text`` ends with that reply alone after parts that ask for no
    change (see the module docstring); "" otherwise."""
    parts = [p.strip() for p in _PARTS.split(text or "") if p.strip()]
    if len(parts) < 2:
        return ""
    last = " ".join(words(parts[-1]))
    reply = classify_reply(parts[-1])
    if reply not in _PHRASES or last not in CONFIRM_WORDS | CANCEL_WORDS:
        return ""
    if any(_asks_a_change(part) for part in parts[:-1]):
        return ""
    return _PHRASES[reply]


def change_beside_reply(text: str) -> bool:
    """Whether a part of ``text`` other than its reply words asks for a change ("it should also
    strip accents. go"): the message is a change to the proposal first, never a "go" that
    drops it."""
    parts = [p.strip() for p in _PARTS.split(text or "") if p.strip()]
    return len(parts) > 1 and any(
        _asks_a_change(part) for part in parts
        if " ".join(words(part)) not in CONFIRM_WORDS | CANCEL_WORDS)


def _asks_a_change(part: str) -> bool:
    folded = words(part)
    if not folded or " ".join(folded) in _WAVED:
        return False
    if set(folded) & (_CHANGE | MODAL_WORDS):
        return True
    if any(code_shaped(token.strip("()[]'\"`")) for token in part.split()):
        return True
    said = read_utterance(part)
    core = words(said.core)
    return bool(core) and opening_verb(read(said.core, core, asked=said.asked)) in REQUEST_VERBS

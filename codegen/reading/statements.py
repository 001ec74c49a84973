"""Sentences that state something and ask for nothing, beside a command.

People put what just happened before what they ask: a status ("build #482 failed on main.",
"the deploy broke again.", "tests passed locally."), or an announcement of their own next try
("let me try once more.", "lemme rephrase."). Such a sentence opens with a word that is also a
verb ("build", "test", "deploy", "let"), so read as an imperative it would ask for a change and
hide the command beside it. ``statement`` tells them apart by their shape, in words
(``text.words``: lower case, accents folded):

- a **status**: a noun (with its article or a number: "the build", "build #482", "CI 3") and a
  verb in the past ("failed", "broke", "passed", "went") that ends its clause or is followed
  by a place, a time or an adverb ("on main", "again", "twice", "yesterday"), never by an
  object ("redo failed tests" is an order);
- an **announcement**: "let me" (or "lemme") and a verb of trying or saying ("try", "retry",
  "rephrase", "put it", "ask"), never of seeing ("let me see the diff" asks to be shown).

``conditional`` is a condition ("if the tests still fail", "should the migration fail", "se
non passa", "falls es nicht klappt", "en caso de que falle", "s'il échoue", "se falhar", "indien
het faalt"): the command beside it is meant for a case that may not be the present one, so it is
asked about, never run with the condition dropped.

``bare_hedge`` is a clause of doubt and nothing else ("not sure.", "no idea", "non so"): it asks
nothing either, but a command beside it is the speaker's guess, asked about (``clause_reading``).

Pure; no I/O.
"""

from __future__ import annotations

__all__ = ["announcement", "bare_hedge", "condition_after", "conditional", "statement"]

#: Verbs in the past that are no "-ed" form, as a status says them.
_PAST = frozenset({"broke", "went", "ran", "got", "was", "were", "fell", "stuck", "hung",
                   "died", "blew", "took", "came", "failed", "passed", "crashed"})
#: What may follow a status's verb: a place, a time, an adverb, a count, a joining word.
_AFTER_STATUS = frozenset({
    "on", "in", "at", "with", "again", "twice", "once", "after", "since", "for", "because",
    "and", "but", "so", "yesterday", "today", "tonight", "overnight", "locally", "here",
    "there", "now", "already", "too", "also", "badly", "silently", "randomly", "times",
    "during", "before", "while", "when", "this", "last", "earlier", "somehow", "without",
    "red", "green", "down", "up", "out",
})
#: Words that may open a status's noun.
_DETERMINERS = frozenset({"the", "my", "our", "this", "that", "your", "its", "their", "a"})
#: "let me ..." that announces the speaker's own try, never asks to be shown something.
_LET_ME = frozenset({"let", "lemme"})
_TRYING = frozenset({"try", "retry", "rephrase", "reword", "repeat", "put", "say", "ask",
                     "attempt", "restate", "give", "start", "think", "explain"})
_LONGEST_NOUN = 3


def statement(words: list[str]) -> bool:
    """Whether ``words`` (one clause, folded) state a status or announce the speaker's own
    next try (see the module docstring)."""
    return announcement(words) or _status(words)


#: A clause that only says the speaker is unsure, in the seven languages (words, folded).
_BARE_HEDGES = frozenset({
    "not sure", "i'm not sure", "im not sure", "i am not sure", "not 100 sure", "i'm not 100 sure",
    "not certain", "not entirely sure", "no idea", "i don't know", "dunno", "not really sure",
    "non so", "non sono sicuro", "non sono sicura", "nicht sicher", "ich weiss nicht",
    "ich bin nicht sicher", "no se", "no estoy seguro", "no estoy segura", "pas sur",
    "je ne sais pas", "je suis pas sur", "nao sei", "nao tenho certeza", "weet niet",
    "weet ik niet", "niet zeker", "ik weet het niet",
})


def bare_hedge(words: list[str]) -> bool:
    """Whether ``words`` (one clause, folded) say only that the speaker is unsure."""
    return " ".join(words) in _BARE_HEDGES


def announcement(words: list[str]) -> bool:
    """Whether ``words`` (one clause, folded) announce the speaker's own next try."""
    if not words or words[0] not in _LET_ME:
        return False
    rest = words[2:] if words[0] == "let" and words[1:2] == ["me"] else words[1:]
    return bool(rest) and rest[0] in _TRYING


def _status(words: list[str]) -> bool:
    start = 1 if words[:1] and words[0] in _DETERMINERS else 0
    for k in range(start + 1, min(len(words), start + _LONGEST_NOUN + 1)):
        if _past(words[k]):
            after = words[k + 1:k + 2]
            return not after or after[0] in _AFTER_STATUS or after[0].isdigit()
        if not words[k].isdigit() and k > start + 1:
            return False  # a noun of at most two words, numbers aside ("build #482")
    return False


def _past(word: str) -> bool:
    return word in _PAST or (word.endswith("ed") and len(word) > 4)


#: Words that open a condition, or a time that has not come yet ("once the tests pass",
#: "when the build is green"), in the seven languages (folded). Left out: "si" (folded, also
#: the Italian and Spanish yes) and "als" (German "as"): French and Spanish conditions are read
#: by what follows ("s'il"). "when you can" is politeness (``_POLITE``).
_IF = frozenset({"if", "unless", "in case", "once", "when", "as soon as", "se", "qualora",
                 "nel caso", "appena", "non appena", "wenn", "falls", "sofern", "sobald",
                 "en caso de que", "cuando", "en cuanto", "caso", "s'il", "s il", "quand",
                 "des que", "assim que", "indien", "mocht", "zodra", "wanneer"})


#: Words of a polite condition: about the hearer or the ease of it ("if you can", "if it's not
#: too much trouble", "if possible", "s'il te plaît", "se puoi", "wenn es geht"), folded.
_POLITE = frozenset({
    "you", "your", "trouble", "possible", "mind", "time", "moment", "convenient", "okay", "ok",
    "works", "please", "plait", "puoi", "potete", "possibile", "riesci", "ti", "du", "kannst",
    "moglich", "geht", "tu", "te", "vous", "puedes", "puede", "posible", "usted", "possivel",
    "puder", "voce", "jij", "je", "u", "mogelijk", "kan",
})


def conditional(words: list[str]) -> bool:
    """Whether ``words`` (one clause, folded) open with a condition, or open with "should"
    and a subject ("should the migration fail"); a polite one, about the hearer or the ease of
    it ("if you can", "if it's not too much trouble"), is none."""
    if not words or any(w in _POLITE or w.startswith("you") for w in words[:8]):
        return False
    if any(" ".join(words[:n]) in _IF for n in range(1, 5)):
        return True
    return words[0] == "should" and len(words) > 2 and words[1] in {"the", "it", "this", "that",
                                                                   "they", "we", "anything"}


#: One-word openers of a condition that may follow what it conditions ("roll back to draft 2
#: if the tests fail"), and the words before them that make them no condition ("as if", "what
#: if", "even if", "see if": a manner, a question, a check).
_IF_AFTER = frozenset(w for w in _IF if " " not in w) - {"se", "caso", "s'il"}
_NOT_A_CONDITION = frozenset({"as", "what", "even", "only", "see", "check", "ask", "know",
                              "wonder", "matter"})


def condition_after(words: list[str]) -> bool:
    """Whether a condition follows the start of ``words`` (one clause, folded): "roll back to
    draft 2 if the tests fail", "redo once the build is green"; a polite one ("redo when you
    can") is none."""
    return any(word in _IF_AFTER and words[i - 1] not in _NOT_A_CONDITION
               and words[i + 1:i + 2] not in (["more"], ["again"])  # "let me try once more"
               and conditional(words[i:]) for i, word in enumerate(words) if i)

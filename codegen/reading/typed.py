"""How a message was typed, undone before the part readers look for a command or a reply.

The same words reach the plugin typed in many ways that change nothing they say: characters
nobody sees (a zero-width space or joiner pasted from a web page, a byte-order mark, a soft
hyphen), spaces that are not spaces (no-break, narrow, thin), emoji between the words ("roll 👉
back to draft 4") or typed as their short code ("redo :+1:"), Markdown links and emphasis
("[redo](https://...)", "__redo__", "_go_"), punctuation said aloud to a dictation app ("hey cat
comma redo period"), punctuation typed without its space ("hey,redo", "redo!!thx", "ok.redo"),
wrapper words with a letter held down ("pleaaase", "thaaanks", "heyyy"). ``plain_typed`` writes
each of them the plain way; the readers of commands, renames, moves and replies read its result
(``clauses.parts``).

What is never touched: names, paths and URLs (a dot, a slash, an underscore inside a token;
``__init__``), arrows ("fmt_ts → format_ts"), code fences and backticks, and letters a word
really doubles: a held-down letter is only shortened when the shorter word is a wrapper word
people type (``utterance_words``); command words are the typo reader's (``typos``). Pure; no
I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .utterance_words import ASKS, FILLERS, GREETINGS, THANKS, VOCATIVES

__all__ = ["plain_typed", "unstretched"]

#: Characters nobody sees: zero-width space, non-joiner, joiner, word joiner, byte-order mark,
#: soft hyphen, Mongolian vowel separator, variation selector.
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\ufe0e\ufe0f]")
#: Spaces that are not the space bar's (no-break, en to hair spaces, narrow, ideographic).
_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
#: Emoji and pictographs (not arrows: "fmt_ts → format_ts" says something).
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2300-\u23FF\u20E3]+")
#: An emoji typed as its short code (":+1:", ":sweat_smile:", ":white_check_mark:", as chat
#: apps and code hosts write them), never a time ("10:42:13") or a name ("a::b").
_SHORTCODE = re.compile(r"(?<![\w:]):[a-z0-9+-][a-z0-9_+-]{0,40}:(?![\w:])")
#: A Markdown link: its text is what was said.
_LINK = re.compile(r"\[([^\[\]\n]+)\]\((?:https?://|/|#|\./)[^()\s]*\)")
#: Emphasis with underscores around words ("__roll back to draft 2__", "_go_"), never a
#: name's underscores (inside a word, "fmt_ts"; a dunder, "__init__"); a word may hold a
#: hyphen or an apostrophe ("_allez-y_", "__d'accord__").
_INNER = r"(?:[^_`\n]|(?<=\w)_(?=\w))*?"
_EMPHASIS = re.compile(r"(?<![\w`])(_{1,2})(?=[^\s_])(" + _INNER + r"\s" + _INNER
                       + r")(?<=[^\s_])\1(?![\w`])")
_EMPHASIS_WORD = re.compile(r"(?<![\w`])(_{1,2})([^\W\d_](?:[^\W\d_]|['\u2019-](?=[^\W\d_]))*"
                            r"[^\W\d_])\1(?![\w`])")
#: Python's own double-underscore names: code, never emphasis.
_DUNDERS = frozenset("""
    init new del repr str bytes format lt le eq ne gt ge hash bool getattr getattribute setattr
    delattr dir get set delete slots call len iter next reversed contains add sub mul matmul
    truediv floordiv mod divmod pow lshift rshift and xor or neg pos abs invert complex int float
    index round trunc floor ceil enter exit await aiter anext aenter aexit name main all file
    doc dict module qualname annotations version author package path spec loader builtins
    debug class bases mro subclasses weakref future missing iadd isub imul radd rsub rmul
    post_init init_subclass class_getitem set_name length_hint getitem setitem delitem
    """.split())
#: Punctuation said to a dictation app (lower case: dictation types it so), read only in a
#: message without any punctuation typed as such.
_SPOKEN = (
    (re.compile(r"(?<=\w) +(?:new line|newline|new paragraph)\b ?"), "\n"),
    (re.compile(r"(?<=\w) +comma\b(?= +\w)"), ","),
    (re.compile(r"(?<=\w) +(?:exclamation (?:mark|point))\b"), "!"),
    (re.compile(r"(?<=\w) +question mark\b"), "?"),
    (re.compile(r"(?<=\w) +(?:period|full stop)\b(?=\s*$| +\w|\n)"), "."),
)
#: Punctuation typed without its space before a word ("hey,redo", "redo!!thx"), in a token
#: that is no path or URL; a URL only loses a wrapper word glued to its end ("...,thanks").
_GLUED = re.compile(r"(?<=[^\W_])([,;!?]+)(?=[^\W\d_])")
_GLUED_END = re.compile(r"(?<=[^\W_])([,;!]+)([^\W\d_]+)$")
#: A wrapper word before a dot without its space ("ok.redo"; never "hey.py").
_GLUED_DOT = re.compile(r"^([^\W\d_]+)\.(?=[^\W\d_]{2,})(?!(?:py|pyi|md|rst|txt|toml|json|cfg|ini|"
                        r"ya?ml|js|ts|html|css|sh)\b)")
_TYPED_PUNCTUATION = re.compile(r"[,;!?\n]|\.(?:\s|$)")
_RUN = re.compile(r"([^\W\d_])\1{2,}")

_WRAPPER_WORDS = frozenset(w for phrase in GREETINGS | FILLERS | THANKS | ASKS | VOCATIVES
                           for w in phrase.split())


@lru_cache(maxsize=512)
def plain_typed(text: str) -> str:
    """``text`` with the typing above undone (see the module docstring)."""
    if text.isascii() and not _maybe_typed(text):
        return text
    text = _SPACES.sub(" ", _INVISIBLE.sub("", text))
    text = _SHORTCODE.sub(" ", _EMOJI.sub(" ", text))
    text = _EMPHASIS.sub(r"\2", _LINK.sub(r"\1", text))
    text = _EMPHASIS_WORD.sub(_emphasised, text)
    if not _TYPED_PUNCTUATION.search(text.strip()):
        for pattern, mark in _SPOKEN:
            text = pattern.sub(mark, text)
    return "\n".join(" ".join(_token(t) for t in line.split(" ")) for line in text.split("\n"))


def _emphasised(match: re.Match[str]) -> str:
    """One word in emphasis ("_go_", "__redo__"), not a dunder name ("__init__")."""
    word = match.group(2)
    return match.group(0) if len(match.group(1)) == 2 and word.lower() in _DUNDERS else word


def _maybe_typed(text: str) -> bool:
    """A cheap look for anything ``plain_typed`` changes in ASCII text."""
    return bool(_RUN.search(text) or "_" in text or "[" in text or _GLUED.search(text)
                or ":" in text and _SHORTCODE.search(text)
                or "." in text or any(w in text for w in ("comma", "period", "full stop",
                                                          "mark", "point", "new ")))


def _token(token: str) -> str:
    if not token or "`" in token:
        return token
    if "/" in token:
        end = _GLUED_END.search(token)
        return token if end is None or end.group(2).lower() not in _WRAPPER_WORDS \
            else token[:end.start(2)] + " " + token[end.start(2):]
    token = _GLUED.sub(r"\1 ", token)
    dot = _GLUED_DOT.match(token)
    if dot and dot.group(1).lower() in _WRAPPER_WORDS:
        token = token[:dot.end()] + " " + token[dot.end():]
    return " ".join(unstretched(piece) for piece in token.split(" "))


def unstretched(word: str, known: frozenset[str] = _WRAPPER_WORDS) -> str:
    """A word with a letter held down ("pleaaase", "heyyy") as the ``known`` word it is,
    each run of three or more shortened to one letter or two; else the word as typed."""
    if not _RUN.search(word):
        return word
    head = len(word) - len(word.lstrip(",;:.!?\"'()[]*"))
    tail = len(word.rstrip(",;:.!?\"'()[]*"))
    core = word[head:tail]
    for candidate in _shortened(core.lower()):
        if candidate in known:
            return word[:head] + candidate + word[tail:]
    return word


def _shortened(word: str) -> list[str]:
    """``word`` with each run of three or more letters made one letter, then two (at most
    two runs: four candidates)."""
    runs = [(m.start(), m.end()) for m in _RUN.finditer(word)][:2]
    out = [""]
    last = 0
    for start, end in runs:
        letter = word[start]
        out = [o + word[last:start] + letter * n for o in out for n in (1, 2)]
        last = end
    return [o + word[last:] for o in out]

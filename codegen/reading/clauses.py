"""A chat message split into its parts, for the readers that look for one thing said once.

People wrap what they ask in more than greetings and thanks: a sentence of context before it
("the last draft looked wrong. roll back to draft 3"), an aside in brackets, an @mention or a
#tag, the command in quotes or backticks or a code fence, Markdown, a quoted earlier message,
a signature, a URL, line breaks. ``parts`` splits a message into what it is made of:

- lines; a code fence's lines and pasted lines of a traceback, a log or indented code (kind
  ``code``, ``pasted``); lines quoting an earlier message (``> ...``,
  kind ``quote``: someone's earlier words, read only when the message is nothing else); the
  lines after a signature delimiter (``--``) or a "Sent from my ..." line (``signature``);
- on each line: tags of rich text (``<b>``, ``<p>``) left out; asides in brackets (``(...)``,
  ``[...]``, ``<name>``; never a call's brackets, ``f()``), quoted text of several words
  (``"..."``, ``'...'``, ``“...”``, ``«...»``, a backtick span with a space; kind ``quoted``,
  its line marked as holding it), mentions (``@name``, ``cc @name``), tags (``#tag``, not
  ``#3``), a time stamp and a list or heading marker at the start;
- sentences (``. ! ? …`` before a space), and in each sentence its clauses (``, ; :``,
  dashes and arrows before a space: "next step → redo").

A part keeps its text as typed (backticks of names, paths and URLs intact: a dot or a colon
inside a token never splits), once the ways of typing that change nothing are undone outside
code fences (``typed``: invisible characters, odd spaces, emoji between words, Markdown links
and emphasis, dictated and glued punctuation, held-down letters of wrapper words). Pure
functions; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .pasted import pasted_line, split_pasted
from .typed import plain_typed

__all__ = ["Part", "parts"]


@dataclass(frozen=True)
class Part:
    """One sentence (or aside, quoted text, code line) and its clauses, as typed.

    ``kind``: "text", "aside", "quoted", "code", "quote" (an earlier message) or "signature".
    ``line``: the line it stands on (a quoted text's container shares its line). ``holds``:
    quoted text was taken out of this part (the part talks about it).
    """

    text: str
    clauses: tuple[str, ...]
    kind: str = "text"
    line: int = 0
    holds: bool = False
    #: The sentence with its quoted text in place, when it held any ("remove source `my
    #: docs`"), else "".
    whole: str = ""


_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:\n?```|\Z)", re.S)
_INLINE_FENCE = re.compile(r"```(.+?)```", re.S)
_SIGNATURE_LINE = re.compile(r"^(?:--|—|-- .*|sent from my \w+.*|sent from \w+ for \w+.*)$",
                             re.I)
_QUOTE_LINE = re.compile(r"^\s*>+\s?")
#: Tags of rich text pasted as text ("<b>redo</b>", "<p>...</p>").
_HTML = re.compile(r"</?(?:b|i|u|s|em|strong|p|br|div|span|code|pre|a|li|ul|ol|h[1-6]|del|"
                   r"mark|small|sup|sub|font|tt|kbd|blockquote)(?:\s[^<>]*)?/?>", re.I)
_LINE_MARK = re.compile(r"^\s*(?:#{1,6}\s+|[-*+•]\s+|\d{1,2}[.)]\s+)")
_STAMP = re.compile(r"^\s*(?:\[\s*\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]m)?\s*\]|\d{1,2}:\d{2}"
                    r"(?::\d{2})?(?:\s*[ap]m)?(?=\s))\s*", re.I)
#: An aside in brackets (not a call's brackets: "f()" has its name before it).
_ASIDE = re.compile(r"(?:(?<=\s)|^)(?:\(([^()]*)\)|\[([^\[\]]*)\]|<([\w.@ -]{1,40})>)"
                    r"(?=[\s.,;:!?]|$)")
#: Quoted text of several words (a quoted single word, "`fmt_ts`", stays in its sentence).
_QUOTED = re.compile(r"(?:(?<=[\s(:])|^)(?:\"([^\"]*\s[^\"]*)\"|“([^”]*\s[^”]*)”|"
                     r"«([^»]*\s[^»]*)»|„([^“”]*\s[^“”]*)[“”]|'([^']*\s[^']*)'(?=[\s.,;:!?)]|$)|"
                     r"`([^`]*\s[^`]*)`)")
_MENTION = re.compile(r"(?:(?<=\s)|^)(?:/?cc:?\s+)?(?:@[\w.-]+(?:\s+cat\b)?[,:]?\s*)+", re.I)
_TAG = re.compile(r"(?:(?<=\s)|^)#[A-Za-z][\w-]*:?(?=\s|$)")
#: Where a sentence ends: end punctuation before a space (never inside a token: "v2.31.0",
#: "utils/dates.py", "https://x.org/a").
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
#: Where a clause ends inside a sentence.
_CLAUSE_END = re.compile(r"\s*[,;]\s+|(?<=[^\s:/]):\s+|\s+[-–—]{1,2}\s+|\s*[–—]\s*(?=\S)|"
                         r"\s+(?:→|⇒|->|=>)\s+")


@lru_cache(maxsize=256)
def parts(text: str) -> tuple[Part, ...]:
    """The parts of ``text`` in order (see the module docstring)."""
    out: list[Part] = []
    body = _FENCE.sub(lambda m: _fenced(m, out), (text or "").replace("\r\n", "\n"))
    body = plain_typed(_INLINE_FENCE.sub(lambda m: _fenced(m, out), body))
    signed = False
    for number, raw in enumerate(body.split("\n"), start=len(out) + 1):
        line = raw.strip()
        if not line:
            continue
        if _SIGNATURE_LINE.match(line):
            signed = True
            continue
        if _QUOTE_LINE.match(line):
            out.extend(_line_parts(_QUOTE_LINE.sub("", line), number, "quote"))
        elif pasted_line(raw):
            code, rest = split_pasted(line)  # "TypeError: .... scan my codebase"
            out.append(Part(code, (code,), "code", number))
            out.extend(_line_parts(rest, number, "text") if rest else ())
        else:
            out.extend(_line_parts(line, number, "signature" if signed else "text"))
    return tuple(p for p in out if p.text)


def _fenced(match: re.Match[str], out: list[Part]) -> str:
    for line in match.group(1).split("\n"):
        if line.strip():
            out.append(Part(line.strip(), (line.strip(),), "code", len(out)))
    return "\n"


def _line_parts(line: str, number: int, kind: str) -> list[Part]:
    line = _STAMP.sub("", _LINE_MARK.sub("", _HTML.sub(" ", line)))
    extra: list[Part] = []
    line = _ASIDE.sub(lambda m: _taken(m, extra, number, "aside"), line)
    quoted: list[Part] = []
    spans: list[str] = []
    line = _QUOTED.sub(lambda m: _held(m, quoted, spans, number), line)
    line = _ORPHAN_MARK.sub(r"\1", _TAG.sub(" ", _MENTION.sub(" ", line)))
    sentences = [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
    found = [_part(s, kind, number, spans) for s in sentences]
    return found + quoted + extra


def _held(match: re.Match[str], into: list[Part], spans: list[str], number: int) -> str:
    """Quoted text out of its sentence, a placeholder in its place."""
    _taken(match, into, number, "quoted")
    spans.append(match.group(0))
    return f" \u0001{len(spans) - 1}\u0001 "


def _taken(match: re.Match[str], into: list[Part], number: int, kind: str) -> str:
    inner = next((g for g in match.groups() if g is not None), "").strip()
    if inner:
        into.extend(_part(s.strip(), kind, number)
                    for s in _SENTENCE_END.split(inner) if s.strip())
    return " "


_PLACEHOLDER = re.compile("\u0001(\\d+)\u0001")
#: A clause mark left alone where an aside, a mention or a tag was taken out ("sam (09:12):
#: redo"): it closes the word before.
_ORPHAN_MARK = re.compile(r"(?<=\w)\s+([,;:](?=\s|$))")


def _part(sentence: str, kind: str, line: int, spans: list[str] | None = None) -> Part:
    held = bool(spans) and bool(_PLACEHOLDER.search(sentence))
    whole = " ".join(_PLACEHOLDER.sub(lambda m: (spans or [])[int(m.group(1))],
                                      sentence).split()) if held else ""
    text = " ".join(_PLACEHOLDER.sub(" ", sentence).split())
    clauses = tuple(c.strip() for c in _CLAUSE_END.split(text) if c.strip(" ,;:-–—"))
    return Part(text, clauses or (text,), kind, line, held, whole)

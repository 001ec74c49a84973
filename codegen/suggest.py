"""A message that may mean a command, a rename or a move, but not with confidence: the phrase to
ask about ("Did you mean: roll back to draft 3?"), so nothing the user said is dropped silently.

``suggest_command`` answers only where ``detect_command`` and ``read_structural`` do not, and
only for a message that carries a command's or a structural change's own words:

- a part reads as a command, rename or move, but another part asks a question or names
  another draft ("roll back to draft 3. why did draft 4 fail?", "draft 3 was better, roll
  back please": "roll back to draft 3");
- a draft number (or "the third draft", "draft #3", "version 3") with the words of a
  roll-back, a diff or the history ("can we go back to the third draft", "what did draft 4
  change?", "show the diff between 2 and 5");
- "rename A ... to B" and "A should be renamed to B" with code-shaped names, "move A (over)
  to path.py" and "A should move to path.py", nothing else asked around them;
- one more typo than the readers forgive ("roll bak to draft 2", "lis sources"), or dictated
  punctuation ("fmt underscore ts");
- one line of several that reads alone as a command, rename or move, beside lines that ask
  for no change of code (a log line or an error pasted above it).

Never for a code request ("write a test that rolls back to draft 2", "add a method rollback
to Session", "rename fmt_ts to f and make it async"), nor for a question about a command or a
word ("what is a rollback?", "what does the history command show?"). The offered phrase always
reads with confidence (``Suggestion.command`` is its reading; None for a rename or a move), and
a source it offers to add is a spec (``pip:``, a path, a URL), never a word ("add source:
Wikipedia"); a roll-back told as done ("I went back to draft 2 of my essay") is never asked.
No model, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .reading.clause_reading import MAX_CLAUSES, part_asks, talked_about
from .reading.clauses import Part, parts
from .reading.commands import (
    VOCABULARY,
    Command,
    Found,
    command_run,
    detect_command,
    draft_conflict,
    draft_numbers,
    read_command,
)
from .reading.signals import opening_verb, read
from .reading.text import words
from .reading.typos import Vocabulary, said_numbers, spoken_punctuation
from .reading.utterance import read_utterance
from .reading.utterance_words import NEGATIONS
from .reading.words import REQUEST_VERBS
from .refactor.request import VOCABULARY as STRUCTURAL_WORDS
from .refactor.request import MoveRequest, RenameRequest, read_structural, structural_reading
from .spans import shortest_span

__all__ = ["Suggestion", "command_phrase", "structural_phrase", "suggest_command"]


@dataclass(frozen=True)
class Suggestion:
    """The canonical message the user may mean, and its command (None: a rename or move)."""

    phrase: str
    command: Found | None


def suggest_command(text: str) -> Suggestion | None:
    """The command, rename or move ``text`` may mean, to ask about (see the module
    docstring), or None."""
    if not (text or "").strip() or read_utterance(text).escape:
        return None
    if detect_command(text) is not None or read_structural(text) is not None:
        return None
    for phrase in (_unsure_command(text), _unsure_structural(text), _near_miss(text),
                   _line_alone(text)):
        if phrase:
            return _checked(phrase)
    return None


#: The most lines a message may have for its lines to be read one by one.
_MAX_LINES = 12


def _line_alone(text: str) -> str:
    """One line of a message of several that reads alone, with confidence, as a command, a
    rename or a move, when no other line asks for a change of code: what was pasted above or
    below it (a log line, an error, a status, a note) is not read as words the reader knows,
    and must not hide the command. That line's phrase, to ask about."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not 2 <= len(lines) <= _MAX_LINES:
        return ""
    said: dict[int, str] = {}
    for i, line in enumerate(lines):
        command = detect_command(line)
        if command is not None:
            said[i] = command_phrase(command)
            continue
        structural = read_structural(line)
        if structural is not None:
            said[i] = structural_phrase(structural)
    if len(set(said.values())) != 1:
        return ""
    if any(_is_request(line) for i, line in enumerate(lines) if i not in said):
        return ""
    return next(iter(said.values()))


def _checked(phrase: str) -> Suggestion | None:
    found = detect_command(phrase)
    if found is not None and found.command is Command.ADD_SOURCE and not found.explicit:
        return None  # "add source: Wikipedia, the article on Rome": no spec, no source to add
    if found is not None:
        return Suggestion(phrase, found)
    return Suggestion(phrase, None) if read_structural(phrase) is not None else None


def command_phrase(found: Found) -> str:
    """The canonical phrase of a command (it reads back as the same command and argument)."""
    command, arg = found.command, found.argument
    fixed = {Command.STATUS: "code memory status", Command.HISTORY: "show the draft history",
             Command.REDO: "redo"}
    if command in fixed:
        return fixed[command]
    if command is Command.INDEX:
        return "index my repository" if found.explicit else "refresh the index"
    if command is Command.ROLL_BACK:
        return f"roll back to draft {arg}" if arg.isdigit() else \
            (f"roll back to {arg}" if arg else "roll back")
    if command is Command.DIFF:
        return _diff_phrase(arg)
    if command is Command.LIST_SOURCES:
        return "list the associative sources" if found.explicit else "list sources"
    verb = {Command.ADD_SOURCE: "add", Command.REMOVE_SOURCE: "remove",
            Command.UPDATE_SOURCE: "update"}[command]
    source = f"`{arg}`" if " " in arg else arg
    named = "associative source" if found.explicit and not re.match(r"[`/~]|\w+:", arg) \
        else "source"
    return f"{verb} {named} {source}"


def _diff_phrase(arg: str) -> str:
    if not arg:
        return "show the diff"
    if arg.startswith("since "):
        since = arg.removeprefix("since ")
        return f"what changed since draft {since}" if since.isdigit() else \
            f"what changed since {since}"
    if ".." in arg:
        old, new = arg.split("..")
        return f"diff draft {old} and {new}"
    return f"show the diff of draft {arg}"


def structural_phrase(request: RenameRequest | MoveRequest) -> str:
    """The canonical phrase of a rename or move."""
    where = f" in {request.path}" if request.path else ""
    if isinstance(request, RenameRequest):
        return f"rename {request.symbol}{where} to {request.new_name}"
    origin = f" from {request.path}" if request.path else ""
    return f"move {request.symbol}{origin} to {request.new_path}"


def _unsure_command(text: str) -> str:
    """A command one part says, read without confidence (another part asks, or names another
    draft: a roll-back that names none takes the one the message names)."""
    said = read_command(text)
    if said is None:
        return ""
    conflict = draft_conflict(said)
    if said.confident and not conflict:
        return ""
    found = said.value
    if conflict and not found.argument and len(conflict) == 1:
        found = Found(found.command, next(iter(conflict)), found.explicit)
    return command_phrase(found)


def _unsure_structural(text: str) -> str:
    said = structural_reading(text)
    return structural_phrase(said.value) if said is not None and not said.confident else ""


# -- near misses ----------------------------------------------------------------------------

_BETWEEN = re.compile(r"\b(?:between\s+(?:drafts?\s*)?|drafts?\s*#?\s*)(\d+)\s+(?:and|to|with|"
                      r"vs\.?)\s+(?:draft\s*#?\s*)?(\d+)\b", re.I)
_SINCE = re.compile(r"\bsince\b", re.I)
_ROLL = re.compile(r"\b(?:roll(?:ed|ing)?\s*back|rollback|revert(?:ed)?|go(?:ing)?\s+back|"
                   r"take\s+(?:me|us)\s+back|back\s+to|restore|return\s+to|redo|"
                   r"bring(?:ing)?\s+back|(?<=\d)\s+back)\b", re.I)
#: A roll-back told as done by someone ("I went back to draft 2", "we reverted to ...").
_DONE_ROLL = re.compile(r"\b(?:i|we|you|they|he|she)\s+(?:already\s+|just\s+|then\s+)?"
                        r"(?:went|rolled|reverted|returned|restored|came)\s+back\b|"
                        r"\b(?:i|we|you|they|he|she)\s+(?:already\s+|just\s+|then\s+)?"
                        r"(?:reverted|returned|restored)\b", re.I)
#: Where a second clause of one sentence starts ("roll back to draft 3 and then fix ...").
_AND = re.compile(r"\s+(?:and\s+then|and|then|also|plus)\s+", re.I)
_ONE_BACK = re.compile(r"\b(?:one|a|the\s+(?:previous|last))\s+draft\b", re.I)
_DIFF = re.compile(r"\b(?:diffs?|changes|changed?|compare|difference|differences|different)\b",
                   re.I)
_HISTORY = re.compile(r"\bdrafts?\s+history\b|\bdrafts\s+so\s+far\b|"
                      r"\b(?:history|list)\s+of\s+(?:the\s+|my\s+|all\s+)?drafts\b"
                      r"|\b(?:see|show|view|display|list)\s+(?:me\s+)?(?:the\s+|all\s+|my\s+)?"
                      r"drafts\b", re.I)
#: Questions about a word or a command, never a command ("what is a rollback?", "c'est quoi
#: la différence entre redo et roll back ?"), in the seven languages.
_ABOUT = re.compile(r"^(?:what\s+(?:is|are|does|do)|what's\s+(?:a|an|the)|how\s+(?:does|do|"
                    r"can|to|is)|why(?!\s+(?:don'?t|not)\b)|explain|tell\s+me|define|"
                    r"c'est\s+quoi|qu'est-ce\s+que|que\s+(?:fait|signifie)|cos'[eè]|"
                    r"che\s+cos'[eè]|cosa\s+(?:fa|significa)|was\s+(?:ist|macht|bedeutet)|"
                    r"qu[eé]\s+(?:es|hace|significa)|o\s+que\s+(?:[eé]|faz)|"
                    r"wat\s+(?:is|doet|betekent))\b", re.I)
#: Verbs of the commands (a code request opens with another one).
_OWN_VERBS = frozenset({"roll", "rollback", "revert", "go", "take", "show", "list", "undo",
                        "redo", "restore", "diff", "compare", "rename", "move", "update",
                        "remove", "delete"})
_NAME = r"`?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)`?(?:\(\))?"
_PATH = r"`?([\w./-]+\.py)`?"
_KIND = r"(?:(?:the\s+)?(?:function|method|class|def)\s+)?"
_RENAMES = (
    re.compile(r"^renam\w*\s+" + _KIND + _NAME + r"\s+(?:to\s+be|to|into|as|->|→|=>|—>|-->)\s+"
               + _NAME + r"$", re.I),
    re.compile(r"^" + _NAME + r"\s+(?:should|must|could|would|ought\s+to|needs\s+to|has\s+to)"
               r"\s+be\s+(?:better\s+)?(?:renamed|called|named)\s+(?:to\s+)?" + _NAME + r"$",
               re.I),
)
_MOVES = (
    re.compile(r"^move\s+" + _KIND + _NAME + r"\s+(?:over\s+to|over\s+into|into|to|in)\s+"
               r"(?:the\s+)?" + _PATH + r"(?:\s+(?:module|file))?$", re.I),
    re.compile(r"^" + _NAME + r"\s+(?:(?:should|must|ought\s+to|needs\s+to|has\s+to)\s+(?:move|go|"
               r"live|belong|be\s+moved)|belongs)\s+(?:to|in|into)\s+" + _PATH + r"$", re.I),
)
#: An opinion or a wish before a rename or a move ("I think we should ...", "we need to ...").
_OPINION = re.compile(r"^(?:i\s+think\s+|maybe\s+|perhaps\s+)?(?:we|you|i)\s+(?:should|could|"
                      r"need\s+to|have\s+to|want\s+to|would\s+like\s+to)\s+|^i'd\s+like\s+to\s+",
                      re.I)
#: Everyday words for removing a source ("get rid of source pydantic"): asked about.
_REMOVE_SOURCE = re.compile(r"\b(?:get\s+rid\s+of|throw\s+away|ditch)\s+(?=(?:the\s+|my\s+)?"
                            r"(?:associative\s+)?source\b)", re.I)
#: The command's and the structural reader's words with one edit of any kind ("bak", "lis").
_LOOSE = Vocabulary(VOCABULARY.words | STRUCTURAL_WORDS.words)


#: A message without one of these words (typos loosened) is no near miss.
_WORDS_OF_COMMANDS = re.compile(
    r"\b(?:drafts?|version|revision|history|diffs?|changes?|changed|compare|difference|roll|"
    r"rollback|revert|back|restore|redo|undo|renam\w*|move|index|reindex|status|sources?|"
    r"scan|code\s*base|repo(?:sitory)?|"
    r"rinomina|benenne|renombra|renomme|renomei[ae]|hernoem|sposta|verschiebe|mueve|d[ée]place|"
    r"mova|verplaats|"
    r"#\d+|\d+(?:st|nd|rd|th)|be\s+called|be\s+(?:better\s+)?named|go|live|belongs?|"
    r"different)\b", re.I)


def _near_miss(text: str) -> str:
    """A phrase for a message in a shape the readers do not take (see the module
    docstring), or ""."""
    found = [p for p in parts(text) if p.kind != "code"]
    if sum(len(p.clauses) for p in found) > MAX_CLAUSES:
        return ""
    spoken, loose = spoken_punctuation(text), _loosely_corrected(text)
    if spoken == text and not _WORDS_OF_COMMANDS.search(loose):
        return ""
    if spoken != text and (detect_command(spoken) or read_structural(spoken)):
        return _canonical(spoken)  # "add source pip colon httpx"
    plain = _REMOVE_SOURCE.sub("remove ", text)
    if plain != text and detect_command(plain):
        return _canonical(plain)  # "please get rid of source pydantic"
    if _about(text) or _negated(found) or any(talked_about(p, found) for p in found):
        return ""  # "cosa fa 'show the draft history'?": a question about a command
    if not _is_request(text) and not any(
            part_asks(c) == "change" and not _WORDS_OF_COMMANDS.search(c)
            for p in found for c in (*p.clauses, *_AND.split(p.text)[1:])):
        if loose != text and (detect_command(loose) or read_structural(loose)):
            return _canonical(loose)
        shape = _draft_shape(text) or _structural_shape(text)
        if shape:
            return shape
    return _span_phrase(text)  # its own guard: nothing around the run asks for a change


def _span_phrase(text: str) -> str:
    """The canonical phrase of the shortest run of the message that reads as a command,
    rename or move on its own (``spans``); a roll-back or a diff that names no draft takes
    the one the rest of the message names ("draft 4 had fewer changes. Giulia thinks we
    should roll back")."""
    span = shortest_span(text)
    if span is None:
        return ""
    if isinstance(span.value, Found):
        found: Found = span.value
        named = set(draft_numbers(text)) - set(re.findall(r"\d+", found.argument))
        beside = any(command_run(words_) for words_ in (span.before, span.after) if words_)
        if found.command in (Command.ROLL_BACK, Command.DIFF) and not found.argument \
                and len(named) == 1 and not beside:  # never another command's draft
            found = Found(found.command, named.pop(), found.explicit)
        return command_phrase(found)
    return structural_phrase(span.value)


def _canonical(text: str) -> str:
    found = detect_command(text)
    if found is not None:
        return command_phrase(found)
    request = read_structural(text)
    return structural_phrase(request) if request is not None else ""


def _negated(found: list[Part]) -> bool:
    """A part that opens with a negation ("don't roll back to draft 2", "never rename ..."),
    not with a proposal ("why don't we redo?")."""
    return any(w in NEGATIONS for p in found for w in _opening(p)[:2])


def _opening(part: Part) -> list[str]:
    folded = words(read_utterance(part.text).core)
    return [] if folded[:2] in (["why", "don't"], ["why", "dont"], ["why", "not"]) else folded


def _about(text: str) -> bool:
    """A question about a word or a command ("what is a rollback?")."""
    found = parts(text)
    return not found or bool(_ABOUT.match(read_utterance(found[0].text).core))


def _is_request(text: str) -> bool:
    """A code request: its first part opens with a verb of another change ("write a test
    that rolls back ...")."""
    found = parts(text)
    if not found:
        return True
    said = read_utterance(found[0].text)
    folded = words(said.core)
    if not folded:
        return False
    verb = opening_verb(read(said.core, folded, asked=said.asked))
    return verb in REQUEST_VERBS and verb not in _OWN_VERBS


def _loosely_corrected(text: str) -> str:
    """Each word of several-word parts one edit from the readers' words ("roll bak to draft
    2", "lis sources"); a one-word message is never loosened."""
    tokens = text.split()
    if len(tokens) < 2:
        return text
    out = []
    for token in tokens:
        plain = token.lower()
        near = _LOOSE.loosely_near(plain) if plain.isalpha() else ""
        out.append(near or token)
    return " ".join(out)


def _draft_shape(text: str) -> str:
    """A roll-back, a diff or the history said around a draft reference."""
    folded = said_numbers(" ".join(text.split()))
    if _DONE_ROLL.search(folded):
        return ""  # "yesterday I went back to draft 2 of my essay": a report, not a request
    refs = draft_numbers(folded)
    between = _BETWEEN.search(folded)
    roll, diff = bool(_ROLL.search(folded)), bool(_DIFF.search(folded))
    if diff and not roll:
        if between:
            return f"diff draft {between.group(1)} and {between.group(2)}"
        if _SINCE.search(folded) and len(set(refs)) == 1:
            return f"what changed since draft {refs[0]}"
        if len(set(refs)) == 2:
            return f"diff draft {refs[0]} and {refs[1]}"
        return f"show the diff of draft {refs[0]}" if len(set(refs)) == 1 else ""
    if roll and not diff:
        if len(set(refs)) == 1:
            return f"roll back to draft {refs[0]}"
        return "roll back" if not refs and _ONE_BACK.search(folded) else ""
    return "show the draft history" if _HISTORY.search(folded) and not refs else ""


def _structural_shape(text: str) -> str:
    """"rename A ... to B", "A should be renamed to B", "move A over to P", "A should move to
    P", in one part, nothing else asked around it."""
    found = parts(text)
    if len(found) != 1:
        return ""
    said = read_utterance(found[0].text)
    core = _OPINION.sub("", said.marked)
    for pattern in _RENAMES:
        match = pattern.match(core)
        if match and (_code_name(match.group(1)) or "`" in core):
            return f"rename {match.group(1)} to {match.group(2)}"
    for pattern in _MOVES:
        match = pattern.match(core)
        if match:
            return f"move {match.group(1)} to {match.group(2)}"
    return ""


def _code_name(name: str) -> bool:
    return "_" in name.strip("_") or "." in name or any(c.isupper() for c in name[1:])

"""The plugin's own chat commands, recognised without the LLM or the embedder.

The Cat offers a tool to its agent only when the message is close, by embedding similarity, to
one of the tool's examples, and then asks the LLM to pick it: with the Cat's default
``DumbEmbedder`` that is a coin toss, and it costs a call. These commands ("index my
repository", "code memory status", "show the draft history", "roll back to draft 2", "redo",
"show the diff of draft 2", "add source /srv/lib", "update source rich") name the plugin's own
features, so a short, anchored pattern decides: the core phrase of one part of the message
(``clause_reading``: a sentence, an aside, quoted text; ``utterance``: greetings, the Cat's
name, fillers, thanks, emoji aside) must be the command, and no other part may ask for
something else, so "update the index function in utils.py" stays a code request and "what is a
rollback?" stays a question. A command word typed with one typo counts ("roll bakc to draft
3", ``typos``), and so does a draft number said as a word ("draft three"). A command whose
part is found but not with confidence (another part asks a question, names another draft) is
offered instead (``suggest``).

Many of them are also ordinary words: "update the project", "rebuild the index", "list
sources", "redo" mean something to anyone. ``Found.explicit`` says whether the message names the
plugin's things (code, codebase, repository, the code index, code memory, an associative source
or a source spec such as ``pip:NAME`` or a folder path); a command that is not explicit is the
plugin's only where the user has its context (a configured repository, a task with drafts), and
otherwise the Cat answers it as usual. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache, partial

from .clause_reading import Said, read_in_parts
from .runs import Run, read_or_corrected, shortest_run
from .typos import Vocabulary, said_numbers
from .utterance import chatter_closing, read_utterance, spans
from .utterance_words import CLAUSE_STARTS


class Command(str, Enum):
    """A plugin feature a message asks for by name."""

    INDEX = "index"
    STATUS = "status"
    HISTORY = "history"
    ROLL_BACK = "roll_back"
    REDO = "redo"
    DIFF = "diff"
    ADD_SOURCE = "add_source"
    LIST_SOURCES = "list_sources"
    REMOVE_SOURCE = "remove_source"
    UPDATE_SOURCE = "update_source"


@dataclass(frozen=True)
class Found:
    """A recognised command, its argument ("2" in "roll back to draft 2", the source in "add
    source /srv/lib" or "update source rich", else "") and whether the message names the
    plugin's things explicitly."""

    command: Command
    argument: str = ""
    explicit: bool = False


_POLITE = r"(?:(?:please|pls|kindly|can you|could you|would you)\s+)*"
_END = r"\s*(?:please|now|for me)?\s*[.!?]*\s*$"
_DRAFT = r"(?:draft\s*#?\s*)?"
_CODE = r"(?:the\s+|my\s+|this\s+|our\s+)?(?:code\s*base|code|repo(?:sitory)?|project|sources?)"

_PATTERNS: tuple[tuple[Command, re.Pattern[str]], ...] = tuple(
    (command, re.compile("^" + _POLITE + body + _END, re.I)) for command, body in (
        (Command.INDEX, r"(?:re-?index|index|scan|refresh|update|rebuild)\s+" + _CODE
         + r"(?:\s+index)?"),
        (Command.INDEX, r"(?:update|refresh|rebuild|redo)\s+(?:the\s+)?(?:code\s+)?index"),
        (Command.STATUS, r"(?:(?:show(?:\s+me)?|what(?:'s|s| is))\s+)?(?:the\s+|my\s+|your\s+)?"
         r"code\s+(?:working\s+)?memory\s+status"),
        (Command.STATUS, r"(?:what(?:'s| is)\s+)?(?:the\s+)?status\s+of\s+(?:the\s+)?code\s+"
         r"(?:working\s+)?memory"),
        (Command.HISTORY, r"(?:show|list|display)\s+(?:me\s+)?(?:the\s+)?(?:draft\s+history|"
         r"history\s+of\s+(?:the\s+)?drafts|drafts|draft\s+list)"),
        (Command.HISTORY, r"what\s+(?:did\s+we\s+try|have\s+we\s+tried)\s+so\s+far"),
        (Command.ROLL_BACK, r"(?:roll\s*back|revert|go\s+back)(?:\s+to)?\s+(?:draft\s+)?"
         r"(?P<arg>\d+|the\s+last\s+good(?:\s+(?:one|draft))?|last\s+good|"
         r"the\s+(?:start|beginning|original(?:\s+version)?))"),
        (Command.ROLL_BACK, r"(?:undo\s+the\s+last\s+draft|roll\s*back(?:\s+the\s+(?:last\s+)?"
         r"draft)?)"),
        (Command.REDO, r"(?:redo|undo\s+the\s+roll\s*-?\s*back|restore\s+the\s+(?:rolled[- ]"
         r"back\s+draft|draft\s+i\s+rolled\s+back))"),
        (Command.DIFF, r"(?:(?:show|give|display)\s+(?:me\s+)?(?:the\s+)?(?:diff|changes)|diff)"
         r"(?:\s+(?:of|for|in|made\s+by)\s+(?:the\s+)?" + _DRAFT + r"(?P<arg>\d+))?"),
        (Command.DIFF, r"what\s+(?:has\s+|have\s+we\s+)?changed\s+(?:in\s+" + _DRAFT
         + r"(?P<arg>\d+)|since\s+" + _DRAFT + r"(?P<since>\d+|the\s+start))"),
        (Command.DIFF, r"(?:diff|compare)\s+(?:drafts?\s*#?\s*)?(?P<old>\d+)\s+(?:and|with|to|vs\.?"
         r"|against)\s+" + _DRAFT + r"(?P<new>\d+)"),
    ))

#: The source commands: a verb, "source" and one source (a spec, a name, or quoted text).
_SOURCE = re.compile(r"^\s*(?:please\s+)?(?P<verb>add|remove|delete|drop|update|refresh|pull|"
                     r"re-?fetch)\s+(?:an?\s+|the\s+)?(?:associative\s+)?source\s*:?\s+"
                     r"(?P<arg>.+?)\s*$", re.I | re.S)
#: A source command's opening ("update source ..."): never read as another command.
_SOURCE_SHAPE = re.compile(r"^\s*(?:please\s+)?(?:add|remove|delete|drop|update|refresh|pull|"
                           r"re-?fetch)\s+(?:an?\s+|the\s+)?(?:associative\s+)?source\s*:?\s+\S",
                           re.I)
_SOURCE_VERBS = {"add": Command.ADD_SOURCE, "remove": Command.REMOVE_SOURCE,
                 "delete": Command.REMOVE_SOURCE, "drop": Command.REMOVE_SOURCE,
                 "update": Command.UPDATE_SOURCE, "refresh": Command.UPDATE_SOURCE,
                 "pull": Command.UPDATE_SOURCE, "refetch": Command.UPDATE_SOURCE,
                 "re-fetch": Command.UPDATE_SOURCE}
_LIST = re.compile(r"^\s*(?:list|show)\s+(?:(?:all\s+)?(?:the|my)\s+|all\s+)?"
                   r"(?:associative\s+)?sources\s*[?.!]?\s*$", re.I)

#: The plugin's own things, named as such.
_EXPLICIT = re.compile(r"\b(?:code\s*base|code|repo(?:sitory)?|associative)\b", re.I)
#: A source spec: ``pip:NAME``, an absolute or home folder path, a repository URL
#: (``https://``, ``http://``, ``ssh://``, ``file://``, ``git@host:path``), a backticked name.
_SOURCE_SPEC = re.compile(r"^(?:`|pip:|/|~|\./|[a-z][a-z0-9+.-]*::?/{0,2}\S|[\w.-]+@[\w.-]+:)",
                          re.I)
#: A git remote helper's transport ("ext::", "fd::"): never a source, always refused whole.
_REMOTE_HELPER = re.compile(r"^[a-z][\w+.-]*::", re.I)
#: A bare source name ("rich", "billing-docs", "httpx").
_SOURCE_NAME = re.compile(r"^-*\w[\w.+=-]*$")  # option-shaped too: refused with its reason
_EXPLICIT_COMMANDS = frozenset({Command.STATUS})
_DRAFT_COMMANDS = frozenset({Command.HISTORY, Command.ROLL_BACK, Command.REDO, Command.DIFF})
#: The words of the patterns above, for one-typo corrections (``typos``).
VOCABULARY = Vocabulary("""
    index reindex re-index scan refresh update rebuild redo code codebase repo repository
    project source sources the my this our index show code working memory status what is of
    list display me draft history drafts did we try tried have so far roll back rollback
    revert go to last good one draft start beginning original version undo restore rolled i
    diff changes give for in made by has changed since compare and with vs against add an a
    associative remove delete drop pull refetch all please now
""".split())


def detect_command(text: str) -> Found | None:
    """The plugin command the message asks for with confidence, or ``None`` (see the module
    docstring; ``Found.explicit``: whether it names the plugin's things). Another command in
    another part ("first roll back to draft 2, then show the diff") makes it unsure: never
    half of what was asked done."""
    said = read_command(text)
    if said is None or not said.confident or draft_conflict(said) \
            or another_command(said.value, said.others):
        return None
    return said.value


def another_command(reading: object, others: tuple[str, ...]) -> bool:
    """Whether another part of the message (``others``) holds a command of its own
    (``runs``) other than ``reading``."""
    return any(run is not None and run.value != reading for run in map(command_run, others))


def cut_holds_command(core: str, kept: str) -> bool:
    """Whether the words of ``core`` around ``kept`` (a span of it) hold a command."""
    before, _, after = core.partition(kept)
    return any(command_run(side) is not None for side in (before, after) if side.strip())


#: The words a command can start with (``runs``).
STARTS = frozenset("""
    show list display roll rollback revert go undo redo restore diff compare give what index
    reindex re-index scan refresh update rebuild add remove delete drop pull refetch re-fetch
    code
""".split())


@lru_cache(maxsize=1024)
def command_run(text: str) -> Run[Found] | None:
    """The shortest run of ``text`` (one part of a message) that is a command on its own
    (``runs.shortest_run``), one typo per word forgiven."""
    return shortest_run(text, _phrase_or_typo, _may_start)


def _phrase_or_typo(run: str) -> Found | None:
    """A run read whole: its chatter is the run's to judge (``runs``: a lead or a tail)."""
    return read_or_corrected(run, partial(_read_one, chatter=False), VOCABULARY.correct)


@lru_cache(maxsize=2048)
def _may_start(word: str) -> bool:
    word = word.split("'", 1)[0] if word.endswith("'s") else word  # "what's"
    return word in STARTS or VOCABULARY.correct(word) in STARTS


@lru_cache(maxsize=256)
def read_command(text: str) -> Said[Found] | None:
    """The command one part of ``text`` says, confident or not (``clause_reading``); None
    for ``/code`` and ``/ask`` messages."""
    if read_utterance(text or "").escape:
        return None
    return read_in_parts(self_corrected(text or ""), _read_one, VOCABULARY)


#: A number taken back for another ("roll back to 2, no, 3", "draft 4 - sorry, draft 5",
#: "diff 1 and 2, I mean 3", "torna alla 2, anzi 3"): the last one said is meant.
_CORRECTED = re.compile(
    r"\b(\d+)\s*[,;.]?\s*(?:-+\s*)?(?:no\s+wait|no|nope|nein|non|nao|n\u00e3o|nee|anzi|"
    r"cio[e\u00e8]|ich\s+meine|ik\s+bedoel|quiero\s+decir|je\s+veux\s+dire|digo|sorry|wait|"
    r"i\s+mean|i\s+meant|or\s+rather|rather|actually|make\s+(?:it|that))\s*[,:;]?\s*"
    r"(?:(?:to\s+)?(?:draft|version)\s*#?\s*)?(\d+)\b", re.I)


def self_corrected(text: str) -> str:
    """``text`` with a draft number taken back replaced by the one meant (``_CORRECTED``)."""
    return _CORRECTED.sub(r"\2", text) if any(c.isdigit() for c in text) else text


#: A word every command pattern holds one of (a part without any is not read).
_KEY = re.compile(r"\b(?:index|reindex|scan|refresh|update|rebuild|redo|show|status|list|"
                  r"display|what|roll|rollback|revert|go|undo|restore|diff|compare|give|add|"
                  r"remove|delete|drop|pull|re-?fetch)\b", re.I)


def read_phrase(text: str) -> Found | None:
    """The command ``text`` is as a whole (one part of a message, wrappers around it), no
    typo forgiven."""
    return _read_one(text)


def _read_one(text: str, *, chatter: bool = True) -> Found | None:
    """The command ``text`` (one part of a message) is, as a whole; ``chatter``: with
    unknown chatter around its core phrase too (``utterance.spans``)."""
    if not _KEY.search(text):
        return None
    said = read_utterance(said_numbers(text))
    if said.escape or said.social:
        return None
    marked = spans(said, marked=True) if chatter else [said.marked]
    for message in marked:
        found = _source_command(message) if said.marked.endswith(message) else None
        if found is not None:  # a source's argument decides its own end (never "pip")
            return found
    if any(_SOURCE_SHAPE.match(m) for m in marked):
        return None  # "update source httpx, right" is no "update source" (the index)
    if not said.core or len(said.core) > 80:
        return None
    for message in spans(said) if chatter else [said.core]:  # then without chatter around
        if message != said.core and cut_holds_command(said.core, message):
            continue  # "redo, list sources": the chatter is another command
        if _LIST.match(message):
            return Found(Command.LIST_SOURCES, "",
                         names_plugin_things(Command.LIST_SOURCES, message))
        for command, pattern in _PATTERNS:
            match = pattern.match(message)
            if match:
                return Found(command, _argument(match), names_plugin_things(command, message))
    return None


#: A draft named by its number: "draft 3", "draft #3", "version 3", "the 3rd draft", "the
#: third draft" (not a bare "#12": an issue, a ticket).
_REF = re.compile(r"\b(?:drafts?|version|revision)\s*(?:#|no\.?|number)?\s*(\d+)\b|"
                  r"\b(\d+)(?:st|nd|rd|th)?\s+(?:draft|version)\b|"
                  r"\b(?:the\s+)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|"
                  r"tenth)\s+(?:draft|version)\b", re.I)
_ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5",
             "sixth": "6", "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10"}


def draft_numbers(text: str) -> list[str]:
    """The draft numbers ``text`` names, in order (see ``_REF``; numbers said as words too)."""
    out = []
    for match in _REF.finditer(said_numbers(text)):
        digits = match.group(1) or match.group(2)
        number = digits or _ORDINALS.get((match.group(3) or "").lower(), "")
        if number:
            out.append(number)
    return out


def draft_conflict(said: Said[Found]) -> frozenset[str]:
    """Draft numbers the message's other parts name that a roll-back or a diff does not
    ("draft 3 was better, roll back please", "the 5th draft was the best, roll back": the
    roll-back names none)."""
    if said.value.command not in (Command.ROLL_BACK, Command.DIFF):
        return frozenset()
    named = {n for other in (said.said, *said.others) for n in draft_numbers(other)}
    return frozenset(named - set(re.findall(r"\d+", said.value.argument)))


def _argument(match: re.Match[str]) -> str:
    """A command's argument: "2" ("roll back to draft 2"), and for the diff "since 1" ("what
    changed since draft 1") or "1..3" ("diff draft 1 and 3")."""
    groups = {k: " ".join(v.split()) for k, v in match.groupdict().items() if v}
    if "since" in groups:
        return f"since {groups['since'].lower()}"
    if "old" in groups:
        return f"{groups['old']}..{groups['new']}"
    arg = groups.get("arg", "")
    return arg if arg.isdigit() else arg.lower()  # "THE START" is the start


def names_plugin_things(command: Command, message: str) -> bool:
    """Whether ``message`` names the plugin's things explicitly ("index my repository", "code
    memory status", "list the associative sources"); the draft commands never do, since a
    draft, a history and a roll-back are ordinary words (their context is the user's task)."""
    if command in _EXPLICIT_COMMANDS:
        return True
    if command in _DRAFT_COMMANDS:
        return False
    return bool(_EXPLICIT.search(message))


def _source_command(text: str) -> Found | None:
    """"add source pip:rich", "remove source `my docs`", "update source rich": one source,
    a spec, a bare name or quoted text; anything after it must be chatter ("asap"), so "add a
    source field to the Article model" is no command."""
    match = _SOURCE.match(text)
    if not match:
        return None
    command = _SOURCE_VERBS[match.group("verb").lower()]
    raw = _source_argument(match.group("arg").strip())
    if not raw:
        return None
    explicit = names_plugin_things(command, text) or bool(_SOURCE_SPEC.match(raw))
    return Found(command, raw.strip("`'\""), explicit)


def _source_argument(raw: str) -> str:
    """The one source at the start of ``raw`` (quoted text whole, a folder path with spaces
    while its pieces hold "/"), or "" when more follows it than wrapper words (thanks, please,
    asap, an emoji: "add source pip colon httpx" is no source "pip") or, after a spec
    ("pip:rich", a path, a URL), a few words of chatter ("... right away")."""
    if _REMOTE_HELPER.match(raw):  # "ext::sh -c ...": whole, to be refused with its reason
        return raw
    if raw[:1] in "`'\"" and raw.find(raw[0], 1) > 0:
        end = raw.find(raw[0], 1)
        spec, rest = raw[:end + 1], raw[end + 1:]
    else:
        tokens = raw.split()
        tokens[0] = tokens[0].rstrip(",;.!?)")
        taken = 1
        if _SOURCE_SPEC.match(tokens[0]) and tokens[0][:1] in "/~.":
            while taken < len(tokens) and "/" in tokens[taken]:
                taken += 1
        spec, rest = " ".join(tokens[:taken]), " ".join(tokens[taken:])
        if not (_SOURCE_SPEC.match(spec) or _SOURCE_NAME.match(spec)) \
                or spec.lower() in CLAUSE_STARTS:
            return ""
    rest = rest.strip(" ,;:.!")
    if not rest or read_utterance(rest).social:
        return spec
    return spec if _SOURCE_SPEC.match(spec) and chatter_closing(rest) else ""


def claimed(found: Found | None, *, repository_configured: bool, has_task: bool) -> bool:
    """Whether the plugin answers ``found`` for this user, or leaves the message to the Cat.

    The status is always the plugin's (it says what is missing). The draft commands belong to
    a user with a task. Indexing and sources are the plugin's when named explicitly (then "no
    repository is set" is the right answer) or when a repository is configured; otherwise
    "update the project" is an ordinary request the Cat answers.
    """
    if found is None:
        return False
    if found.command in _EXPLICIT_COMMANDS:
        return True
    if found.command in _DRAFT_COMMANDS:
        return has_task
    return found.explicit or repository_configured

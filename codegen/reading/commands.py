"""The plugin's own chat commands, recognised without the LLM or the embedder.

The Cat offers a tool to its agent only when the message is close, by embedding similarity, to
one of the tool's examples, and then asks the LLM to pick it: with the Cat's default
``DumbEmbedder`` that is a coin toss, and it costs a call. These commands ("index my
repository", "code memory status", "show the draft history", "roll back to draft 2", "redo",
"show the diff of draft 2", "add source /srv/lib") name the plugin's own features, so a short,
anchored pattern decides: the core phrase of the message (``utterance``: greetings, the Cat's
name, fillers, thanks, emoji aside) must be the command, so "update the index function in
utils.py" stays a code request and "what is a rollback?" stays a question.

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

from .utterance import chatter_closing, read_utterance, spans


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
    source /srv/lib", else "") and whether the message names the plugin's things explicitly."""

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
        (Command.STATUS, r"(?:show\s+)?(?:the\s+)?code\s+(?:working\s+)?memory\s+status"),
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

#: The source commands take the rest of the message as their argument (a list, a path).
_ADD = re.compile(r"^\s*(?:please\s+)?add\s+(?:an?\s+|the\s+)?(?:associative\s+)?source\s*:?\s+"
                  r"(?P<arg>.+?)\s*$", re.I | re.S)
_LIST = re.compile(r"^\s*(?:list|show)\s+(?:the\s+|my\s+|all\s+)?(?:associative\s+)?sources"
                   r"\s*[?.!]?\s*$", re.I)
_REMOVE = re.compile(r"^\s*(?:please\s+)?(?:remove|delete|drop)\s+(?:the\s+)?(?:associative\s+)?"
                     r"source\s*:?\s+(?P<arg>.+?)\s*$", re.I | re.S)
#: "update source NAME": one name, spec or URL ("update the source code of f" is a request).
_UPDATE = re.compile(r"^\s*(?:please\s+)?(?:update|refresh|pull)\s+(?:the\s+)?(?:associative\s+)?"
                     r"source\s*:?\s+(?!(?:code|files?|of|for|in|to)\b)(?P<arg>\S+)\s*$", re.I)

#: The plugin's own things, named as such.
_EXPLICIT = re.compile(r"\b(?:code\s*base|code|repo(?:sitory)?|associative)\b", re.I)
#: A source spec: ``pip:NAME``, an absolute or home folder path, a backticked name, a URL.
_SOURCE_SPEC = re.compile(r"^(?:`|pip:|/|~|[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.I)
_EXPLICIT_COMMANDS = frozenset({Command.STATUS})
_DRAFT_COMMANDS = frozenset({Command.HISTORY, Command.ROLL_BACK, Command.REDO, Command.DIFF})


def detect_command(text: str) -> Found | None:
    """The plugin command the whole message asks for, or ``None`` (see the module docstring
    for ``Found.explicit``)."""
    said = read_utterance(text or "")
    if said.escape:
        return None
    for message in spans(said, marked=True):
        found = _source_command(message)
        if found is not None:
            return found
    if not said.core or len(said.core) > 80:
        return None
    for message in spans(said):  # the core phrase, then without unknown chatter around it
        if _LIST.match(message):
            return Found(Command.LIST_SOURCES, "",
                         names_plugin_things(Command.LIST_SOURCES, message))
        for command, pattern in _PATTERNS:
            match = pattern.match(message)
            if match:
                return Found(command, _argument(match), names_plugin_things(command, message))
    return None


def _argument(match: re.Match[str]) -> str:
    """A command's argument: "2" ("roll back to draft 2"), and for the diff "since 1" ("what
    changed since draft 1") or "1..3" ("diff draft 1 and 3")."""
    groups = {k: " ".join(v.split()) for k, v in match.groupdict().items() if v}
    if "since" in groups:
        return f"since {groups['since']}"
    if "old" in groups:
        return f"{groups['old']}..{groups['new']}"
    return groups.get("arg", "")


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
    for command, pattern in ((Command.ADD_SOURCE, _ADD), (Command.REMOVE_SOURCE, _REMOVE),
                             (Command.UPDATE_SOURCE, _UPDATE)):
        match = pattern.match(text)
        if match:
            raw = match.group("arg").strip()
            spec, _, rest = raw.partition(" ")
            if rest and _SOURCE_SPEC.match(spec) and chatter_closing(rest):  # "pip:rich asap"
                raw = spec
            explicit = names_plugin_things(command, text) or bool(_SOURCE_SPEC.match(raw))
            return Found(command, raw.strip("`'\""), explicit)
    return None


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

"""The development wrappings of ``bench/wrapping_bench.py``: the classes the clause reader was
written and tuned on (the held-out file, ``data/wrappings_heldout.json``, has other base phrases
and other instances of these classes, and classes of its own). Same shape as the held-out
file; ``test_wrappings.py`` asserts the figures."""

from __future__ import annotations

from typing import Any

from codemem.codegen.reading.commands import VOCABULARY as COMMAND_WORDS
from codemem.codegen.refactor.request import VOCABULARY as STRUCTURAL_WORDS

from .wrapping_dev_round3 import CLASSES as ROUND3_CLASSES
from .wrapping_dev_round3 import ROUND3

C, IMP, S, R = "command", "imperative", "structural", "reply"
ALL = [C, S, R]

COMMANDS = [
    ("show the draft history", "history", "", True),
    ("roll back to draft 2", "roll_back", "2", True),
    ("roll back to the start", "roll_back", "the start", True),
    ("redo", "redo", "", True),
    ("show the diff of draft 2", "diff", "2", True),
    ("what changed since draft 1", "diff", "since 1", False),
    ("diff draft 1 and 2", "diff", "1..2", True),
    ("index my repository", "index", "", True),
    ("update the code index", "index", "", True),
    ("code memory status", "status", "", False),
    ("add source /srv/other-repo", "add_source", "/srv/other-repo", True),
    ("add source pip:rich", "add_source", "pip:rich", True),
    ("add source https://example.org/team/lib.git@v1.2", "add_source",
     "https://example.org/team/lib.git@v1.2", True),
    ("add source ssh://git@example.org/team/tools.git", "add_source",
     "ssh://git@example.org/team/tools.git", True),
    ("list sources", "list_sources", "", True),
    ("remove source rich", "remove_source", "rich", True),
    ("update source rich", "update_source", "rich", True),
    ("pull source tools", "update_source", "tools", True),
]

STRUCTURAL = [
    ("rename fmt_ts to format_timestamp", "rename", "fmt_ts", "format_timestamp", ""),
    ("rename the function fmt_ts in utils/time.py to format_ts", "rename", "fmt_ts",
     "format_ts", "utils/time.py"),
    ("rename class Invoice to Bill", "rename", "Invoice", "Bill", ""),
    ("rinomina parse_date in parse_day", "rename", "parse_date", "parse_day", ""),
    ("move parse_date to utils/dates.py", "move", "parse_date", "utils/dates.py", ""),
    ("move fmt_ts from utils/time.py to utils/dates.py", "move", "fmt_ts", "utils/dates.py",
     "utils/time.py"),
    ("verschiebe fetch nach net/http.py", "move", "fetch", "net/http.py", ""),
]

REPLIES = ["go", "go ahead", "yes", "cancel", "stop", "continue", "resume", "apply",
           "apply it", "apply the draft"]

CLASSES: dict[str, tuple[list[str], list[str]]] = {
    "paren_aside": (ALL, ["{x} (this is the one I meant)", "(sorry) {x}", "{x} [urgent]",
                          "{x} (thanks in advance)"]),
    "mention": (ALL, ["@cheshire {x}", "{x} @anna", "@team {x}", "hi @bot, {x}"]),
    "tag": (ALL, ["#help {x}", "{x} #todo", "[question] {x}"]),
    "context_before": ([C, S], ["draft 3 failed again. {x}", "that looks odd to me. {x}",
                                "The tests are flaky today. {x}"]),
    "context_neutral": (ALL, ["I'm back. {x}", "ok, read it. {x}"]),
    "quoted": (ALL, ["\"{x}\"", "`{x}`", "'{x}'", "„{x}“"]),
    "fenced": ([C, S], ["```\n{x}\n```"]),
    "markdown": (ALL, ["**{x}**", "- {x}", "> {x}", "### {x}"]),
    "earlier_quote": (ALL, ["> Draft 3 of slugify: 1 check failed.\n{x}",
                            "> Indexed 40 files.\n\n{x}"]),
    "signature": (ALL, ["{x}\n\n--\nGiulia", "{x}\nSent from my phone", "{x}\n\nRegards,\nBen"]),
    "dictation_fillers": (ALL, ["uh {x}", "{x} yeah", "so um {x}"]),
    "mixed_language": (ALL, ["ciao, {x}", "{x} bitte", "{x}, merci beaucoup", "hola, {x}"]),
    "emoji_sentence": (ALL, ["{x} 👍", "🙏 {x}", "{x}. 🎉🎉"]),
    "url_aside": (ALL, ["{x} (https://example.com/build/7)", "{x}\nhttps://example.com/x"]),
    "repeated": (ALL, ["{x}. {x}", "{x}\n\n{x}"]),
    "tag_question": ([IMP], ["{x}, ok?", "{x}, please?"]),
    "polite_question": ([IMP], ["could you {x}?", "would you mind to {x}?"]),
    "line_breaks": (ALL, ["hey\n{x}", "{x}\nthx"]),
    "ps_line": (ALL, ["{x}\nPS: nice work on draft 1"]),
    "shouting": (ALL, ["{x}!!", "{x} asap"]),
    "speaker_prefix": (ALL, ["[09:15] {x}", "Anna: {x}"]),
    "ellipsis_dash": (ALL, ["hmm... {x}", "{x} — thanks"]),
    # issue 36, second round: the run of a message that reads (``codegen/spans.py``) and the
    # ways of typing undone before reading (``codegen/reading/typed.py``)
    "story_before": (ALL, ["Long day, three meetings, a broken laptop, and the client is still "
                           "waiting. {x}", "I tried the other approach, then the first one "
                           "again, and nothing worked, so {x}"]),
    "reported_speech": ([C, S], ["the PM wrote: {x}", "Anna's message says \"{x}\""]),
    "relayed_request": ([IMP], ["Giulia thinks we should {x}", "my boss told me to {x}"]),
    "mentions_with_tags": (ALL, ["@bot #ops {x} #later", "{x} @sam #review #p1"]),
    "chat_log": (ALL, ["[Mon 09:12] sam: {x}", "sam (09:12): {x}", "— sam, 09:12\n{x}"]),
    "unrelated_question": ([C, S], ["{x}. what's a good name for a cat?",
                                    "{x}\nalso, when is the next release?"]),
    "invisible": (ALL, ["\u200c{x}", "{x}\u2060\u2060", "\u3000{x}"]),
    "links_and_emphasis": (ALL, ["[{x}](#)", "__{x}__ thanks", "_{x}_ 🙏"]),
    "brackets_only": (ALL, ["[ {x} ]", "({x}) thanks"]),
    "spoken_marks": (ALL, ["{x} period thanks period", "ok comma {x}"]),
    "glued_marks": (ALL, ["hi,{x}", "{x};thanks", "hmm.{x}"]),
    "held_letters": (ALL, ["pleeeease {x}", "{x} thaaanks", "sooooo {x}"]),
    "time_closing": ([C, S], ["{x} before lunch", "{x} by tomorrow"]),
    "closing_in_another_language": (ALL, ["{x}, danke schön", "{x}, muchas gracias",
                                          "{x}, merci d'avance"]),
    **ROUND3_CLASSES,
}

TYPOS = [
    ("roll bak to draft 2", "roll back to draft 2"),
    ("rollbakc to draft 2", "roll back to draft 2"),
    ("show the draft hisotry", "show the draft history"), ("show teh draft history",
                                                           "show the draft history"),
    ("rdo", "redo"), ("show the dfif of draft 2", "show the diff of draft 2"),
    ("indeks my repository", "index my repository"), ("code memory staus", "code memory status"),
    ("add sorce pip:rich", "add source pip:rich"), ("lis sources", "list sources"),
    ("remove sourec rich", "remove source rich"), ("updte source rich", "update source rich"),
    ("renmae fmt_ts to format_timestamp", "rename fmt_ts to format_timestamp"),
    ("mvoe parse_date to utils/dates.py", "move parse_date to utils/dates.py"),
    ("rinomima parse_date in parse_day", "rinomina parse_date in parse_day"),
    ("cancl", "cancel"), ("contiue", "continue"), ("aplly it", "apply it"), ("resum", "resume"),
]

DICTATION = [
    ("roll back to draft two", "roll back to draft 2"),
    ("show the diff of draft two please", "show the diff of draft 2"),
    ("diff draft one and two", "diff draft 1 and 2"),
    ("um what changed since draft one", "what changed since draft 1"),
    ("ok go ahead", "go ahead"), ("yeah cancel", "cancel"),
]

NEAR_MISSES: list[tuple[str, list[str] | None]] = [
    ("go back to the second draft", ["roll_back", "2"]),
    ("revert to draft #2 please", ["roll_back", "2"]),
    ("draft 2 was the good one, roll back", ["roll_back", "2"]),
    ("what did draft 2 change?", ["diff", "2"]),
    ("show me the diff for the 2nd draft", ["diff", "2"]),
    ("rename fmt_ts => format_timestamp", ["rename", "fmt_ts", "format_timestamp", ""]),
    ("fmt_ts should be called format_timestamp", ["rename", "fmt_ts", "format_timestamp", ""]),
    ("move parse_date over to utils/dates.py", ["move", "parse_date", "utils/dates.py", ""]),
    ("what is a rollback?", None),
    ("how does the draft history work?", None),
    ("add a method rollback to Session", None),
    ("update the index function in search.py", None),
    ("write a function that shows the diff of two files", None),
    ("rename fmt_ts to format_ts and make it async", None),
    ("move the party to saturday", None),
    ("can you explain what 'show the draft history' does?", None),
]

def _typed(text: str) -> list[str]:
    """The base phrase typed otherwise: shouted, a letter held down in its first word, a
    digit for a letter, an emoji or a zero-width space between its words."""
    words = text.split()
    first = words[0]
    vowel = next((i for i, c in enumerate(first) if c in "aeiou" and i), len(first) - 1)
    held = first[:vowel + 1] + first[vowel] * 3 + first[vowel + 1:]
    leet = first.replace("o", "0", 1) if "o" in first[1:] else first.replace("e", "3", 1)
    out = [" ".join(w.upper() if w in _OWN_WORDS else w for w in words),
           " ".join([held, *words[1:]]), " ".join([leet, *words[1:]])]
    if len(words) > 1:
        out += [" ".join([first, "🙏", *words[1:]]), "\u200b ".join(words)]
    return [v for v in out if v != text]


def _two_commands(text: str) -> list[list[str]]:
    """Two commands joined: to be asked about (either), never half done with confidence."""
    other = "redo" if text != "redo" else "list sources"
    return [[f"{text} and then {other}", text, other],
            [f"first {text}, then {other}", text, other]]


_OWN_WORDS = COMMAND_WORDS.words | STRUCTURAL_WORDS.words
_BASES = [t for t, *_ in COMMANDS] + [t for t, *_ in STRUCTURAL] + REPLIES

DEV_WRAPPINGS: dict[str, Any] = {
    "commands": [{"text": t, "command": c, "argument": a, "imperative": imp}
                 for t, c, a, imp in COMMANDS],
    "structural": [{"text": t, "kind": k, "symbol": s, "target": n, "path": p}
                   for t, k, s, n, p in STRUCTURAL],
    "replies": [*REPLIES, *ROUND3["replies"]],
    "classes": {name: {"kinds": kinds, "templates": templates}
                for name, (kinds, templates) in CLASSES.items()},
    "explicit": {"typo": [list(p) for p in TYPOS], "dictation": [list(p) for p in DICTATION],
                 "typed": [[v, t] for t in _BASES for v in _typed(t)],
                 "two_commands": [p for t in _BASES[:len(COMMANDS) + len(STRUCTURAL)]
                                  for p in _two_commands(t)], **ROUND3["explicit"]},
    "ask_only": ["two_commands"],
    "near_misses": [{"text": t, "expected": e} for t, e in NEAR_MISSES] + ROUND3["near_misses"],
    "reply_near_misses": ROUND3["reply_near_misses"],
}

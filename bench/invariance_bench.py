"""Invariance of the message readers under the way people type (CheckList, Ribeiro et al. 2020).

Run: ``.venv/bin/python -m tests.run bench.invariance_bench [--heldout] [--wrong]``. Every
documented phrase (the README's chat sections, the command corpus, and the renames, moves, code
requests, questions and replies below) is read once as written (its expected reading: a minimum
functionality test) and again with perturbations from lists (a greeting or the Cat's name
before it, a filler, thanks, politeness, emoji or a smiley after it, a change of case,
backticks around its names, a scope word for renames and moves); a variant is invariant when it
reads the same. Prints the share per kind. ``--heldout`` uses the held-out lists of
``tests/unit/codegen/data/perturbations_heldout.json`` (written before the utterance reader,
evaluated once) instead of the development lists here. The unit tests
(``tests/unit/codegen/test_checklist.py``) assert the same figures.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..codegen.reading.commands import detect_command
from ..codegen.reading.intent import Intent, KnownNames, detect_intent
from ..codegen.reading.replies import classify_reply, is_apply, is_resume
from ..codegen.refactor.request import read_structural

DATA = pathlib.Path(__file__).resolve().parents[1] / "tests" / "unit" / "codegen" / "data"

#: The development perturbation lists (the held-out ones are in ``DATA``).
DEV_LISTS: dict[str, list[str]] = {
    "prefixes": ["hi, ", "hey ", "hello! ", "hey cat, ", "Cheshire Cat, ", "cat: ", "ok ",
                 "good morning, ", "hi there, ", "ciao, ", "hallo, ", "hola, ", "bonjour, ",
                 "olá, ", "hoi, ", "bot, ", "so ", "hey Cheshire Cat "],
    "fillers": ["please ", "pls ", "could you ", "can you ", "I'd like you to ",
                "would you mind ", "just ", "ok so ", "could you please ", "bitte ",
                "per favore ", "por favor, "],
    "suffixes": [" thanks", ", thank you", " thx", " cheers", " ty", " please", " pls", " :)",
                 " :-)", " ;)", " xD", " 😊", " 🙏", "!", ".", " thanks!", ", thanks :)",
                 " grazie", " danke", " merci", " obrigado", " dank je", " gracias"],
    "scope": ["everywhere", "across the code base", "in every file", "throughout the project",
              "in all modules", "ovunque", "überall", "en todo el proyecto", "partout",
              "em todo o projeto", "overal"],
}

#: Fake index of the names the phrases use (the README's examples).
INDEX_NAMES = ["parse_date", "Invoice", "Invoice.to_json", "load_config", "read_settings",
               "slugify", "text_utils.py", "search.py", "fmt_ts", "utils/dates.py",
               "utils/time.py", "fetch", "export_csv", "paginate"]

RENAMES = ["rename fmt_ts to format_timestamp", "rename Invoice.to_json to Invoice.as_json",
           "rename the function fmt_ts in utils/time.py to format_ts",
           "rename load_config to read_config", "rename class Invoice to Bill",
           "rinomina parse_date in parse_day", "benenne slugify in make_slug um",
           "renomme export_csv en write_csv"]
MOVES = ["move parse_date to utils/dates.py", "move slugify into text_utils.py",
         "move fmt_ts from utils/time.py to utils/dates.py", "move the function paginate to "
         "utils/pages.py", "sposta load_config in config/loading.py",
         "verschiebe fetch nach net/http.py"]
REQUESTS = ["could you add a method to_json to the Invoice class?",
            "fix parse_date: it crashes on empty strings",
            "parse_date should also accept a trailing Z",
            "update the index function in search.py",
            "write a function slugify in text_utils.py that turns a title into a URL slug",
            "add a timeout parameter to fetch and pass it from every caller",
            "make export_csv write a header row", "paginate should start counting at one",
            "scrivi una funzione che converte Celsius in Fahrenheit",
            "schreib eine Funktion, die Schaltjahre erkennt"]
QUESTIONS = ["how does authentication work in the code?", "what does parse_date do?",
             "what is the difference between load_config and read_settings?",
             "walk me through what happens when a user logs in",
             "where is parse_date defined?", "which functions call fetch?",
             "why do both load_config and read_settings exist?", "dove viene usata paginate?"]

#: The README's one-word replies: to a proposal (go, cancel), to a draft (stop, continue) and
#: the write (apply).
REPLIES = ["go", "go ahead", "yes", "cancel", "stop", "continue", "resume", "apply", "apply it",
           "apply the draft"]


@dataclass(frozen=True)
class Case:
    """One phrase of one kind, and how it is read."""

    kind: str
    text: str
    read: Callable[[str], object]


@dataclass
class Tally:
    """Invariant variants of one kind, and the failures."""

    total: int = 0
    same: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.same / self.total if self.total else 1.0


def _command(text: str) -> object:
    found = detect_command(text)
    return (found.command, found.argument) if found else None


def _reply(text: str) -> object:
    return (classify_reply(text).value, is_resume(text), is_apply(text))


def _structural(text: str) -> object:
    return read_structural(text)


_INDEX = KnownNames(INDEX_NAMES)


def _intent(text: str) -> object:
    return detect_intent(text, _INDEX).intent


def readme_commands() -> list[str]:
    """The command phrases of the README's chat sections and of the command corpus."""
    from ..tests.unit.glue.readme_tour import HISTORY, INDEXING, SOURCES, STATUS
    corpus = json.loads((DATA / "command_corpus.json").read_text(encoding="utf-8"))
    return list(dict.fromkeys([*STATUS, *INDEXING, *HISTORY, *SOURCES,
                               *(item["text"] for item in corpus["commands"])]))


def readme_requests_and_questions() -> tuple[list[str], list[str]]:
    from ..tests.unit.glue.readme_tour import MAIN_REQUEST
    from ..tests.unit.glue.readme_tour import QUESTIONS as TOUR_QUESTIONS
    from ..tests.unit.glue.readme_tour import REQUESTS as TOUR_REQUESTS
    requests = [t for t in (*TOUR_REQUESTS, MAIN_REQUEST) if "…" not in t]
    return (list(dict.fromkeys([*requests, *REQUESTS])),
            list(dict.fromkeys([*TOUR_QUESTIONS, *QUESTIONS])))


def cases() -> list[Case]:
    """Every phrase with its reader."""
    requests, questions = readme_requests_and_questions()
    return ([Case("commands", t, _command) for t in readme_commands()]
            + [Case("renames", t, _structural) for t in RENAMES]
            + [Case("moves", t, _structural) for t in MOVES]
            + [Case("code requests", t, _intent) for t in requests]
            + [Case("questions", t, _intent) for t in questions]
            + [Case("replies", t, _reply) for t in REPLIES])


_NAME = re.compile(r"(?<![\w`/.@:])([A-Za-z_]\w*(?:[._]\w+)+|[\w/]+\.py)(?![\w`])")


def variants(case: Case, lists: dict[str, list[str]]) -> Iterator[str]:
    """The perturbed phrasings of ``case.text`` (prefixes, fillers, suffixes, case, backticks,
    scope words), each list entry once, and a few combinations."""
    text = case.text
    imperative = case.kind != "questions" and not text.rstrip("?").endswith("?") \
        and not text.lower().startswith(("what", "could", "can ", "what's"))
    for prefix in lists["prefixes"]:
        yield prefix + text
    if imperative:
        for filler in lists["fillers"]:
            yield filler + text[0].lower() + text[1:]
    for suffix in lists["suffixes"]:
        yield text + suffix
    if case.kind not in ("renames", "moves"):  # names keep their case
        yield text.lower()
    yield text[0].upper() + text[1:]
    backticked = _NAME.sub(r"`\1`", text)
    if backticked != text:
        yield backticked
    if case.kind in ("renames", "moves"):
        for scope in lists["scope"]:
            yield f"{text} {scope}"
    for prefix, suffix in zip(lists["prefixes"][::3], lists["suffixes"][::4], strict=False):
        yield prefix + text + suffix


#: SHA-256 of the held-out lists as written before the change (checked by the unit tests).
HELD_OUT_SHA256 = "a3f49c5ad2cfb9d42e6192396030be976a112b62951cfa1ba87b600e4cb540e6"


def held_out_digest() -> str:
    return hashlib.sha256((DATA / "perturbations_heldout.json").read_bytes()).hexdigest()


def held_out_lists() -> dict[str, list[str]]:
    raw = json.loads((DATA / "perturbations_heldout.json").read_text(encoding="utf-8"))
    return {key: raw[key] for key in ("prefixes", "fillers", "suffixes", "scope")}


def expected_ok(case: Case, reading: object) -> bool:
    """The minimum functionality: the phrase itself is read as its kind."""
    if case.kind == "commands":
        return reading is not None
    if case.kind == "replies":
        return reading != ("feedback", False, False)
    if case.kind in ("renames", "moves"):
        return reading is not None and type(reading).__name__.startswith(
            "Rename" if case.kind == "renames" else "Move")
    want = Intent.CODE_REQUEST if case.kind == "code requests" else Intent.CODE_QUESTION
    return reading is want


def measure(lists: dict[str, list[str]]) -> dict[str, Tally]:
    """Invariance per kind over ``lists``; a phrase that fails its own reading counts every
    variant as failed."""
    out: dict[str, Tally] = {}
    for case in cases():
        tally = out.setdefault(case.kind, Tally())
        base = case.read(case.text)
        for variant in variants(case, lists):
            tally.total += 1
            if expected_ok(case, base) and case.read(variant) == base:
                tally.same += 1
            else:
                tally.failures.append(f"{variant!r} -> {case.read(variant)!r} "
                                      f"(as written: {base!r})")
    return out


def main(argv: list[str]) -> int:
    lists = held_out_lists() if "--heldout" in argv else DEV_LISTS
    print(f"perturbations: {'held-out' if '--heldout' in argv else 'development'} lists")
    print("kind           variants  invariant")
    for kind, tally in measure(lists).items():
        print(f"{kind:14} {tally.total:8}  {tally.share:.3f}")
        if "--wrong" in argv:
            for failure in tally.failures:
                print("    " + failure)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

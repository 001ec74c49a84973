"""The reading of one chat message, timed, beside a 68k-entity index (target: under 2 ms).

Run: ``.venv/bin/python -m tests.run bench.reading_bench [--limit N] [--runs 3]``. The index is
the running interpreter's standard library with its tests (about 1,700 files and 68,000
functions, classes and methods, their qualified names and the file paths), read with ``ast``
into ``KnownNames``, which answers the detector's two questions with set lookups as the glue's
``IndexedNames`` does once its names are read (the repository's words, ``name_terms``, are
computed once per indexing run: timed apart). A message's reading is everything the plugin
reads a message with, every cache emptied first: the commands (``detect_command``), renames
and moves (``read_structural``), the suggestion (``suggest_command``), the detector with the
index (``detect_intent``) and the reply words (``classify_reply``, ``is_resume``,
``is_apply``). Messages: the routing corpus, the command corpus and the development wrappings
(never the sealed held-out files). Prints the median, p95, p99 and the slowest message.
"""

from __future__ import annotations

import ast
import json
import statistics
import sys
import sysconfig
import time
from pathlib import Path

from ..codegen.reading import commands, replies
from ..codegen.reading.clause_reading import part_asks
from ..codegen.reading.clauses import parts
from ..codegen.reading.commands import command_run, detect_command, read_command
from ..codegen.reading.intent import KnownNames, detect_intent
from ..codegen.reading.replies import classify_reply, is_apply, is_resume
from ..codegen.reading.typed import plain_typed
from ..codegen.reading.typos import _corrected, _fixed
from ..codegen.reading.utterance import _spans, read_utterance
from ..codegen.refactor import request
from ..codegen.refactor.request import read_structural, structural_reading, structural_run
from ..codegen.suggest import suggest_command
from ..tests.unit.codegen.wrapping_dev import DEV_WRAPPINGS
from .wrapping_bench import variants

DATA = Path(__file__).resolve().parents[1] / "tests" / "unit" / "codegen" / "data"


def stdlib_names(limit: int | None) -> tuple[list[str], int]:
    """Entity names, qualified names and paths of the standard library, and the entity
    count."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    names: set[str] = set()
    entities = 0
    for path in files[:limit] if limit else files:
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        names.add(str(path.relative_to(root)))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                entities += 1
                names.add(node.name)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(f"{node.name}.{item.name}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                entities += 1
                names.add(node.name)
    return sorted(names), entities


def messages() -> list[str]:
    corpus = json.loads((DATA / "intent_corpus.json").read_text(encoding="utf-8"))
    claims = json.loads((DATA / "command_corpus.json").read_text(encoding="utf-8"))
    texts = [i["text"] for i in corpus["items"]] + claims["ordinary"]
    texts += [c["text"] for c in claims["commands"]]
    texts += [text for _, _, text, _ in variants(DEV_WRAPPINGS)]
    return list(dict.fromkeys(texts))


def _clear() -> None:
    for cached in (read_utterance, parts, part_asks, read_command, structural_reading, _spans,
                   _corrected, plain_typed, command_run, structural_run, commands._may_start,
                   request._may_start, replies._plain_words, _fixed):
        cached.cache_clear()


def read_once(text: str, index: KnownNames) -> None:
    """Everything the plugin reads one message with."""
    detect_command(text)
    read_structural(text)
    suggest_command(text)
    detect_intent(text, index)
    classify_reply(text)
    is_resume(text)
    is_apply(text)


def main(argv: list[str]) -> int:
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 3
    names, entities = stdlib_names(limit)
    start = time.perf_counter()
    index = KnownNames(names)
    built = time.perf_counter() - start
    texts = messages()
    per_message: dict[str, float] = {}
    for _ in range(runs):
        for text in texts:
            _clear()
            begin = time.perf_counter()
            read_once(text, index)
            spent = (time.perf_counter() - begin) * 1000
            per_message[text] = min(spent, per_message.get(text, spent))
    times = sorted(per_message.values())
    slowest = max(per_message, key=lambda t: per_message[t])
    print(f"index: {entities} entities, {len(names)} names and paths; repository words read "
          f"once in {built:.2f} s")
    print(f"messages: {len(texts)}, best of {runs} runs each, every cache emptied")
    print(f"one reading: median {statistics.median(times):.3f} ms, "
          f"p95 {times[int(len(times) * 0.95)]:.3f} ms, p99 {times[int(len(times) * 0.99)]:.3f} "
          f"ms, max {times[-1]:.3f} ms ({slowest[:60]!r})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

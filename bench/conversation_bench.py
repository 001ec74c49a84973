"""The conversation's rules, measured: the held-out split of the waiting readers, and the
model-based conversation run far longer than ``make test`` runs it.

Run: ``.venv/bin/python -m tests.run bench.conversation_bench [--heldout] [--seeds N]
[--steps S] [--cache file_system|in_memory]``.

``--heldout`` evaluates ``tests/unit/codegen/data/waiting_replies_sealed.json`` (written before
the reader of corrections and file answers, sealed): each message read while a proposal waits
(a change to it, or an aside) or while the file question waits (its answer, or something else),
and prints the share read right per class, with every miss. ``--seeds N`` runs N seeded
random conversations of S steps on the simulated Cat (``tests/unit/glue/conversation_model.walk``
over ``test_conversation_model.SimDriver``: two users, requests with and without files,
corrections, questions, chat, go / stop / continue / apply, the history, drafts finishing
inside a turn, toggles, re-uploads, restarts, and a fault injector tearing the user's cache
file while a draft runs) and prints the conversations, steps, time and every failing seed with
its last steps (a seed replays its conversation).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

from ..codegen import Kind, Situation, Stage, read_turn
from ..codegen.reading.known_code import KnownNames

DATA = pathlib.Path(__file__).resolve().parents[1] / "tests" / "unit" / "codegen" / "data"
SPLIT = DATA / "waiting_replies_sealed.json"
#: The repository the split's messages speak of (the proposal writes ``slugify`` into
#: ``text_utils.py``, beside ``shout``).
KNOWN = KnownNames(["shout", "text_utils.py", "dates.py", "parse_date"])
PROPOSED = Situation(stage=Stage.PROPOSED, repository=True, has_task=True,
                     proposal=("text_utils.py", "slugify"))
ASKED = Situation(stage=Stage.ASKED_FILE, repository=True)


def heldout() -> int:
    split = json.loads(SPLIT.read_text())
    misses = 0
    rows = [("proposal", "correction", PROPOSED, lambda k: k is Kind.CORRECTION),
            ("proposal", "aside", PROPOSED, lambda k: k is not Kind.CORRECTION),
            ("file", "answer", ASKED, lambda k: k is Kind.FILE_ANSWER),
            ("file", "other", ASKED, lambda k: k is not Kind.FILE_ANSWER)]
    print("| while | class | messages | read right |\n|---|---|---|---|")
    wrong: list[str] = []
    for group, label, situation, right in rows:
        messages = split[group][label]
        kinds = [read_turn(text, situation, KNOWN).kind for text in messages]
        good = sum(right(k) for k in kinds)
        misses += len(messages) - good
        wrong += [f"  {group}/{label}: {t!r} -> {k}" for t, k in zip(messages, kinds, strict=True)
                  if not right(k)]
        print(f"| {group} | {label} | {len(messages)} | {good}/{len(messages)} "
              f"({good / len(messages):.3f}) |")
    print("\n".join(["", "misses:", *wrong]) if wrong else "\nno miss")
    return misses


def conversations(seeds: int, steps: int, cache: str) -> int:
    import random

    from ..tests.unit.glue.conversation_model import ConversationModel, walk
    from ..tests.unit.glue.test_conversation_model import USERS, SimDriver

    started, failed, taken_total = time.perf_counter(), [], 0
    for seed in range(seeds):
        driver = SimDriver(cache)
        taken: list[str] = []
        try:
            taken += walk(ConversationModel(driver, USERS), random.Random(seed), steps)
        except AssertionError as err:
            failed.append(f"seed {seed} after {len(taken)} steps: {str(err)[:400]}\n  "
                          + "\n  ".join(taken[-8:]))
        finally:
            driver.close()
            taken_total += len(taken)
    print(f"{seeds} conversations of {steps} steps ({cache} cache): {taken_total} steps, "
          f"{len(failed)} failed, {time.perf_counter() - started:.0f} s")
    print("\n".join(failed))
    return len(failed)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heldout", action="store_true")
    parser.add_argument("--seeds", type=int, default=0, help="random conversations to run")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--cache", default="file_system")
    args = parser.parse_args(argv)
    heldout() if args.heldout else None
    failed = conversations(args.seeds, args.steps, args.cache) if args.seeds else 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

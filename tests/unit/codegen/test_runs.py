"""The shortest run of a part that reads and stands as a clause of its own
(``codegen/reading/runs.py``, through ``commands.command_run`` and
``refactor.request.structural_run``), CheckList style: what may stand before and after a run,
what never may, and the order runs are tried in."""

from __future__ import annotations

import pytest

from codemem.codegen.reading.commands import Command, Found, command_run
from codemem.codegen.reading.runs import MAX_RUN, shortest_run, unwrapped
from codemem.codegen.refactor.request import MoveRequest, RenameRequest, structural_run


@pytest.mark.parametrize("text, found", [
    ("redo", Found(Command.REDO)),
    ("so roll back to draft 2", Found(Command.ROLL_BACK, "2")),
    ("draft 3 broke; roll back to draft 2", Found(Command.ROLL_BACK, "2")),
    ("my colleague said: redo", Found(Command.REDO)),
    ("Giulia thinks we should roll back to draft 2", Found(Command.ROLL_BACK, "2")),
    ("redo and then list sources", Found(Command.REDO)),
    ("remove source docs already!", Found(Command.REMOVE_SOURCE, "docs")),
    ("update source rich before lunch", Found(Command.UPDATE_SOURCE, "rich")),
    ("roll back to draft 2 by tomorrow", Found(Command.ROLL_BACK, "2")),
    ("first, redo", Found(Command.REDO)),
])
def test_a_command_standing_as_a_clause_of_its_own(text, found):
    run = command_run(text)
    assert run is not None and run.value == found


@pytest.mark.parametrize("text", [
    "redo my hair appointment",             # an object after it
    "roll back the prices after the complaints",
    "we did a rollback",                    # an article before it
    "the diff between the contracts",
    "don't roll back to draft 2",           # a negation
    "is it safe to redo?",                  # a question word opens its clause
    "what happens if we roll back to draft 2?",
    "I hate it when you redo.",             # a condition
    "omg seriously redo it already",        # a lead and a tail at once
    "we had to roll back prices",
])
def test_never_a_run_that_is_part_of_something_else(text):
    assert command_run(text) is None


@pytest.mark.parametrize("text, wanted", [
    ("Marco said: rename fmt_ts to format_ts", RenameRequest("fmt_ts", "format_ts")),
    ("first move parse_date to utils/dates.py, then redo",
     MoveRequest("parse_date", "utils/dates.py")),
    ("(( rename fmt_ts to format_ts ))", RenameRequest("fmt_ts", "format_ts")),
    ("renmae fmt_ts to format_ts pls", RenameRequest("fmt_ts", "format_ts")),
])
def test_a_rename_or_move_standing_as_a_clause_of_its_own(text, wanted):
    run = structural_run(text)
    assert run is not None and run.value == wanted


def test_the_run_keeps_the_words_around_it():
    run = command_run("ok so, redo, and then maybe list sources")
    assert run is not None and run.text == "redo"
    assert run.before == "ok so," and run.after == "and then maybe list sources"


def test_runs_between_two_edges_come_before_runs_with_a_tail():
    # "update source" (the index) with "rich before lunch" as a tail would read too
    run = command_run("update source rich before lunch")
    assert run is not None and run.value == Found(Command.UPDATE_SOURCE, "rich")


def test_of_one_rank_the_first_run_of_the_part():
    run = command_run("roll back to draft 3 and then show the diff")
    assert run is not None and run.value == Found(Command.ROLL_BACK, "3")


def test_shortest_first_from_one_start():
    seen: list[str] = []

    def read(run: str) -> str | None:
        seen.append(run)
        return run if run in ("go", "go now") else None

    found = shortest_run("go now", read, lambda w: w == "go")
    assert found is not None and found.value == "go" and seen == ["go"]


def test_a_run_is_at_most_max_run_words():
    lengths: list[int] = []
    shortest_run(", ".join(["go"] * (MAX_RUN + 10)),
                 lambda r: lengths.append(len(r.split())), lambda w: w == "go")
    assert lengths and max(lengths) == MAX_RUN


@pytest.mark.parametrize("run, plain", [
    ("(redo)", "redo"), ("((redo))", "redo"), ("[redo,", "redo"), ("*redo*!", "redo"),
    ("roll back to draft 2.", "roll back to draft 2"), ("f(x)", "f(x)"),
])
def test_marks_around_a_run_that_are_not_its_own(run, plain):
    assert unwrapped(run) == plain

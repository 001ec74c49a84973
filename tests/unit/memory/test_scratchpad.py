"""The scratchpad's every operation (start, put and refine, get, query, summary, complete and
archive), plus persistence in the Cat."""

from __future__ import annotations

import json
import pickle
import threading
from datetime import datetime, timedelta, timezone

import pytest

from codemem.memory import Scratchpad as ExportedScratchpad
from codemem.memory.errors import TaskNotFound
from codemem.memory.scratchpad import MAX_LOG_ENTRIES, Scratchpad, ScratchpadError


class TickingClock:
    """A clock that moves one second per reading, so log times are distinct and checkable."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


class RecordingSink:
    def __init__(self, fail_on: str | None = None) -> None:
        self.added: list[tuple[str, dict]] = []
        self.fail_on = fail_on

    def add_memory(self, text, metadata=None):
        if self.fail_on and metadata["key"] == self.fail_on:
            raise RuntimeError("long-term memory is down")
        self.added.append((text, metadata))
        return f"mem-{len(self.added)}"


def test_exported_from_memory_package():
    assert ExportedScratchpad is Scratchpad


def test_start_task_with_initial_data_and_generated_id():
    pad = Scratchpad()
    task = pad.start_task(initial={"goal": "parse ISO dates", "steps": ["a", "b"]})
    assert isinstance(task, str) and len(task) == 12
    assert pad.snapshot(task) == {"goal": "parse ISO dates", "steps": ["a", "b"]}
    assert pad.tasks() == [task]


def test_start_task_with_explicit_id_resets_an_existing_space():
    pad = Scratchpad()
    assert pad.start_task("t1", {"x": 1}) == "t1"
    pad.put("t1", "y", 2)
    pad.start_task("t1")
    assert pad.snapshot("t1") == {}


def test_put_refines_latest_value_wins_and_every_update_is_logged_with_time():
    clock = TickingClock()
    pad = Scratchpad(clock=clock)
    pad.start_task("t")
    pad.put("t", "step2_result", 41)
    pad.put("t", "step2_result", 42)
    assert pad.get("t", "step2_result") == 42
    log = pad.history("t")
    assert [(e["key"], e["action"], e["preview"]) for e in log] == [
        ("step2_result", "set", "41"),
        ("step2_result", "refine", "42"),
    ]
    times = [datetime.fromisoformat(e["time"]) for e in log]
    assert times[0] < times[1]


def test_missing_key_is_a_clear_not_found_not_an_exception():
    pad = Scratchpad()
    pad.start_task("t")
    assert pad.get("t", "nope") is None
    assert pad.get("t", "nope", default="fallback") == "fallback"
    lookup = pad.query("t", "nope")
    assert not lookup.found
    assert lookup.message == "not found: no key 'nope' in task 't'"
    pad.put("t", "x", {"a": 1})
    found = pad.query("t", "x")
    assert found.found and found.value == {"a": 1}


def test_unknown_task_raises_task_not_found_with_the_open_tasks():
    pad = Scratchpad()
    pad.start_task("a")
    with pytest.raises(TaskNotFound, match="no scratchpad task 'b'.*'a'"):
        pad.put("b", "k", 1)
    with pytest.raises(KeyError):  # TaskNotFound is also a KeyError for dict-minded callers
        pad.snapshot("b")


def test_values_are_copied_in_and_out():
    pad = Scratchpad()
    pad.start_task("t")
    value = {"list": [1, 2]}
    pad.put("t", "v", value)
    value["list"].append(3)
    got = pad.get("t", "v")
    got["list"].append(4)
    assert pad.get("t", "v") == {"list": [1, 2]}


@pytest.mark.parametrize(
    "bad",
    [threading.Lock(), object(), {1: "int key"}, float("nan"), (x for x in ()), {"a": {b"x"}}],
)
def test_only_plain_data_is_accepted(bad):
    pad = Scratchpad()
    pad.start_task("t")
    with pytest.raises(ScratchpadError):
        pad.put("t", "k", bad)
    assert pad.snapshot("t") == {}


@pytest.mark.parametrize("bad_key", ["", "   ", None, 3, "k" * 201])
def test_keys_and_task_ids_must_be_reasonable_strings(bad_key):
    pad = Scratchpad()
    pad.start_task("t")
    with pytest.raises(ScratchpadError):
        pad.put("t", bad_key, 1)
    if bad_key is not None:  # None means "generate an id"
        with pytest.raises(ScratchpadError):
            pad.start_task(bad_key)


def test_summary_lists_notes_oldest_update_first_and_marks_revisions():
    pad = Scratchpad(clock=TickingClock())
    pad.start_task("t")
    pad.put("t", "metacode", {"symbol": "parse_iso"})
    pad.put("t", "report", "2 tests failed")
    pad.put("t", "metacode", {"symbol": "parse_iso_date"})
    assert pad.summary("t") == (
        "Scratchpad of task t (2 notes):\n"
        "- report: 2 tests failed\n"
        '- metacode (revised 2x): {"symbol": "parse_iso_date"}'
    )


def test_summary_is_bounded():
    pad = Scratchpad()
    pad.start_task("t")
    for i in range(100):
        pad.put("t", f"key{i}", "x" * 500)
    text = pad.summary("t", max_chars=1000)
    assert len(text) <= 1000 and text.endswith("(truncated)")


def test_complete_clears_the_task():
    pad = Scratchpad()
    pad.start_task("t", {"a": 1})
    assert pad.complete("t") == {}
    assert pad.tasks() == []
    with pytest.raises(TaskNotFound):
        pad.get("t", "a")


def test_complete_archives_selected_keys_to_the_sink():
    pad = Scratchpad()
    pad.start_task("t", {"final_code": "def f(): ...", "scratch": 1, "lesson": {"why": "tz"}})
    sink = RecordingSink()
    archived = pad.complete("t", archive_keys=["final_code", "lesson"], sink=sink)
    assert archived == {"final_code": "mem-1", "lesson": "mem-2"}
    texts = [text for text, _ in sink.added]
    assert texts == ["final_code: def f(): ...", 'lesson: {"why": "tz"}']
    assert all(m["source"] == "scratchpad" and m["task_id"] == "t" for _, m in sink.added)
    assert pad.tasks() == []


def test_complete_accepts_a_plain_callable_sink():
    pad = Scratchpad()
    pad.start_task("t", {"k": "v"})
    seen = []
    pad.complete("t", archive_keys=["k"], sink=lambda text, meta: seen.append((text, meta["key"])))
    assert seen == [("k: v", "k")]


def test_failed_archive_loses_nothing():
    pad = Scratchpad()
    pad.start_task("t", {"a": 1, "b": 2})
    with pytest.raises(RuntimeError, match="down"):
        pad.complete("t", archive_keys=["a", "b"], sink=RecordingSink(fail_on="b"))
    assert pad.snapshot("t") == {"a": 1, "b": 2}


def test_complete_refuses_missing_keys_or_missing_sink():
    pad = Scratchpad()
    pad.start_task("t", {"a": 1})
    with pytest.raises(ScratchpadError, match="missing key"):
        pad.complete("t", archive_keys=["zzz"], sink=RecordingSink())
    with pytest.raises(ScratchpadError, match="without a sink"):
        pad.complete("t", archive_keys=["a"])
    assert pad.tasks() == ["t"]


def test_tasks_are_namespaced_side_by_side():
    pad = Scratchpad()
    pad.start_task("one", {"x": 1})
    pad.start_task("two", {"x": 2})
    pad.put("one", "y", "only in one")
    assert pad.snapshot("one") == {"x": 1, "y": "only in one"}
    assert pad.snapshot("two") == {"x": 2}
    assert pad.tasks() == ["one", "two"]
    pad.complete("one")
    assert pad.tasks() == ["two"]


def test_log_is_capped():
    pad = Scratchpad()
    pad.start_task("t")
    for i in range(MAX_LOG_ENTRIES + 50):
        pad.put("t", "k", i)
    log = pad.history("t")
    assert len(log) == MAX_LOG_ENTRIES
    assert log[-1]["preview"] == str(MAX_LOG_ENTRIES + 49)


def test_round_trip_through_json_and_pickle_like_the_cat_cache():
    pad = Scratchpad(clock=TickingClock())
    pad.start_task("t", {"metacode": {"examples": [["f(1)", 2]]}})
    pad.put("t", "metacode", {"examples": [["f(1)", 3]]})
    pad.start_task("u", {"n": None, "ok": True, "f": 1.5})
    state = pad.to_dict()
    for restored_state in (json.loads(json.dumps(state)), pickle.loads(pickle.dumps(state))):
        restored = Scratchpad.from_dict(restored_state)
        assert restored.tasks() == ["t", "u"]
        assert restored.snapshot("t") == {"metacode": {"examples": [[["f(1)", 3]][0]]}}
        assert restored.history("t") == pad.history("t")
        assert restored.summary("u") == pad.summary("u")
        assert restored.to_dict() == state


def test_to_dict_holds_only_builtin_types():
    pad = Scratchpad()
    pad.start_task("t", {"a": [1, {"b": "c"}]})

    def walk(value):
        assert type(value) in (dict, list, str, int, float, bool, type(None)), type(value)
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(pad.to_dict())


@pytest.mark.parametrize(
    "damaged",
    [None, [], {"version": 99, "tasks": {}}, {"version": 1}, {"version": 1, "tasks": {"t": 3}},
     {"version": 1, "tasks": {"t": {"values": {"k": 1}, "log": []}}}],
)
def test_from_dict_rejects_damaged_layouts_clearly(damaged):
    with pytest.raises(ScratchpadError):
        Scratchpad.from_dict(damaged)


def test_concurrent_writers_lose_no_update():
    pad = Scratchpad()
    pad.start_task("t")

    def writer(n):
        for i in range(200):
            pad.put("t", f"w{n}-{i}", i)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(pad.snapshot("t")) == 8 * 200


def test_export_and_import_one_task_between_scratchpads():
    worker = Scratchpad(clock=TickingClock())
    worker.start_task("t", {"a": 1})
    worker.put("t", "a", 2)
    user = Scratchpad()
    user.start_task("other", {"keep": True})
    user.import_task("t", worker.export_task("t"))
    assert user.tasks() == ["other", "t"]
    assert user.snapshot("t") == {"a": 2} and user.history("t") == worker.history("t")
    assert user.snapshot("other") == {"keep": True}
    with pytest.raises(ScratchpadError):
        user.import_task("bad", {"values": {"k": 1}, "log": []})
    with pytest.raises(TaskNotFound):
        worker.export_task("missing")

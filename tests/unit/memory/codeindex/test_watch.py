"""The watch waits for quiet: a burst of saves is one batch (file events through the real
``watchfiles`` on a real folder, and ``stat`` polling), a single save is a batch within the quiet
period, and a stream that never pauses is still cut every ``longest_wait_s``."""

from __future__ import annotations

import threading
import time

import pytest

from codemem.memory.codeindex.watch import (
    WATCH_DEFAULTS,
    PollingWatch,
    quiet_batches,
    watch_changes,
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _paced(clock: Clock, groups):
    """Each item: (seconds that pass first, the group the watch sees then)."""
    for delay, group in groups:
        clock.now += delay
        yield group


def test_groups_merge_until_the_quiet_period_or_the_longest_wait():
    clock, stop = Clock(), threading.Event()
    saves = [(0.1, {"a.py"})] * 10 + [(0.1, set())] * 2 + [(0.2, set())]  # 1 s of saves
    batches = list(quiet_batches(_paced(clock, saves), stop, 0.3, 2.0, clock))
    assert batches == [{"a.py"}]
    clock.now = 0.0
    stream = [(0.1, {f"f{i}.py"}) for i in range(45)]  # 4.5 s without a pause
    batches = list(quiet_batches(_paced(clock, stream + [(0.4, set())]), stop, 0.3, 2.0, clock))
    sizes = [len(b) for b in batches]  # cut at 2 s, 2 s, then the quiet
    assert len(sizes) == 3 and all(20 <= n <= 21 for n in sizes[:2]), sizes
    assert set().union(*batches) == {f"f{i}.py" for i in range(45)}


def _record(source, stop, batches, times):
    for batch in source:
        batches.append(batch)
        times.append(time.monotonic())
        if stop.is_set():
            return


def _burst(path, saves: int, seconds: float) -> float:
    """Save ``path`` ``saves`` times over ``seconds`` (as an editor saving as you type)."""
    for i in range(saves):
        path.write_text(f"VALUE = {i}\n")
        time.sleep(seconds / saves)
    return time.monotonic()


@pytest.mark.parametrize("events", [True, False], ids=["watchfiles", "polling"])
def test_a_burst_of_thirty_saves_in_three_seconds_is_at_most_three_batches(tmp_path, events):
    if events:
        pytest.importorskip("watchfiles")
    target = tmp_path / "mod.py"
    target.write_text("VALUE = 0\n")
    stop, batches, times = threading.Event(), [], []
    source = watch_changes(str(tmp_path), stop, events=events, poll_s=0.1)
    thread = threading.Thread(target=_record, args=(source, stop, batches, times))
    thread.start()
    time.sleep(0.5)  # the watch is up (events) or has its first snapshot (polling)
    ended = _burst(target, 30, 3.0)
    deadline = time.monotonic() + 5
    while (not times or times[-1] < ended) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(WATCH_DEFAULTS.quiet_s * 3)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    assert 1 <= len(batches) <= 3, [len(b) for b in batches]
    assert all(batch == {str(target)} for batch in batches)
    assert times[-1] >= ended  # the last save is in a batch


@pytest.mark.parametrize("events", [True, False], ids=["watchfiles", "polling"])
def test_a_single_save_is_one_batch_soon_after_the_quiet_period(tmp_path, events):
    if events:
        pytest.importorskip("watchfiles")
    stop, batches, times = threading.Event(), [], []
    source = watch_changes(str(tmp_path), stop, events=events, poll_s=0.1)
    thread = threading.Thread(target=_record, args=(source, stop, batches, times))
    thread.start()
    time.sleep(0.5)
    saved = time.monotonic()
    (tmp_path / "new.py").write_text("x = 1\n")
    while not times and time.monotonic() - saved < 5:
        time.sleep(0.02)
    time.sleep(0.5)
    stop.set()
    thread.join(5)
    assert batches == [{str(tmp_path / "new.py")}]
    assert WATCH_DEFAULTS.quiet_s <= times[0] - saved < 1.0


def test_polling_cuts_a_stream_that_never_pauses(tmp_path):
    target = tmp_path / "busy.py"
    target.write_text("x = 0\n")
    stop, batches, times = threading.Event(), [], []
    poll = PollingWatch(str(tmp_path), poll_s=0.05, quiet_s=0.2, longest_wait_s=0.6)
    thread = threading.Thread(target=_record, args=(poll.batches(stop), stop, batches, times))
    thread.start()
    time.sleep(0.2)
    started = time.monotonic()
    for i in range(25):  # 2.5 s of saves every 0.1 s: never 0.2 s of quiet
        target.write_text(f"x = {i + 1}\n")
        time.sleep(0.1)
    stop.set()
    thread.join(5)
    assert len(batches) >= 2 and times[0] - started < 1.5

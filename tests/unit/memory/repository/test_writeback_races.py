"""Write-back under concurrency and a hostile file system.

Real processes (forked), a real file system, many trials: two applies with the same base must
serialise (exactly one wins, the other is refused naming the file), and a parent folder swapped for
a symlink while an apply runs must never redirect a write outside the repository.
"""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

from codemem.memory.repository.writeback import WriteBackRefused, write_back

FORK = multiprocessing.get_context("fork")
FILES = [f"a{n}.py" for n in range(6)] + ["pkg/mod.py"]


def _reset(root: Path) -> dict[str, str]:
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    for rel in FILES:
        (root / rel).write_text(f"base {rel}\n")
    return {rel: f"base {rel}\n" for rel in FILES}


def _apply_in_child(root: str, who: str, trials: int, barrier, results) -> None:
    """Child: at each trial, wait for the start, apply this child's draft, report the outcome."""
    base = {rel: f"base {rel}\n" for rel in FILES}
    for _ in range(trials):
        try:
            barrier.wait()
        except threading.BrokenBarrierError:  # the parent gave up (a failed trial)
            return
        try:
            write_back(root, {rel: f"{who} {rel}\n" for rel in FILES}, base)
            results.put((who, "ok"))
        except WriteBackRefused as err:
            results.put((who, f"refused: {err}"))
        except BaseException as err:  # noqa: BLE001 - reported to the parent as data
            results.put((who, f"crashed: {err!r}"))
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return


def test_two_processes_applying_the_same_base_serialise(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    trials = 25
    barrier = FORK.Barrier(3, timeout=60)
    results = FORK.Queue()
    children = [FORK.Process(target=_apply_in_child, args=(str(root), who, trials, barrier,
                                                             results)) for who in ("A", "B")]
    _reset(root)
    for child in children:
        child.start()
    try:
        for trial in range(trials):
            _reset(root)
            barrier.wait()  # both children apply now
            barrier.wait()  # both are done
            outcome = dict(results.get(timeout=30) for _ in range(2))
            winners = [who for who, said in outcome.items() if said == "ok"]
            assert len(winners) == 1, f"trial {trial}: {outcome}"
            loser = "B" if winners == ["A"] else "A"
            assert outcome[loser].startswith("refused: ") and "pkg/mod.py was edited" in (
                outcome[loser]), outcome
            for rel in FILES:  # the winner's draft is whole; nothing of the loser's was written
                assert (root / rel).read_text() == f"{winners[0]} {rel}\n"
    finally:
        barrier.abort()  # a failed trial must not leave the children waiting
        for child in children:
            child.join(10)
            if child.is_alive():
                child.kill()


def _swap_parent_forever(root: str, outside: str, stop, swaps) -> None:
    """Child: swap ``pkg`` for a symlink to ``outside`` and back, as fast as it can.

    Each cycle parks the real folder under a new name, so a ``pkg`` the apply re-created
    meanwhile never jams the hammer (the parked folders stay inside the repository).
    """
    pkg = os.path.join(root, "pkg")
    cycle = 0
    while not stop.is_set():
        cycle += 1
        parked = os.path.join(root, f"parked{cycle}")
        try:
            os.rename(pkg, parked)
            os.symlink(outside, pkg)
            time.sleep(0.0003)  # half the time a symlink, half the time the real folder
            os.unlink(pkg)
            os.rename(parked, pkg)
            swaps.value += 1
            time.sleep(0.0003)
        except OSError:
            continue


def test_a_parent_swapped_for_a_symlink_never_redirects_a_write(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    outside.mkdir()
    (root / "pkg").mkdir(parents=True)
    stop, swaps = FORK.Event(), FORK.Value("q", 0, lock=False)
    swapper = FORK.Process(target=_swap_parent_forever,
                           args=(str(root), str(outside), stop, swaps))
    swapper.start()
    outcomes = {"ok": 0, "refused": 0, "failed": 0}
    trial, give_up = 0, time.monotonic() + 60
    try:  # at least 150 applies, and on until the hammer swapped 300 times (a loaded machine)
        while (trial < 150 or swaps.value < 300) and time.monotonic() < give_up:
            trial += 1
            draft = {f"a{trial}_{n}.py": "x\n" for n in range(4)}
            draft[f"pkg/new{trial}.py"] = "y\n"
            try:
                write_back(str(root), draft, dict.fromkeys(draft))
                outcomes["ok"] += 1
            except WriteBackRefused:
                outcomes["refused"] += 1
            except OSError:
                outcomes["failed"] += 1
    finally:
        stop.set()
        swapper.join(10)
    assert sorted(os.listdir(outside)) == [], f"writes escaped the repository ({outcomes})"
    assert sum(outcomes.values()) == trial >= 150
    assert swaps.value > 50, f"the hammer barely ran ({swaps.value} swaps): the test proves nothing"
    print(f"symlink swap: {swaps.value} swaps, {outcomes}")


def test_threads_of_one_process_serialise_too(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for trial in range(10):
        base = _reset(root)
        start = threading.Barrier(2)
        said: dict[str, str] = {}

        def apply(who: str, base: dict[str, str] = base, start=start, said=said) -> None:
            start.wait()
            try:
                write_back(str(root), {rel: f"{who}\n" for rel in FILES}, base)
                said[who] = "ok"
            except WriteBackRefused as err:
                said[who] = str(err)

        threads = [threading.Thread(target=apply, args=(who,)) for who in "AB"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(said.values()).count("ok") == 1, f"trial {trial}: {said}"


def test_a_lock_held_too_long_is_refused_with_a_clear_reason(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    base = _reset(root)
    holder = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(WriteBackRefused, match="another apply"):
            write_back(str(root), {"pkg/mod.py": "new\n"}, base, lock_timeout=0.2)
    finally:
        os.close(holder)
    assert (root / "pkg" / "mod.py").read_text() == base["pkg/mod.py"]


def test_without_flock_on_folders_a_lock_file_serialises_this_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Some network mounts refuse ``flock`` on a folder: the apply lock falls back to a lock
    file in the system temp folder, and applies still take turns."""
    from codemem.memory.repository import writeback

    real = writeback.flock_within

    def no_flock_on_folders(fd: int, timeout: float) -> bool:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(95, "Operation not supported")
        return real(fd, timeout)

    monkeypatch.setattr(writeback, "flock_within", no_flock_on_folders)
    test_threads_of_one_process_serialise_too(tmp_path)

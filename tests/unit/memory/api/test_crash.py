"""kill -9 during writes: every acknowledged write survives and the database stays intact."""

from __future__ import annotations

import random
import sqlite3
import threading
import time

from codemem.memory.system import MemorySystem

from .child_scripts import CRASHER, spawn
from .helpers import async_llm

TRIALS = 5


def _run_and_kill(tmp_path, path: str, tag: str, rng: random.Random) -> list[list[str]]:
    proc = spawn(tmp_path, CRASHER, path, tag)
    first = proc.stdout.readline()  # wait until the child is writing
    assert first.strip() == "ready", proc.stderr.read()
    lines: list[str] = []
    # Drain stdout while the child runs: a full pipe would block it inside print().
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")))
    reader.start()
    time.sleep(rng.uniform(0.05, 0.8))
    proc.kill()  # SIGKILL
    proc.wait(timeout=30)
    reader.join(30)
    complete = [line[:-1].split(" ", 2) for line in lines if line.endswith("\n")]
    return [parts for parts in complete if len(parts) == 3 and parts[0] in ("add", "upd", "try")]


def test_kill_minus_nine_loses_no_acknowledged_write(tmp_path):
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    path = str(tmp_path / "crash.db")
    expected: dict[str, str] = {}  # id -> last acknowledged text
    pending: dict[str, str] = {}  # id -> update started but not acknowledged before the kill
    for trial in range(TRIALS):
        for action, memory_id, text in _run_and_kill(tmp_path, path, f"t{trial}", rng):
            if action == "try":
                pending[memory_id] = text
            else:
                expected[memory_id] = text
                pending.pop(memory_id, None)
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok", f"seed {seed}"
        conn.close()
        with MemorySystem(async_llm(), path) as system:
            lost = [i for i, text in expected.items()
                    if (system.get_memory(i) or {}).get("text") not in (text, pending.get(i))]
            details = [(expected[i], system.get_memory(i), system.history(i)) for i in lost[:3]]
            assert lost == [], f"seed {seed}: {len(lost)} acknowledged writes lost: {details}"
            system.add_memory(f"after crash {trial}")  # the next write succeeds
    assert len(expected) > 20, f"seed {seed}: too few writes acknowledged to mean anything"
    print(f'RELIABILITY {{"test":"memory_kill9","faults":{TRIALS},"acked":{len(expected)},'
          f'"acked_lost":0,"seed":{seed}}}')

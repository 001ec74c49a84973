"""K1 crash test: a writer SIGKILLed at random points never loses an acknowledged commit.

Sizes (kept under ~60 s on a loaded 2-core machine): per backend, 200 acknowledged commits in
total, written by a child process that is killed with SIGKILL (its whole process group, so git
helpers die too) after a random 15-55 acknowledgements plus a random 0-20 ms, i.e. mid-commit;
every 10th commit is followed by a rollback+redo pair, so kills also land in ref moves. After each
kill a fresh ``CommitIndex`` runs startup recovery and ``git fsck --strict --full`` must be clean.
At the end: every acknowledged commit (printed by the child only after ``commit`` returned) is
readable with its exact files and snapshot, and the next commit succeeds. Seed: ``CRASH_SEED``.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from codemem.memory.commits.index import CommitIndex

from .conftest import fsck

ROOT = Path(__file__).resolve().parents[4]
TOTAL = 200
MAX_ROUNDS = 20
ACK = re.compile(r"ACK (\d+) ([0-9a-f]{40})")

CHILD = """
import sys
sys.path.insert(0, {root!r})
import tests
from codemem.memory.commits.index import CommitIndex

def files_for(i):
    return {{f"pkg/m{{j}}.py": f"# {{i}} {{j}}\\n" * (1 + (i * 7 + j) % 50)
            for j in range(1 + i % 4)}}

ix = CommitIndex({repo!r}, backend={backend!r})
start, total = int(sys.argv[1]), int(sys.argv[2])
for i in range(start, total):
    sha = ix.commit("crash", files_for(i), name=f"commit {{i}}", reason="crash test",
                    metacode={{"i": i}}, snapshot={{"i": i}}, verdict="passed")
    print("ACK", i, sha, flush=True)
    if i % 10 == 9:
        ix.rollback("crash")
        ix.redo("crash")
"""


def files_for(i: int) -> dict[str, str]:
    return {f"pkg/m{j}.py": f"# {i} {j}\n" * (1 + (i * 7 + j) % 50) for j in range(1 + i % 4)}


def _round(script: Path, start: int, stop_after: int, pause: float) -> tuple[list[tuple], bool]:
    """Run the child from ``start``; SIGKILL it after ``stop_after`` acks + ``pause`` seconds."""
    child = subprocess.Popen(
        [sys.executable, str(script), str(start), str(TOTAL)], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, start_new_session=True,
    )  # fmt: skip
    assert child.stdout is not None
    acked, killed = [], False
    for line in child.stdout:
        match = ACK.fullmatch(line.strip())
        if match:
            acked.append((int(match[1]), match[2]))
        if len(acked) >= stop_after:
            time.sleep(pause)
            os.killpg(child.pid, signal.SIGKILL)
            killed = True
            break
    rest, _ = child.communicate(timeout=60)
    acked += [(int(m[1]), m[2]) for m in ACK.finditer(rest or "")]
    return acked, killed


@pytest.mark.slow
def test_sigkill_at_random_points_loses_no_acknowledged_commit(
    tmp_path: Path, backend: str
) -> None:
    seed = int(os.environ.get("CRASH_SEED", random.SystemRandom().randrange(1 << 30)))
    print(f"CRASH_SEED={seed}")
    rng = random.Random(seed)
    repo = tmp_path / "crash.git"
    script = tmp_path / "crash_child.py"
    script.write_text(
        textwrap.dedent(CHILD.format(root=str(ROOT), repo=str(repo), backend=backend))
    )
    acked: list[tuple[int, str]] = []
    kills = repaired = 0
    started = time.monotonic()
    for _ in range(MAX_ROUNDS):
        if len(acked) >= TOTAL:
            break
        got, killed = _round(script, len(acked), rng.randint(15, 55), rng.uniform(0, 0.02))
        acked += got
        kills += killed
        with CommitIndex(repo, backend=backend) as ix:  # startup recovery after the kill
            repaired += bool(ix.repaired)
        fsck(repo)
    assert len(acked) >= TOTAL, f"only {len(acked)} commits acknowledged in {MAX_ROUNDS} rounds"
    with CommitIndex(repo, backend=backend) as ix:
        for i, sha in acked:
            shown = ix.show(sha)
            assert shown.files == files_for(i) and shown.snapshot == {"i": i}, (i, sha)
        nxt = ix.commit("crash", {"after.py": "ok\n"}, name="after the crashes", reason="",
                        metacode={}, snapshot={}, verdict="passed")  # fmt: skip
        assert ix.head("crash") == nxt
        reachable = ix.commits()
        lost = [sha for _, sha in acked if sha not in reachable]
        on_line = {e.id for e in ix.log("crash")}
    fsck(repo)
    figure = {"test": "crash_commit", "backend": backend, "seed": seed, "kills": kills,
              "acked": len(acked), "acked_lost": len(lost), "recoveries_with_repair": repaired,
              "acked_off_task_line": sum(sha not in on_line for _, sha in acked),
              "seconds": round(time.monotonic() - started, 1)}  # fmt: skip
    print("RELIABILITY " + json.dumps(figure))
    assert kills >= 3, "the test must actually kill the writer several times"
    assert lost == [], "acknowledged commits must stay reachable from the index's refs"

"""The index that follows the user's edits: from a save to a retrievable change, indexing runs
per burst of saves, and the cost while nothing changes.

Run from the plugin root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.watch_bench [--files 400] [--saves 10] [--idle 10]
        [--bursts 3]

A copy of ``--files`` standard-library modules is indexed once; then the plugin runs through its
hooks on the simulated Cat (tests/unit/glue/glue_support.py), as three configurations: the
watcher off (the baseline), on with file events (``watchfiles``, when importable: it comes with
the Cat's ``uvicorn[standard]``, so run this with the Cat's venv to measure events) and on with
``stat`` polling (what a network mount gets). For each: this process's CPU while nothing changes
for ``--idle`` seconds (every thread; the watcher is a thread of the Cat's process), the latency
of a "hi" turn through the plugin's hooks, and for the watched ones the time from writing a new
function into a file to the moment it is retrievable (the entity in the index and first in the
candidate search for its name), then ``--bursts`` bursts of an editor saving one file 30 times
in 3 s (a new function name each time): the indexing runs each burst started, and whether the
search then finds the last save's function only (none of the 29 names before it).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from ..app.chat import watcher
from ..memory import CodeContext
from ..memory.codeindex import watch as watch_source_module
from ..tests.unit.glue.glue_support import make_cat, say, settings_of
from .index_bench import copy_stdlib


def _project(cat):
    from ..app import entry

    return entry.session_turn(cat)[1].workspace.project()


def _idle_cpu(seconds: float) -> float:
    """CPU of this process (all threads) as a percentage of one core while nothing changes."""
    cpu, wall = time.process_time(), time.monotonic()
    time.sleep(seconds)
    return 100.0 * (time.process_time() - cpu) / (time.monotonic() - wall)


def _hi_ms(cat, runs: int = 30) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        say(cat, "hi")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _save_to_retrievable(cat, repo: Path, saves: int, mode: str) -> list[float]:
    """Seconds from a save to the new function being indexed and found by its name."""
    project = _project(cat)
    target = sorted(repo.rglob("*.py"))[len(list(repo.rglob("*.py"))) // 2]
    out = []
    for i in range(saves):
        name = f"follow_edits_probe_{mode}_{i}"
        with target.open("a", encoding="utf-8") as handle:
            handle.write(f"\n\ndef {name}(value):\n    return value * {i}\n")
        saved = time.monotonic()
        while True:
            found = project.code.list_memories({"type": "code_entity", "name": name})
            if found and _first(project, name):
                break
            if time.monotonic() - saved > 60:
                raise RuntimeError(f"{name} not retrievable after 60 s")
            time.sleep(0.01)
        out.append(time.monotonic() - saved)
        time.sleep(0.5)  # saves a person makes are seconds apart
    return out


def _bursts(cat, repo: Path, bursts: int, mode: str) -> tuple[list[int], bool]:
    """Indexing runs per burst of 30 saves in 3 s, and whether only the final version stays."""
    project = _project(cat)
    [watch] = watcher.watching()
    target = repo / "burst_target.py"
    runs, final_only = [], True
    for burst in range(bursts):
        before = watch.runs
        for i in range(30):
            target.write_text(f"def burst_{mode}_{burst}_{i}(value):\n    return value\n")
            time.sleep(0.1)
        last = f"burst_{mode}_{burst}_29"
        waited = time.monotonic()
        while not _first(project, last) or project.index_run.running:
            if time.monotonic() - waited > 60:
                raise RuntimeError(f"{last} not retrievable after 60 s")
            time.sleep(0.02)
        time.sleep(1.5)  # anything still coming is counted
        runs.append(watch.runs - before)
        names = {m["metadata"]["name"] for m in project.code.list_memories(
            {"type": "code_entity", "path": "burst_target.py"})}
        final_only = final_only and names == {last}
    return runs, final_only


def _first(project, name: str) -> bool:
    found = project.code.candidates(CodeContext(user_query=name), limit=3)
    return bool(found) and found[0].metadata.get("name") == name


def run(files: int, saves: int, idle: float, bursts: int = 3) -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="watch-bench-") as tmp:
        repo = Path(tmp) / "repo"
        count = copy_stdlib(repo, files)
        for mode in ("off", "events", "polling"):
            if mode == "events" and watch_source_module.watch_source(str(repo)) != "events":
                rows.append("| events | (watchfiles not importable here) | | | | | |")
                continue
            rows.append(_mode(Path(tmp) / mode, repo, mode, (saves, bursts), idle))
    head = [f"{count} files; `--saves {saves} --idle {idle:g} --bursts {bursts}`", "",
            "| watcher | idle CPU (% of a core) | \"hi\" (ms, median) | save → retrievable "
            "(s, median) | max (s) | runs per burst of 30 saves in 3 s | final version only |",
            "|---|---|---|---|---|---|---|"]
    return head + rows


def _mode(data: Path, repo: Path, mode: str, counts: tuple[int, int], idle: float) -> str:
    saves, bursts = counts
    original = watch_source_module.on_network_mount
    if mode == "polling":  # what a network mount gets
        watch_source_module.on_network_mount = lambda root: True  # type: ignore[assignment]
    try:
        data.mkdir()
        cat, _, _ = make_cat(data, repo, settings={"follow_edits": mode != "off"})
        _project(cat).code.index_repository(str(repo))
        say(cat, "hi")  # starts the watcher when it is on
        time.sleep(1.0)
        cpu = _idle_cpu(idle)
        hi = _hi_ms(cat)
        if mode == "off":
            return (f"| off | {cpu:.1f} | {hi:.1f} | (next start or \"index my repository\") "
                    "| | | |")
        latencies = _save_to_retrievable(cat, repo, saves, mode)
        runs, final_only = _bursts(cat, repo, bursts, mode)
        settings_of(cat)["follow_edits"] = False
        say(cat, "hi")  # stops it
        return (f"| {mode} | {cpu:.1f} | {hi:.1f} | {statistics.median(latencies):.2f} | "
                f"{max(latencies):.2f} | {', '.join(map(str, runs))} | "
                f"{'yes' if final_only else 'no'} |")
    finally:
        watcher.stop_watching(join_s=5)
        watch_source_module.on_network_mount = original  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--bursts", type=int, default=3)
    args = parser.parse_args()
    print("\n".join(run(args.files, args.saves, args.idle, args.bursts)))


if __name__ == "__main__":
    main()

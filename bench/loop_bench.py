"""Draft-loop benchmark: a simulated LLM, small tasks with hidden tests, loop vs one attempt.

The simulated model answers each generation prompt with the task's correct body with probability
``p`` and with its plausible wrong body otherwise (the judge always agrees). Everything else is
real: the CommitIndex (dulwich, temp dir), the Scratchpad, the validator and the sandbox running
pytest on the meta-code examples. Hidden tests are the benchmark's own trusted data and run
in-process after the loop. Run: ``.venv/bin/python -m tests.run bench.loop_bench``.

``--set multi`` runs the ten changes with callers instead (``loop_tasks.MULTI_TASKS``): the
goal has a scope (the callers), the simulated model answers with the target and every caller in
one reply, correct with probability ``p``, else the task's plausible wrong answer (a forgotten
caller, or a caller passing a wrong value); hidden tests call the callers, in a subprocess.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ..codegen.checks import validate
from ..codegen.loop.draft_loop import Committed, LoopConfig, LoopDeps, ProgressEvent, run_draft_loop
from ..codegen.metacode.generate import MetaCode
from ..memory.commits.index import CommitIndex
from ..memory.scratchpad import Scratchpad
from .loop_tasks import MULTI_TASKS, TASKS


def code_of(name: str, params: str, body: str) -> str:
    return f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body.splitlines())


def metacode_of(task: tuple) -> MetaCode:
    name, params, _good, _wrong, visible, _hidden = task
    examples = [{"call": f"{name}({a})", "raises": e.split(":", 1)[1]}
                if isinstance(e, str) and e.startswith("raises:")
                else {"call": f"{name}({a})", "expected": e} for a, e in visible]
    return MetaCode.from_dict({
        "target_path": f"solutions/{name}.py", "symbol": name, "kind": "function",
        "signature": f"def {name}({params})", "behaviour": f"compute {name.replace('_', ' ')}",
        "examples": examples, "acceptance_checks": ["matches the examples"]})


def hidden_pass(task: tuple, source: str) -> bool:
    """The benchmark's own trusted tests (our data, not model output), in-process."""
    name, _p, _g, _w, visible, hidden = task
    namespace: dict = {}
    try:
        exec(source, namespace)  # noqa: S102 - trusted benchmark data
        for args, expected in [*visible, *hidden]:
            if isinstance(expected, str) and expected.startswith("raises:"):
                try:
                    eval(f"{name}({args})", namespace)
                    return False
                except Exception as err:  # noqa: BLE001 - comparing exception names
                    if type(err).__name__ != expected.split(":", 1)[1]:
                        return False
                continue
            if eval(f"{name}({args})", namespace) != expected:
                return False
    except Exception:  # noqa: BLE001 - any crash is a failed hidden test
        return False
    return True


class SimulatedLLM:
    """Correct body with probability ``p`` per generation; the judge always agrees."""

    def __init__(self, task: tuple, p: float, rng: random.Random) -> None:
        self.task, self.p, self.rng = task, p, rng
        self.calls = 0
        self.draws: list[bool] = []

    def draw(self) -> str:
        name, params, good, wrong, _v, _h = self.task
        correct = self.rng.random() < self.p
        self.draws.append(correct)
        return code_of(name, params, good if correct else wrong)

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        if prompt.startswith("You are a strict reviewer"):
            return json.dumps({"checks": [{"check": 1, "pass": True, "reason": "ok"}]})
        name = self.task[0]
        return f"```python entity=solutions/{name}.py::{name}\n{self.draw()}```\n"


def validator_pair() -> tuple:
    """The real validator and related-test selector."""
    return validate.validate_draft, validate.select_related_tests, "codegen.checks.validate"


def validation_clock() -> tuple[list[float], Callable[[ProgressEvent], None]]:
    """Seconds of each iteration's validate step (on the critical path), from the events."""
    spans: list[float] = []
    marks: dict[int, float] = {}

    def on_progress(ev: ProgressEvent) -> None:
        if ev.step == "validate" and ev.status == "started":
            marks[ev.iteration] = ev.elapsed_s
        elif ev.step == "validate" and ev.iteration in marks:
            spans.append(ev.elapsed_s - marks.pop(ev.iteration))

    return spans, on_progress


def run_task(task: tuple, p: float, seed: int, root: Path, config: LoopConfig,
             validators: tuple) -> dict:
    rng = random.Random(seed)
    single = SimulatedLLM(task, p, random.Random(seed))
    single_ok = hidden_pass(task, single.draw())  # the same first draw the loop gets
    llm = SimulatedLLM(task, p, rng)
    store = CommitIndex(root / f"{task[0]}-{p}.git", backend="dulwich")
    pad = Scratchpad()
    pad.start_task(task[0])
    validate_s, on_progress = validation_clock()
    start = time.perf_counter()
    deps = LoopDeps(llm, store, pad, repo_files={"solutions/__init__.py": ""},
                    validator=validators[0], select_tests=validators[1])
    outcome = run_draft_loop(metacode_of(task), deps, task_id=task[0], config=config,
                             on_progress=on_progress)
    wall = time.perf_counter() - start
    store.close()
    ok = isinstance(outcome, Committed) and hidden_pass(
        task, outcome.files.get(f"solutions/{task[0]}.py", ""))
    return {"single": single_ok, "loop": ok, "iterations": outcome.iterations,
            "llm_calls": llm.calls, "wall_s": wall, "llm_s": outcome.stats.llm_s,
            "validate_s": sum(validate_s), "committed": isinstance(outcome, Committed)}


def multi_repo(task: dict) -> dict[str, str]:
    """The repository before the change: the target's module, one module per caller, tests."""
    mod, name, old_params, old_body, _p, _b = task["target"]
    files = {"lib/__init__.py": "", "app/__init__.py": "",
             f"lib/{mod}.py": code_of(name, old_params, old_body)}
    for cmod, cname, params, old, _new in task["callers"]:
        files[f"app/{cmod}.py"] = f"from lib.{mod} import {name}\n\n\n" + code_of(
            cname, params, old)
    return {**files, **task.get("repo_tests", {})}


def multi_meta(task: dict) -> MetaCode:
    mod, name, _op, _ob, params, _body = task["target"]
    return MetaCode.from_dict({
        "target_path": f"lib/{mod}.py", "symbol": name, "kind": "function",
        "signature": f"def {name}({params})", "behaviour": f"{name} with a new parameter",
        "examples": [{"call": f"{name}({a})", "expected": e} for a, e in task["visible"]],
        "acceptance_checks": ["matches the examples"],
        "scope": [{"path": f"app/{c[0]}.py", "symbol": c[1], "why": "passes the new argument"}
                  for c in task["callers"]]})


class MultiLLM(SimulatedLLM):
    """The whole change (target and callers) in one reply, correct with probability ``p``."""

    def draw_multi(self) -> str:
        mod, name, _op, _ob, params, body = self.task["target"]
        correct = self.rng.random() < self.p
        self.draws.append(correct)
        callers = [(c[0], c[1], c[2], c[4]) for c in self.task["callers"]]
        wrong = self.task["wrong"]
        if not correct and wrong == "forget":
            callers = callers[:-1]
        elif not correct:
            index, bad = wrong
            callers[index] = (*callers[index][:3], bad)
        blocks = [(f"lib/{mod}.py", name, code_of(name, params, body))]
        blocks += [(f"app/{m}.py", n, code_of(n, p, b)) for m, n, p, b in callers]
        return "".join(f"```python entity={path}::{sym}\n{code}```\n" for path, sym, code in blocks)

    def __call__(self, prompt: str) -> str:
        if prompt.startswith("You are a strict reviewer"):
            return super().__call__(prompt)
        self.calls += 1
        return self.draw_multi()


def multi_hidden_pass(task: dict, files: dict[str, str]) -> bool:
    """The benchmark's hidden tests on the callers, in a subprocess over the drafted files."""
    with tempfile.TemporaryDirectory(prefix="codemem-multi-hidden-") as tmp:
        for path, text in files.items():
            target = Path(tmp) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        checks = "".join(f"from app.{m} import *\nassert {c} == {e!r}, {c!r}\n"
                         for m, c, e in task["hidden"])
        done = subprocess.run([sys.executable, "-c", checks], cwd=tmp, capture_output=True,
                              timeout=30)
        return done.returncode == 0


def run_multi_task(task: dict, p: float, seed: int, root: Path, config: LoopConfig,
                   validators: tuple) -> dict:
    repo = multi_repo(task)
    first = MultiLLM(task, p, random.Random(seed))
    single_ok = multi_hidden_pass(task, {**repo, **_reply_files(repo, first.draw_multi())})
    llm = MultiLLM(task, p, random.Random(seed))
    name = task["target"][1]
    store = CommitIndex(root / f"multi-{name}-{p}.git", backend="dulwich")
    pad = Scratchpad()
    pad.start_task(name)
    validate_s, on_progress = validation_clock()
    start = time.perf_counter()
    deps = LoopDeps(llm, store, pad, repo_files=repo, validator=validators[0],
                    select_tests=validators[1])
    outcome = run_draft_loop(multi_meta(task), deps, task_id=name, config=config,
                             on_progress=on_progress)
    wall = time.perf_counter() - start
    store.close()
    ok = isinstance(outcome, Committed) and multi_hidden_pass(task, {**repo, **outcome.files})
    return {"single": single_ok, "loop": ok, "iterations": outcome.iterations,
            "llm_calls": llm.calls, "wall_s": wall, "llm_s": outcome.stats.llm_s,
            "validate_s": sum(validate_s), "committed": isinstance(outcome, Committed),
            "callers": len(task["callers"])}


def _reply_files(repo: dict[str, str], reply: str) -> dict[str, str]:
    """What one reply makes of the repository (for the single-attempt figure)."""
    from ..codegen.edits.api import Applied, apply_reply

    applied = apply_reply(repo, reply)
    return applied.files if isinstance(applied, Applied) else {}


def summarise(p: float, rows: list[dict]) -> dict:
    iters = sum(r["iterations"] for r in rows)
    return {
        "p": p, "tasks": len(rows),
        "single_pass": sum(r["single"] for r in rows) / len(rows),
        "loop_pass": sum(r["loop"] for r in rows) / len(rows),
        "committed": sum(r["committed"] for r in rows) / len(rows),
        "iterations_per_task": iters / len(rows),
        "llm_calls_per_task": sum(r["llm_calls"] for r in rows) / len(rows),
        "ms_per_iteration_excl_llm": 1000 * sum(r["wall_s"] - r["llm_s"] for r in rows) / iters,
        "ms_validation_per_iteration": 1000 * sum(r["validate_s"] for r in rows) / iters,
        "ms_median_task": 1000 * statistics.median(r["wall_s"] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--p", type=float, nargs="+", default=[0.3, 0.5, 0.7])
    parser.add_argument("--tasks", type=int, default=len(TASKS))
    parser.add_argument("--max-iterations", type=int, default=4)
    parser.add_argument("--stuck-after", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--set", choices=("single", "multi"), default="single",
                        help="single-entity tasks, or changes with callers")
    args = parser.parse_args()
    config = LoopConfig(max_iterations=args.max_iterations, stuck_after=args.stuck_after)
    validators = validator_pair()
    tasks = MULTI_TASKS if args.set == "multi" else TASKS
    runner = run_multi_task if args.set == "multi" else run_task
    print(f"{len(tasks[:args.tasks])} {args.set} tasks, max_iterations={args.max_iterations}, "
          f"stuck_after={args.stuck_after}, seed={args.seed}, validator: {validators[2]}")
    header = ("p", "single", "loop", "committed", "iter/task", "llm/task", "ms/iter excl LLM",
              "ms validation/iter", "median ms/task")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    with tempfile.TemporaryDirectory(prefix="codemem-loop-bench-") as tmp:
        for p in args.p:
            rows = [runner(t, p, args.seed * 1000 + i, Path(tmp), config, validators)
                    for i, t in enumerate(tasks[:args.tasks])]
            s = summarise(p, rows)
            print(f"| {p} | {s['single_pass']:.0%} | {s['loop_pass']:.0%} | {s['committed']:.0%} "
                  f"| {s['iterations_per_task']:.2f} | {s['llm_calls_per_task']:.2f} "
                  f"| {s['ms_per_iteration_excl_llm']:.0f} "
                  f"| {s['ms_validation_per_iteration']:.0f} "
                  f"| {s['ms_median_task']:.0f} |", flush=True)
    if args.set == "multi":
        callers = [len(t["callers"]) for t in tasks[:args.tasks]]
        print(f"callers per task: {sum(callers) / len(callers):.1f} (in files of their own)")


if __name__ == "__main__":
    main()

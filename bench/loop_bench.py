"""Draft-loop benchmark: a simulated LLM, 50 small tasks with hidden tests, loop vs one attempt.

The simulated model answers each generation prompt with the task's correct body with probability
``p`` and with its plausible wrong body otherwise (the judge always agrees). Everything else is
real: the CommitIndex (dulwich, temp dir), the Scratchpad, the validator and the sandbox running
pytest on the meta-code examples. Hidden tests are the benchmark's own trusted data and run
in-process after the loop. Run: ``.venv/bin/python -m tests.run bench.loop_bench``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from ..codegen import validate
from ..codegen.loop import Committed, LoopConfig, LoopDeps, ProgressEvent, run_draft_loop
from ..codegen.metacode import MetaCode
from ..memory.commits import CommitIndex
from ..memory.scratchpad import Scratchpad
from .loop_tasks import TASKS


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
    return validate.validate_draft, validate.select_related_tests, "codegen.validate"


def run_task(task: tuple, p: float, seed: int, root: Path, config: LoopConfig,
             validators: tuple) -> dict:
    rng = random.Random(seed)
    single = SimulatedLLM(task, p, random.Random(seed))
    single_ok = hidden_pass(task, single.draw())  # the same first draw the loop gets
    llm = SimulatedLLM(task, p, rng)
    store = CommitIndex(root / f"{task[0]}-{p}.git", backend="dulwich")
    pad = Scratchpad()
    pad.start_task(task[0])
    validate_s: list[float] = []
    marks: dict[int, float] = {}

    def on_progress(ev: ProgressEvent) -> None:
        if ev.step == "validate" and ev.status == "started":
            marks[ev.iteration] = ev.elapsed_s
        elif ev.step == "validate" and ev.iteration in marks:
            validate_s.append(ev.elapsed_s - marks.pop(ev.iteration))

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
    args = parser.parse_args()
    config = LoopConfig(max_iterations=args.max_iterations, stuck_after=args.stuck_after)
    validators = validator_pair()
    print(f"{len(TASKS[:args.tasks])} tasks, max_iterations={args.max_iterations}, "
          f"stuck_after={args.stuck_after}, seed={args.seed}, validator: {validators[2]}")
    header = ("p", "single", "loop", "committed", "iter/task", "llm/task", "ms/iter excl LLM",
              "ms validation/iter", "median ms/task")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    with tempfile.TemporaryDirectory(prefix="codemem-loop-bench-") as tmp:
        for p in args.p:
            rows = [run_task(t, p, args.seed * 1000 + i, Path(tmp), config, validators)
                    for i, t in enumerate(TASKS[:args.tasks])]
            s = summarise(p, rows)
            print(f"| {p} | {s['single_pass']:.0%} | {s['loop_pass']:.0%} | {s['committed']:.0%} "
                  f"| {s['iterations_per_task']:.2f} | {s['llm_calls_per_task']:.2f} "
                  f"| {s['ms_per_iteration_excl_llm']:.0f} "
                  f"| {s['ms_validation_per_iteration']:.0f} "
                  f"| {s['ms_median_task']:.0f} |", flush=True)


if __name__ == "__main__":
    main()

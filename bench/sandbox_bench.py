"""Benchmark of the sandbox and the validator: what one validation costs, step by step.

Run from the plugin root as root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.sandbox_bench --runs 15

Compares a bare ``subprocess.run([python, -c, pass])`` with the same command in the sandbox in
each deployment this machine can imitate (see ``tests/unit/codegen/sandbox/sandbox_modes.py``:
the bare host with namespaces, Docker without CAP_SYS_ADMIN, root without namespaces), measured
inside that deployment's "Cat" process, then times each validator step on a small function with
three repository tests.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess

from ..codegen.checks.lint import lint_source
from ..codegen.checks.pycheck import check_parse
from ..codegen.checks.validate import validate_draft
from ..codegen.sandbox.api import sandbox_capabilities
from .timing import median_ms

DRAFT = "def area(r):\n    return 3 * r * r\n"
TESTS = {"tests/test_area.py": "from pkg.mod import area\n\n"
         "def test_one():\n    assert area(1) == 3\n\n"
         "def test_two():\n    assert area(2) == 12\n\n"
         "def test_three():\n    assert area(0) == 0\n"}
FILES = {"pkg/__init__.py": "", "pkg/mod.py": DRAFT}



def per_mode(runs: int) -> list[tuple[str, float]]:
    """Median wall time of ``run_in_sandbox(python -c pass)`` inside each deployment's "Cat"
    (its first run, which includes the one-off probe, is left out)."""
    from ..tests.unit.codegen.sandbox.sandbox_modes import drive, mode

    rows = []
    for name in ("full", "container", "root_no_ns"):
        deployment, why = mode(name)
        if deployment is None:
            print(f"(mode {name} skipped: {why})")
            continue
        jobs = [{"name": f"{name}-{i}", "files": {}, "argv": ["python", "-c", "pass"],
                 "serial": True, "kwargs": {"timeout_s": 30, "memory_mb": 512}}
                for i in range(runs + 1)]
        results = drive(deployment, jobs)[1:-1]
        assert all(r["status"] == "ok" for r in results), results[:1]
        protections = " ".join(k for k, (on, _) in results[0]["layers"].items() if on)
        bare = median_ms(lambda p=deployment.python: subprocess.run([p, "-c", "pass"],
                                                                     check=True), runs)
        rows.append((f"bare `python -c pass`, {name} interpreter", bare))
        rows.append((f"`python -c pass` in the sandbox, mode {name} ({protections})",
                     statistics.median(r["wall_s"] for r in results) * 1000))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    caps = sandbox_capabilities()
    rows = [
        *per_mode(runs),
        ("parse (ast + libcst)", median_ms(lambda: check_parse(DRAFT, "pkg/mod.py"), runs)),
        ("lint (ruff subprocess)", median_ms(lambda: lint_source(DRAFT, "pkg/mod.py"), runs)),
        ("validate_draft, all checks, 3 tests",
         median_ms(lambda: validate_draft(FILES, target_path="pkg/mod.py",
                                           expected_symbol="area", expected_params=["r"],
                                           test_files=TESTS, timeout_s=60), runs)),
    ]
    ok = validate_draft(FILES, target_path="pkg/mod.py", test_files=TESTS).ok
    print("## Sandbox and validation overhead (bench/sandbox_bench.py)\n")
    print(f"Command: `.venv/bin/python -m tests.run bench.sandbox_bench --runs {runs}`; "
          f"protections in this process: `{caps.summary()}`; validation passed: {ok}. "
          f"Median of {runs} runs, "
          "shared 2-core machine under load from other work.\n")
    print("| step | median ms |\n| --- | ---: |")
    for name, ms in rows:
        print(f"| {name} | {ms:.1f} |")


if __name__ == "__main__":
    main()

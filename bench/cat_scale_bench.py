"""A large repository in a real Cat 1.9.2: indexing, restart, memory and per-message cost.

Issue 16's benchmark. Two Cats are served by uvicorn in their own processes, as in production
(``tests/integration/cat_process.py``), both with the Cat's default embedder and its local
on-disk Qdrant (``CWM_QDRANT=disk``), on their own data folders:

- the **baseline**: the Cat without the plugin: boot, ordinary messages, restart;
- the **plugin**: the plugin toggled on and pointed at a copy of the repository (default: the
  running interpreter's standard library with its test suites, about 1,700 files and 68k
  entities), "index my repository" in the chat until the summary arrives, ordinary messages
  and code questions, a restart (SIGTERM, a new process on the same data), the same messages
  again, and a one-file re-index through the chat.

The LLM is the integration tests' scripted model (answers at once, scoring included), so every
latency here is the work outside the LLM. Process memory is the Cat process's own RSS high-water
mark (``VmHWM``) and its parser workers' peak sampled every 0.2 s. Run it with the Cat's venv
(docs/integration-tests.md), from the plugin root::

    CCAT_CORE_DIR=/path/to/core /path/to/catenv/venv/bin/python -m tests.run \\
        bench.cat_scale_bench [--repo PATH] [--limit N] [--runs 5] [--workdir DIR] \\
        [--cat-memory auto|none|files|entities] [--no-baseline]

It prints a Markdown table for docs/benchmarks.md. Imported by the Cat too (it imports every
``.py`` of the plugin): nothing runs at import time.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..tests.integration import cat_harness
from ..tests.integration.cat_doubles import LLMScript
from ..tests.integration.cat_process import ServedCat, descendants_of, say
from .index_bench import copy_stdlib

MiB = 1 << 20
HELLO = "hi"
QUESTIONS = ("how does shlex.quote work?", "where is the code that parses email addresses?",
             "what does the function urlsplit in urllib/parse.py do?")
INDEX = "index my repository"
EDITED = "shlex.py"
#: The scripted model answers this when the prompt carries the plugin's code section: proof
#: that a question got code from the index, not just a quick answer.
SAW_CODE = "SAW-CODE"
CODE_SECTION = "# Code from the indexed repository"


@dataclass
class Figures:
    """One Cat's measurements (seconds, MiB)."""

    rows: dict[str, str] = field(default_factory=dict)

    def put(self, name: str, value: float, unit: str) -> None:
        self.rows[name] = f"{value:.2f} {unit}" if unit == "s" else f"{value:.0f} {unit}"
        print(f"  {name}: {self.rows[name]}", flush=True)


def status_kib(pid: int, key: str) -> int:
    """A ``/proc/<pid>/status`` figure in KiB (``VmRSS``, ``VmHWM``); 0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class PeakSampler:
    """The largest RSS of the Cat's child processes (parser workers), sampled in a thread."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self._pid, self._interval = pid, interval
        self._stop = threading.Event()
        self.children_kib = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            for child in descendants_of(self._pid):
                self.children_kib = max(self.children_kib, status_kib(child, "VmRSS"))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.children_kib / 1024


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - started


def chat_latency(cat: ServedCat, user: str, text: str) -> float:
    with cat.socket(user) as ws:
        _, seconds = timed(lambda: say(ws, text))
    return seconds


def warm_median(cat: ServedCat, user: str, texts: tuple[str, ...], runs: int,
                answers: list[str] | None = None) -> float:
    """Median latency over ``runs`` rounds of ``texts`` on one connection (answers kept)."""
    times = []
    with cat.socket(user) as ws:
        for _ in range(runs):
            for text in texts:
                frame, seconds = timed(lambda t=text: say(ws, t))  # type: ignore[misc]
                times.append(seconds)
                if answers is not None:
                    answers.append(str(frame.get("text", "")))
    return statistics.median(times)


def index_through_chat(cat: ServedCat, user: str, timeout: float = 3600) -> tuple[str, float]:
    """"index my repository", then wait for the summary ("Indexed ..."): (summary, seconds)."""
    started = time.perf_counter()
    with cat.socket(user) as ws:
        first = say(ws, INDEX)
        assert "started" in first.get("text", ""), first
        while True:
            frame = json.loads(ws.recv(timeout=timeout))
            text = str(frame.get("text") or frame.get("content") or "")
            if text.startswith("Indexed "):
                return text, time.perf_counter() - started
            if "failed" in text:
                raise SystemExit(f"indexing failed: {text}\n{cat.tail()}")


@contextmanager
def served(core: pathlib.Path, workdir: pathlib.Path, plugins_name: str,
           script: LLMScript) -> Iterator[tuple[ServedCat, float]]:
    """A served Cat on ``workdir`` (on-disk Qdrant) and its boot time, stopped on exit."""
    started = time.perf_counter()
    cat = ServedCat(core, workdir, plugins_name, script, cat_harness.REPO_ROOT,
                    extra_env={"CWM_QDRANT": "disk"})
    try:
        cat.wait_ready(timeout=900)
        yield cat, time.perf_counter() - started
    finally:
        cat.terminate()


def baseline(core: pathlib.Path, workdir: pathlib.Path, script: LLMScript,
             runs: int) -> Figures:
    """The Cat without the plugin: an empty plugins folder."""
    figures = Figures()
    plugins_name = os.path.basename(tempfile.mkdtemp(prefix="cwm_bench_", dir=core))
    try:
        for label in ("first boot", "restart"):
            with served(core, workdir, plugins_name, script) as (cat, boot):
                figures.put(f"{label}: boot", boot, "s")
                figures.put(f"{label}: first '{HELLO}'", chat_latency(cat, "u", HELLO), "s")
                figures.put(f"{label}: '{HELLO}' (median)",
                            warm_median(cat, "u", (HELLO,), runs), "s")
                figures.put(f"{label}: peak RSS", status_kib(cat.proc.pid, "VmHWM") / 1024,
                            "MiB")
    finally:
        shutil.rmtree(core / plugins_name, ignore_errors=True)
    return figures


def with_plugin(core: pathlib.Path, workdir: pathlib.Path, repo: pathlib.Path,
                script: LLMScript, runs: int, cat_memory: str) -> Figures:
    from ..app.host.settings_model import CatMemory

    figures = Figures()
    plugins_name = os.path.basename(tempfile.mkdtemp(prefix="cwm_bench_", dir=core))
    plugin_dir = cat_harness.mirror_plugin(core / plugins_name / cat_harness.PLUGIN_ID)
    (plugin_dir / "settings.json").write_text(json.dumps({
        "repository_path": str(repo), "data_folder": str(workdir / "data"),
        "cat_memory": CatMemory[cat_memory].value}))
    try:
        with served(core, workdir, plugins_name, script) as (cat, boot):
            cat.toggle(cat_harness.PLUGIN_ID)
            sampler = PeakSampler(cat.proc.pid)
            summary, seconds = index_through_chat(cat, "u")
            figures.put("full index, request to summary", seconds, "s")
            figures.put("indexing: peak RSS, Cat process", status_kib(cat.proc.pid, "VmHWM")
                        / 1024, "MiB")
            figures.put("indexing: peak RSS, largest worker", sampler.stop(), "MiB")
            print("  " + summary.splitlines()[0], flush=True)
            _messages(cat, figures, "indexed", runs)
        with served(core, workdir, plugins_name, script) as (cat, boot):
            figures.put("restart: boot", boot, "s")
            figures.put(f"restart: first '{HELLO}'", chat_latency(cat, "u", HELLO), "s")
            figures.put("restart: first question", chat_latency(cat, "q", QUESTIONS[0]), "s")
            _messages(cat, figures, "restart", runs)
            figures.put("restart: peak RSS (boot + messages)",
                        status_kib(cat.proc.pid, "VmHWM") / 1024, "MiB")
            with open(repo / EDITED, "a", encoding="utf-8") as handle:
                handle.write("\n\ndef bench_added(x):\n    return x\n")
            summary, seconds = index_through_chat(cat, "u")
            figures.put("one-file re-index, request to summary", seconds, "s")
            print("  " + " / ".join(summary.splitlines()[:3]), flush=True)
    finally:
        shutil.rmtree(core / plugins_name, ignore_errors=True)
    figures.put("storage: plugin data", _size(workdir / "data") / MiB, "MiB")
    figures.put("storage: the Cat's Qdrant", _size(workdir / "qdrant") / MiB, "MiB")
    return figures


def _messages(cat: ServedCat, figures: Figures, label: str, runs: int) -> None:
    figures.put(f"{label}: '{HELLO}' (median)", warm_median(cat, "u", (HELLO,), runs), "s")
    answers: list[str] = []
    figures.put(f"{label}: question (median)",
                warm_median(cat, "q", QUESTIONS, runs, answers), "s")
    with_code = sum(answer == SAW_CODE for answer in answers)
    figures.rows[f"{label}: questions answered with indexed code"] = f"{with_code}/{len(answers)}"
    print(f"  {label}: questions answered with indexed code: {with_code}/{len(answers)}")


def _size(path: pathlib.Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=pathlib.Path, default=None,
                        help="repository to copy and index (default: the standard library)")
    parser.add_argument("--limit", type=int, default=None, help="first N stdlib files only")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=pathlib.Path, default=None)
    parser.add_argument("--cat-memory", default="auto",
                        choices=("auto", "none", "files", "entities"),
                        help="the plugin's 'Code in the Cat's memory' setting")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the Cat without the plugin")
    args = parser.parse_args()
    core = pathlib.Path(os.environ["CCAT_CORE_DIR"]).resolve()
    work = args.workdir or pathlib.Path(tempfile.mkdtemp(prefix="cwm_scale_"))
    repo = work / "repo"
    if args.repo:
        shutil.copytree(args.repo, repo, symlinks=True)
    else:
        copy_stdlib(repo, args.limit)
    script = LLMScript(relevance=0.9, rules=[(CODE_SECTION, SAW_CODE)])
    base = Figures()
    if not args.no_baseline:
        print("Cat without the plugin:", flush=True)
        base = baseline(core, work / "baseline", script, args.runs)
    print(f"Cat with the plugin (cat_memory={args.cat_memory}):", flush=True)
    plugin = with_plugin(core, work / "plugin", repo, script, args.runs, args.cat_memory)
    print("\n| measure | Cat with the plugin | Cat without the plugin |\n|---|---|---|")
    for name in sorted(set(plugin.rows) | set(base.rows)):
        print(f"| {name} | {plugin.rows.get(name, '')} | {base.rows.get(name, '')} |")


if __name__ == "__main__":
    main()

"""What a user action costs with a real small model, and with the scripted one (issue 30).

The real-model layer's walk (tests/integration/real_model_walk.py) in a real Cat 1.9.2: a
question about the code, a code request through "go" to its outcome, the history, a rollback.
With the bundled model (SmolLM2-135M-Instruct served by llama-cpp-python, 4,096-token window,
reached through the Cat's "OpenAI-compatible API" settings) once per "Native JSON mode" asked
for, then with the integration tests' scripted conversation model. Per action: LLM calls (and
their steps), prompt and completion tokens as the server counts them (the recording proxy of
tests/integration/llama_server.py), wall time. For the scripted model the prompt tokens are the
same prompts counted by the server's tokenizer (no completion is generated).

Per mode also: the share of structured calls (scoring, meta-code, judge, documentation,
review, tie-break) whose answer was used at the first attempt, i.e. not followed by a re-ask
of the same step. Run it with the Cat's venv, from the plugin root::

    CWM_LLAMA_PYTHON=<DEST>/venv/bin/python CCAT_CORE_DIR=/path/to/core \\
        /path/to/catenv/venv/bin/python -m tests.run bench.real_model_bench \\
        [--modes off,json_object,json_schema] [--no-scripted] [--workdir DIR]

It prints Markdown tables for docs/benchmarks.md. Imported by the Cat too (it imports every
``.py`` of the plugin): nothing runs at import time.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..app.host.settings_model import NativeJson
from ..tests.integration import cat_harness
from ..tests.integration.cat_doubles import make_fake_llm
from ..tests.integration.llama_server import KINDS, Call, llama_server, recording_proxy
from ..tests.integration.real_model_walk import (
    SETTINGS,
    USER,
    Turn,
    Walk,
    make_repository,
    use_openai_compatible_server,
)
from ..tests.unit.glue.sim_llm import ConversationLLM

STRUCTURED = ("scoring", "meta-code", "judge", "docs", "review", "tie-break")
RETRIES = {"scoring": ("scoring-retry",), "meta-code": ("meta-code-retry",)}
ACTIONS = (("question", ("question",)), ("code request", ("request", "go", "draft loop")),
           ("history", ("history",)), ("rollback", ("rollback",)))


class _Script:
    def __init__(self, llm: ConversationLLM) -> None:
        self.llm = llm

    def reply(self, prompt: str) -> str:
        return str(self.llm(prompt))


def holds_json(reply: str) -> bool:
    """The reply is, or holds between its first ``{``/``[`` and its last ``}``/``]``, JSON."""
    text = reply.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    for start, end in (("{", "}"), ("[", "]")):
        first, last = text.find(start), text.rfind(end)
        if 0 <= first < last:
            try:
                json.loads(text[first:last + 1])
                return True
            except ValueError:
                continue
    return False


def first_attempt_validity(calls: list[Call]) -> tuple[int, int]:
    """``(structured first attempts, those valid)``: a first attempt is valid when its reply
    holds JSON and the next call of its step is not a re-ask (a retry prompt of that step)."""
    attempts = valid = 0
    for i, call in enumerate(calls):
        if call.kind not in STRUCTURED:
            continue
        attempts += 1
        retry_kinds = RETRIES.get(call.kind, ("json-retry",))
        later = next((c for c in calls[i + 1:] if c.kind == call.kind or c.kind in retry_kinds),
                     None)
        reasked = later is not None and later.kind in retry_kinds
        valid += holds_json(call.reply) and not reasked
    return attempts, valid


@contextmanager
def _cat(core: pathlib.Path, work: pathlib.Path, mode: str) -> Iterator[cat_harness.CatRun]:
    repo = make_repository(work / "repo")
    settings = {**SETTINGS, "repository_path": str(repo), "data_folder": str(work / "data"),
                "native_json": NativeJson[mode].value}  # the setting's stored form
    with cat_harness.booted_cat(core, work / "cat", settings=settings) as run:
        yield run


def _walk(walk: Walk) -> None:
    walk.say("question", "what does parse_date do?")
    walk.request_to_outcome()
    walk.say("history", "show the draft history")
    walk.say("rollback", "roll back to the start")


def _index(run: cat_harness.CatRun) -> None:
    run.message("index my repository", user="indexer")
    cat_harness.wait_for_indexing(run)


def real_walk(core: pathlib.Path, work: pathlib.Path, python: str, mode: str) -> list[Turn]:
    with llama_server(python, work) as server, recording_proxy(server.port) as (base, rec), \
            _cat(core, work, mode) as run:
        use_openai_compatible_server(run, base)
        _index(run)
        with run.session(USER) as chat:
            walk = Walk(run, chat, rec)
            _walk(walk)
        time.sleep(1)  # the proxy finishes recording the last call
        rec.count_tokens()
        walk.save(work / "walk.json")
        return walk.turns


def scripted_walk(core: pathlib.Path, work: pathlib.Path) -> list[Turn]:
    llm = ConversationLLM()
    with _cat(core, work, "off") as run:
        run.ccat._llm = make_fake_llm(_Script(llm))
        _index(run)
        with run.session(USER) as chat:
            walk = Walk(run, chat, prompts=lambda: list(llm.prompts))
            _walk(walk)
        return walk.turns


def token_counter(port: int) -> Any:
    """A function counting a text's tokens with the server's (the bundled model's) tokenizer."""
    import http.client

    def count(text: str) -> int:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            connection.request("POST", "/extras/tokenize", json.dumps({"input": text}),
                               {"Content-Type": "application/json"})
            return len(json.loads(connection.getresponse().read()).get("tokens", []))
        finally:
            connection.close()

    return count


def rows(label: str, turns: list[Turn], count: Any = None) -> list[str]:
    out = []
    for action, steps in ACTIONS:
        picked = [t for t in turns if t.action in steps]
        if not picked:
            out.append(f"| {action} | {label} | not reached | | | |")
            continue
        calls = [c for t in picked for c in t.calls]
        kinds = [k for t in picked for k in t.kinds()]
        if calls or not any(t.prompts for t in picked):
            prompt = sum(c.prompt_tokens for c in calls)
            completion = str(sum(c.completion_tokens for c in calls))
        else:
            prompt = sum(count(p) for t in picked for p in t.prompts) if count else 0
            completion = "n/a"
        seconds = sum(t.seconds for t in picked)
        outcome = "" if action != "code request" else " — " + _outcome(picked)
        out.append(f"| {action}{outcome} | {label} | {len(kinds)} ({_kinds(kinds)}) | {prompt} "
                   f"| {completion} | {seconds:.1f} |")
    return out


def _kinds(kinds: list[str]) -> str:
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in counts.items())


def _outcome(turns: list[Turn]) -> str:
    """The outcome's first words ("Draft committed", "I gave up after 2 iteration(s)", ...)."""
    last = turns[-1].answer or "no answer"
    return last.replace(":", ".").split(".")[0].split(" as `")[0][:60]


def load_walk(path: pathlib.Path) -> list[Turn]:
    """A walk saved by ``Walk.save`` (``<workdir>/real-<mode>/walk.json``), as turns."""
    marks = dict(KINDS)
    turns = []
    for record in json.loads(path.read_text(encoding="utf-8")):
        calls = [Call(marks.get(c["kind"], ""), {}, c["max_tokens"], c["response_format"], 0.0,
                      c["seconds"], c["status"], c["reply"], c["finish_reason"],
                      c["prompt_tokens"], c["completion_tokens"], c["client_gone"])
                 for c in record["calls"]]
        turns.append(Turn(record["action"], record["said"], record["answer"],
                          record["seconds"], calls))
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", default="off,json_object,json_schema")
    parser.add_argument("--no-scripted", action="store_true")
    parser.add_argument("--workdir", default="")
    parser.add_argument("--from-walks", default="",
                        help="comma-separated walk.json files of earlier runs: tables only")
    args = parser.parse_args()
    if args.from_walks:
        for path in map(pathlib.Path, args.from_walks.split(",")):
            turns = load_walk(path)
            print("\n".join(rows(path.parent.name, turns)))
            attempts, valid = first_attempt_validity([c for t in turns for c in t.calls])
            print(f"| {path.parent.name} | {attempts} | {valid} |")
        return
    core = cat_harness.configured_core()
    python = os.environ.get("CWM_LLAMA_PYTHON", "")
    if core is None or not python:
        raise SystemExit("set CCAT_CORE_DIR and CWM_LLAMA_PYTHON (docs/real-model.md)")
    root = pathlib.Path(args.workdir or tempfile.mkdtemp(prefix="cwm-real-bench-"))
    table = ["| action | model | LLM calls (steps) | prompt tokens | completion tokens | "
             "wall time (s) |", "|---|---|---|---|---|---|"]
    validity = ["| Native JSON mode | structured calls | valid at the first attempt | share |",
                "|---|---|---|---|"]
    for mode in [m for m in args.modes.split(",") if m]:
        turns = real_walk(core, root / f"real-{mode}", python, mode)
        table += rows(f"SmolLM2-135M, native JSON {mode}", turns)
        attempts, valid = first_attempt_validity([c for t in turns for c in t.calls])
        share = f"{valid / attempts:.0%}" if attempts else "n/a"
        validity.append(f"| {mode} | {attempts} | {valid} | {share} |")
        print("\n".join(table[-len(ACTIONS):] + validity[-1:]), flush=True)  # progress
    if not args.no_scripted:
        turns = scripted_walk(core, root / "scripted")
        with llama_server(python, root) as server:
            table += rows("scripted", turns, token_counter(server.port))
    print("\n".join(table))
    print()
    print("\n".join(validity))


if __name__ == "__main__":
    main()

"""The reply corpus: realistic model answers per stage, read by the project's real readers.

Each case of ``tests/golden/replies/<stage>.yaml`` is a reply in a style real models produce
(GPT-4o and Claude prose around fences; Llama 3 8B and Qwen2.5-Coder 7B slips, chatter and
truncation; DeepSeek-R1 and Qwen3 reasoning blocks with braces, JSON and code inside; empty,
refusal, CRLF, truncated) and the outcome it must have: the exact value read, or a refusal whose
message contains a given text. Every outcome is classified as read correctly, refused (rightly,
or wrongly when a value was expected), silently wrong, or crashed.
Run: ``.venv/bin/python -m tests.run bench.reply_corpus`` (prints the table).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..codegen.checks.judge import parse_verdict
from ..codegen.edits.api import Applied, apply_reply
from ..codegen.metacode.generate import read_metacode
from ..codegen.steps import DOCS, REVIEW
from ..llm.errors import ReplyRefused
from ..llm.reader import read_reply
from ..memory.retrieval.score_replies import list_spec
from ..memory.retrieval.scoring import parse_score_reply

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "golden" / "replies"
STAGES = ("metacode", "judge", "score", "score_list", "docs", "review", "edit")
OUTCOMES = ("read correctly", "refused (right)", "refused (should have read)",
            "silently wrong", "crashed")


class Refused(Exception):
    """The stage's reader refused the reply (the expected way to fail)."""


@dataclass(frozen=True)
class Result:
    stage: str
    case: str
    style: str
    outcome: str
    detail: str


def load(stage: str) -> dict[str, Any]:
    import yaml  # lazy: the Cat imports every .py file of the plugin

    return yaml.safe_load((CORPUS / f"{stage}.yaml").read_text(encoding="utf-8"))


def reader(stage: str, doc: dict[str, Any]) -> Callable[[str], Any]:
    """``reply -> the value compared with the case's expectation`` (Refused when refused)."""
    readers: dict[str, Callable[[str], Any]] = {
        "judge": lambda r: [c.passed for c in parse_verdict(r, tuple(doc["checks"]))],
        "score": lambda r: _score(parse_score_reply(r)),
        "score_list": lambda r: _listwise(read_reply(r, list_spec(tuple(doc["ids"]))),
                                          doc["ids"]),
        "docs": lambda r: _docs(read_reply(r, DOCS.spec())),
        "review": lambda r: _review(read_reply(r, REVIEW.spec())),
        "metacode": lambda r: read_metacode(r).to_dict(),
        "edit": lambda r: _edit(r, doc),
    }
    return readers[stage]


def _score(score: Any) -> dict[str, Any]:
    return {"score": round(score.score, 4), "reason": score.reason}


def _listwise(read: Any, ids: list[str]) -> dict[str, Any]:
    return {"scores": {k: round(v.score, 4) for k, v in sorted(read.scores.items())},
            "retry": [i for i in ids if i not in read.scores]}


def _docs(reply: Any) -> dict[str, Any]:
    return {"docstring": reply.docstring, "note": reply.note}


def _review(reply: Any) -> dict[str, Any]:
    return {"verdict": reply.verdict, "comments": list(reply.comments)}


def _edit(reply: str, doc: dict[str, Any]) -> dict[str, str]:
    target = doc["target"]
    result = apply_reply(doc["files"], reply, default_target=(target["path"], target["symbol"]))
    if not isinstance(result, Applied):
        raise Refused(result.message)
    return {path: result.files[path] for path in result.changed}


def matches(got: Any, expected: Any, stage: str) -> bool:
    """Exact, except that meta-code is compared on the keys the case names."""
    if stage == "metacode":
        return all(got.get(k) == v for k, v in expected.items())
    return bool(got == expected)


def evaluate(stage: str) -> list[Result]:
    """Every case of ``stage``, classified."""
    doc = load(stage)
    read = reader(stage, doc)
    out = []
    for case in doc["cases"]:
        reply = case["reply"].replace("\n", "\r\n") if case.get("crlf") else case["reply"]
        expect = case["expect"]
        try:
            got = read(reply)
        except (Refused, ReplyRefused, ValueError) as err:
            wanted = expect.get("refused")
            if wanted is None:
                out.append(Result(stage, case["id"], case["style"],
                                  "refused (should have read)", str(err)))
            else:
                ok = wanted in str(err)
                out.append(Result(stage, case["id"], case["style"],
                                  "refused (right)" if ok else "silently wrong",
                                  str(err) if ok else f"refused with {str(err)!r}, expected a "
                                  f"message containing {wanted!r}"))
            continue
        except Exception as err:  # the whole point: count crashes instead of stopping
            out.append(Result(stage, case["id"], case["style"], "crashed",
                              f"{type(err).__name__}: {err}"))
            continue
        if "value" in expect and matches(got, expect["value"], stage):
            out.append(Result(stage, case["id"], case["style"], "read correctly", ""))
        else:
            out.append(Result(stage, case["id"], case["style"], "silently wrong",
                              f"read {got!r}, expected {expect!r}"))
    return out


def table(results: list[Result]) -> str:
    """Per stage: cases and the count of each outcome (Markdown)."""
    lines = ["| stage | cases | " + " | ".join(OUTCOMES) + " |",
             "|---|---|" + "---|" * len(OUTCOMES)]
    for stage in (*STAGES, "all"):
        rows = [r for r in results if stage in ("all", r.stage)]
        counts = Counter(r.outcome for r in rows)
        lines.append(f"| {stage} | {len(rows)} | "
                     + " | ".join(str(counts[o]) for o in OUTCOMES) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--show", action="store_true", help="print every case's outcome")
    args = parser.parse_args()
    results = [r for stage in STAGES for r in evaluate(stage)]
    print(table(results))
    styles = Counter(r.style for r in results)
    print("\nstyles: " + ", ".join(f"{s} {n}" for s, n in sorted(styles.items())))
    for r in results:
        if args.show or r.outcome in ("silently wrong", "crashed", "refused (should have read)"):
            print(f"{r.stage}/{r.case} [{r.style}]: {r.outcome} {r.detail[:300]}")


if __name__ == "__main__":
    main()

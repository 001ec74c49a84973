"""Precision and recall of the code-request detector on the labelled corpus (no LLM).

Run: ``.venv/bin/python -m tests.run bench.intent_bench``. AMBIGUOUS verdicts count as "not a
request" (the worst case: in the Cat the LLM breaks the tie), and are listed.
"""

from __future__ import annotations

import json
import pathlib
import sys
from collections import Counter

from ..codegen.intent import Intent, detect_intent

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "unit" / "codegen" / "data" \
    / "intent_corpus.json"


def evaluate(items: list[dict]) -> dict:
    """Confusion counts for the request class, question accuracy and the misclassified."""
    counts: Counter = Counter()
    wrong = []
    for item in items:
        found = detect_intent(item["text"])
        predicted = found.intent is Intent.CODE_REQUEST
        actual = item["label"] == "request"
        counts[(actual, predicted)] += 1
        counts["ambiguous"] += found.intent is Intent.AMBIGUOUS
        if item["label"] == "question":
            counts["questions"] += 1
            counts["questions_ok"] += found.intent is Intent.CODE_QUESTION
        if predicted != actual:
            wrong.append((item["label"], found.intent.value, item["text"]))
    tp, fp, fn = counts[(True, True)], counts[(False, True)], counts[(True, False)]
    return {"n": len(items), "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0, "ambiguous": counts["ambiguous"],
            "question_accuracy": counts["questions_ok"] / max(1, counts["questions"]),
            "wrong": wrong}


def main() -> int:
    items = json.loads(CORPUS.read_text(encoding="utf-8"))["items"]
    for split in ("dev", "holdout", "holdout2", "all"):
        chosen = [i for i in items if split == "all" or i["split"] == split]
        result = evaluate(chosen)
        print(f"{split:8} n={result['n']:3} precision={result['precision']:.3f} "
              f"recall={result['recall']:.3f} ambiguous={result['ambiguous']} "
              f"question-accuracy={result['question_accuracy']:.3f}")
        for label, got, text in result["wrong"]:
            print(f"    {label:8} -> {got:13} {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

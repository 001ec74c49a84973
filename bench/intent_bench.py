"""Routing figures of the intent detector on the labelled corpus, per split (no LLM).

Run: ``.venv/bin/python -m tests.run bench.intent_bench [--wrong] [--sealed]``. For each split:
request precision and recall with AMBIGUOUS counted as "not a request" (a tie-break that always says
no) and as "request" (recall: an oracle tie-break; precision: every AMBIGUOUS "other" counted
as a false request too, the worst case), the number of AMBIGUOUS verdicts (each costs one LLM
call in the Cat), the questions recognised; without the index lookup, and with the split's
fake index (``known_names`` of the corpus) where it has one. ``--wrong`` lists the misrouted;
``--sealed`` adds the split kept out of the tests until its one evaluation; ``--holdout10``
adds issue 36's routing split (``routing_holdout10.json``, sealed until its one evaluation;
``--holdout11`` the second one, written after it and before the reader was tuned on it),
with the share of everyday messages read as questions about the code and the request targets
the index links (``app/projects/lookup.py`` ``linked_details`` over the split's entities).
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..codegen.reading.intent import Intent, KnownNames, detect_intent

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "unit" / "codegen" / "data" \
    / "intent_corpus.json"
SEALED = CORPUS.with_name("intent_corpus_sealed.json")
HOLDOUT10 = CORPUS.with_name("routing_holdout10.json")
HOLDOUT11 = CORPUS.with_name("routing_holdout11.json")
SPLITS = ("dev", "holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout6",
          "holdout7", "holdout8", "holdout9", "holdout10", "holdout11")
#: SHA-256 of each frozen split (labels, texts and fake index, :func:`split_digest`): a split
#: edited after its one evaluation fails loudly (tests/unit/codegen/test_intent.py).
FROZEN = {
    "holdout6": "62a890870d00e0a0f96a424e11f61a61472d28c46d5c6846147a9b5d0686d33f",
    "holdout7": "e59774e64da1cc71fbbde3eae64b01ad3c7093dc376f472dddfe26b56c1ab512",
    "holdout8": "bd748992dfc571914eb489efc20aa85ed5294232fa802710de07d1be3df3e787",
    "holdout9": "854c1e661be736141d17040b044cdf5b1b6e59c11d33ce8e56ca4148b9ecb7ff",
    "holdout10": "7537c081f2c7aa22922c541fd90a590f1636eb6f2cb584d6f5f9b42c12d53461",
    "holdout11": "4e3bfba296cadff7718afe5aa445bc9bbe558b8d2051babdf0fc46b5512a5ab6",
}
EXPECTED = {"request": Intent.CODE_REQUEST, "question": Intent.CODE_QUESTION,
            "other": Intent.OTHER}


@dataclass
class Figures:
    """Counts for one split under one setting; ratios as properties."""

    n: int = 0
    requests: int = 0
    found: int = 0            # requests routed CODE_REQUEST
    ambiguous_requests: int = 0
    false: int = 0            # non-requests routed CODE_REQUEST
    ambiguous_others: int = 0
    questions: int = 0
    questions_ok: int = 0
    lookups: int = 0
    misroutes: int = 0        # requests routed OTHER or CODE_QUESTION (no tie-break asked)
    others: int = 0
    other_questions: int = 0  # everyday messages read as questions about the code
    by_label: dict[str, list[int]] = field(default_factory=dict)  # label -> [n, ambiguous]
    wrong: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def ambiguous(self) -> int:
        return self.ambiguous_requests + self.ambiguous_others

    def precision(self, as_request: bool = False) -> float:
        right = self.found + (self.ambiguous_requests if as_request else 0)
        claimed = right + self.false + (self.ambiguous_others if as_request else 0)
        return right / claimed if claimed else 1.0

    def recall(self, as_request: bool = False) -> float:
        right = self.found + (self.ambiguous_requests if as_request else 0)
        return right / self.requests if self.requests else 1.0


def load(sealed: bool = False, holdout10: bool = False, holdout11: bool = False) -> dict:
    """The corpus; with ``sealed``, the held-out split kept out of the tests merged in; with
    ``holdout10`` and ``holdout11``, issue 36's routing splits."""
    corpus = dict(json.loads(CORPUS.read_text(encoding="utf-8")))
    for wanted, path in ((sealed, SEALED), (holdout10, HOLDOUT10), (holdout11, HOLDOUT11)):
        if wanted:
            extra = json.loads(path.read_text(encoding="utf-8"))
            corpus["items"] = corpus["items"] + extra["items"]
            corpus["known_names"] = {**corpus["known_names"], **extra["known_names"]}
            corpus["entities"] = {**corpus.get("entities", {}), **extra.get("entities", {})}
    return corpus


def split_digest(corpus: dict, split: str) -> str:
    """SHA-256 over the split's labels and texts and its fake index (and, where the split has
    them, its request targets and entities)."""
    items = split_items(corpus, split)
    sealed: dict[str, object] = {"items": [[i["label"], i["text"]] for i in items],
                                 "known_names": corpus.get("known_names", {}).get(split)}
    if split in corpus.get("entities", {}):
        sealed["targets"] = [i.get("target") for i in items]
        sealed["entities"] = corpus["entities"][split]
    blob = json.dumps(sealed, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def evaluate(items: Sequence[dict], known_names: Sequence[str] | None) -> Figures:
    """Route every item, with a fake index of ``known_names`` (``None``: no lookup)."""
    index = KnownNames(known_names) if known_names is not None else None
    out = Figures(n=len(items))
    for item in items:
        got = detect_intent(item["text"], index).intent
        request = item["label"] == "request"
        out.requests += request
        out.found += request and got is Intent.CODE_REQUEST
        out.ambiguous_requests += request and got is Intent.AMBIGUOUS
        out.false += not request and got is Intent.CODE_REQUEST
        out.ambiguous_others += not request and got is Intent.AMBIGUOUS
        out.misroutes += request and got in (Intent.OTHER, Intent.CODE_QUESTION)
        counts = out.by_label.setdefault(item["label"], [0, 0])
        counts[0] += 1
        counts[1] += got is Intent.AMBIGUOUS
        if item["label"] == "question":
            out.questions += 1
            out.questions_ok += got is Intent.CODE_QUESTION
        if item["label"] == "other":
            out.others += 1
            out.other_questions += got is Intent.CODE_QUESTION
        if got is not EXPECTED[item["label"]]:
            out.wrong.append((item["label"], got.value, item["text"]))
    out.lookups = index.calls if index is not None else 0
    return out


def split_items(corpus: dict, split: str) -> list[dict]:
    return [i for i in corpus["items"] if i["split"] == split]


def rows(corpus: dict) -> list[tuple[str, str, Figures]]:
    """``(split, "none" | "index", figures)`` for every split present in the corpus."""
    out = []
    for split in SPLITS:
        items = split_items(corpus, split)
        if not items:
            continue
        out.append((split, "none", evaluate(items, None)))
        names = corpus.get("known_names", {}).get(split)
        if names is not None:
            out.append((split, "index", evaluate(items, names)))
    return out


#: A realistic mix of what users type in a chat with the plugin: mostly ordinary chat.
MIX = {"other": 0.70, "question": 0.15, "request": 0.15}


def tie_break_share(figures: Sequence[Figures]) -> float:
    """The share of messages that reach the LLM tie-break in the ``MIX``: each label's
    ambiguous rate over ``figures`` pooled, weighted by its share of the mix."""
    share = 0.0
    for label, weight in MIX.items():
        n = sum(f.by_label.get(label, [0, 0])[0] for f in figures)
        ambiguous = sum(f.by_label.get(label, [0, 0])[1] for f in figures)
        share += weight * (ambiguous / n if n else 0.0)
    return share


def main(argv: list[str]) -> int:
    print("split      lookup  n    P      R      P(amb) R(amb) ambiguous  questions  misroutes "
          "hijacks  others as questions")
    corpus = load(sealed="--sealed" in argv, holdout10="--holdout10" in argv,
                  holdout11="--holdout11" in argv)
    table = rows(corpus)
    for split, lookup, f in table:
        print(f"{split:10} {lookup:6} {f.n:4} {f.precision():.3f}  {f.recall():.3f}  "
              f"{f.precision(True):.3f}  {f.recall(True):.3f}  {f.ambiguous:9}  "
              f"{f.questions_ok:>5}/{f.questions:<4} {f.misroutes:9} {f.false:7}  "
              f"{f.other_questions:>5}/{f.others}")
        if "--wrong" in argv:
            for label, got, text in f.wrong:
                print(f"    {label:8} -> {got:13} {text}")
    for split, entities in corpus.get("entities", {}).items():
        from .target_links import linked_targets
        right, total, wrong = linked_targets(split_items(corpus, split), entities)
        print(f"{split}: request targets linked by the index: {right}/{total}")
        if "--wrong" in argv:
            for line in wrong:
                print("    " + line)
    held = [f for split, lookup, f in table if split.startswith("holdout")
            and (lookup == "index" or split in ("holdout", "holdout2"))]
    print(f"tie-break share in a realistic mix ({', '.join(f'{v:.0%} {k}' for k, v in MIX.items())}"
          f", every held-out split, with its index where it has one): "
          f"{tie_break_share(held):.3f}")
    print("P, R: AMBIGUOUS as not a request; P(amb), R(amb): AMBIGUOUS as a request; "
          "misroutes: requests answered as chat or a question with confidence; hijacks: "
          "non-requests taken for a request.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

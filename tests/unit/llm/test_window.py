"""Every prompt fits the model's window before it is sent: retrieved context trimmed by relevance
(the last, least relevant block first), long material shortened, and a prompt that cannot fit
refused with the setting to change. Each stage's prompt is built here with maximal inputs and
fitted into the smallest window the settings allow and the default one."""

from __future__ import annotations

import pytest

from codemem.codegen.checks.judge import judge_spec
from codemem.codegen.metacode.generate import generate_metacode
from codemem.codegen.metacode.steps import METACODE
from codemem.codegen.steps import JUDGE, REVIEW
from codemem.llm.bounds import CallOptions, estimate_tokens
from codemem.llm.templates import data_block, data_blocks, draft_blocks
from codemem.llm.window import TEMPLATE_RESERVE, PromptTooLong, fit_prompt
from codemem.memory.retrieval.listwise import build_list_prompt
from codemem.memory.retrieval.score_replies import SCORE, list_spec
from codemem.memory.retrieval.scoring import build_scoring_prompt


def retrieved(kind: str, count: int, chars: int) -> str:
    return data_blocks([(kind, f"src/m{i}.py f{i}", f"# snippet {i}\n" + "x = 1\n" * (chars // 6))
                        for i in range(count)])


def fits(fitted, window: int) -> bool:
    return estimate_tokens(fitted.prompt) + fitted.options.max_tokens <= window - TEMPLATE_RESERVE


def test_the_least_relevant_retrieved_blocks_go_first():
    blocks = retrieved("repo", 6, 3000)
    prompt = f"Instructions.\n{blocks}\nAnswer now."
    fitted = fit_prompt(prompt, CallOptions(max_tokens=500), 4096)
    assert fits(fitted, 4096) and fitted.dropped > 0
    assert 'source="src/m0.py f0"' in fitted.prompt  # the most relevant stays
    assert 'source="src/m5.py f5"' not in fitted.prompt
    assert fitted.prompt.startswith("Instructions.") and fitted.prompt.endswith("Answer now.")
    assert "cut to fit the model's context window" in fitted.prompt


def test_a_prompt_that_fits_is_sent_unchanged_with_its_limit():
    fitted = fit_prompt("short prompt", CallOptions(max_tokens=100), 4096)
    assert fitted.prompt == "short prompt" and fitted.options.max_tokens == 100


def test_what_cannot_be_cut_is_refused_with_the_setting_to_change():
    draft = draft_blocks({"big.py": "y = 2\n" * 2000}, per_file=100000)
    with pytest.raises(PromptTooLong, match="Context window \\(tokens\\)"):
        fit_prompt(f"Rewrite:\n{draft}", CallOptions(max_tokens=2048), 1024, what="drafting")


def test_scoring_memories_are_shortened_not_dropped():
    prompt = build_list_prompt("how are dates parsed", [(f"M{i}", "def f():\n" + "    a = 1\n"
                                                         * 400) for i in range(1, 21)])
    spec = list_spec(tuple(f"M{i}" for i in range(1, 21)))
    fitted = fit_prompt(prompt, CallOptions(max_tokens=spec.max_tokens), 2048)
    assert fits(fitted, 2048) and fitted.shortened > 0 and fitted.dropped == 0
    assert all(f'source="M{i}"' in fitted.prompt for i in range(1, 21))
    assert 'source="query"' in fitted.prompt


@pytest.mark.parametrize("window", [2048, 4096])
def test_no_stage_exceeds_the_window_with_maximal_inputs(window):
    """Each stage built with the largest inputs its builders allow (twenty retrieved snippets of
    the largest size, the longest scoring texts, a long quoted previous answer)."""
    code = "def helper(value):\n    return value * 2\n" * 60
    context = [type("S", (), {"source": f"src/m{i}.py", "title": f"f{i}", "text": code})()
               for i in range(20)]
    prompts: list[tuple[str, int]] = []

    def capture(prompt: str) -> str:
        prompts.append((prompt, METACODE.max_tokens))
        raise RuntimeError("captured")

    with pytest.raises(RuntimeError):
        generate_metacode("add a parser " * 50, llm=capture, context=context)
    ids = tuple(f"M{i}" for i in range(1, 21))
    prompts.append((build_list_prompt("q " * 200, [(k, code) for k in ids]),
                    list_spec(ids).max_tokens or 0))
    prompts.append((build_scoring_prompt("q " * 200, code * 5), SCORE.spec().max_tokens or 0))
    prompts.append((REVIEW.render(metacode="goal " * 200, draft=draft_blocks({"a.py": code}),
                           tests=data_block("test_results", "sandbox", "F" * 20000)),
                    REVIEW.max_tokens))
    prompts.append((JUDGE.render(metacode="goal", draft=draft_blocks({"a.py": code[:2000]}),
                           checks="- a\n- b",
                           tests=data_block("test_results", "sandbox", "E" * 30000)),
                    judge_spec(("a", "b")).max_tokens or 0))
    for prompt, limit in prompts:
        fitted = fit_prompt(prompt, CallOptions(max_tokens=limit), window)
        assert fits(fitted, window), (prompt[:80], estimate_tokens(fitted.prompt))


def test_long_docstrings_are_cut_before_any_block_goes_and_the_goals_blocks_stay() -> None:
    """A class's page of usage notes is cut to its first paragraph before a block is dropped;
    then the blocks the goal does not name go first, the last first, and are named."""
    usage = "\n".join(f"    Usage note {i}: " + "the database keeps documents. " * 8 + "\n"
                      for i in range(8))
    tinydb = ("from tinydb import TinyDB\ntinydb.TinyDB  (class, tinydb/database.py:4)\n"
              "class TinyDB\n    A database kept in one JSON file.\n\n" + usage + "Methods:\n"
              "- table(self, name: str) -> Table")
    facts = [("api", "vendor tinydb.TinyDB", tinydb),
             ("api", "vendor tinydb.Query", "class Query\n" + usage),
             ("api", "vendor tinydb.Table.insert", "def insert(self, document: dict) -> int\n"
              "    Insert a document; its id.")]
    repo = [("repo", f"repo:text_utils.py helper_{i}",
             f"def helper_{i}(text):\n" + "    x = 1\n\n" * 30) for i in range(3)]
    prompt = "Write save_note.\n" + data_blocks(repo) + "\n" + data_blocks(facts) + "\nGo."
    focus = ("save", "note", "notes", "table", "tinydb")
    fitted = fit_prompt(prompt, CallOptions(max_tokens=300, focus=focus), 900)
    text = fitted.prompt
    assert "A database kept in one JSON file." in text and "Usage note 3" not in text
    assert "the rest of this docstring was cut to fit the model's context window" in text
    assert "def insert(self, document: dict) -> int" in text  # named by "table": kept
    assert "\n\n    x = 1" in text  # code is never taken for a docstring
    note = text[text.index("(more was cut"):].split("\n", 1)[0]
    assert "helper_2" in note and "insert" not in note
    assert fitted.tokens + fitted.options.max_tokens <= 900 - TEMPLATE_RESERVE

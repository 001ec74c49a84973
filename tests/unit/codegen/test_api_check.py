"""The ``api`` check: wrong library calls caught with the real signature, nothing guessed.

The facts are the real ones: ``memory.sources`` reads the made-up ``textkit`` library's source
with ``ast`` (as it does for an indexed source) and answers the lookups.
"""

from __future__ import annotations

import pytest

from codemem.codegen.checks.api_check import check_library_calls
from codemem.codegen.checks.validate import validate_draft
from codemem.memory.sources.api_lookup import ApiTable

from ..memory.sources.library import TEXTKIT_V1, facts_of

PATH = "app/text.py"


@pytest.fixture(scope="module")
def facts() -> ApiTable:
    return facts_of(TEXTKIT_V1, "textkit 1.0")


def check(facts, code, local=()):
    return check_library_calls({PATH: code}, [PATH], facts, local)


def only_failure(results):
    failures = [r for r in results if r.failed]
    assert len(failures) == 1, results
    return failures[0]


def test_a_wrong_name_names_the_real_one(facts):
    code = "import textkit\n\ndef f(t):\n    return textkit.slugfy(t)\n"
    failure = only_failure(check(facts, code))
    assert failure.check == "api" and failure.where == f"{PATH}:4"
    assert failure.message == (
        "`textkit.slugfy` does not exist in the indexed library (textkit 1.0); did you mean "
        "`textkit.slugify(text: str, sep: str = '-') -> str`?")
    module = only_failure(check(facts, "import textkit\ntextkit.slug('x')\n"))
    assert module.message == ("`textkit.slug` is a module (textkit 1.0): call a function or "
                              "class inside it.")


def test_a_wrong_keyword_shows_the_real_signature(facts):
    code = "from textkit import slugify as s\n\nx = s('A b', separator='_')\n"
    failure = only_failure(check(facts, code))
    assert failure.message == (
        "`textkit.slugify(...)` has no keyword argument `separator`. Real signature: "
        "`textkit.slugify(text: str, sep: str = '-') -> str` (textkit 1.0).")


def test_positional_count_missing_and_duplicate_arguments(facts):
    assert "takes at most 2 positional argument(s), 3 given" in only_failure(check(
        facts, "import textkit\ntextkit.words('a', 2, 3)\n")).message
    assert "is missing the required argument(s) `text`" in only_failure(check(
        facts, "import textkit\ntextkit.words(limit=2)\n")).message
    assert "gets `text` both by position and by keyword" in only_failure(check(
        facts, "import textkit\ntextkit.words('a', text='b')\n")).message


def test_methods_on_instances_made_in_the_draft(facts):
    code = ("import textkit as tk\n\n"
            "def f(text):\n"
            "    tok = tk.Tokenizer(lowercase=False)\n"
            "    return tok.tokens(text, strip=True)\n\n"
            "def g(text):\n"
            "    with tk.Tokenizer() as tok:\n"
            "        return tok.tokenize(text)\n\n"
            "def h(text):\n"
            "    return tk.Tokenizer().tokens(text)\n")
    failures = [r for r in check(facts, code) if r.failed]
    assert [f.where for f in failures] == [f"{PATH}:5", f"{PATH}:9"]
    assert "`textkit.Tokenizer.tokens(...)` has no keyword argument `strip`" in failures[0].message
    assert "textkit.Tokenizer.tokens(self, text: str) -> list[str]" in failures[1].message


def test_constructor_keywords_and_imports_of_missing_names(facts):
    assert "has no keyword argument `stop_words`" in only_failure(check(
        facts, "from textkit import Tokenizer\nTokenizer(stop_words=set())\n")).message
    failure = only_failure(check(facts, "from textkit import Tokeniser\n"))
    assert failure.where == f"{PATH}:1" and "`textkit.Tokeniser` does not exist" in failure.message


def test_correct_calls_pass_and_unknown_things_are_never_failures(facts):
    code = ("import os\nimport textkit\nfrom textkit import Tokenizer, words\n\n"
            "def f(text, *args, **kw):\n"
            "    words(text, limit=2)\n"
            "    textkit.slugify(text, '_')\n"
            "    textkit.words(*args)\n"
            "    Tokenizer(**kw).tokens(text)\n"
            "    os.path.join('a', 'b')\n"
            "    unknown.thing(1)\n")
    results = check(facts, code)
    assert [r.status for r in results] == ["passed"]
    assert results[0].message.endswith("use(s) of indexed library APIs match their signatures")


def test_shadowed_names_local_modules_and_newer_syntax_are_skipped(facts):
    shadowed = "from textkit import words\n\ndef words(x, y, z):\n    return x\n\nwords(1, 2, 3)\n"
    assert [r.status for r in check(facts, shadowed)] == ["passed"]  # only the import counts
    local = "import textkit\ntextkit.nothing_here()\n"
    assert [r.status for r in check(facts, local, local=("textkit",))] == ["skipped"]
    newer = "import textkit\ntype X = int\ntextkit.nothing_here()\n"
    assert [r.status for r in check(facts, newer)] == ["skipped"]


def test_validation_runs_the_check_only_with_facts_and_before_the_tests(facts):
    draft = {PATH: "import textkit\n\n\ndef f(t):\n    return textkit.slugify(t, sep='-', x=1)\n"}
    with_facts = validate_draft(draft, target_path=PATH, expected_symbol="f",
                                checks=["parse", "api", "lint", "tests"], api_facts=facts)
    assert [(r.check, r.status) for r in with_facts.results] == [
        ("parse", "passed"), ("api", "failed"), ("lint", "passed"), ("tests", "skipped")]
    assert "Real signature: `textkit.slugify(text: str, sep: str = '-') -> str`" in (
        with_facts.as_feedback())
    without = validate_draft(draft, target_path=PATH, expected_symbol="f",
                             checks=["parse", "api", "lint"])
    assert [r.check for r in without.results] == ["parse", "lint"]

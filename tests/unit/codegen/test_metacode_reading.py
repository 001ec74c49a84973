"""Meta-code as real models write it: spellings, shapes, reasoning, typed examples."""

from __future__ import annotations

import json

import pytest

from codemem.codegen.errors import MetaCodeInvalid
from codemem.codegen.metacode.examples import reconcile_examples
from codemem.codegen.metacode.generate import generate_metacode, parse_json_object

from ...fakes import ScriptedLLM
from .helpers_codegen import as_json, slug_dict, slug_meta


def count_dict(**changes) -> dict:
    data = slug_dict(symbol="count_words", signature="def count_words(text: str) -> int",
                     behaviour="Count the words.", target_path="text/count.py",
                     examples=[{"call": "count_words('a b')", "expected": 2},
                               {"call": "count_words('')", "expected": 0}])
    data.update(changes)
    return data


def test_a_draft_inside_the_thinking_is_never_the_proposal() -> None:
    draft = json.dumps(slug_dict(behaviour="Return x unchanged."))
    reply = f"<think>\nFirst idea:\n```json\n{draft}\n```\nNo, that is wrong.\n</think>\n" \
            f"```json\n{as_json(slug_dict())}\n```"
    meta = generate_metacode("slug", llm=ScriptedLLM(reply))
    assert meta == slug_meta()


def test_spellings_shapes_and_slips_are_read() -> None:
    data = slug_dict()
    reply = ("Here is the meta-code you asked for:\n```json\n{\n"
             f'  "targetPath": "{data["target_path"]}", "Symbol": "slugify", "kind": "Function",\n'
             f'  "signature": "{data["signature"]}",\n'
             f'  "behavior": "{data["behaviour"]}",\n'
             '  "inputs": {"text": "str"},  // one input\n'
             '  "outputs": "the slug",\n'
             '  "examples": ["slugify(\'Hello World\') == \'hello-world\'",'
             ' {"input": "slugify(\'A b\', sep=\'_\')", "output": "a_b"},'
             ' {"call": "slugify(None)", "exception": "TypeError"}],\n'
             '  "constraints": "no third-party imports",\n'
             '  "acceptanceChecks": ["words are joined with sep", "output is lower-case",],\n'
             '  "language": "python"\n}\n```\nLet me know if this works!')
    meta = generate_metacode("slug", llm=ScriptedLLM(reply))
    assert (meta.target_path, meta.symbol, meta.kind) == ("text/slug.py", "slugify", "function")
    assert meta.examples == slug_meta().examples
    assert meta.constraints == ("no third-party imports",)
    assert [(io.name, io.type) for io in meta.inputs] == [("text", "str")]
    assert meta.outputs[0].description == "the slug"
    assert meta.assumptions == ("the model's proposal also held language, which meta-code has "
                                "no field for (ignored)",)


def test_numbers_given_as_strings_are_fitted_to_the_return_type() -> None:
    data = count_dict(examples=[{"call": "count_words('a b')", "expected": "2"},
                                {"call": "count_words('')", "expected": 0}])
    meta = generate_metacode("count", llm=ScriptedLLM(as_json(data)))
    assert [e.expected for e in meta.examples] == [2, 0]
    assert meta.assumptions[-1] == ("example `count_words('a b')`: expected value '2' read as 2, "
                                    "since the signature returns `int`")
    assert not meta.questions


def test_a_real_disagreement_becomes_a_question_and_leaves_the_tests() -> None:
    data = count_dict(examples=[{"call": "count_words('a b')", "expected": "two"},
                                {"call": "count_words('')", "expected": 0}])
    meta = generate_metacode("count", llm=ScriptedLLM(as_json(data)))
    assert [e.call for e in meta.examples] == ["count_words('')"]
    assert meta.questions == ("Example `count_words('a b')` expects 'two', but the signature "
                              "returns `int`. Which is right? (The example is left out of the "
                              "tests until you say.)",)
    assert "**Questions for you**" in meta.render_markdown()


@pytest.mark.parametrize(("signature", "expected", "fitted", "question"), [
    ("def f(x) -> float", "2.5", 2.5, False),
    ("def f(x) -> bool", "true", True, False),
    ("def f(x) -> bool", "yes", None, True),
    ("def f(x) -> str", 5, None, True),
    ("def f(x) -> list[int]", ["1", 2], [1, 2], False),
    ("def f(x) -> int | None", None, None, False),
    ("def f(x) -> Optional[int]", "3", 3, False),
    ("def f(x) -> dict[str, int]", {"a": "1"}, {"a": 1}, False),
    ("def f(x) -> tuple[int, str]", [1, "a"], [1, "a"], False),
    ("def f(x) -> Slug", "anything", "anything", False),
    ("def f(x) -> int", 5.0, 5, False),
    ("def f(x) -> int", True, None, True),
])
def test_fitting_rules(signature: str, expected: object, fitted: object,
                       question: bool) -> None:
    data = {"kind": "function", "signature": signature,
            "examples": [{"call": "f(1)", "expected": expected}]}
    out = reconcile_examples(data)
    assert bool(out["questions"]) is question
    if not question:
        assert out["examples"][0]["expected"] == fitted


def test_null_docstring_like_values_and_unknown_kinds_are_still_refused() -> None:
    with pytest.raises(MetaCodeInvalid, match="kind: 'lambda' is not one of"):
        generate_metacode("x", llm=ScriptedLLM(as_json(slug_dict(kind="lambda"))),
                          max_attempts=1)


def test_parse_json_object_strips_reasoning_and_repairs() -> None:
    assert parse_json_object("<think>{'a': 0}</think>{'a': 1,}") == {"a": 1}
    with pytest.raises(MetaCodeInvalid, match="the reply was empty"):
        parse_json_object("")

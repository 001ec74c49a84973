"""Meta-code: validation messages, round trip, editing, rendering, generation with re-asks."""

from __future__ import annotations

import json

import pytest

from codemem.codegen.errors import MetaCodeInvalid
from codemem.codegen.metacode.generate import generate_metacode
from codemem.codegen.metacode.model import MetaCode
from codemem.codegen.metacode.testgen import example_tests, render_example_tests
from codemem.codegen.ports import ContextSnippet

from ...fakes import ScriptedLLM
from .helpers_codegen import as_json, slug_dict, slug_meta


def test_round_trip_is_lossless_and_json_safe() -> None:
    meta = slug_meta()
    data = meta.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert MetaCode.from_dict(data) == meta
    assert meta.params() == ("text", "sep")
    assert meta.module == "text.slug"


@pytest.mark.parametrize(("changes", "message"), [
    ({"kind": "lambda"}, "kind: 'lambda' is not one of"),
    ({"target_path": "../etc/passwd"}, "target_path: '../etc/passwd': '..' is not allowed"),
    ({"target_path": "/abs.py"}, "absolute paths are not allowed"),
    ({"signature": "def other(x)"}, "signature: defines 'other' but symbol is 'slugify'"),
    ({"signature": "def slugify(x"}, "is not a valid Python def/class header"),
    ({"acceptance_checks": []}, "acceptance_checks: give at least one check"),
    ({"examples": [{"call": "slugify(", "expected": 1}]}, "examples[0].call: 'slugify(' is not"),
    ({"examples": [{"call": "f()", "expected": 1, "raises": "E"}]}, "exactly one of 'expected'"),
    ({"examples": [{"call": "f()", "raises": "not an exc"}]}, "is not an exception name"),
    ({"symbol": "A.b", "kind": "function"}, "a top-level function is a bare name"),
    ({"colour": "red"}, "colour: unknown field"),
])
def test_invalid_fields_are_named_precisely(changes: dict, message: str) -> None:
    with pytest.raises(MetaCodeInvalid) as err:
        MetaCode.from_dict(slug_dict(**changes))
    assert message in str(err.value)


def test_missing_fields_are_all_listed() -> None:
    with pytest.raises(MetaCodeInvalid) as err:
        MetaCode.from_dict({"symbol": "x"})
    text = str(err.value)
    for key in ("target_path", "kind", "behaviour"):
        assert f"{key}: missing (required)" in text


def test_with_changes_revalidates_and_keeps_the_rest() -> None:
    meta = slug_meta()
    edited = meta.with_changes(constraints=["keep it under 20 lines"])
    assert edited.constraints == ("keep it under 20 lines",)
    assert edited.examples == meta.examples
    with pytest.raises(MetaCodeInvalid, match="kind"):
        meta.with_changes(kind="nope")
    with pytest.raises(MetaCodeInvalid, match="unknown meta-code field"):
        meta.with_changes(colour="red")


def test_method_params_drop_self() -> None:
    meta = slug_meta(symbol="Stack.push", kind="method", signature="def push(self, item)",
                     examples=[])
    assert meta.params() == ("item",)
    with pytest.raises(MetaCodeInvalid, match="a method needs Class.method"):
        slug_meta(symbol="push", kind="method", signature="def push(self, item)")


def test_renderings_show_every_part() -> None:
    meta = slug_meta()
    prompt, md = meta.render_for_prompt(), meta.render_markdown()
    assert "acceptance check 2: output is lower-case" in prompt
    assert "example: slugify(None) raises TypeError" in prompt
    assert "example: slugify('Hello World') == 'hello-world'" in prompt
    assert md.startswith("### `slugify` (function) in `text/slug.py`")
    assert "**Assumptions**" in md and "- words are separated by whitespace" in md


def test_generation_reasks_with_the_exact_error_then_succeeds() -> None:
    bad = slug_dict(kind="lambda")
    llm = ScriptedLLM("not json at all", as_json(bad), f"```json\n{as_json(slug_dict())}\n```")
    snippet = ContextSnippet("repo:text/util.py", "util", "def words(t): ...", 0.9)
    meta = generate_metacode("make a slug function", llm=llm, context=[snippet])
    assert meta == slug_meta()
    assert 'source="repo:text/util.py util"' in llm.prompts[0]
    assert "make a slug function" in llm.prompts[0]
    assert "Problems found:\nno JSON object in the answer; give the meta-code" in llm.prompts[1]
    assert "kind: 'lambda' is not one of" in llm.prompts[2]
    assert "not json at all" not in llm.prompts[2]


def test_generation_gives_up_after_the_budget() -> None:
    llm = ScriptedLLM(as_json(slug_dict(kind="x")), as_json(slug_dict(kind="y")))
    with pytest.raises(MetaCodeInvalid, match="after 2 attempt"):
        generate_metacode("slug", llm=llm, max_attempts=2)
    assert llm.calls == 2


def test_example_tests_embed_examples_as_data_only() -> None:
    hostile = slug_dict(examples=[{"call": "slugify('x')\nimport os", "expected": 1}])
    with pytest.raises(MetaCodeInvalid, match="examples\\[0\\].call"):
        MetaCode.from_dict(hostile)
    meta = slug_meta(examples=[{"call": "slugify(\"a'\\n)\")", "expected": "a'\n)"}])
    text = render_example_tests(meta)
    compile(text, "generated.py", "exec")  # still one valid module
    assert repr("slugify(\"a'\\n)\")") in text
    assert list(example_tests(meta)) == ["test_codemem_examples_slugify.py"]
    assert render_example_tests(slug_meta(examples=[])) == ""

"""A value copied from the meta-code prompt's template is no value (``metacode/placeholders``):
the template writes what goes in a field as ``<...>``, the schema refuses a copy, and the reader
leaves a copied item out, or refuses a copied required field with words the re-ask can use."""

from __future__ import annotations

import json
import re

import pytest

from codemem.codegen.metacode.generate import generate_metacode, read_metacode
from codemem.codegen.metacode.reply import MetaCodeReply
from codemem.codegen.metacode.steps import METACODE, METACODE_SCOPE
from codemem.llm.errors import ReplyRefused

from ...fakes import ScriptedLLM

GOOD = {"target_path": "text_utils.py", "symbol": "slugify", "kind": "function",
        "signature": "def slugify(title: str) -> str",
        "behaviour": "Turn a title into a lower-case URL slug.",
        "inputs": [{"name": "title", "type": "str", "description": "the title"}],
        "outputs": [{"name": "return", "type": "str", "description": "the slug"}],
        "examples": [{"call": "slugify('Hello World')", "expected": "hello-world"},
                     {"call": "slugify(None)", "raises": "TypeError"}],
        "constraints": [], "acceptance_checks": ["spaces become hyphens"], "assumptions": []}
#: what a small model writes when it copies the template (the prompt's own words)
PLACEHOLDERS = re.findall(r"<[^<>\"]*>", METACODE.template)


def test_the_template_says_every_field_as_a_placeholder_and_no_plain_word_to_copy() -> None:
    for step in (METACODE, METACODE_SCOPE):
        for stale in ("def name(params) -> type", "what it does", "name(arg)", "<JSON value>"):
            assert stale not in step.template
    assert len(PLACEHOLDERS) >= 15


@pytest.mark.parametrize("field", ["signature", "behaviour", "target_path", "symbol"])
def test_a_copied_required_field_violates_the_schema_and_is_refused_by_name(field: str) -> None:
    import jsonschema  # when the test runs: the Cat imports every .py and has no jsonschema

    copied = next(p for p in PLACEHOLDERS if field != "signature" or "header" in p)
    reply = {**GOOD, field: copied}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(reply, MetaCodeReply.reply_schema())
    with pytest.raises(ReplyRefused, match=field):
        read_metacode(json.dumps(reply))


def test_copied_items_examples_and_descriptions_are_left_out_and_said() -> None:
    reply = {**GOOD,
             "inputs": [*GOOD["inputs"], {"name": "<a parameter>", "type": "<its type>"}],
             "outputs": [{"name": "return", "type": "<the result type>",
                          "description": "<its meaning>"}],
             "examples": [*GOOD["examples"],
                          {"call": "slugify('a b')", "expected": "<the JSON value that call "
                                                                   "returns>"},
                          {"call": "<a call with a wrong argument>",
                           "raises": "<the exception raised>"}],
             "constraints": ["<a rule the code must keep>", "no external library"],
             "acceptance_checks": ["spaces become hyphens", "<a check a reviewer can verify>"],
             "assumptions": ["<what you assumed>"]}
    meta = read_metacode(json.dumps(reply))
    assert [i.name for i in meta.inputs] == ["title"]
    assert (meta.outputs[0].type, meta.outputs[0].description) == ("", "")
    assert [e.call for e in meta.examples] == ["slugify('Hello World')", "slugify(None)"]
    assert list(meta.constraints) == ["no external library"]
    assert list(meta.acceptance_checks) == ["spaces become hyphens"]
    assert list(meta.assumptions) == ["2 example(s) the model left as the template's placeholder "
                                "were left out: tell me examples to add"]


def test_a_value_that_only_looks_like_a_tag_is_kept() -> None:
    reply = {**GOOD, "examples": [{"call": "slugify('<br>')", "expected": "<br>"},
                                  {"call": "slugify('<a href>')", "expected": "a-href"}],
             "acceptance_checks": ["tags such as <b>bold</b> are dropped"]}
    meta = read_metacode(json.dumps(reply))
    assert [e.expected for e in meta.examples] == ["<br>", "a-href"]
    assert list(meta.acceptance_checks) == ["tags such as <b>bold</b> are dropped"]


def test_a_copied_signature_is_re_asked_once_naming_the_placeholder() -> None:
    copied = {**GOOD, "signature": PLACEHOLDERS[3]}
    llm = ScriptedLLM(json.dumps(copied), json.dumps(GOOD))
    meta = generate_metacode("write slugify in text_utils.py", llm=llm)
    assert meta.signature == GOOD["signature"] and len(llm.prompts) == 2
    assert "is the template's placeholder: write the request's own value" in llm.prompts[1]

"""Strict on what the loop needs, lenient on prose: a model's meta-code answer that leaves out
(or nulls, or empties) a scope place's ``why``, an input's or output's description, or the
assumptions is read at once with a sensible default, never re-asked; a bad path, symbol,
signature or example is still refused and re-asked with the exact error."""

from __future__ import annotations

import json

import pytest

from codemem.codegen.errors import MetaCodeInvalid
from codemem.codegen.metacode.generate import generate_metacode, read_metacode
from codemem.codegen.metacode.scope import DEFAULT_WHY

from ...fakes import ScriptedLLM
from .test_scope import FETCH, IMPACT

PLACES = [{"path": "app/main.py", "symbol": "run"},  # no why at all
          {"path": "app/cli.py", "symbol": "main", "why": None},
          {"path": "app/main.py", "symbol": "", "why": "  "},  # the import line
          {"path": "app/deep.py", "symbol": "go", "why": ""}]


def test_scope_places_without_why_get_it_from_the_impact_in_one_call() -> None:
    llm = ScriptedLLM(json.dumps({**FETCH, "scope": PLACES}))
    meta = generate_metacode("add a timeout to fetch", llm=llm, impact=IMPACT)
    assert len(llm.prompts) == 1  # no retry for prose
    assert [i.why for i in meta.scope] == ["calls `fetch`", "calls `fetch`", "imports `fetch`",
                                           "uses `fetch`"]
    assert "- `app/cli.py` :: `main`: calls `fetch`" in meta.render_markdown()


def test_without_an_impact_the_why_names_the_target_or_says_part_of_the_change() -> None:
    meta = read_metacode(json.dumps({**FETCH, "scope": PLACES[:1]}))
    assert meta.scope[0].why == "uses `fetch`"
    module = {**FETCH, "kind": "module", "symbol": "", "signature": "", "scope": PLACES[:1]}
    assert read_metacode(json.dumps(module)).scope[0].why == DEFAULT_WHY


@pytest.mark.parametrize("prose", [
    {"assumptions": None},
    {"assumptions": ""},
    {"constraints": None, "questions": None},
    {"inputs": [{"name": "url", "type": "str", "description": None},
                {"name": "timeout", "type": None}],
     "outputs": [{"name": "return", "type": "str"}]},
    {"inputs": {"url": "str", "timeout": {"type": "float"}}},
    {"outputs": "the body"},
])
def test_missing_or_null_prose_is_read_without_a_retry(prose) -> None:
    llm = ScriptedLLM(json.dumps({**FETCH, **prose}))
    meta = generate_metacode("add a timeout to fetch", llm=llm)
    assert len(llm.prompts) == 1 and meta.symbol == "fetch"
    assert all(isinstance(io.description, str) for io in (*meta.inputs, *meta.outputs))


@pytest.mark.parametrize(("bad", "error"), [
    ({"target_path": "../net/http.py"}, "target_path"),
    ({"symbol": "fetch it"}, "symbol"),
    ({"signature": "def fetch(url,"}, "signature"),
    ({"examples": [{"call": "fetch(", "expected": 1}]}, "examples[0]"),
    ({"scope": [{"path": "/etc/passwd", "symbol": "run"}]}, "scope[0].path"),
    ({"scope": [{"path": "app/main.py", "symbol": "not a name"}]}, "scope[0].symbol"),
])
def test_what_the_loop_needs_is_still_checked_and_re_asked(bad, error) -> None:
    llm = ScriptedLLM(*[json.dumps({**FETCH, **bad})] * 3)
    with pytest.raises(MetaCodeInvalid) as err:
        generate_metacode("add a timeout to fetch", llm=llm)
    assert len(llm.prompts) == 3 and error in str(err.value)
    assert "why" not in str(err.value)

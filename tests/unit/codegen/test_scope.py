"""A goal's scope: stored, validated, edited, rendered, and proposed from the index's impact."""

from __future__ import annotations

import json

import pytest

from codemem.codegen.errors import MetaCodeInvalid
from codemem.codegen.metacode.generate import ScopeItem, generate_metacode, read_metacode
from codemem.codegen.metacode.model import MetaCode
from codemem.codegen.metacode.scope import scope_from_impact
from codemem.memory.codeindex.impact import Impact, ImpactSite

from ...fakes import ScriptedLLM

FETCH = {
    "target_path": "net/http.py", "symbol": "fetch", "kind": "function",
    "signature": "def fetch(url, timeout=10)",
    "behaviour": "Fetch url, giving up after timeout seconds.",
    "examples": [{"call": "fetch('a', timeout=1)", "expected": "a"}],
    "acceptance_checks": ["every caller passes its timeout"],
}
SCOPE = [{"path": "app/main.py", "symbol": "run", "why": "passes timeout"},
         {"path": "app/cli.py", "symbol": "main", "why": "passes --timeout"}]
IMPACT = Impact("net/http.py", "fetch", "function", 4, 5, (
    ImpactSite("app/main.py", "run", "function", 4, 5, "calls"),
    ImpactSite("app/main.py", "", "", None, None, "imports"),
    ImpactSite("app/cli.py", "main", "function", 4, 5, "calls"),
    ImpactSite("app/main.py", "other", "function", 8, 9, "calls", level=2, via="run"),
    ImpactSite("tests/test_http.py", "test_fetch", "function", 4, 5, "calls", test=True),
))


def test_scope_round_trips_and_a_goal_without_one_reads_as_before() -> None:
    meta = MetaCode.from_dict({**FETCH, "scope": SCOPE})
    assert meta.scope == (ScopeItem("app/main.py", "run", "passes timeout"),
                          ScopeItem("app/cli.py", "main", "passes --timeout"))
    data = meta.to_dict()
    assert data["scope"] == SCOPE and MetaCode.from_dict(json.loads(json.dumps(data))) == meta
    plain = MetaCode.from_dict(FETCH)  # stored before scopes existed: no key at all
    assert plain.scope == () and "scope" not in plain.to_dict()


def test_the_user_narrows_and_widens_the_scope_like_any_field() -> None:
    meta = MetaCode.from_dict({**FETCH, "scope": SCOPE})
    narrow = meta.with_changes(scope=[item for item in meta.scope if item.path != "app/cli.py"])
    assert [i.path for i in narrow.scope] == ["app/main.py"]
    wide = narrow.with_changes(scope=[*narrow.scope, {"path": "app/deep.py", "symbol": "go",
                                                      "why": "passes timeout"}])
    assert [i.label() for i in wide.scope] == ["app/main.py :: run", "app/deep.py :: go"]
    assert wide.with_changes(scope=[]).scope == ()


@pytest.mark.parametrize(("scope", "message"), [
    ([{"path": "../x.py", "symbol": "f", "why": "w"}], "scope[0].path: '../x.py': '..'"),
    ([{"path": "a.py", "symbol": "not a name", "why": "w"}], "is not a qualified Python name"),
    ([{"path": "net/http.py", "symbol": "fetch", "why": "w"}], "the target itself"),
    ([{"path": "a.py", "why": "w", "extra": 1}], "scope[0]: unknown keys ['extra']"),
    ("app/main.py", "scope: must be a list of objects"),
])
def test_a_bad_scope_is_refused_with_the_place_named(scope, message) -> None:
    with pytest.raises(MetaCodeInvalid) as err:
        MetaCode.from_dict({**FETCH, "scope": scope})
    assert message in str(err.value)


def test_the_proposal_and_the_prompt_show_the_scope() -> None:
    meta = MetaCode.from_dict({**FETCH, "scope": [*SCOPE, {"path": "app/__init__.py",
                                                            "why": "re-exports it"}]})
    text = meta.render_markdown()
    assert ("**Scope**: this change to `fetch` also updates 3 places in 3 files:\n\n"
            "- `app/main.py` :: `run`: passes timeout\n"
            "- `app/cli.py` :: `main`: passes --timeout\n"
            "- `app/__init__.py` (module level): re-exports it") in text
    prompt = meta.render_for_prompt()
    assert "also changes: app/main.py :: run - passes timeout" in prompt
    assert "also changes: app/__init__.py (module level) - re-exports it" in prompt
    assert "Scope" not in MetaCode.from_dict(FETCH).render_markdown()


def test_the_models_scope_is_read_in_its_usual_spellings() -> None:
    reply = json.dumps({**FETCH, "callers_to_update": [
        {"file": "app/main.py", "caller": "run", "reason": "passes timeout"},
        "app/cli.py::main - passes --timeout"]})
    meta = read_metacode(reply)
    assert [(i.path, i.symbol, i.why) for i in meta.scope] == [
        ("app/main.py", "run", "passes timeout"), ("app/cli.py", "main", "passes --timeout")]
    assert read_metacode(json.dumps({**FETCH, "scope": None})).scope == ()


def test_with_an_impact_the_proposal_asks_for_the_scope_in_one_call() -> None:
    llm = ScriptedLLM(json.dumps({**FETCH, "scope": SCOPE}))
    meta = generate_metacode("add a timeout parameter to fetch and pass it from every caller",
                             llm=llm, impact=IMPACT)
    assert [i.path for i in meta.scope] == ["app/main.py", "app/cli.py"] and llm.calls == 1
    prompt = llm.prompts[0]
    assert '<<<DATA kind="impact" source="index:net/http.py::fetch">>>' in prompt
    assert "- app/main.py:4-5 `run` calls it" in prompt
    assert '"scope": [{"path": "relative/path.py"' in prompt


def test_without_an_impact_or_with_no_use_the_prompt_is_the_single_entity_one() -> None:
    for impact in (None, Impact("net/http.py", "fetch")):
        llm = ScriptedLLM(json.dumps(FETCH))
        generate_metacode("make fetch faster", llm=llm, impact=impact)
        assert "scope" not in llm.prompts[0] and "uses the target" not in llm.prompts[0]


def test_a_scope_built_from_the_impact_lists_direct_uses_outside_tests() -> None:
    items = scope_from_impact(IMPACT, "passes timeout")
    assert [(i.path, i.symbol, i.why) for i in items] == [
        ("app/main.py", "run", "passes timeout"), ("app/cli.py", "main", "passes timeout")]
    every = scope_from_impact(IMPACT, "follows", tests=True, imports=True)
    assert [(i.path, i.symbol) for i in every] == [
        ("app/main.py", "run"), ("app/main.py", ""), ("app/cli.py", "main"),
        ("tests/test_http.py", "test_fetch")]
    meta = MetaCode.from_dict(FETCH).with_changes(scope=list(items))
    assert len(meta.scope) == 2

"""Every structured step's schema carries every rule its reader applies.

Replies generated from each step's schema (``hypothesis-jsonschema``) are all read, by the same
reader the step uses (the meta-code's through ``MetaCode.from_dict``); and every refusal the
readers can give (the cases below, one per rule) is a schema violation (``jsonschema``): a reply
decoded under the schema, as a constraining server decodes it, is valid by construction. The
alternatives of an ``anyOf`` exclude each other (it stands for a one-of).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from codemem.codegen.checks.judge import judge_spec
from codemem.codegen.metacode.generate import _build
from codemem.codegen.metacode.reply import metacode_spec
from codemem.codegen.metacode.steps import METACODE, METACODE_SCOPE
from codemem.codegen.steps import DOCS, REVIEW, REVIEW_DOCS
from codemem.llm.errors import ReplyRefused
from codemem.llm.reader import ReadContext, ReplySpec, read_reply
from codemem.llm.schema import strict_schema
from codemem.memory.retrieval.score_replies import SCORE, list_spec

from ..codegen.test_scope import IMPACT

CHECKS = ("slug is lower case", "spaces become dashes", "punctuation is dropped")
IDS = ("M1", "M2", "M3")
#: (name, the spec the step's reader uses): each step, in the shapes of its calls
SPECS: dict[str, Callable[[], ReplySpec[Any]]] = {
    "metacode": lambda: metacode_spec(METACODE, _build),
    "metacode, the user's target": lambda: metacode_spec(
        METACODE, _build, target=("text/slug.py", "slugify", "function")),
    "metacode, a method": lambda: metacode_spec(
        METACODE, _build, target=("shop/invoice.py", "Invoice.total", "")),
    "metacode_scope": lambda: metacode_spec(METACODE_SCOPE, _build, IMPACT,
                                            ("net/http.py", "fetch", "function")),
    "judge": lambda: judge_spec(CHECKS),
    "docs": DOCS.spec,
    "review": REVIEW.spec,
    "review_docs": REVIEW_DOCS.spec,
    "score": SCORE.spec,
    "score_list": lambda: list_spec(IDS),
}


def _draft7() -> Any:
    """``jsonschema``'s draft-7 validator, imported when a test runs (the Cat imports every
    ``.py`` of the plugin, and has no ``jsonschema``)."""
    import jsonschema

    return jsonschema.Draft7Validator


def schema_of(name: str) -> dict[str, Any]:
    schema = SPECS[name]().json_schema
    assert schema is not None
    return dict(schema)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_schema_is_a_valid_draft7_schema_without_references(name: str) -> None:
    schema = schema_of(name)
    _draft7().check_schema(schema)
    assert "$ref" not in json.dumps(schema) and "oneOf" not in json.dumps(schema)


def _read(name: str, value: Any) -> Any:
    spec = SPECS[name]()
    return spec.build(value, ReadContext())


def _alternatives_exclude_each_other(node: Any, value: Any) -> None:
    """Where a value meets an ``anyOf``, it meets exactly one of its alternatives (objects)."""
    if isinstance(node, dict):
        if "anyOf" in node and all(v.get("type") == "object" for v in node["anyOf"]):
            met = [a for a in node["anyOf"] if _draft7()(a).is_valid(value)]
            assert len(met) == 1, (node, value)
        for key, sub in node.get("properties", {}).items():
            if isinstance(value, dict) and key in value:
                _alternatives_exclude_each_other(sub, value[key])
        items = node.get("items")
        if isinstance(value, list) and isinstance(items, dict):
            for item in value:
                _alternatives_exclude_each_other(items, item)




def _check_generated(name: str, value: Any, spec: ReplySpec[Any]) -> None:
    try:
        read = spec.build(value, ReadContext())
    except (ReplyRefused, ValueError) as err:
        raise AssertionError(f"{name}: a reply valid under the schema was refused: {err}\n"
                             f"{json.dumps(value)[:2000]}") from None
    assert spec.json_schema is not None
    _alternatives_exclude_each_other(spec.json_schema, value)
    if name == "score_list":  # every id scored, none refused: no re-ask
        assert set(read.scores) == set(IDS) and not read.refused, read
    if name == "judge":
        assert [e.check for e in read.checks] == [1, 2, 3]
    if name.startswith("metacode"):
        assert read.acceptance_checks and read.behaviour


_REGEXES: dict[tuple[str, int], Any] = {}


def _cached_regex(pattern: str, alphabet: Any) -> Any:
    """hypothesis-jsonschema builds a pattern's strategy again at every draw (seconds for the
    meta-code's header pattern); a strategy is immutable, so one per pattern serves them all."""
    from hypothesis_jsonschema import _from_schema

    key = (pattern, id(alphabet))
    if key not in _REGEXES:
        _REGEXES[key] = _from_schema.__dict__["_original_regex"](pattern, alphabet)
    return _REGEXES[key]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_reply_generated_from_the_schema_is_read(name: str) -> None:
    # imported here: the Cat imports every ``.py`` of the plugin and has neither
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import _from_schema, from_schema

    spec = SPECS[name]()  # built once: the reader of every generated reply

    @settings(max_examples=40, deadline=None, derandomize=True,
              phases=(Phase.explicit, Phase.generate),  # the failing reply is printed
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                     HealthCheck.data_too_large])
    @given(from_schema(schema_of(name)))
    def check(value: Any) -> None:
        _check_generated(name, value, spec)

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(_from_schema.__dict__, "_original_regex", _from_schema.from_js_regex)
        patch.setattr(_from_schema, "from_js_regex", _cached_regex)
        check()


def test_a_reply_of_the_schema_reads_the_same_from_its_json_text() -> None:
    """The reader's text path (fences, reasoning, repair) reads a schema-valid reply too."""
    value = {"checks": [{"check": i, "pass": i != 2, "reason": f"check {i}"} for i in (1, 2, 3)]}
    assert _draft7()(schema_of("judge")).is_valid(value)
    assert [e.passed for e in read_reply(json.dumps(value), judge_spec(CHECKS)).checks] == [
        True, False, True]


GOOD_META = {"target_path": "text/slug.py", "symbol": "slugify", "kind": "function",
             "signature": "def slugify(title: str) -> str", "behaviour": "Make a URL slug.",
             "examples": [{"call": "slugify('A b')", "expected": "a-b"},
                          {"call": "slugify(None)", "raises": "TypeError"}],
             "acceptance_checks": ["lower case"]}


def _meta(**changes: Any) -> dict[str, Any]:
    return {**GOOD_META, **changes}


def _example(**example: Any) -> dict[str, Any]:
    return _meta(examples=[example, {"call": "slugify('x')", "expected": "x"}])


#: replies each reader refuses, one per rule: (step, why, reply)
REFUSED: list[tuple[str, str, Any]] = [
    ("metacode", "no keys", {}),
    ("metacode", "no behaviour", {k: v for k, v in GOOD_META.items() if k != "behaviour"}),
    ("metacode", "a blank behaviour", _meta(behaviour="   ")),
    ("metacode", "an unknown kind", _meta(kind="helper", signature="")),
    ("metacode", "an absolute path", _meta(target_path="/etc/passwd.py")),
    ("metacode", "a path outside", _meta(target_path="../outside.py")),
    ("metacode", "a path in .git", _meta(target_path=".git/hooks.py")),
    ("metacode", "a symbol no name", _meta(symbol="1slug")),
    ("metacode", "a header Python cannot parse", _meta(signature="def slugify(title:)")),
    ("metacode", "no header", _meta(signature="slugify(title)")),
    ("metacode", "no acceptance check", _meta(acceptance_checks=[])),
    ("metacode", "blank acceptance checks", _meta(acceptance_checks=["  ", ""])),
    ("metacode", "an input without a name", _meta(inputs=[{"name": "", "type": "str"}])),
    ("metacode", "an example with both", _example(call="slugify('a')", expected="a",
                                                  raises="ValueError")),
    ("metacode", "an example with neither", _example(call="slugify('a')")),
    ("metacode", "a raise no name", _example(call="slugify('')", raises="an error")),
    ("metacode", "a call Python cannot parse", _example(call="slugify('a'", expected="a")),
    ("metacode_scope", "a scope path outside", _meta(
        target_path="net/http.py", symbol="fetch", signature="def fetch(url)",
        scope=[{"path": "../app.py", "symbol": "run", "why": "passes it"}])),
    ("metacode_scope", "a scope symbol no name", _meta(
        target_path="net/http.py", symbol="fetch", signature="def fetch(url)",
        scope=[{"path": "app/main.py", "symbol": "run()", "why": "passes it"}])),
    ("judge", "a check left out", {"checks": [{"check": 1, "pass": True, "reason": "ok"},
                                              {"check": 2, "pass": True, "reason": "ok"}]}),
    ("judge", "two verdicts for one check", {"checks": [
        {"check": 1, "pass": True, "reason": ""}, {"check": 1, "pass": False, "reason": ""},
        {"check": 2, "pass": True, "reason": ""}, {"check": 3, "pass": True, "reason": ""}]}),
    ("judge", "a check that does not exist", {"checks": [
        {"check": i, "pass": True, "reason": ""} for i in (1, 2, 3, 4)]}),
    ("judge", "a verdict neither pass nor fail", {"checks": [
        {"check": i, "pass": "maybe", "reason": ""} for i in (1, 2, 3)]}),
    ("judge", "an overall verdict against the checks", {"overall": True, "checks": [
        {"check": i, "pass": i != 2, "reason": ""} for i in (1, 2, 3)]}),
    ("review", "a verdict neither approve nor changes", {"verdict": "maybe",
                                                         "comments": []}),
    ("review", "changes without a comment", {"verdict": "changes", "comments": []}),
    ("review", "changes with blank comments", {"verdict": "changes", "comments": [" "]}),
    ("review_docs", "no verdict", {"docstring": "Make a slug.", "note": "", "comments": []}),
    ("docs", "a docstring that is no text", {"docstring": 5, "note": ""}),
    ("score", "a score above 1 on no scale", {"score": 5, "reason": "?"}),
    ("score", "a negative score", {"score": -0.5, "reason": "?"}),
    ("score", "a score in words", {"score": "high", "reason": "?"}),
    ("score_list", "no entry names a memory", {"scores": [{"id": "X7", "score": 0.4,
                                                           "reason": ""}]}),
]
#: refusals of one entry of a listwise answer (that memory is asked again)
REFUSED_ENTRIES: list[tuple[str, Any]] = [
    ("a score above 1", {"scores": [{"id": i, "score": 5 if i == "M2" else 0.5, "reason": ""}
                                    for i in IDS]}),
    ("one memory given twice", {"scores": [
        {"id": "M1", "score": 0.5, "reason": ""}, {"id": "M1", "score": 0.9, "reason": ""},
        {"id": "M3", "score": 0.1, "reason": ""}]}),
]


@pytest.mark.parametrize(("name", "why", "reply"), REFUSED, ids=[w for _, w, _ in REFUSED])
def test_every_refusal_is_a_schema_violation(name: str, why: str, reply: Any) -> None:
    with pytest.raises((ReplyRefused, ValueError)):
        _read(name, reply)
    errors = list(_draft7()(schema_of(name)).iter_errors(reply))
    assert errors, f"{name}: refused ({why}) but valid under the schema"


@pytest.mark.parametrize(("why", "reply"), REFUSED_ENTRIES, ids=[w for w, _ in REFUSED_ENTRIES])
def test_every_entry_refused_in_a_scoring_list_is_a_schema_violation(why: str,
                                                                     reply: Any) -> None:
    read = _read("score_list", reply)
    assert read.refused or set(read.scores) != set(IDS)
    assert not _draft7()(schema_of("score_list")).is_valid(reply)


def test_what_ties_the_meta_codes_fields_together_is_read_and_said() -> None:
    """A keyword as a name, a header naming another function, a kind the header contradicts:
    read as the rest of the answer says, each change in the assumptions."""
    meta = _read("metacode", _meta(kind="class", symbol="slug.if",
                                   signature="def make(from, to=None) -> str"))
    assert (meta.kind, meta.symbol, meta.signature) == (
        "method", "slug.if_", "def if_(from_, to=None) -> str")
    assert len(meta.assumptions) == 3
    target = _meta(target_path="net/http.py", symbol="fetch", signature="def fetch(url)",
                   scope=[{"path": "net/http.py", "symbol": "fetch", "why": "itself"}])
    assert _read("metacode_scope", target).scope == ()


def test_the_users_target_is_pinned_in_the_schema() -> None:
    props = schema_of("metacode, the user's target")["properties"]
    assert props["target_path"] == {"const": "text/slug.py"}
    assert props["symbol"] == {"const": "slugify"} and props["kind"] == {"const": "function"}
    assert props["signature"]["pattern"].startswith("^(async )?def slugify\\(")
    calls = [e["properties"]["call"]["pattern"] for e in props["examples"]["items"]["anyOf"]]
    assert all(c.startswith("^slugify\\(") for c in calls)  # the examples call the target
    method = schema_of("metacode, a method")["properties"]
    assert method["kind"] == {"const": "method"}
    assert "scope" not in props and "scope" in schema_of("metacode_scope")["properties"]


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if "properties" in node:
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_openais_strict_form_of_every_schema_keeps_to_what_strict_mode_takes(name: str) -> None:
    """Strict mode: every property required (optional ones nullable), no extra keys, a root
    object, and none of the keywords it refuses."""
    strict = strict_schema(schema_of(name))
    _draft7().check_schema(strict)
    assert strict.get("type") == "object" and "anyOf" not in strict
    for node in _objects(strict):
        assert node["required"] == list(node["properties"])
        assert node["additionalProperties"] is False
    text = json.dumps(strict)
    for keyword in ("minLength", "maxLength", "additionalItems", "const", "oneOf"):
        assert f'"{keyword}"' not in text
    assert not any(isinstance(n.get("items"), list) for n in _objects({"x": strict}))


def test_a_strict_reply_with_nulls_for_what_it_leaves_out_is_read() -> None:
    reply = {**GOOD_META, "inputs": None, "outputs": None, "constraints": None,
             "assumptions": None}
    assert _draft7()(strict_schema(schema_of("metacode"))).is_valid(reply)
    assert _read("metacode", reply).inputs == ()

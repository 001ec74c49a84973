"""Every plugin call reaches the Cat's chat model with its limit, its schema and its wait.

Fake chat models named like LangChain's classes record the options each call was bound with (the
real classes, through a local HTTP server, are in tests/integration/test_structured_llm.py). A
server that refuses a request form gets the next simpler one, and the form that worked is
remembered for the model.
"""

from __future__ import annotations

import pytest

from codemem.app.host import llm_port, model_server, structured_llm
from codemem.app.host.structured_llm import StructuredChatLLM, call_options
from codemem.codegen.checks.judge import judge_spec
from codemem.codegen.steps import GENERATE
from codemem.codegen.steps import REVIEW as REVIEW_STEP
from codemem.llm.bounds import CallOptions, TimeBudgetSpent, call
from codemem.llm.retry import ask
from codemem.memory.retrieval.score_replies import list_spec

REVIEW = '{"verdict": "approve", "comments": []}'


class Refused(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status


class Recording:
    """Records the options of each ``bind`` and answers ``reply``; refuses the forms in
    ``refuse`` (a ``response_format`` type or ``format`` kind) with HTTP 400."""

    def __init__(self, reply: str = REVIEW, refuse: tuple[str, ...] = (),
                 base_url: str = "http://127.0.0.1:1/v1", model: str = "m") -> None:
        self.bound: list[dict] = []
        self.reply, self.refuse = reply, refuse
        self.base_url, self.model_name = base_url, model

    def bind(self, **options: object) -> Recording.Bound:
        self.bound.append(options)
        return Recording.Bound(self, options)

    class Bound:
        def __init__(self, model: Recording, options: dict) -> None:
            self.model, self.options = model, options

        def invoke(self, prompt: object, config: object = None) -> object:
            form = self.options.get("response_format") or {}
            kind = form.get("type") if isinstance(form, dict) else None
            fmt = self.options.get("format")
            fmt_kind = "schema" if isinstance(fmt, dict) else fmt
            if kind in self.model.refuse or fmt_kind in self.model.refuse \
                    or ("limits" in self.model.refuse and not kind and not fmt):
                raise Refused(400)
            return type("Message", (), {"content": self.model.reply})()


class ChatOpenAI(Recording):
    """Named like LangChain's: the plugin recognises the class by name."""


class ChatOllama(Recording):
    _default_params = {"options": {"num_ctx": 8192, "temperature": 0.2, "top_k": None}}


class ChatSomethingElse(Recording):
    pass


@pytest.fixture(autouse=True)
def forget_servers(monkeypatch):
    """Each test meets its servers for the first time (no data folder: nothing is kept)."""
    book = model_server.ServerBook()
    monkeypatch.setattr(structured_llm, "BOOK", book)
    monkeypatch.setattr(model_server, "BOOK", book)


def plain_calls() -> tuple[list[str], object]:
    seen: list[str] = []

    def plain(prompt: str) -> str:
        seen.append(prompt)
        return REVIEW

    return seen, plain


def test_openai_compatible_models_get_the_limit_the_wait_and_the_schema():
    model = ChatOpenAI()
    _, plain = plain_calls()
    llm = StructuredChatLLM(plain, lambda: model, mode="auto")
    asked = ask(llm, "Review. Answer with ONE JSON object.", REVIEW_STEP.spec())
    assert asked.ok
    (options,) = model.bound
    assert options["max_tokens"] == REVIEW_STEP.max_tokens
    sent = options["response_format"]
    assert sent["type"] == "json_schema" and "verdict" in sent["json_schema"]["schema"][
        "anyOf"][0]["properties"]
    call(llm, "p", CallOptions(max_tokens=7, timeout_s=2.5))
    assert model.bound[-1] == {"max_tokens": 7, "timeout": 2.5}  # no schema, no format


def test_ollama_gets_num_predict_with_its_own_options_and_the_schema_as_format():
    model = ChatOllama()
    _, plain = plain_calls()
    StructuredChatLLM(plain, lambda: model, mode="auto").complete_with(
        "p", CallOptions(max_tokens=50, json_schema={"type": "object"}))
    assert model.bound == [{"options": {"num_ctx": 8192, "temperature": 0.2,
                                        "num_predict": 50},
                            "format": {"type": "object"}}]
    assert call_options(model, CallOptions(json_schema={"type": "object"}), "json_object") == {
        "format": "json"}


def test_a_refused_schema_falls_back_to_json_mode_then_limits_only_and_is_remembered():
    model = ChatOpenAI(refuse=("json_schema", "json_object"))
    _, plain = plain_calls()
    llm = StructuredChatLLM(plain, lambda: model, mode="auto")
    assert llm.complete_with("p", CallOptions(max_tokens=9, json_schema={})) == REVIEW
    assert [o.get("response_format", {}).get("type") for o in model.bound] == [
        "json_schema", "json_object", "json_object", None]
    assert "schema" in model.bound[1]["response_format"]  # llama-cpp-python's form
    assert "schema" not in model.bound[2]["response_format"]
    model.bound.clear()
    llm.complete_with("q", CallOptions(max_tokens=9, json_schema={}))
    assert model.bound == [{"max_tokens": 9}]  # straight to the form that worked


def test_a_server_refusing_even_the_limit_gets_the_cats_plain_call_from_then_on():
    model = ChatOpenAI(refuse=("json_schema", "json_object", "limits"))
    seen, plain = plain_calls()
    llm = StructuredChatLLM(plain, lambda: model, mode="json_schema")
    assert llm.complete_with("p", CallOptions(max_tokens=9, json_schema={})) == REVIEW
    assert len(model.bound) == 4 and seen == ["p"]
    llm.complete_with("q", CallOptions(max_tokens=9))
    assert len(model.bound) == 4 and seen == ["p", "q"]


def test_other_errors_are_not_taken_for_a_refusal():
    class Broken(ChatOpenAI):
        def bind(self, **options: object) -> object:
            raise TimeoutError("no answer")

    _, plain = plain_calls()
    with pytest.raises(TimeoutError):
        StructuredChatLLM(plain, Broken).complete_with("p", CallOptions(max_tokens=3))


def test_off_sends_limits_but_no_format_and_unknown_models_get_the_plain_call():
    model = ChatOpenAI()
    _, plain = plain_calls()
    StructuredChatLLM(plain, lambda: model, mode="").complete_with(
        "p", CallOptions(max_tokens=5, json_schema={"type": "object"}))
    assert model.bound == [{"max_tokens": 5}]
    other = ChatSomethingElse()
    seen, plain = plain_calls()
    StructuredChatLLM(plain, lambda: other).complete_with("p", CallOptions(max_tokens=5))
    assert other.bound == [] and seen == ["p"]


def test_the_plugins_llm_bounds_every_call_and_adds_the_reasoning_allowance(monkeypatch):
    model = ChatOpenAI(reply='{"scores": [{"id": "M1", "score": 0.9, "reason": "r"}]}')
    monkeypatch.setattr(llm_port, "cat_chat_model", lambda: model)
    monkeypatch.setattr(llm_port, "cat_llm", lambda prompt: "unused")
    llm = llm_port.PluginLLM("auto", window=4096)
    llm("write the code")  # a draft: the plain limit
    assert model.bound[-1]["max_tokens"] == GENERATE.max_tokens
    ask(llm, "score", list_spec(("M1", "M2", "M3")))
    assert model.bound[-1]["max_tokens"] == 40 + 35 * 3
    thinking = llm_port.PluginLLM("auto", window=8192, extra_tokens=2048)
    ask(thinking, "judge", judge_spec(("a", "b")))
    assert model.bound[-1]["max_tokens"] == 2048 + 120 + 80 * 2


def test_the_limit_is_lowered_to_what_the_window_leaves(monkeypatch):
    model = ChatOpenAI()
    monkeypatch.setattr(llm_port, "cat_chat_model", lambda: model)
    llm = llm_port.PluginLLM("auto", window=1024)
    llm("x" * 2400)  # about 800 tokens measured: 1024 - 48 (template) - 800 left
    assert model.bound[-1]["max_tokens"] == 1024 - 48 - 800


def test_the_action_budget_caps_each_calls_wait_and_stops_further_calls(monkeypatch):
    model = ChatOpenAI()
    monkeypatch.setattr(llm_port, "cat_chat_model", lambda: model)
    meter = llm_port.Meter()
    meter.begin(30.0)
    counted = meter.wrap(llm_port.PluginLLM("auto"))
    counted("p")
    assert 0 < model.bound[-1]["timeout"] <= 30.0
    meter.budget._deadline -= 31  # the budget is spent
    with pytest.raises(TimeBudgetSpent, match="30 s per action"):
        counted("again")
    assert meter.calls == 1  # the refused call was never made

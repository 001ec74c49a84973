"""Native JSON requests built by ``structured_llm`` from the REAL LangChain classes of the Cat.

A local HTTP server stands in for the provider and records each request body (no network): the
OpenAI-compatible model must send ``response_format``, the Ollama model ``format: "json"``, and a
model of any other class must fall back to the plain call. Then the whole path is checked: the
``llm`` layer asks through ``complete_json`` and reads the reply. A form being tried costs one
request when it is refused, whatever the client's retries, and is found once per server and
model, across restarts; a refusal that states the window is learnt and the call fitted again.
Opt-in with the other integration tests (they need the Cat's environment, where LangChain is
installed).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from codemem.app.host import model_server, structured_llm
from codemem.app.host.structured_llm import StructuredChatLLM
from codemem.codegen.steps import REVIEW
from codemem.llm.bounds import CallOptions
from codemem.llm.retry import ask

ANSWER = '{"verdict": "changes", "comments": ["rename x"]}'


class Recorder(BaseHTTPRequestHandler):
    bodies: list[tuple[str, dict]] = []
    #: ``response_format`` types answered with ``status``, as an older server does (llama-cpp-
    #: python answers ``json_schema`` with a 500, which the OpenAI client retries)
    refuse: tuple[str, ...] = ()
    status = 400
    #: prompts longer than this many characters are refused, stating a window of 1024 tokens
    longest = 10**9

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
        if self.path == "/api/show":  # Ollama's model facts: none (it says no num_ctx)
            return self._json(200, {"parameters": "", "model_info": {}})
        Recorder.bodies.append((self.path, body))
        if len(json.dumps(body.get("messages", ""))) > Recorder.longest:
            return self._json(400, {"error": {"message": "This model's maximum context length "
                                              "is 1024 tokens. However, you requested more",
                                              "code": "context_length_exceeded"}})
        if (body.get("response_format") or {}).get("type") in Recorder.refuse:
            data = b'{"error": {"message": "unsupported response_format", "code": 400}}'
            self.send_response(Recorder.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if self.path.endswith("/chat/completions"):
            payload = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop", "message": {
                           "role": "assistant", "content": ANSWER}}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
            data, kind = json.dumps(payload).encode(), "application/json"
        else:  # Ollama /api/chat, streamed as NDJSON
            line = {"model": "m", "created_at": "2024-01-01T00:00:00Z", "done": True,
                    "message": {"role": "assistant", "content": ANSWER}, "done_reason": "stop"}
            data, kind = (json.dumps(line) + "\n").encode(), "application/x-ndjson"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch):
    Recorder.bodies, Recorder.refuse, Recorder.status, Recorder.longest = [], (), 400, 10**9
    book = model_server.ServerBook()  # every test meets its server for the first time
    monkeypatch.setattr(structured_llm, "BOOK", book)
    monkeypatch.setattr(model_server, "BOOK", book)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def plain(prompt: str) -> str:
    raise AssertionError("the JSON path must not fall back for this model")


@pytest.mark.parametrize("mode", ["json_object", "json_schema"])
def test_openai_compatible_models_send_response_format(server, mode) -> None:
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(base_url=f"{server}/v1", api_key="test", model="gpt-4o-mini",
                       max_retries=0)
    llm = StructuredChatLLM(plain, lambda: model, mode=mode)
    asked = ask(llm, "Review this. Answer with ONE JSON object.", REVIEW.spec())
    assert asked.value is not None and asked.value.comments == ["rename x"]
    (path, body), = Recorder.bodies
    assert path == "/v1/chat/completions"
    assert body["messages"][-1]["content"].startswith("Review this.")
    if mode == "json_object":
        assert body["response_format"] == {"type": "json_object"}
    else:
        sent = body["response_format"]
        assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "answer"
        assert "verdict" in sent["json_schema"]["schema"]["anyOf"][0]["properties"]


def test_the_cats_openai_compatible_config_class_is_recognised(server) -> None:
    from cat.factory.custom_llm import CustomOpenAI

    model = CustomOpenAI(url=f"{server}/v1", api_key="test", model_name="local-model")
    text = StructuredChatLLM(plain, lambda: model).complete_json("JSON please", {})
    assert json.loads(text)["verdict"] == "changes"
    assert Recorder.bodies[0][1]["response_format"] == {"type": "json_object"}


def test_ollama_models_send_format_json(server) -> None:
    from cat.factory.custom_llm import CustomOllama

    model = CustomOllama(base_url=server + "/", model="llama3")
    llm = StructuredChatLLM(plain, lambda: model)
    text = llm.complete_json("JSON please", {"type": "object"})
    assert json.loads(text)["verdict"] == "changes"
    (path, body), = Recorder.bodies
    assert path == "/api/chat" and body["format"] == "json"


def test_any_other_model_falls_back_to_the_plain_call() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    model = FakeListChatModel(responses=["never used"])
    calls: list[str] = []
    llm = StructuredChatLLM(lambda p: calls.append(p) or ANSWER, lambda: model)
    assert llm.complete_json("JSON please", {}) == ANSWER and calls == ["JSON please"]


def test_the_plugins_llm_asks_the_cats_model_for_json_when_the_setting_says_so(
        server, monkeypatch) -> None:
    """The glue's path: ``PluginLLM`` (the "Native JSON mode" setting) resolves the Cat's chat
    model at call time, asks it for JSON, and the request's meter counts the call."""
    from langchain_openai import ChatOpenAI

    from codemem.app.host import llm_port

    model = ChatOpenAI(base_url=f"{server}/v1", api_key="test", model="gpt-4o-mini",
                       max_retries=0)
    monkeypatch.setattr(llm_port, "cat_chat_model", lambda: model)
    monkeypatch.setattr(llm_port, "cat_llm", plain)
    meter = llm_port.Meter()
    asked = ask(meter.wrap(llm_port.PluginLLM("json_object")), "Review this.", REVIEW.spec())
    assert asked.value is not None and asked.value.comments == ["rename x"]
    assert meter.calls == 1 and Recorder.bodies[0][1]["response_format"] == {
        "type": "json_object"}
    ask(meter.wrap(llm_port.PluginLLM("")), "Review this.", REVIEW.spec())
    assert "response_format" not in Recorder.bodies[-1][1]  # off: no format, the limit only
    assert Recorder.bodies[-1][1]["max_tokens"] == REVIEW.spec().max_tokens


def test_the_limit_and_the_wait_reach_the_server_and_a_refused_schema_falls_back(server):
    """The real ``ChatOpenAI`` (the class the Cat's OpenAI-compatible config builds on): the
    step's limit goes as ``max_tokens``; a server answering 400 to ``json_schema`` gets
    ``json_object`` with the schema beside it at once, and the next call goes straight to the
    form that worked."""
    from cat.factory.custom_llm import CustomOpenAI

    Recorder.refuse = ("json_schema",)
    model = CustomOpenAI(url=f"{server}/v1", api_key="test", model_name="local", max_retries=0)
    llm = StructuredChatLLM(plain, lambda: model, mode="auto")
    asked = ask(llm, "Review this. Answer with ONE JSON object.", REVIEW.spec())
    assert asked.value is not None
    first, second = (body for _, body in Recorder.bodies)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"]["type"] == "json_object"  # llama-cpp-python's form:
    assert "verdict" in second["response_format"]["schema"]["anyOf"][0][
        "properties"]  # schema beside it
    assert first["max_tokens"] == second["max_tokens"] == REVIEW.spec().max_tokens
    llm.complete_with("again", CallOptions(max_tokens=5, json_schema={"type": "object"}))
    assert len(Recorder.bodies) == 3 and Recorder.bodies[-1][1]["response_format"] == {
        "type": "json_object", "schema": {"type": "object"}}


def test_a_call_given_up_on_is_closed_by_the_client(server):
    """The wait goes as the request timeout: the client raises and closes the connection when
    it passes, rather than leaving the request open behind the next one."""
    import time

    from langchain_openai import ChatOpenAI

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            time.sleep(1.5)  # never answers in time

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        model = ChatOpenAI(base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                           api_key="test", model="m", max_retries=0)
        llm = StructuredChatLLM(plain, lambda: model, mode="auto")
        started = time.monotonic()
        with pytest.raises(Exception, match="(?i)timed? ?out"):
            llm.complete_with("slow", CallOptions(max_tokens=5, timeout_s=0.3))
        assert time.monotonic() - started < 1.2
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_ollama_gets_num_predict_and_keeps_its_own_options(server) -> None:
    from cat.factory.custom_llm import CustomOllama

    model = CustomOllama(base_url=server + "/", model="llama3", num_ctx=8192)
    StructuredChatLLM(plain, lambda: model, mode="json_object").complete_with(
        "JSON please", CallOptions(max_tokens=64, json_schema={"type": "object"}))
    (path, body), = Recorder.bodies
    assert body["format"] == "json"
    assert body["options"]["num_predict"] == 64 and body["options"]["num_ctx"] == 8192


def test_a_form_being_tried_costs_one_request_and_is_kept_across_restarts(server, tmp_path):
    """A server of unknown kind answering 500 to ``json_schema`` (llama-cpp-python's answer): the
    client's default retries (two) are not used on a form being tried, so the refusal costs
    one request; the form that worked is kept in the data folder, and after a restart the
    first call goes straight to it."""
    from cat.factory.custom_llm import CustomOpenAI

    Recorder.refuse, Recorder.status = ("json_schema",), 500
    model = CustomOpenAI(url=f"{server}/v1", api_key="test", model_name="local")
    assert model.max_retries == 2  # the client's own default
    llm = StructuredChatLLM(plain, lambda: model, mode="auto", data_dir=str(tmp_path))
    assert ask(llm, "Review this.", REVIEW.spec()).value is not None
    assert [b["response_format"]["type"] for _, b in Recorder.bodies] == [
        "json_schema", "json_object"]
    Recorder.bodies.clear()
    restarted = model_server.ServerBook()  # a new process: only the data folder remains
    structured_llm.BOOK = model_server.BOOK = restarted
    again = StructuredChatLLM(plain, lambda: model, mode="auto", data_dir=str(tmp_path))
    assert ask(again, "Review this.", REVIEW.spec()).value is not None
    assert [b["response_format"]["type"] for _, b in Recorder.bodies] == ["json_object"]


def test_a_window_stated_in_a_refusal_is_learnt_and_the_call_fitted_again(server, tmp_path,
                                                                          monkeypatch):
    """With the window on auto and a server that says nothing, the plugin assumes 4096 tokens;
    the server refuses a longer prompt stating 1024: the plugin records it, fits the prompt
    into 1024 and asks once more, and the next call is fitted at once."""
    from cat.factory.custom_llm import CustomOpenAI

    from codemem.app.host import llm_port
    from codemem.llm.templates import data_block

    model = CustomOpenAI(url=f"{server}/v1", api_key="test", model_name="local")
    monkeypatch.setattr(llm_port, "cat_chat_model", lambda: model)
    Recorder.longest = 3000
    llm = llm_port.PluginLLM("auto", data_dir=str(tmp_path))
    assert llm.current_window().tokens == 4096
    context = "\n".join(data_block("repo", f"repo:m{i}.py", "x = 1\n" * 60) for i in range(12))
    prompt = f"Review this.\n{context}\nAnswer with ONE JSON object."
    assert ask(llm, prompt, REVIEW.spec()).value is not None
    refused, fitted = (len(json.dumps(b["messages"])) for _, b in Recorder.bodies)
    assert refused > 3000 >= fitted
    assert llm.current_window().describe().startswith("1024 tokens (the server's refusal")
    Recorder.bodies.clear()
    assert ask(llm, prompt, REVIEW.spec()).value is not None
    assert len(Recorder.bodies) == 1  # fitted before it was sent

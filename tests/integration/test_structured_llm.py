"""Native JSON requests built by ``structured_llm`` from the REAL LangChain classes of the Cat.

A local HTTP server stands in for the provider and records each request body (no network): the
OpenAI-compatible model must send ``response_format``, the Ollama model ``format: "json"``, and a
model of any other class must fall back to the plain call. Then the whole path is checked: the
``llm`` layer asks through ``complete_json`` and reads the reply. Opt-in with the other
integration tests (they need the Cat's environment, where LangChain is installed).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from codemem.app.host.structured_llm import StructuredChatLLM
from codemem.codegen.reply_models import review_spec
from codemem.llm.retry import ask

ANSWER = '{"verdict": "changes", "comments": ["rename x"]}'


class Recorder(BaseHTTPRequestHandler):
    bodies: list[tuple[str, dict]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
        Recorder.bodies.append((self.path, body))
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

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server():
    Recorder.bodies = []
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
    asked = ask(llm, "Review this. Answer with ONE JSON object.", review_spec())
    assert asked.value is not None and asked.value.comments == ["rename x"]
    (path, body), = Recorder.bodies
    assert path == "/v1/chat/completions"
    assert body["messages"][-1]["content"].startswith("Review this.")
    if mode == "json_object":
        assert body["response_format"] == {"type": "json_object"}
    else:
        sent = body["response_format"]
        assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "answer"
        assert "verdict" in sent["json_schema"]["schema"]["properties"]


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
    asked = ask(meter.wrap(llm_port.PluginLLM("json_object")), "Review this.", review_spec())
    assert asked.value is not None and asked.value.comments == ["rename x"]
    assert meter.calls == 1 and Recorder.bodies[0][1]["response_format"] == {
        "type": "json_object"}
    assert not hasattr(llm_port.PluginLLM(""), "complete_json")  # off: the plain call only

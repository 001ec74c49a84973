"""What a model's server says about itself, read from small real HTTP servers on loopback that
answer as llama.cpp, llama-cpp-python, Ollama, vLLM and LM Studio do (their routes and bodies as
their documentation and sources give them; no mock of the HTTP client)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from codemem.llm.servers import (
    Endpoint,
    FactsFile,
    ServerFacts,
    hosted_window,
    read_facts,
    window_from_refusal,
)

#: ``(method, path, request body) -> (status, answer)``
Route = Callable[[str, str, Any], tuple[int, Any]]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _answer(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null") if length else None
        self.server.seen.append((method, self.path, body))
        status, answer = self.server.route(method, self.path, body)
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, route: Route) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.route, self.seen = route, []


@pytest.fixture
def serve() -> Iterator[Callable[[Route], _Server]]:
    started: list[_Server] = []

    def start(route: Route) -> _Server:
        server = _Server(route)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


def _url(server: _Server, tail: str = "/v1") -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{tail}"


NOT_FOUND = (404, {"detail": "Not Found"})


def test_llama_cpp_says_its_window_in_props(serve) -> None:
    def llama_cpp(method: str, path: str, body: Any) -> tuple[int, Any]:
        if path == "/props":
            return 200, {"default_generation_settings": {"n_ctx": 2048, "temperature": 0.8},
                         "total_slots": 1, "chat_template": "..."}
        return NOT_FOUND

    server = serve(llama_cpp)
    facts = read_facts(Endpoint("openai", _url(server), "qwen"))
    assert facts == ServerFacts("llama.cpp", 2048, "llama.cpp's /props (n_ctx)", "json_schema")


def test_llama_cpp_python_states_its_window_when_it_refuses_an_oversized_prompt(serve) -> None:
    """It publishes no window; its first step refuses a prompt longer than the window, before
    any model work, and says the window: one request reads it."""

    def llama_cpp_python(method: str, path: str, body: Any) -> tuple[int, Any]:
        if path == "/openapi.json":
            return 200, {"openapi": "3.1.0", "info": {"title": "🦙 llama.cpp Python API",
                                                      "version": "0.3.16"}}
        if path == "/v1/chat/completions":
            prompt = len(body["messages"][0]["content"].split())
            return 400, {"error": {"message": "This model's maximum context length is 4096 "
                                   f"tokens. However, you requested {prompt + 1} tokens",
                                   "code": "context_length_exceeded"}}
        return NOT_FOUND

    server = serve(llama_cpp_python)
    facts = read_facts(Endpoint("openai", _url(server), "smollm2"))
    assert (facts.kind, facts.window, facts.form) == ("llama-cpp-python", 4096,
                                                       "json_object_schema")
    posts = [s for s in server.seen if s[0] == "POST"]
    assert len(posts) == 1 and posts[0][2]["max_tokens"] == 1
    assert len(posts[0][2]["messages"][0]["content"]) > 2_000_000  # beyond any window


def test_ollama_says_num_ctx_or_gets_its_default_within_the_models_window(serve) -> None:
    parameters = {"text": "num_ctx 8192\nstop \"<|im_end|>\""}

    def ollama(method: str, path: str, body: Any) -> tuple[int, Any]:
        if path == "/api/show" and method == "POST":
            return 200, {"parameters": parameters["text"], "model_info": {
                "general.architecture": "qwen2", "qwen2.context_length": 32768}}
        if path == "/api/version":
            return 200, {"version": "0.6.8"}
        return NOT_FOUND

    server = serve(ollama)
    root = _url(server, "")
    assert read_facts(Endpoint("ollama", root, "qwen2.5")).window == 8192
    parameters["text"] = 'stop "<|im_end|>"'
    facts = read_facts(Endpoint("ollama", root, "qwen2.5"))
    assert (facts.window, facts.form) == (4096, "ollama_format")
    assert "32768" in facts.window_source
    assert read_facts(Endpoint("ollama", root, "qwen2.5", num_ctx=16384)).window == 16384
    via_openai = read_facts(Endpoint("openai", _url(server), "qwen2.5"))  # Ollama's /v1
    assert (via_openai.kind, via_openai.form) == ("ollama-openai", "json_schema")


def test_vllm_and_lm_studio_say_it_in_their_model_lists(serve) -> None:
    def vllm(method: str, path: str, body: Any) -> tuple[int, Any]:
        if path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": "Qwen/Qwen2.5-7B", "object": "model",
                                                     "owned_by": "vllm",
                                                     "max_model_len": 32768}]}
        return NOT_FOUND

    def lm_studio(method: str, path: str, body: Any) -> tuple[int, Any]:
        if path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": "qwen2.5-7b", "object": "model"}]}
        if path == "/api/v0/models":
            return 200, {"object": "list", "data": [{"id": "qwen2.5-7b", "state": "loaded",
                                                     "max_context_length": 32768,
                                                     "loaded_context_length": 8192}]}
        return NOT_FOUND

    facts = read_facts(Endpoint("openai", _url(serve(vllm)), "Qwen/Qwen2.5-7B"))
    assert (facts.kind, facts.window, facts.form) == ("vllm", 32768, "guided_json")
    facts = read_facts(Endpoint("openai", _url(serve(lm_studio)), "qwen2.5-7b"))
    assert (facts.kind, facts.window, facts.form) == ("lmstudio", 8192, "json_schema")


def test_a_server_that_says_nothing_gives_no_window_and_no_form(serve) -> None:
    server = serve(lambda method, path, body: NOT_FOUND)
    assert read_facts(Endpoint("openai", _url(server), "m")) == ServerFacts()
    assert read_facts(Endpoint("openai", "http://127.0.0.1:1/v1", "m")) == ServerFacts()


def test_hosted_models_have_their_known_windows_without_a_request() -> None:
    facts = read_facts(Endpoint("openai", "https://api.openai.com/v1", "gpt-4o-mini"))
    assert (facts.window, facts.form) == (128_000, "json_schema_strict")
    assert hosted_window("api.anthropic.com", "claude-3-5-sonnet-latest") == 200_000
    assert hosted_window("api.groq.com", "llama-3.1-8b-instant") == 131_072
    assert hosted_window("api.openai.com", "some-new-model") is None


@pytest.mark.parametrize(("text", "window"), [
    ("This model's maximum context length is 4096 tokens. However, you requested 5000", 4096),
    ("Requested tokens (5000) exceed context window of 2048", 2048),
    ('{"error": {"type": "exceed_context_size_error", "n_prompt_tokens": 5000, '
     '"n_ctx": 8192}}', 8192),
    ("unsupported response_format", None),
])
def test_a_refusal_states_the_window(text: str, window: int | None) -> None:
    assert window_from_refusal(text) == window


def test_the_facts_are_kept_across_restarts(tmp_path) -> None:
    path = str(tmp_path / "data" / "servers.json")
    first = FactsFile(path)
    first.put("openai http://h/v1 m", ServerFacts("llama.cpp", 2048, "llama.cpp's /props"))
    first.update("openai http://h/v1 m", form="json_schema")
    again = FactsFile(path)  # a new process
    assert again.get("openai http://h/v1 m") == ServerFacts(
        "llama.cpp", 2048, "llama.cpp's /props", "json_schema")
    assert again.get("other") is None
    (tmp_path / "data" / "servers.json").write_text("not json")
    assert FactsFile(path).get("openai http://h/v1 m") is None  # damaged: asked again


def test_facts_without_a_data_folder_stay_in_memory(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    facts = FactsFile("")
    facts.put("k", ServerFacts("llama.cpp", 2048))
    assert facts.get("k") == ServerFacts("llama.cpp", 2048)
    assert list(tmp_path.iterdir()) == []  # nothing written anywhere

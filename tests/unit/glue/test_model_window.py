"""The context window: the setting (auto or a number), where the number comes from, what the
status report says, and the room the Cat's own prompt leaves for the plugin's code section."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from codemem.app import entry
from codemem.app.chat.prompt_room import MIN_ANSWER, room_for_code, used_by_the_cat
from codemem.app.host import model_server
from codemem.app.host.core_config import PluginConfig
from codemem.app.host.model_server import ServerBook, Window, window_for
from codemem.app.host.settings_model import PluginSettings, read_settings
from codemem.llm.servers import ServerFacts

from .test_runtime import make_cat


class ChatOpenAI:
    """Named like LangChain's: a model the plugin can place (a server on a closed port)."""

    openai_api_base = "http://127.0.0.1:1/v1"
    model_name = "m"


@pytest.fixture
def book(monkeypatch) -> ServerBook:
    fresh = ServerBook()
    monkeypatch.setattr(model_server, "BOOK", fresh)
    return fresh


def test_the_setting_is_auto_by_default_and_a_number_still_wins() -> None:
    assert PluginSettings().context_window == "auto"
    assert PluginConfig.from_settings(PluginSettings(), "/d").window is None
    assert PluginConfig.from_settings(PluginSettings(context_window="8192"), "/d").window == 8192
    settings, problems = read_settings({"context_window": 16384})  # stored by an older version
    assert settings.context_window == "16384" and not problems
    settings, problems = read_settings({"context_window": "lots"})
    assert settings.context_window == "auto" and "context_window" in problems[0]
    assert read_settings({"context_window": "100"})[1]  # below 1024: refused


def test_the_window_is_the_settings_the_servers_or_the_assumption(book, tmp_path) -> None:
    model = ChatOpenAI()
    assert window_for(model, 8192, str(tmp_path)) == Window(
        8192, "the setting 'Context window (tokens)'")
    assumed = window_for(model, None, str(tmp_path))  # the server says nothing
    assert assumed.tokens == 4096 and assumed.source.startswith("assumed")
    endpoint = model_server.endpoint_of(model)
    assert endpoint is not None
    book.learn(endpoint, str(tmp_path), window=2048, window_source="llama.cpp's /props (n_ctx)")
    assert window_for(model, None, str(tmp_path)).describe() == (
        "2048 tokens (llama.cpp's /props (n_ctx))")
    again = ServerBook()  # a restart reads the data folder
    assert again.facts(endpoint, str(tmp_path)) == ServerFacts(
        window=2048, window_source="llama.cpp's /props (n_ctx)")


def test_the_status_report_says_which_window_and_where_it_came_from(book) -> None:
    cat = make_cat(stored={"context_window": "8192"})
    assert "context window 8192 tokens (the setting 'Context window (tokens)')" in \
        entry.status(cat)


def test_the_cats_prompt_and_chat_leave_the_code_section_what_remains() -> None:
    short = SimpleNamespace(episodic_memory="", declarative_memory="", tools_output="",
                            chat_history="Human: hi\nAI: hello", input="what does f do?")
    room = room_for_code(short, 4096)
    assert 4096 - 400 - 512 < room < 4096 - 512
    long_chat = SimpleNamespace(**{**vars(short), "chat_history": "Human: tell me more\n" * 600})
    assert room_for_code(long_chat, 4096) == 0  # the chat fills the window: no code section
    assert used_by_the_cat(long_chat) > used_by_the_cat(short)
    assert room_for_code(short, 65536) == 65536 - used_by_the_cat(short) - 48 - 65536 // 8
    assert MIN_ANSWER == 256


def test_a_server_that_said_nothing_is_asked_again_later_and_not_kept(book, tmp_path,
                                                                        monkeypatch) -> None:
    """A server that was not up yet when the plugin first asked is not taken as one that
    publishes nothing for good: nothing is written, and it is asked again after a while."""
    endpoint = model_server.endpoint_of(ChatOpenAI())
    assert endpoint is not None
    asked = []
    monkeypatch.setattr(model_server, "read_facts", lambda e: asked.append(e) or ServerFacts())
    assert book.facts(endpoint, str(tmp_path)) == ServerFacts()
    assert book.facts(endpoint, str(tmp_path)) == ServerFacts() and len(asked) == 1
    assert not (tmp_path / "servers.json").exists()
    monkeypatch.setattr(model_server, "RETRY_S", 0.0)
    book.facts(endpoint, str(tmp_path))
    assert len(asked) == 2


def test_a_window_that_could_not_be_read_is_read_again(book, tmp_path, monkeypatch) -> None:
    """The server said what it is but its window could not be read (the oversized prompt
    timed out on a busy machine): the form is kept, the window asked again."""
    endpoint = model_server.endpoint_of(ChatOpenAI())
    assert endpoint is not None
    book.file(str(tmp_path)).put(endpoint.key, ServerFacts("llama-cpp-python",
                                                           form="json_object_schema"))
    monkeypatch.setattr(model_server, "read_facts", lambda e: ServerFacts(
        "llama-cpp-python", 2048, "llama-cpp-python's refusal", "json_object_schema"))
    facts = book.facts(endpoint, str(tmp_path))
    assert (facts.window, facts.form) == (2048, "json_object_schema")

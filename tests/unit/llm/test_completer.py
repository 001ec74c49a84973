"""The one wrapper base around a model: it keeps the native JSON call exactly when the wrapped
completer has it, and ``Metered`` records every call (plain, native, failed) on one ``Meter``."""

from __future__ import annotations

import threading

import pytest

from codemem.llm.completer import Decorated, Meter, Metered
from codemem.llm.reader import model_spec
from codemem.llm.retry import ask
from codemem.llm.schema import ReplyModel

from ...fakes import ScriptedLLM


class Native:
    """A completer that can be asked for JSON natively; records what it was asked."""

    def __init__(self) -> None:
        self.schemas: list[object] = []

    def __call__(self, prompt: str) -> str:
        return "plain"

    def complete_json(self, prompt: str, json_schema: object) -> str:
        self.schemas.append(json_schema)
        return '{"ok": true}'


class Ok(ReplyModel):
    ok: bool


class Shouting(Decorated):
    """A wrapper of the kind the glue writes: it changes ``_call`` only."""

    def _call(self, call, prompt):
        return call(prompt.upper()).upper()


def test_the_native_json_call_is_kept_exactly_when_the_wrapped_completer_has_it():
    native = Native()
    wrapped = Shouting(native)
    assert wrapped("a") == "PLAIN"
    assert wrapped.complete_json("b", {"type": "object"}) == '{"OK": TRUE}'
    assert native.schemas == [{"type": "object"}]
    assert not hasattr(Shouting(ScriptedLLM("x")), "complete_json")
    assert not hasattr(Metered(Shouting(lambda prompt: prompt)), "complete_json")
    assert callable(Metered(Metered(native)).complete_json)  # through any number of layers


def test_a_meter_records_calls_prompt_size_and_time_from_several_threads():
    meter = Meter()
    counted = meter.wrap(Native())
    threads = [threading.Thread(target=counted, args=("pp",)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counted.complete_json("p", {}) == '{"ok": true}'
    assert (meter.calls, meter.prompt_chars) == (9, 17) and meter.seconds >= 0.0
    assert counted.meter is meter and Meter(calls=4).calls == 4


def test_a_failed_call_is_counted_it_was_made():
    def broken(prompt: str) -> str:
        raise TimeoutError("the model did not answer")

    metered = Metered(broken)
    with pytest.raises(TimeoutError):
        metered("p")
    assert metered.meter.calls == 1


def test_the_structured_reply_layer_asks_natively_through_a_metered_wrapper():
    native = Native()
    metered = Metered(native)
    asked = ask(metered, "Answer.", model_spec(Ok, "a yes", ("ok",)))
    assert asked.value is not None and asked.value.ok is True
    assert native.schemas and metered.meter.calls == 1

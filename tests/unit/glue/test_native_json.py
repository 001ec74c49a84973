"""The "Native JSON mode" setting reaches the plugin's LLM, and metering keeps the capability.

The request shape sent to real LangChain models is proved in
tests/integration/test_structured_llm.py (the Cat's environment has LangChain).
"""

from __future__ import annotations

from codemem.app.host import llm_port
from codemem.app.host.core_config import PluginConfig
from codemem.app.host.settings_model import NativeJson, PluginSettings


def test_the_setting_maps_to_a_mode_auto_by_default():
    default = PluginConfig.from_settings(PluginSettings(), "/data")
    assert default.native_json == "auto"
    off = PluginConfig.from_settings(PluginSettings(native_json=NativeJson.off), "/data")
    assert off.native_json == ""  # the calls still carry their limits (test_bounded_calls.py)
    on = PluginConfig.from_settings(PluginSettings(native_json=NativeJson.json_schema), "/data")
    assert on.native_json == "json_schema"
    assert callable(llm_port.PluginLLM(on.native_json).complete_json)


class JsonCapable:
    def __init__(self) -> None:
        self.asked: list[tuple[str, dict]] = []

    def __call__(self, prompt: str) -> str:
        return "plain"

    def complete_json(self, prompt: str, json_schema: dict) -> str:
        self.asked.append((prompt, json_schema))
        return "{}"


def test_a_metered_completer_keeps_and_counts_its_native_json_call():
    meter = llm_port.Meter()
    inner = JsonCapable()
    counted = meter.wrap(inner)
    assert counted("a") == "plain" and counted.complete_json("bc", {"type": "object"}) == "{}"
    assert inner.asked == [("bc", {"type": "object"})]
    assert meter.calls == 2 and meter.prompt_chars == 3
    assert not hasattr(meter.wrap(lambda prompt: prompt), "complete_json")

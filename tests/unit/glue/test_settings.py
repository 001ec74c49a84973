"""The settings panel: every field renders well in the Cat admin and bad stored values degrade."""

from __future__ import annotations

import json

import pytest

from codemem.app.host.settings_model import (
    PluginSettings,
    PythonVersion,
    WriteBackPolicy,
    read_settings,
)

KNOBS = {  # every knob the README's settings table names
    "repository_path", "include_globs", "exclude_globs", "languages", "relevance_threshold",
    "max_memories", "batch_size", "retry_attempts", "retry_delay", "enable_caching",
    "enable_dependency_boost", "dependency_boost_amount", "enable_recency_boost",
    "recency_boost_amount", "recency_days", "max_iterations", "test_timeout_s",
    "memory_limit_mb", "check_lint", "check_signature", "check_tests", "check_judge",
    "write_back", "data_folder", "follow_edits", "watch_quiet_s", "source_clone_max_mb",
    "source_clone_timeout_s", "source_file_url_folders",
}


def schema():
    return PluginSettings.model_json_schema()


def test_every_documented_knob_is_a_field():
    assert set(PluginSettings.model_fields) >= KNOBS


@pytest.mark.parametrize("name", sorted(PluginSettings.model_fields))
def test_field_has_default_title_description_and_an_admin_friendly_type(name):
    prop = schema()["properties"][name]
    assert "default" in prop and prop["default"] is not None, "no default: shown as required"
    assert prop.get("title") and prop.get("description")
    assert "anyOf" not in prop, "Optional renders as a required text box"
    assert prop.get("type") != "array" and prop.get("type") != "object", "lists render as text"
    if "allOf" in prop or "$ref" in prop:
        ref = (prop.get("allOf") or [prop])[0]["$ref"].split("/")[-1]
        assert "enum" in schema()["$defs"][ref], "a $ref must be an Enum to become a select"


def test_enums_are_selects_not_literals():
    props = schema()["properties"]
    assert props["write_back"]["allOf"][0]["$ref"].endswith("WriteBackPolicy")
    assert props["python_version"]["allOf"][0]["$ref"].endswith("PythonVersion")


def test_schema_has_properties_for_the_cat_admin():
    assert schema()["properties"], "an empty 'properties' hides the settings cog"


def test_the_retrieval_defaults_are_the_code_memory_systems():
    s = PluginSettings()
    assert (s.relevance_threshold, s.max_memories, s.batch_size) == (0.7, 15, 10)
    assert (s.retry_attempts, s.retry_delay, s.enable_caching) == (2, 1.0, True)  # own: 1 re-ask
    assert (s.dependency_boost_amount, s.recency_boost_amount, s.recency_days) == (0.15, 0.10, 7)
    assert s.write_back is WriteBackPolicy.confirm and s.python_version is PythonVersion.py310


def test_defaults_dump_as_json_like_the_cat_creates_settings_json():
    dumped = json.loads(PluginSettings().model_dump_json())
    assert read_settings(dumped) == (PluginSettings(), [])


def test_string_numbers_are_coerced_silently():
    settings, problems = read_settings({"max_iterations": "7", "retry_delay": "2.5"})
    assert (settings.max_iterations, settings.retry_delay, problems) == (7, 2.5, [])


def test_a_string_where_an_int_is_expected_falls_back_with_a_clear_message():
    settings, problems = read_settings({"max_iterations": "lots", "batch_size": 4})
    assert settings.max_iterations == 5 and settings.batch_size == 4
    assert len(problems) == 1
    assert "setting 'max_iterations'" in problems[0] and "'lots'" in problems[0]
    assert "using the default" in problems[0]


def test_missing_settings_take_defaults_without_complaint():
    settings, problems = read_settings({"repository_path": "/workspace"})
    assert settings.repository_path == "/workspace" and settings.max_memories == 15
    assert problems == []


def test_several_bad_fields_each_get_a_message_and_unknown_keys_are_ignored():
    settings, problems = read_settings(
        {"relevance_threshold": 7, "write_back": "always", "recency_days": 0, "old_key": 1})
    assert settings == PluginSettings()
    assert sorted(p.split("'")[1] for p in problems) == [
        "recency_days", "relevance_threshold", "write_back"]


@pytest.mark.parametrize("raw", [None, [], "garbage", 42])
def test_settings_that_are_not_an_object_give_defaults_and_a_message(raw):
    settings, problems = read_settings(raw)
    assert settings == PluginSettings() and "not a JSON object" in problems[0]


def test_enum_values_as_stored_by_the_cat_round_trip():
    settings, problems = read_settings({"write_back": WriteBackPolicy.never.value,
                                        "python_version": "3.12"})
    assert settings.write_back is WriteBackPolicy.never
    assert settings.python_version is PythonVersion.py312 and problems == []


def test_sandbox_policy_is_a_select_each_of_whose_choices_names_a_policy_of_the_sandbox():
    from codemem.app.host.settings_model import SandboxChoice
    from codemem.codegen import SandboxPolicy

    assert PluginSettings().sandbox_policy is SandboxChoice.require_isolation
    assert "enum" in json.dumps(schema()["$defs"]["SandboxChoice"])
    assert [choice.policy() for choice in SandboxChoice] == list(SandboxPolicy)
    assert PluginSettings().sandbox_policy.policy().required() == ("files", "network")
    stored, problems = read_settings({"sandbox_policy": "no such policy"})
    assert stored.sandbox_policy is SandboxChoice.require_isolation and problems

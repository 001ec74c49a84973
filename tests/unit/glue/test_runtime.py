"""The composition root's session state, as the hooks, tools and form use it.

The Cat's StrayCat is stood in for by the two things runtime touches: a working memory that
stores attributes (like the Cat's) and the plugin's settings loader. The real Cat is exercised
by tests/integration.
"""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from codemem import runtime
from codemem.codegen.phases import CodegenPhase
from codemem.settings import PluginSettings


class WorkingMemoryStandIn(SimpleNamespace):
    """Like the Cat's WorkingMemory: attribute storage plus a silent ``get``."""

    def get(self, key, default=None):
        return getattr(self, key, default)


def make_cat(user="alice", settings=None):
    plugin = SimpleNamespace(load_settings=lambda: dict(settings or {}))
    return SimpleNamespace(user_id=user, working_memory=WorkingMemoryStandIn(),
                           mad_hatter=SimpleNamespace(plugins={runtime.PLUGIN_ID: plugin}))


def test_attach_state_puts_plain_data_under_one_key():
    cat = make_cat()
    state = runtime.attach_state(cat)
    stored = cat.working_memory.code_working_memory
    assert stored["phase"] == "idle" and stored["task_id"] == ""
    assert stored["scratchpad"] == {"version": 1, "tasks": {}}
    assert pickle.loads(pickle.dumps(stored)) == stored
    assert state.phase.phase is CodegenPhase.IDLE


def test_start_request_opens_a_task_and_survives_a_pickled_turn():
    cat = make_cat()
    runtime.attach_state(cat)
    request = {"request": "parse ISO dates", "target_path": "utils/dates.py",
               "symbol": "parse_iso"}
    state = runtime.start_request(cat, request)
    # the file_system cache pickles the working memory between turns
    cat.working_memory = pickle.loads(pickle.dumps(cat.working_memory))
    again = runtime.load_state(cat)
    assert again.task_id == state.task_id
    assert again.phase.phase is CodegenPhase.COLLECTING
    assert again.scratchpad.get(state.task_id, "request") == request


def test_a_new_request_after_a_finished_task_starts_over():
    cat = make_cat()
    first = runtime.start_request(cat, {"request": "a", "target_path": "a.py", "symbol": "a"})
    first.phase.advance(CodegenPhase.FAILED, "gave up")
    runtime.save_state(cat, first)
    second = runtime.start_request(cat, {"request": "b", "target_path": "b.py", "symbol": "b"})
    assert second.task_id != first.task_id
    assert second.phase.phase is CodegenPhase.COLLECTING


@pytest.mark.parametrize("damaged", ["garbage", {"scratchpad": {"version": 7}}, {"x": 1}])
def test_damaged_state_is_replaced_with_a_warning(damaged):
    cat = make_cat()
    cat.working_memory.code_working_memory = damaged
    state = runtime.attach_state(cat)
    assert state.phase.phase is CodegenPhase.IDLE
    if isinstance(damaged, dict):
        assert state.warnings and "reset" in state.warnings[0]


def test_status_report_shows_settings_phase_and_settings_problems():
    cat = make_cat(settings={"repository_path": "/workspace", "max_iterations": "many"})
    runtime.start_request(cat, {"request": "r", "target_path": "t.py", "symbol": "s"})
    text = runtime.status_report(cat)
    assert "`/workspace`" in text and "phase: collecting" in text
    assert "warning: setting 'max_iterations'" in text
    assert "Scratchpad of task" in text


def test_status_report_works_when_settings_cannot_be_read():
    cat = make_cat()
    cat.mad_hatter.plugins = {}
    assert "settings could not be read" in runtime.status_report(cat)


def test_data_dir_defaults_to_the_cat_data_folder_never_the_plugin_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("CCAT_METADATA_FILE", str(tmp_path / "data" / "metadata.json"))
    assert runtime.data_dir(PluginSettings()) == str(tmp_path / "data" / "code_working_memory")
    custom = PluginSettings(data_folder=str(tmp_path / "mine"))
    assert runtime.data_dir(custom) == str(tmp_path / "mine")


def test_users_get_separate_locks():
    assert runtime.user_lock(make_cat("a")) is runtime.user_lock(make_cat("a"))
    assert runtime.user_lock(make_cat("a")) is not runtime.user_lock(make_cat("b"))


def test_the_shipped_requirements_have_no_problem():
    assert runtime.requirements_problems() == []


def test_a_broken_requirements_line_and_a_missing_package_are_named(tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text("# a comment: the Cat stops reading here\nlibcst>=1.8,<1.10\n"
                    "surely-not-installed-package>=1\n")
    problems = runtime.requirements_problems(str(path))
    assert problems[0].startswith("requirements.txt line 1 ('# a comment")
    assert "the Cat stops installing at that line" in problems[0]
    assert problems[1] == ("surely-not-installed-package (requirements.txt line 3) "
                           "is not installed")
    assert len(problems) == 2


def test_status_report_names_requirement_problems(monkeypatch, tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text("\nlibcst>=1.8\n")
    monkeypatch.setattr(runtime, "REQUIREMENTS", str(path))
    monkeypatch.setattr(runtime.requirements_problems, "__defaults__", (str(path),))
    assert "warning: requirements.txt line 1 ('')" in runtime.status_report(make_cat())


def test_activation_check_never_raises(monkeypatch):
    from codemem import settings

    monkeypatch.setattr(runtime, "requirements_problems", lambda *a: 1 / 0)
    settings.activated(None)  # logs "dependency check skipped", never raises


def test_status_notes_settings_with_no_stored_value():
    cat = make_cat(settings={"repository_path": "/workspace"})
    text = runtime.status_report(cat)
    note = [line for line in text.splitlines() if line.startswith("- note:")]
    assert len(note) == 1 and "their defaults are used" in note[0]
    assert "batch_size" in note[0] and "repository_path" not in note[0]
    full = {name: field.default for name, field in runtime.PluginSettings.model_fields.items()}
    assert "- note:" not in runtime.status_report(make_cat(settings=full))

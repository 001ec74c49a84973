"""The session's state as plain data, the status tool, the environment checks.

The Cat's StrayCat is stood in for by what the plugin reads (glue_support). The real Cat is
exercised by tests/integration.
"""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from codemem import settings
from codemem.app import entry
from codemem.app.drafting.state import STATE_KEY, SessionState, state_in
from codemem.app.host import environment
from codemem.app.host.settings_model import PluginSettings
from codemem.codegen.loop.phases import CodegenPhase

from .glue_support import WorkingMemoryStandIn, say, state_of


def make_cat(user="alice", stored=None):
    plugin = SimpleNamespace(load_settings=lambda: dict(stored or {}))
    return SimpleNamespace(user_id=user, working_memory=WorkingMemoryStandIn(),
                           mad_hatter=SimpleNamespace(plugins={environment.PLUGIN_ID: plugin},
                                                      procedures=[]))


def test_a_turn_puts_plain_data_under_one_key():
    cat = make_cat()
    assert say(cat, "hello, who are you?") is None  # the Cat answers
    stored = getattr(cat.working_memory, STATE_KEY)
    assert stored["phase"] == "idle" and stored["task_id"] == ""
    assert stored["scratchpad"] == {"version": 1, "tasks": {}}
    assert pickle.loads(pickle.dumps(stored)) == stored


def test_a_request_without_a_repository_opens_a_task_and_says_what_is_missing():
    cat = make_cat()
    reply = say(cat, "write a function parse_iso in utils/dates.py that parses ISO dates")
    state = state_of(cat)
    assert "repository" in reply.lower()
    assert state.task_id and state.phase.phase is CodegenPhase.FAILED
    assert state.scratchpad.get(state.task_id, "request")["symbol"] == "parse_iso"
    # the file_system cache pickles the working memory between turns
    again = state_in(pickle.loads(pickle.dumps(cat.working_memory)))
    assert again.task_id == state.task_id and again.phase.phase is CodegenPhase.FAILED


@pytest.mark.parametrize("damaged", ["garbage", {"scratchpad": {"version": 7}}, {"x": 1}])
def test_damaged_state_is_replaced_with_a_warning(damaged):
    state = SessionState.from_dict(damaged)
    assert state.phase.phase is CodegenPhase.IDLE and state.task_id == ""
    if isinstance(damaged, dict):
        assert state.warnings and "reset" in state.warnings[0]


def test_an_older_state_without_the_new_keys_still_loads():
    old = SessionState().to_dict()
    for key in ("applied_commit", "llm_calls"):
        del old[key]
    state = SessionState.from_dict(old)
    assert state.applied_commit == "" and state.llm_calls == 0 and not state.warnings


def test_status_report_shows_settings_phase_and_settings_problems():
    cat = make_cat(stored={"repository_path": "/workspace", "max_iterations": "many",
                           "languages": "python, klingon"})
    text = entry.status(cat)
    assert "`/workspace`" in text and "phase: idle" in text
    assert "warning: setting 'max_iterations'" in text
    assert "warning: setting 'languages': unknown klingon" in text


def test_status_report_works_when_settings_cannot_be_read():
    cat = make_cat()
    cat.mad_hatter.plugins = {}
    assert "settings could not be read" in entry.status(cat)


def test_data_dir_defaults_to_the_cat_data_folder_never_the_plugin_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("CCAT_METADATA_FILE", str(tmp_path / "data" / "metadata.json"))
    assert environment.data_dir(PluginSettings()) == str(tmp_path / "data" /
                                                         "code_working_memory")
    custom = PluginSettings(data_folder=str(tmp_path / "mine"))
    assert environment.data_dir(custom) == str(tmp_path / "mine")


def test_users_get_separate_sessions():
    alice, bob = make_cat("alice"), make_cat("bob")
    first = entry.session_turn(alice)[0]
    assert entry.session_turn(make_cat("alice"))[0] is first
    assert entry.session_turn(bob)[0] is not first
    assert first.lock is not entry.session_turn(bob)[0].lock


def test_the_shipped_requirements_have_no_problem():
    assert environment.requirements_problems() == []


def test_a_broken_requirements_line_and_a_missing_package_are_named(tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text("# a comment: the Cat stops reading here\nlibcst>=1.8,<1.10\n"
                    "surely-not-installed-package>=1\n")
    problems = environment.requirements_problems(str(path))
    assert problems[0].startswith("requirements.txt line 1 ('# a comment")
    assert "the Cat stops installing at that line" in problems[0]
    assert problems[1] == ("surely-not-installed-package (requirements.txt line 3) "
                           "is not installed")
    assert len(problems) == 2


def test_status_report_names_requirement_problems(monkeypatch, tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text("\nlibcst>=1.8\n")
    monkeypatch.setattr(environment, "REQUIREMENTS", str(path))
    assert "warning: requirements.txt line 1 ('')" in entry.status(make_cat())


def test_activation_check_never_raises(monkeypatch):
    monkeypatch.setattr(environment, "requirements_problems", lambda *a: 1 / 0)
    settings.activated(None)  # logs "dependency check skipped", never raises


def test_status_notes_settings_with_no_stored_value():
    cat = make_cat(stored={"repository_path": "/workspace"})
    text = entry.status(cat)
    note = [line for line in text.splitlines() if line.startswith("- note:")]
    assert len(note) == 1 and "their defaults are used" in note[0]
    assert "batch_size" in note[0] and "repository_path" not in note[0]
    full = {name: field.default for name, field in PluginSettings.model_fields.items()}
    assert "- note:" not in entry.status(make_cat(stored=full))

"""The plugin in Cats of their own: each test boots a Cat with a particular settings file, cache,
``PATH`` or requirements file, or restarts it (docs/integration-tests.md). The shared Cat's tests
are in ``test_cat_plugin.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from . import cat_harness, no_git_probe
from .cat_harness import PLUGIN_ID
from .test_cat_plugin import (
    BRACED_CODE,
    assert_glue_loaded,
    assert_state_shape,
    code_points,
    entities_mode,
    start_form,
    status_of,
)


@pytest.mark.parametrize("stored, expect_in_status, expect_warning", [
    ({"max_iterations": "lots", "test_timeout_s": "30"},
     ["up to 5 iterations", "time out after 30 s"], ("max_iterations", "default")),
    ({"repository_path": "/srv/only-this-one"},
     ["/srv/only-this-one", "up to 5 iterations", "threshold 0.7",
      "settings.json has no value for", "their defaults are used"],
     ("/srv/only-this-one", "is not an existing folder")),
], ids=["string-for-int", "missing-settings"])
def test_bad_settings_json_keeps_the_plugin_working(boot_cat, stored, expect_in_status,
                                                    expect_warning):
    with boot_cat(settings=stored) as run:
        assert_glue_loaded(run)
        assert run.client.get(f"/plugins/settings/{PLUGIN_ID}").status_code == 200
        frame = run.chat("hello")
        assert frame["type"] == "chat", frame
        assert_state_shape(run.plugin_state())
        status = status_of(run)
    for text in expect_in_status:
        assert text in status, status
    warnings = [line for line in status.splitlines() if "warning" in line.lower()]
    assert len(warnings) == 1 and all(part in warnings[0] for part in expect_warning), status


def test_the_plugin_loads_and_works_without_a_git_binary(cat_core, tmp_path):
    env = dict(os.environ, PATH=no_git_probe.path_without_git(os.environ.get("PATH", "")))
    for name in ("GIT_PYTHON_GIT_EXECUTABLE", "GIT_PYTHON_REFRESH", "PYTEST_CURRENT_TEST"):
        env.pop(name, None)
    report_path = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tests.integration.no_git_probe", "no-git-probe", str(cat_core),
         str(tmp_path / "cat"), str(report_path)],
        cwd=cat_harness.REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    report = json.loads(report_path.read_text())
    assert report["git_on_path"] is None
    assert report["import_git"].startswith("ImportError"), "the probe still found a git binary"
    assert report["active"] and report["load_errors"] == [], "\n\n".join(report["load_errors"])
    assert report["registered"] == cat_harness.declared_glue()
    assert report["chat_type"] == "chat"
    assert_state_shape(report["state"])
    assert "git binary: absent" in report["status"], report["status"]
    assert not report["git_imported_after"], "GitPython was imported while loading the plugin"


def test_state_survives_the_file_system_cache_and_a_restart(boot_cat, tmp_path):
    workdir = tmp_path / "cat"
    workdir.mkdir()
    with boot_cat(workdir=workdir, cache_type="file_system", keep_plugins_dir=True) as run:
        asked = run.chat("write a function parse_iso_date that parses ISO-8601 dates")
        assert "Which file" in asked["text"], asked
        assert run.plugin_state()["asking"]["symbol"] == "parse_iso_date"  # the question waits
        assert run.working_memory().active_form is None  # in the plugin's state, not a form
        assert start_form(run, "alice")["type"] == "chat"  # a new request replaces it
        state = run.plugin_state()
        assert state["asking"] == {}
        reply = run.chat("and now?")
        assert reply["type"] == "chat", reply
        assert run.plugin_view() == state  # the view, unpickled as it was pickled
        plugins_name = run.plugins_name
        cache_file = workdir / "cache" / "alice_working_memory.cache"
        assert cache_file.is_file()
    assert_state_shape(state)
    assert state["task_id"] and state["phase"] == "failed", state  # no repository configured
    # a second Cat on the same data: the plugin is active at startup, the state is still there
    with boot_cat(workdir=workdir, cache_type="file_system", toggle=False,
                  plugins_name=plugins_name) as run:
        assert_glue_loaded(run)
        assert run.plugin_view() == state
        assert run.chat("and now?")["type"] == "chat"
        assert run.plugin_state()["task_id"] == state["task_id"]


def test_a_configured_repository_is_indexed_when_the_cat_starts(boot_cat, tmp_path):
    repo = tmp_path / "repo"
    (repo / "fmt").mkdir(parents=True)
    (repo / "fmt" / "pairs.py").write_text(BRACED_CODE)
    workdir = tmp_path / "cat"
    settings = {"repository_path": str(repo), "data_folder": str(tmp_path / "data")}
    with boot_cat(workdir=workdir, settings=settings, keep_plugins_dir=True) as run:
        plugins_name = run.plugins_name  # toggled on at runtime: no after_cat_bootstrap yet
        assert code_points(run) == []
        saved = run.client.put(f"/plugins/settings/{PLUGIN_ID}",  # every entity, to see them
                               json={"cat_memory": entities_mode(run)})
        assert saved.status_code == 200, saved.text
    with boot_cat(workdir=workdir, toggle=False, plugins_name=plugins_name) as run:
        assert_glue_loaded(run)
        cat_harness.wait_for_indexing(run)
        points = code_points(run)
        errors = [e for e in run.logs.errors_since(0) if cat_harness.LOAD_ERROR not in e]
    assert errors == [], "\n".join(errors)  # load errors have their own test
    assert any("fmt/pairs.py" in p.payload["metadata"]["source"] for p in points), \
        "after_cat_bootstrap did not index the configured repository into the Cat's memory"


def record_pip_calls(calls: list):
    """A ``before_boot`` that records the Cat's pip runs instead of running them."""

    def patch(mp):
        import cat.mad_hatter.plugin as plugin_module

        fake = SimpleNamespace(run=lambda *a, **k: calls.append(a),
                               CalledProcessError=subprocess.CalledProcessError)
        mp.setattr(plugin_module, "subprocess", fake)  # the Cat's module only

    return patch


def test_requirements_txt_parses_in_the_cat(boot_cat):
    calls = []
    with boot_cat(install_requirements=True, before_boot=record_pip_calls(calls)) as run:
        assert run.plugin.active
        errors = run.logs.matching("requirements", level="ERROR")
    assert errors == [], "\n".join(errors)
    assert calls == [], f"the Cat would pip-install again at every boot: {calls}"


BROKEN_REQUIREMENTS = "# a comment: the Cat stops reading here\nlibcst>=1.8,<1.10\n"


def test_a_broken_requirements_line_leaves_the_plugin_working(boot_cat):
    calls = []
    with boot_cat(install_requirements=True, before_boot=record_pip_calls(calls),
                  files={"requirements.txt": BROKEN_REQUIREMENTS}) as run:
        assert_glue_loaded(run)
        assert run.chat("hello")["type"] == "chat"
        errors = run.logs.matching("Error during requirements checks", level="ERROR")
    assert errors and PLUGIN_ID in errors[0], "the Cat did not report the broken line"


def test_the_status_names_a_broken_requirements_line(boot_cat):
    with boot_cat(files={"requirements.txt": BROKEN_REQUIREMENTS}) as run:
        status = status_of(run)
    assert "requirements" in status.lower() and "# a comment" in status, status

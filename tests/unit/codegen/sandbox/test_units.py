"""Pure parts of the sandbox launcher (sandbox/boot.py) and of its host side (sandbox/run.py)."""

from __future__ import annotations

import os

import pytest

from codemem.codegen.reading.words import (
    IMPERATIVE_VERBS,
    INFORMATION_VERBS,
    REQUEST_VERBS,
    TECH_WORDS,
)
from codemem.codegen.sandbox import boot, watch
from codemem.codegen.sandbox.protect import Protections
from codemem.codegen.sandbox.run import _read_status, _status_for, error_result, refusal


def test_launcher_emits_one_json_line_per_status() -> None:
    r, w = os.pipe()
    boot.emit(w, {"setup": {"uid": 5}})
    boot.emit(w, {"exit_code": 0})
    os.close(w)
    assert _read_status(r) == [{"setup": {"uid": 5}}, {"exit_code": 0}]


def test_launcher_skips_namespaces_when_not_asked_and_never_keeps_root() -> None:
    report: boot.SetupReport = {"notes": [], "masked": []}
    assert boot.try_unshare(boot._libc(), {"namespaces": False}, report) == 0
    assert boot.choose_uid({"drop_uid": None}, 0, None, report) == (None, False)
    assert watch.kill_tree(rounds=3) == 0


def test_status_of_a_run_from_the_launcher_lines() -> None:
    none = Protections()
    assert _status_for(0, {"setup": {"uid": 1}}, False, none) == ("ok", "")
    assert _status_for(1, {"setup": {"uid": 1}}, False, none) == ("failed", "")
    assert _status_for(None, {}, True, none) == ("timeout", "wall-clock timeout")
    assert _status_for(0, {"quota": "disk over 5 MiB"}, False, none) == ("killed",
                                                                         "disk over 5 MiB")
    status, why = _status_for(126, {"setup": {"refused": ["files"]}}, False, none)
    assert status == "error" and why == refusal(none, ["files"]) and "files" in why
    assert _status_for(1, {}, False, none)[0] == "error"  # the launcher died before its report


def test_error_result_is_a_failed_run_with_its_reason() -> None:
    res = error_result("cannot start")
    assert (res.status, res.ok, res.error, res.returncode) == ("error", False, "cannot start", None)
    assert "status=error" in res.summary()


def test_intent_vocabulary_is_folded_lower_case_and_consistent() -> None:
    for words in (REQUEST_VERBS, IMPERATIVE_VERBS, INFORMATION_VERBS, TECH_WORDS):
        assert all(w == w.lower() and w.isascii() for w in words)
    assert not (REQUEST_VERBS | IMPERATIVE_VERBS) & INFORMATION_VERBS


def test_a_run_status_is_one_of_the_vocabulary():
    from codemem.codegen.sandbox.run import RunStatus, SandboxResult

    ok = SandboxResult(status="ok", returncode=0, stdout="", stderr="", duration_s=0.1)
    assert ok.status is RunStatus.OK and ok.ok and str(ok.status) == "ok"
    assert ok.summary().startswith("status=ok rc=0")
    with pytest.raises(ValueError):
        SandboxResult(status="okay", returncode=0, stdout="", stderr="", duration_s=0.1)

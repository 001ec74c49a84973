"""worker: one file in, one JSON frame out; a bug on one file is that file's status."""

from __future__ import annotations

import json

import pytest

from codemem.memory.extract import worker
from codemem.memory.extract.safety import Limits
from codemem.memory.extract.wire import WorkerSettings

SETTINGS: WorkerSettings = {"engine": "treesitter", "limits": {}, "memory_limit": None,
                            "test_faults": None}


def test_one_file_becomes_a_json_result():
    out = json.loads(worker._one(SETTINGS, Limits(), "m.py", b"def f():\n    return 1\n"))
    assert out["path"] == "m.py" and out["status"] == "indexed"
    assert [e["name"] for e in out["entities"]] == ["f"] and out["engine"] == "treesitter"
    libcst = json.loads(worker._one({**SETTINGS, "engine": "libcst"}, Limits(), "m.py",
                                    b"def f(:\n"))
    assert libcst["status"] == "error:syntax"


def test_a_bug_is_reported_as_error_internal(monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(worker, "extract_file", broken)
    out = json.loads(worker._one(SETTINGS, Limits(), "m.py", b""))
    assert out["status"] == "error:internal" and "surprise" in out["detail"]


def test_test_faults_only_fire_on_matching_paths(monkeypatch):
    exits: list[int] = []
    monkeypatch.setattr(worker.os, "_exit", exits.append)
    worker._test_hook(SETTINGS, "crash_me.py")  # no faults configured
    worker._test_hook({**SETTINGS, "test_faults": {"crash": "crash_me"}}, "ok.py")
    assert exits == []
    worker._test_hook({**SETTINGS, "test_faults": {"crash": "crash_me"}}, "a/crash_me.py")
    assert exits == [70]


@pytest.mark.parametrize("limit", [None, 0])
def test_no_memory_limit_leaves_the_process_alone(limit):
    resource = pytest.importorskip("resource")
    before = resource.getrlimit(resource.RLIMIT_AS)
    worker._apply_memory_limit(limit)
    assert resource.getrlimit(resource.RLIMIT_AS) == before

"""Fixtures for the loop tests: the REAL CommitIndex, Scratchpad, sandbox and validator."""

from __future__ import annotations

import json

import pytest

from codemem.codegen.checks.validate import select_related_tests, validate_draft
from codemem.memory.commits.index import CommitIndex
from codemem.memory.scratchpad import Scratchpad

TASK = "task-slug"


def real_or_interim():
    """The real validator and test selector (the interim stand-in is gone)."""
    return validate_draft, select_related_tests


@pytest.fixture
def store(tmp_path) -> CommitIndex:
    index = CommitIndex(tmp_path / "history.git", backend="dulwich")
    yield index
    index.close()


@pytest.fixture
def notes() -> Scratchpad:
    pad = Scratchpad()
    pad.start_task(TASK)
    return pad


def judge_pass(n: int = 2) -> str:
    return json.dumps({"checks": [{"check": i, "pass": True, "reason": "ok"}
                                  for i in range(1, n + 1)]})

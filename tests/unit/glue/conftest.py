"""Every glue test starts with no sessions and no projects, and closes the projects it built."""

from __future__ import annotations

import pytest

from codemem.app.drafting.sessions import Sessions
from codemem.app.process import GENERATION
from codemem.app.projects.registry import Registry


@pytest.fixture(autouse=True)
def cat_data_folder(tmp_path, monkeypatch):
    """The Cat's data folder of the test (the default data folder lives under it)."""
    monkeypatch.setenv("CCAT_METADATA_FILE", str(tmp_path / "cat-data" / "metadata.json"))


@pytest.fixture(autouse=True)
def fresh_registries(monkeypatch):
    registry, sessions = Registry(), Sessions()
    monkeypatch.setattr(GENERATION, "registry", registry)
    monkeypatch.setattr(GENERATION, "sessions", sessions)
    yield registry, sessions
    for session in sessions.all():
        if session.worker is not None:
            session.worker.stop_event.set()
            session.worker.thread.join(60)
    registry.close_all()

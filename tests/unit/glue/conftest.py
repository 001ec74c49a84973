"""Every glue test starts with no sessions and no projects, and closes the projects it built."""

from __future__ import annotations

import pytest

from codemem.app.drafting.session import Sessions
from codemem.app.process import GENERATION
from codemem.app.projects.registry import Registry


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

"""Every glue test starts with no sessions and no projects, and closes the projects it built."""

from __future__ import annotations

import pytest

from codemem import runtime
from codemem.projects import Registry
from codemem.session import Sessions


@pytest.fixture(autouse=True)
def fresh_registries(monkeypatch):
    registry, sessions = Registry(), Sessions()
    monkeypatch.setattr(runtime, "REGISTRY", registry)
    monkeypatch.setattr(runtime, "SESSIONS", sessions)
    yield registry, sessions
    for session in sessions.all():
        if session.worker is not None:
            session.worker.stop_event.set()
            session.worker.join(60)
    registry.close_all()

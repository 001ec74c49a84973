"""Long random chats in a real Cat 1.9.2 served in its own process, checked against the README's
rules (tests/unit/glue/conversation_model.py, the same model the simulated Cat is explored
with).

``ServedChats`` is the model's driver: several users, each on a websocket of their own (a
reader thread keeps every frame, so results sent later by draft workers are seen), the
``file_system`` cache, a scripted model that answers like a competent one and holds code
generation while a gate file exists. Its plugin events are real: a toggle (off and on through
the admin API), a re-upload of the plugin's zip, a graceful restart (SIGTERM, then a new Cat on
the same folders) and a kill -9 (SIGKILL, then a new Cat). A cache file is torn the way the Cat
itself leaves it while writing (truncated, then the write completes; or deleted).

``conversation_model.walk`` drives a seeded random sequence of the model's steps. Imported by
the Cat too (it imports every ``.py`` of the plugin): nothing runs at import time.
"""

from __future__ import annotations

import json
import pathlib
import re
import threading
import time
from typing import Any

from ..unit.glue.conversation_model import RESULTS, RULES
from . import cat_harness
from .cat_doubles import LLMScript
from .cat_process import ServedCat

PLUGIN_ID = cat_harness.PLUGIN_ID
#: The steps a real Cat takes (a draft finishing *inside* a turn needs the simulated Cat; an
#: older plugin's state cannot be pickled from outside the Cat).
REAL_RULES = {name: ({"how": ("truncate", "delete")} if name == "tear_cache" else args)
              for name, args in RULES.items() if name != "draft_finishes_during_a_turn"}


class Chat:
    """One user's socket; every frame is kept (the turn's answer, results sent later)."""

    def __init__(self, cat: ServedCat, user: str) -> None:
        from websockets.sync.client import connect

        self.user = user
        self.ws = connect(f"ws://127.0.0.1:{cat.port}/ws/{user}", max_size=None)
        self.frames: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []
        self._new = threading.Condition()
        self._reader = threading.Thread(target=self._read, name=f"chat-{user}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for raw in self.ws:
                frame = json.loads(raw)
                with self._new:
                    if frame.get("type") == "error" or "text" in frame:
                        self.answers.append(frame)
                    else:
                        self.frames.append(frame)
                    self._new.notify_all()
        except Exception:  # the socket closed: the Cat stopped or the test ended
            return

    def say(self, text: str, timeout: float = 300) -> str:
        with self._new:
            seen = len(self.answers)
        self.ws.send(json.dumps({"text": text}))
        with self._new:
            if not self._new.wait_for(lambda: len(self.answers) > seen, timeout):
                raise AssertionError(f"{self.user}: no answer to {text!r} in {timeout} s")
            frame = self.answers[seen]
        if frame.get("type") == "error":
            return f"ERROR: {frame}"
        return str(frame["text"])

    def chats(self) -> list[str]:
        with self._new:
            return [str(f.get("content")) for f in self.frames if f.get("type") == "chat"]

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # already closed by the Cat's exit
            pass


class ServedChats:
    """``conversation_model.Driver`` over a served Cat (see the module docstring)."""

    def __init__(self, core: pathlib.Path, root: pathlib.Path, plugins_name: str,
                 repo: pathlib.Path, users: tuple[str, ...]) -> None:
        self.core, self.root, self.plugins_name, self.repo = core, root, plugins_name, repo
        self.users = users
        self.gate = root / "hold-generation"
        self.gate.touch()
        self.script = LLMScript(conversation=True, gate=str(self.gate), answer="CAT-ANSWER",
                                relevance=0.9)
        self.cats: list[ServedCat] = []
        self.chats_of: dict[str, list[str]] = {u: [] for u in users}  # over every Cat
        self.pending = {u: 0 for u in users}
        self.events: list[str] = []
        self._log_seen = 0
        self._start()

    # -- the Cat -------------------------------------------------------------------------------
    @property
    def cat(self) -> ServedCat:
        return self.cats[-1]

    def _start(self) -> None:
        cat = ServedCat(self.core, self.root / "cat", self.plugins_name, self.script,
                        cat_harness.REPO_ROOT)
        self.cats.append(cat)
        cat.wait_ready()
        if len(self.cats) == 1:
            cat.toggle(PLUGIN_ID)
        self._indexed(start=len(self.cats) == 1)
        self._log_seen = 0
        self.chat = {u: Chat(cat, u) for u in self.users}

    def _indexed(self, *, start: bool, timeout: float = 300) -> None:
        """Wait for the repository's index: the run started here (the plugin switched on at
        run time runs no start-up pass), or the start-up pass of a restarted Cat (a request
        meanwhile would find no index and ask for its file, as the words alone decide)."""
        import httpx

        base = f"{self.cat.base}/custom/code-memory"
        token = httpx.post(f"{self.cat.base}/auth/token", timeout=60, json={
            "username": "admin", "password": "admin"}).json()["access_token"]
        auth = {"Authorization": f"Bearer {token}"}
        if start:
            assert httpx.post(f"{base}/index", headers=auth, timeout=60).status_code == 202
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run = httpx.get(f"{base}/index", headers=auth, timeout=60).json()
            if run.get("finished") and not run.get("running"):
                return
            time.sleep(0.3)
        raise AssertionError(f"the index was not ready in {timeout} s: {run}")

    def _closed_chats(self) -> None:
        for user, chat in self.chat.items():
            self.chats_of[user] += chat.chats()
            chat.close()

    def close(self) -> None:
        self._closed_chats()
        for cat in self.cats:
            if cat.proc.poll() is None:
                cat.terminate()

    # -- the driver ----------------------------------------------------------------------------
    def say(self, user: str, text: str, **moments: Any) -> str:
        assert not moments, "a real Cat has no hook between its load and its write-back"
        answer = self.chat[user].say(text)
        if answer.startswith(("Drafting `", "Rename `", "Move `")):
            self.pending[user] += 1
        return answer

    def chats(self, user: str) -> list[str]:
        return [*self.chats_of[user], *self.chat[user].chats()]

    def finish_drafts(self, timeout: float = 300) -> None:
        """Let code generation go until every run started has sent its result."""
        self.gate.unlink(missing_ok=True)
        deadline = time.monotonic() + timeout
        try:
            for user in self.users:
                while self._results(user, RESULTS) < self.pending[user]:
                    assert time.monotonic() < deadline, f"{user}: a draft sent no result"
                    time.sleep(0.1)
        finally:
            self.gate.touch()

    def _results(self, user: str, results: tuple[str, ...]) -> int:
        return sum(c.startswith(results) for c in self.chats(user))

    def event(self, kind: str) -> None:
        self.events.append(kind)
        base = self.cat.base
        if kind == "toggle":
            import httpx

            for _ in range(2):
                answer = httpx.put(f"{base}/plugins/toggle/{PLUGIN_ID}", timeout=120)
                assert answer.status_code == 200, answer.text
        elif kind == "reupload":
            self._reupload(base)
        else:
            self._closed_chats()
            if kind == "kill":
                self.cat.proc.kill()
                self.cat.proc.wait()
            else:
                self.cat.terminate()
            self._start()
        for user in self.users:  # interrupted runs send no result: the model knows
            self.pending[user] = self._results_now(user)

    def _results_now(self, user: str) -> int:
        return self._results(user, RESULTS)

    def _reupload(self, base: str) -> None:
        import httpx

        folder = self.root / f"upload-{len(self.events)}"  # the zip's name is the plugin's id
        folder.mkdir()
        archive = cat_harness.plugin_zip(folder / f"{PLUGIN_ID}.zip")
        with open(archive, "rb") as handle:
            answer = httpx.post(f"{base}/plugins/upload", timeout=300, files={
                "file": (archive.name, handle.read(), "application/zip")})
        assert answer.status_code == 200, answer.text
        toggled = httpx.put(f"{base}/plugins/toggle/{PLUGIN_ID}", timeout=120)
        assert toggled.status_code == 200, toggled.text

    def tear(self, user: str, how: str) -> None:
        path = self.root / "cat" / "cache" / f"{user}_working_memory.cache"
        if not path.exists():
            return
        whole = path.read_bytes()
        if how == "delete":
            path.unlink()
            return
        path.write_bytes(whole[:len(whole) // 2])
        self.finish_drafts()  # the worker finishes while the file is torn
        if path.read_bytes() == whole[:len(whole) // 2]:
            path.write_bytes(whole)  # the Cat's interrupted write completes

    def repository(self) -> dict[str, str]:
        return {str(p.relative_to(self.repo)): p.read_text() for p in sorted(
            self.repo.rglob("*.py")) if "__pycache__" not in p.parts}

    def problems(self) -> list[str]:
        """Tracebacks in the Cat's log that run through the plugin's code."""
        text = self.cat.log.read_text(encoding="utf-8", errors="replace")
        fresh, self._log_seen = text[self._log_seen:], len(text)
        blocks = re.split(r"(?=Traceback \(most recent call last\))", fresh)[1:]
        return [b[:3000] for b in blocks if f"/{PLUGIN_ID}/" in b
                or "Exception in thread codemem" in b]

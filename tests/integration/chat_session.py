"""One user's open ``/ws`` socket to a booted Cat (``cat_harness``): send a message, read its
frames with a timeout, fail a turn that logged errors. Nothing happens at import time (the Cat
imports every ``.py`` file of the plugin, this one included)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .cat_doubles import LogCapture


@dataclass
class ChatSession:
    """One user's open ``/ws`` socket."""

    ws: Any
    logs: LogCapture
    frames: list = field(default_factory=list)

    def next_frame(self, timeout: float = 120.0) -> dict | None:
        """The next frame, or None after ``timeout`` seconds (the test client has no timeout)."""
        import anyio

        async def receive() -> Any:
            with anyio.move_on_after(timeout):
                return await self.ws._send_rx.receive()  # starlette 0.45 test client internals
            return None

        message = self.ws.portal.call(receive)
        if message is None:
            return None
        assert message["type"] == "websocket.send", message
        self.frames.append(json.loads(message["text"]))
        return self.frames[-1]

    def say(self, text: str, *, allow_errors: bool = False, timeout: float = 300.0) -> dict:
        """Send a message; the final ``chat`` or ``error`` frame of the turn.

        The Cat swallows exceptions of hooks, tools and forms (it logs them and answers
        anyway), so unless ``allow_errors`` an ERROR logged during the turn fails here.
        """
        mark = len(self.logs.records)
        self.ws.send_json({"text": text})
        frame = self.wait_for(lambda f: f.get("type") in ("chat", "error"), timeout)
        assert frame is not None, f"no chat/error frame for {text!r} in {timeout} s: " \
            f"{self.frames[-5:]}"
        errors = self.logs.errors_since(mark)
        assert allow_errors or not errors, f"the turn {text!r} logged errors:\n" + \
            "\n".join(errors)
        return frame

    def wait_for(self, matches: Callable[[dict], bool], timeout: float = 300.0) -> dict | None:
        """The first frame (from now) that ``matches``; None when none came in ``timeout`` s."""
        import time

        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            frame = self.next_frame(left)
            if frame is None:
                return None
            if matches(frame):
                return frame
        return None

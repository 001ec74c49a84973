"""A Cheshire Cat 1.9.2 served by uvicorn in its own process, for tests that must stop it.

``python -m tests.integration.cat_process <core> <workdir> <plugins folder> <port> <script>``
boots the Cat as ``python -m cat.main`` does (uvicorn, its SIGTERM handling, a real exit), with
the same test patches as the in-process harness (cat_harness.py: in-memory Qdrant, no admin
build, no requirement installs, offline tiktoken) and the ``file_system`` cache, so a second Cat
on the same ``workdir`` finds the plugin active and every user's working memory. With
``CWM_QDRANT=disk`` in the environment the Cat keeps its vectors as it does by default, in a
local on-disk Qdrant (here ``<workdir>/qdrant``), which a restart reloads: the scale benchmark
(bench/cat_scale_bench.py) measures that. The LLM is the
scripted chat model of cat_doubles.py, read from the JSON file ``script``.

``ServedCat`` is the test's side: it starts that process on a free loopback port, talks to it
over HTTP and websockets, lists the processes it started and stops it with SIGTERM, as
``docker stop`` does.

Imported by the Cat too (it imports every ``.py`` of the plugin): nothing runs at import time.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict
from typing import Any

from .cat_doubles import LLMScript, make_fake_llm


def serve(core: pathlib.Path, workdir: pathlib.Path, plugins_name: str, port: int,
          script: LLMScript) -> None:
    import pytest

    from .cat_harness import _patch_cat, _patch_environment

    workdir.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        _patch_environment(mp, core, workdir, "file_system")
        _patch_cat(mp, plugins_name + "/", False)
        if os.environ.get("CWM_QDRANT") == "disk":
            _on_disk_qdrant(mp, workdir / "qdrant")
        import uvicorn
        from cat.startup import cheshire_cat_api

        booted = cheshire_cat_api.router.lifespan_context

        @contextlib.asynccontextmanager
        async def with_scripted_llm(app: Any) -> AsyncIterator[None]:
            async with booted(app):
                app.state.ccat._llm = make_fake_llm(script)  # read by every StrayCat per call
                yield

        mp.setattr(cheshire_cat_api.router, "lifespan_context", with_scripted_llm)
        uvicorn.run(cheshire_cat_api, host="127.0.0.1", port=port, log_level="warning")


def _on_disk_qdrant(mp: Any, path: pathlib.Path) -> None:
    """The Cat's own local Qdrant (``QdrantClient(path=...)``, one per process), in ``path``."""
    from cat.memory.vector_memory import VectorMemory
    from qdrant_client import QdrantClient

    def on_disk(self: Any, *args: Any, **kwargs: Any) -> None:
        if VectorMemory.local_vector_db is None:
            VectorMemory.local_vector_db = QdrantClient(
                path=str(path), force_disable_check_same_thread=True)
        self.vector_db = VectorMemory.local_vector_db

    mp.setattr(VectorMemory, "connect_to_vector_memory", on_disk)


class ServedCat:
    """The test's handle on a Cat served by another process (see the module docstring)."""

    def __init__(self, core: pathlib.Path, workdir: pathlib.Path, plugins_name: str,
                 script: LLMScript, repo_root: pathlib.Path,
                 extra_env: dict[str, str] | None = None) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        script_file = workdir / "llm_script.json"
        script_file.write_text(json.dumps({k: v for k, v in asdict(script).items()
                                           if k != "prompts"}))
        self.port = free_port()
        self.log = workdir / "served_cat.log"
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
        env.update(extra_env or {})
        with open(self.log, "w", encoding="utf-8") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.integration.cat_process", str(core), str(workdir),
                 plugins_name, str(self.port), str(script_file)],
                cwd=repo_root, env=env, stdout=out, stderr=subprocess.STDOUT)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 180) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"the Cat exited: {self.tail()}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/", timeout=5).status_code == 200:
                    return
            time.sleep(0.5)
        raise AssertionError(f"the Cat did not answer in {timeout} s: {self.tail()}")

    def toggle(self, plugin_id: str, timeout: float = 120) -> None:
        """Activate the plugin (retried while the Cat is still discovering plugins)."""
        import httpx

        deadline = time.monotonic() + timeout
        while True:
            status = httpx.put(f"{self.base}/plugins/toggle/{plugin_id}", timeout=120)
            if status.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert status.status_code == 200, status.text

    @contextlib.contextmanager
    def socket(self, user: str) -> Iterator[Any]:
        from websockets.sync.client import connect

        with connect(f"ws://127.0.0.1:{self.port}/ws/{user}") as ws:
            yield ws

    def descendants(self) -> dict[int, str]:
        """Every live process started (directly or not) by the Cat, with its command line."""
        return {pid: cmdline(pid) for pid in descendants_of(self.proc.pid) if alive(pid)}

    def terminate(self, timeout: float = 30) -> float:
        """SIGTERM, as ``docker stop`` sends; seconds until the process exited."""
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGUSR1)  # a thread dump into the log, then kill
            time.sleep(2)
            self.proc.kill()
            self.proc.wait()
        return time.monotonic() - started

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]


def say(ws: Any, text: str, timeout: float = 300) -> dict:
    """Send ``text``; the turn's own answer (worker messages carry ``content``, not ``text``)."""
    ws.send(json.dumps({"text": text}))
    while True:
        frame = json.loads(ws.recv(timeout=timeout))
        if frame.get("type") == "error" or (frame.get("type") == "chat" and "text" in frame):
            return frame


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def descendants_of(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return "?"


def main(argv: list[str]) -> int:
    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a stuck exit can be diagnosed
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    core, workdir, plugins_name, port, script = argv
    serve(pathlib.Path(core), pathlib.Path(workdir), plugins_name, int(port),
          LLMScript.from_json(pathlib.Path(script).read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

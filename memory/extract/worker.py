"""Entry point of a parsing worker process (started by ``pool.ExtractionPool``).

The worker is a plain ``python -c`` child that mounts the plugin root under a private
package name and calls ``main()``: this works the same under pytest (``codemem``) and in
the Cat (``cat.plugins.<id>``), needs no pickling of functions, and is safe to start
from a multi-threaded host (fork+exec, no forked interpreter state).
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import time
from dataclasses import fields
from importlib import import_module

from .api import extract_file
from .entities import FileExtraction
from .lifeline import die_with_parent
from .safety import Limits
from .wire import WorkerSettings, read_frame_blocking, write_frame

READY = b'{"ready": true}'


def _apply_memory_limit(limit: int | None) -> None:
    if not limit:
        return
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # not on this platform: the time limit remains
        pass


def _test_hook(config: WorkerSettings, path: str) -> None:
    """Test-only faults, enabled only by the host's ``_test_faults`` option."""
    faults = config.get("test_faults") or {}
    if faults.get("crash") and faults["crash"] in path:
        os._exit(70)
    if faults.get("hang") and faults["hang"] in path:
        time.sleep(3600)


def _warm_up(engine: str) -> None:
    """Import the parsers before reporting ready, so start-up never eats a file's time."""
    from .languages import get_parser

    for module in (".python_ts", ".treesitter"):
        import_module(module, __package__)

    get_parser("python")
    if engine == "libcst":
        import libcst  # noqa: F401


def _one(config: WorkerSettings, limits: Limits, path: str, data: bytes) -> bytes:
    _test_hook(config, path)
    try:
        result = extract_file(path, data, python_engine=config["engine"], limits=limits)
    except Exception as exc:  # crash boundary: a bug on one file must not lose the batch
        result = FileExtraction(path=path, status="error:internal", detail=repr(exc)[:300])
    return json.dumps(result.to_dict()).encode("utf-8")


def main() -> None:
    """Serve batches from stdin until it closes; one JSON frame per file, in order."""
    if len(sys.argv) > 3:
        die_with_parent(int(sys.argv[3]))
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints from libraries must not corrupt the protocol stream
    stdin = sys.stdin.buffer
    raw = read_frame_blocking(stdin)
    if raw is None:
        return
    config: WorkerSettings = pickle.loads(raw)  # from the host, which the worker trusts
    limit_names = {f.name for f in fields(Limits)}
    limits = Limits(**{k: v for k, v in config.get("limits", {}).items() if k in limit_names})
    _apply_memory_limit(config.get("memory_limit"))
    _warm_up(config["engine"])
    write_frame(protocol_out, READY)
    while True:
        raw = read_frame_blocking(stdin)
        if not raw:
            return
        for path, data in pickle.loads(raw):
            write_frame(protocol_out, _one(config, limits, path, data))

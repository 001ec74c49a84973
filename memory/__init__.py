"""Framework-free memory core: scratchpad, memory API, code index, commit history.

Never imports ``cat``. Public names resolve lazily (PEP 562) so that importing the package is
cheap and has no side effects: the Cat imports every module of the plugin, and the heavy parts
(tree-sitter grammars, git backends) load only when used.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    # scratchpad (seed 001)
    "Scratchpad": ".scratchpad",
    "TaskNotFound": ".errors",
    # errors
    "CodeMemoryError": ".errors",
    "StoreCorrupt": ".errors",
    # memory API (seed 004)
    "MemorySystem": ".system",
    "ScoredMemory": ".system",
    "Candidate": ".system",
    "SyncMemorySystem": ".sync",
    "HashingEmbedder": ".retrieval.embedding",
    # code memory (seed 004 / GitMemory)
    "CodeMemorySystem": ".codebase",
    "CodeContext": ".codebase",
    "CatVectorSink": ".codeindex.vector_sink",
    "NamedEmbedder": ".codeindex.vector_sink",
    "is_code_point": ".codeindex.vector_sink",
    # episodic memory (seed 000 CommitIndex)
    "CommitIndex": ".commits",
    "CommitInfo": ".commits",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:  # Any: the lazily imported class or function
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __package__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

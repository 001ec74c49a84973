"""Code entity extraction: languages, parsers, safe repository walking, crash-isolated workers.

Plain re-exports; every submodule imports its heavy dependencies (libcst, tree-sitter
grammars) lazily, so importing this package is cheap and has no side effects.
"""

from .api import PYTHON_ENGINES, extract_file
from .entities import INDEXED, UNCHANGED, CodeEntity, FileExtraction, sha256_hex
from .languages import LANGUAGES, GrammarUnavailable, detect_language
from .pool import ExtractionPool, PoolConfig, PoolStats
from .repository import extract_repository, summarize
from .safety import Limits
from .walker import FileEntry, ReadResult, read_file_safely, walk_repository

__all__ = [
    "INDEXED",
    "LANGUAGES",
    "PYTHON_ENGINES",
    "UNCHANGED",
    "CodeEntity",
    "ExtractionPool",
    "FileEntry",
    "FileExtraction",
    "GrammarUnavailable",
    "Limits",
    "PoolConfig",
    "PoolStats",
    "ReadResult",
    "detect_language",
    "extract_file",
    "extract_repository",
    "read_file_safely",
    "sha256_hex",
    "summarize",
    "walk_repository",
]

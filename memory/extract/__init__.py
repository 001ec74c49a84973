"""Code entity extraction: languages, parsers, safe repository walking, crash-isolated workers.

Plain re-exports; every submodule imports its heavy dependencies (libcst, tree-sitter
grammars) lazily, so importing this package is cheap and has no side effects.
"""

from .api import PYTHON_ENGINES, extract_file
from .entities import INDEXED, UNCHANGED, CodeEntity, FileExtraction, sha256_hex
from .languages import LANGUAGES, GrammarUnavailable, detect_language
from .safety import Limits

__all__ = [
    "INDEXED",
    "LANGUAGES",
    "PYTHON_ENGINES",
    "UNCHANGED",
    "CodeEntity",
    "FileExtraction",
    "GrammarUnavailable",
    "Limits",
    "detect_language",
    "extract_file",
    "sha256_hex",
]

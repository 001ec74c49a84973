"""Which language a path is in, and the lazily loaded tree-sitter grammar for it.

Grammars are imported on first use and cached per process: importing all eleven costs
time and memory that a Python-only repository never needs, and a missing grammar must
become a per-file status (``error:grammar_unavailable``), not an import error at startup.
"""

from __future__ import annotations

import importlib
import threading
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..errors import BackendUnavailable

if TYPE_CHECKING:  # typing only: tree-sitter is imported on first use
    from tree_sitter import Language, Parser

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".php": "php", ".phtml": "php",
    ".cs": "csharp",
}
"""Lower-case suffix -> language id."""

FILENAMES: dict[str, str] = {"Rakefile": "ruby", "Gemfile": "ruby"}

LANGUAGES: tuple[str, ...] = (
    "python", "javascript", "typescript", "tsx", "java", "c", "cpp", "go", "rust", "ruby", "php",
    "csharp",
)
"""Every language id ``detect_language`` can return (``tsx`` is TypeScript with JSX)."""

# language id -> (module, function returning the grammar pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "csharp": ("tree_sitter_c_sharp", "language"),
}

_lock = threading.Lock()
_languages: dict[str, Language] = {}
_parsers: dict[tuple[str, int], Parser] = {}


class GrammarUnavailable(BackendUnavailable):
    """The tree-sitter binding or the grammar package for a language is not installed."""


def detect_language(path: str) -> str | None:
    """Language id for a file name, or None when the suffix is not supported."""
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.name in FILENAMES:
        return FILENAMES[pure.name]
    return EXTENSIONS.get(pure.suffix.lower())


def get_language(lang: str) -> Language:
    """The cached ``tree_sitter.Language`` for ``lang``; raises ``GrammarUnavailable``."""
    cached = _languages.get(lang)
    if cached is not None:
        return cached
    if lang not in _GRAMMARS:
        raise GrammarUnavailable(f"no tree-sitter grammar is known for language {lang!r}")
    module_name, func_name = _GRAMMARS[lang]
    try:
        import tree_sitter

        grammar = importlib.import_module(module_name)
        language = tree_sitter.Language(getattr(grammar, func_name)())
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        raise GrammarUnavailable(
            f"tree-sitter grammar for {lang!r} unavailable ({module_name}.{func_name}): {exc}"
        ) from exc
    with _lock:
        _languages.setdefault(lang, language)
    return _languages[lang]


def get_parser(lang: str) -> Parser:
    """A cached ``tree_sitter.Parser`` for ``lang``, one per thread (parsers are not shareable)."""
    key = (lang, threading.get_ident())
    parser = _parsers.get(key)
    if parser is None:
        language = get_language(lang)
        import tree_sitter

        parser = tree_sitter.Parser(language)
        with _lock:
            _parsers[key] = parser
    return parser

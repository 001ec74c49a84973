"""Code entity extraction: languages, parsers, safe repository walking, crash-isolated workers.

Plain re-exports; every submodule imports its heavy dependencies (libcst, tree-sitter
grammars) lazily, so importing this package is cheap and has no side effects.

This file only describes the package: code imports each name from the module that defines it
(after a toggle the Cat never runs a package's ``__init__`` again, docs/architecture.md).
"""

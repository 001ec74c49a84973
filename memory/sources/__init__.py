"""Associative memory: other repositories, libraries and docs the drafts learn from.

Sources are parsed from the settings (``spec``), resolved to trees (``trees``,
``distributions``, ``archives``, ``package_index``), indexed into the project's code memory
under their own namespace (``indexing``), and looked up for validation (``api_lookup``).
Nothing from a source is ever imported or executed.

This file only describes the package: code imports each name from the module that defines it
(after a toggle the Cat never runs a package's ``__init__`` again, docs/architecture.md).
"""

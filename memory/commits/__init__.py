"""Episodic memory (the draft history, ``CommitIndex``): every draft is a git commit.

Importing this package loads neither GitPython nor dulwich; backends load on first use.

This file only describes the package: code imports each name from the module that defines it
(after a toggle the Cat never runs a package's ``__init__`` again, docs/architecture.md).
"""

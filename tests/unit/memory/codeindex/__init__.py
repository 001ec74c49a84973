"""Tests of `memory/codeindex/`."""

"""Tests of `memory/retrieval/`."""

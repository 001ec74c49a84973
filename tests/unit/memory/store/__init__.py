"""Tests of `memory/store/`."""

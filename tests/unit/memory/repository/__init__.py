"""Tests of `memory/repository/`."""

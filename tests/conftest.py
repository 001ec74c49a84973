"""Shared fixtures. Imported by the Cat too (it imports every .py): no side effects here."""

from __future__ import annotations

import pytest

from .fakes import AsyncScriptedLLM, ScriptedLLM


@pytest.fixture
def scripted_llm():
    """Factory: ``scripted_llm("reply 1", "reply 2")`` -> a ``ScriptedLLM``."""
    return ScriptedLLM


@pytest.fixture
def async_scripted_llm():
    """Factory for the async flavour (``small_model_fn`` of the memory API)."""
    return AsyncScriptedLLM

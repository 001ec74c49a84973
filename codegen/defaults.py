"""The draft run's defaults, stated once: the loop, validation, parsing, linting, the sandbox.

Every declaration of these parameters reads this table (``LoopConfig``, ``validate_draft``,
``check_parse``, ``lint_source``, ``run_tests``, ``ExtendedDeps``), and so does the plugin's
settings model (``app/host/settings_model.py``) for the ones it offers; the sandbox's default
policy is the sandbox's own (``DEFAULT_POLICY`` in ``sandbox/protect.py``, so that
``run_in_sandbox`` needs nothing from the rest of ``codegen``), which this table states by name;
tests/unit/test_settings_tables.py fails when one of them states another value.
"""

from __future__ import annotations

from dataclasses import dataclass

from .sandbox.protect import DEFAULT_POLICY, SandboxPolicy


@dataclass(frozen=True)
class DraftRunDefaults:
    """How a draft is made and checked when the caller says nothing."""

    #: draft attempts per run
    max_iterations: int
    #: the Python the repository targets: drafts are parsed and linted for it
    python_version: str
    #: wall-clock seconds of one sandboxed run
    timeout_s: float
    #: address-space limit of one sandboxed run (MiB)
    memory_mb: int
    #: which sandbox protections a run of generated code requires
    sandbox_policy: SandboxPolicy


DRAFT_RUN_DEFAULTS = DraftRunDefaults(
    max_iterations=4, python_version="3.10", timeout_s=60.0, memory_mb=1024,
    sandbox_policy=DEFAULT_POLICY)

"""Framework-free code-generation core: meta-code, the draft loop, validation and the sandbox.

Never imports ``cat`` or ``memory``: what it needs from them it declares in ``ports``. Public
names resolve lazily (PEP 562) so importing the package has no side effects.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "CodegenError": ".errors",
    "IllegalTransition": ".errors",
    "CodegenPhase": ".phases",
    "PhaseMachine": ".phases",
    "ValidationReport": ".report",
    "CheckResult": ".report",
    "run_in_sandbox": ".sandbox.api",
    "SandboxResult": ".sandbox.api",
    "sandbox_capabilities": ".sandbox.api",
    "Protections": ".sandbox.protect",
    "Protection": ".sandbox.protect",
    "SandboxPolicy": ".sandbox.protect",
    "validate_draft": ".validate",
    "select_related_tests": ".validate",
    "MetaCode": ".metacode",
    "generate_metacode": ".metacode",
    "ProgressEvent": ".loop",
    "ExtendedConfig": ".extended",
    "apply_reply": ".edits.api",
    "judge_draft": ".judge",
    "run_draft_loop": ".loop",
    "LoopConfig": ".loop",
    "LoopDeps": ".loop",
    "Committed": ".loop",
    "GaveUp": ".loop",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __package__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

"""The one exception hierarchy of ``codegen``.

Model mistakes (bad drafts, unparsable replies) are *data* (reports fed back to the model);
exceptions are for developers and the environment. Modules may define narrower subclasses next
to their code, always deriving from these.
"""

from __future__ import annotations


class CodegenError(Exception):
    """Base of every error raised on purpose by ``codegen``."""


class IllegalTransition(CodegenError):
    """A task tried to move between two phases the state machine does not connect."""


class MetaCodeInvalid(CodegenError, ValueError):
    """Meta-code that does not validate (after the re-ask budget, or edited by hand)."""


class EditRejected(CodegenError, ValueError):
    """An LLM edit that cannot be applied (no match, ambiguous match, elided code)."""

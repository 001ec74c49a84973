"""The one exception hierarchy of ``llm``, the boundary with language models.

A model's unusable answer is *data* for the retry loop (``ReplyRefused`` carries the exact
message the retry prompt quotes back); a template rendered with the wrong variables is a
developer error (``PromptError``).
"""

from __future__ import annotations


class LLMError(Exception):
    """Base of every error raised on purpose by ``llm``."""


class PromptError(LLMError, KeyError):
    """A template was rendered with a missing or unknown variable (a developer error)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class ReplyRefused(LLMError, ValueError):
    """A model reply that cannot be read with certainty; ``str(err)`` says exactly why.

    The message is written for the model as much as for the user: the retry prompt quotes it.
    """

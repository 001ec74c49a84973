"""A failed model step said in the user's terms: which step, what was tried, what to change.

The cores' refusals are written for the model (the retry prompt quotes them back: "give the
meta-code as one JSON object"); a user reading them learns nothing they can act on. So a step
that could not get its answer is reported here with the settings that change the outcome: the
plugin's "Native JSON mode" (the answer's schema sent to the server, which then cannot answer
in another shape), a larger model (in the Cat's LLM settings), "Context window (tokens)",
"Model time per action (s)" and "Reasoning allowance (tokens)", then the step's own advice
(``llm.Step.advice``: declared with the step, e.g. the meta-code's "say the request again more
simply").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ...codegen import JUDGE, MetaCodeInvalid
from ...llm import PromptTooLong, ReplyRefused, Step, TimeBudgetSpent
from .llm_port import model_window
from .structured_llm import WindowRefused


class ModelSettings(Protocol):
    """The configuration the advice names (``PluginConfig`` fits)."""

    @property
    def native_json(self) -> str: ...

    @property
    def window(self) -> int | None: ...

    @property
    def data_dir(self) -> str: ...

    @property
    def budget_s(self) -> float: ...

    @property
    def reasoning_tokens(self) -> int: ...


def failure_text(step: Step, err: BaseException, config: ModelSettings) -> str:
    """What went wrong in ``step`` and what the user can change."""
    where = step.doing
    if isinstance(err, TimeBudgetSpent):
        return (f"{where} stopped: the model calls of this action used their whole time "
                f"budget ({config.budget_s:g} s). What you can do: raise the plugin's setting "
                "'Model time per action (s)', or choose a faster model in the Cat's LLM "
                "settings.")
    if isinstance(err, PromptTooLong):
        return f"{where} stopped: {err}."
    if isinstance(err, WindowRefused):
        return (f"{where} stopped: {err}, less than the plugin's setting 'Context window "
                f"(tokens)' ({config.window}). What you can do: set it to {err.window}, or to "
                "auto (the window is then read from the server).")
    if isinstance(err, (MetaCodeInvalid, ReplyRefused)):
        return (f"the model did not write its answer for {where} in the form the plugin reads "
                f"(tried: {err}). What you can do: {_shape_advice(step, config)}")
    return (f"the model did not answer while {where} ({type(err).__name__}: {err}). What you "
            "can do: check that the model's server is running and reachable from the Cat, then "
            "say it again; with a slow model, raise 'Model time per action (s)'.")


def unreadable_verdict_advice(messages: Iterable[tuple[str, str]], config: ModelSettings
                             ) -> str:
    """For a draft run that gave up: what to change when the judge's answers could not be
    read (``messages``: each failed check's name and message), else ``""``."""
    if not any(name == "judge" and "unusable" in message for name, message in messages):
        return ""
    return (f"Judging the draft: the model did not write its verdict in the form the plugin "
            f"reads. What you can do: {_shape_advice(JUDGE, config)}")


def _window(config: ModelSettings) -> str:
    try:
        return model_window(config).describe()
    except Exception:  # the Cat's model cannot be reached: the setting alone
        return f"{config.window or 'auto'}"


def _shape_advice(step: Step, config: ModelSettings) -> str:
    steps = []
    if not config.native_json:
        steps.append("turn on the plugin's setting 'Native JSON mode' (auto: the server is "
                     "given the answer's schema where it takes one)")
    steps.append("choose a larger model in the Cat's LLM settings (small models often write "
                 "prose or code where a JSON object is asked for)")
    if config.reasoning_tokens == 0:
        steps.append("for a model that thinks before answering (<think>), set 'Reasoning "
                     "allowance (tokens)', e.g. 2048")
    steps.append(f"check that the context window the plugin uses ({_window(config)}) is the "
                 "one the model is served with (setting 'Context window (tokens)')")
    if step.advice:
        steps.append(f"or {step.advice}")
    return "; ".join(steps) + "."

"""A failed model step in the user's terms: the step, what was tried, the setting to change."""

from __future__ import annotations

from codemem.app.host.core_config import PluginConfig
from codemem.app.host.model_advice import failure_text, unreadable_verdict_advice
from codemem.app.host.settings_model import NativeJson, PluginSettings
from codemem.codegen.errors import MetaCodeInvalid
from codemem.codegen.metacode.steps import METACODE
from codemem.codegen.steps import GENERATE
from codemem.llm.bounds import TimeBudgetSpent
from codemem.llm.window import PromptTooLong


def config(**settings: object) -> PluginConfig:
    return PluginConfig.from_settings(PluginSettings(**settings), "/data")


def test_an_unreadable_answer_names_the_step_and_the_settings_that_help():
    err = MetaCodeInvalid("meta-code still invalid after 3 attempt(s): no JSON object")
    off = failure_text(METACODE, err, config(native_json=NativeJson.off))
    assert off.startswith("the model did not write its answer for preparing the request")
    assert "3 attempt(s)" in off and "'Native JSON mode'" in off and "larger model" in off
    assert "'Reasoning allowance (tokens)'" in off
    assert off.endswith("or say the request again more simply (one function: its name, inputs "
                        "and result).")  # the step's own advice, declared with it
    on = failure_text(METACODE, err, config(reasoning_tokens=2048))
    assert "'Native JSON mode'" not in on and "Reasoning allowance" not in on  # already set


def test_the_budget_and_the_window_say_their_setting():
    spent = failure_text(GENERATE, TimeBudgetSpent("spent"), config(llm_time_budget_s=90))
    assert "(90 s)" in spent and "'Model time per action (s)'" in spent
    assert spent.startswith("drafting stopped")
    long = failure_text(METACODE, PromptTooLong("the prompt needs 5000 tokens"), config())
    assert long == "preparing the request stopped: the prompt needs 5000 tokens."


def test_a_judge_whose_answers_could_not_be_read_gets_advice_a_failed_check_does_not():
    unusable = [("tests", "2 failed"), ("judge", "judge answer unusable (no JSON); counted as "
                                                "disagreement")]
    advice = unreadable_verdict_advice(unusable, config(native_json=NativeJson.off))
    assert advice.startswith("Judging the draft:") and "'Native JSON mode'" in advice
    assert unreadable_verdict_advice([("judge", "acceptance check not met: 1 (x)")],
                                     config()) == ""

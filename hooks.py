"""GLUE: the Cat hooks. Each translates between the Cat and ``runtime``; no logic here."""

from cat.mad_hatter.decorators import hook

from . import history, runtime


@hook(priority=1)
def before_cat_reads_message(user_message_json, cat):
    """Put the scratchpad and the task phase into the user's working memory every turn."""
    runtime.attach_state(cat)
    return user_message_json


@hook
def after_cat_bootstrap(cat):
    """Bring the configured repository's index up to date in the background at start-up."""
    runtime.index_at_startup(cat)


@hook
def before_cat_recalls_declarative_memories(declarative_recall_config, cat):
    """Recall a few more declarative memories: code points are taken out afterwards."""
    return runtime.widen_declarative_recall(declarative_recall_config)


@hook
def after_cat_recalls_memories(cat):
    """Keep code out of the ordinary recall; the plugin formats it for the prompt itself."""
    runtime.split_code_recall(cat)


@hook
def before_agent_starts(agent_input, cat):
    """Hand this turn's recalled code to the prompt as a variable (braces stay intact)."""
    agent_input.code_context = runtime.code_context()
    return agent_input


@hook
def agent_prompt_suffix(prompt_suffix, cat):
    """Show recalled code, with its newlines and locations, when there is any."""
    return runtime.add_code_section(prompt_suffix)


@hook
def agent_fast_reply(fast_reply, cat):
    """Answer proposed meta-code ("go", "cancel", changes), "stop" and "apply" directly."""
    text = getattr(cat.working_memory.user_message_json, "text", "") or ""
    answer = runtime.reply_to_proposal(cat, text)
    if answer is None:
        answer = runtime.stop_if_asked(cat, text)
    if answer is None:
        answer = history.apply_if_asked(cat, text)
    if answer is not None:
        fast_reply["output"] = answer
    return fast_reply

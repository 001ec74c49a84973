"""GLUE: the Cat hooks. Each translates between the Cat and ``runtime``; no logic here."""

from cat.mad_hatter.decorators import hook

from . import forms, recall, runtime


@hook(priority=1)
def before_cat_reads_message(user_message_json, cat):
    """Publish the user's state, report an interrupted task, and route code requests."""
    return runtime.read_message(cat, user_message_json, forms.CodeRequestForm)


@hook
def after_cat_bootstrap(cat):
    """Bring the configured repository's index up to date in the background at start-up."""
    runtime.index_at_startup(cat)


@hook
def before_cat_recalls_declarative_memories(declarative_recall_config, cat):
    """Recall a few more declarative memories: code points are taken out afterwards."""
    return recall.widen_declarative_recall(declarative_recall_config)


@hook
def after_cat_recalls_memories(cat):
    """Keep code out of the ordinary recall; the plugin formats it for the prompt itself."""
    runtime.after_recall(cat)


@hook
def before_agent_starts(agent_input, cat):
    """Hand this turn's code context to the prompt as a variable (braces stay intact)."""
    return runtime.prompt_variables(cat, agent_input)


@hook
def agent_prompt_suffix(prompt_suffix, cat):
    """Show the code context, with its newlines and locations, when there is any."""
    return recall.add_code_section(prompt_suffix)


@hook
def agent_fast_reply(fast_reply, cat):
    """Answer proposed meta-code ("go", "cancel", changes), "stop", "continue" and "apply"."""
    return runtime.fast_reply(cat, fast_reply)

"""GLUE: the Cat hooks. Each hands its call to ``app/entry.py``; no logic here.

Imports name functions (``from .app.entry import ...``), never modules (``from . import x``):
after the Cat re-imports the plugin, a module bound by name from a package could be the previous
import's (docs/cat-plugin-api.md, "Toggles, re-uploads and the LLM settings").
"""

from importlib import import_module

from cat.mad_hatter.decorators import hook

from .app.entry import (
    after_recall,
    end_turn,
    fast_reply,
    index_at_startup,
    prompt_variables,
    read_message,
    widen_recall,
)
from .app.entry import (
    prompt_suffix as prompt_suffix_with_code,
)


def _request_form_class():
    """The request form of this import of the plugin (looked up, never imported by name here:
    a form class visible in two modules is registered twice)."""
    return import_module(".forms", __package__).CodeRequestForm


@hook(priority=1)
def before_cat_reads_message(user_message_json, cat):
    """Publish the user's state, report an interrupted task, and route code requests."""
    return read_message(cat, user_message_json, _request_form_class())


@hook
def after_cat_bootstrap(cat):
    """Bring the configured repository's index up to date in the background at start-up."""
    index_at_startup(cat)


@hook
def before_cat_recalls_declarative_memories(declarative_recall_config, cat):
    """Recall a few more declarative memories: code points are taken out afterwards."""
    return widen_recall(declarative_recall_config)


@hook
def after_cat_recalls_memories(cat):
    """Keep code out of the ordinary recall; the plugin formats it for the prompt itself."""
    after_recall(cat)


@hook
def before_agent_starts(agent_input, cat):
    """Hand this turn's code context to the prompt as a variable (braces stay intact)."""
    return prompt_variables(cat, agent_input)


@hook
def agent_prompt_suffix(prompt_suffix, cat):
    """Show the code context, with its newlines and locations, when there is any."""
    return prompt_suffix_with_code(prompt_suffix)


@hook
def agent_fast_reply(fast_reply_value, cat):
    """Answer proposed meta-code ("go", "cancel", changes), "stop", "continue" and "apply"."""
    return fast_reply(cat, fast_reply_value)


@hook
def before_cat_sends_message(message, cat):
    """The waiting proposal's reminder, then the user's state into the working memory the Cat
    saves after this answer."""
    return end_turn(cat, message)

"""GLUE: the Cat hooks. Each translates between the Cat and ``runtime``; no logic here."""

from cat.mad_hatter.decorators import hook

from . import runtime


@hook(priority=1)
def before_cat_reads_message(user_message_json, cat):
    """Put the scratchpad and the task phase into the user's working memory every turn."""
    runtime.attach_state(cat)
    return user_message_json

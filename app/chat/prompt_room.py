"""How much of the model's window the plugin's code section may take in the Cat's own answer.

The Cat's answer prompt is its prefix, its suffix with the recalled memories and tools' output,
and the chat history with the user's message; the plugin's code section is added to the suffix
(``recall.SECTION``). So the section gets what the window leaves after all of that, after the
chat template's wrapping and a share for the Cat's answer (which the Cat sends without a
limit): measured on the turn's agent input, before the Cat builds the prompt.

The prefix is measured as the Cat's default (``MAIN_PROMPT_PREFIX``): another plugin may change
it, and running every plugin's prefix hook a second time to measure it could have their side
effects; a prefix is a few hundred characters, inside the answer's share.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...llm import TEMPLATE_RESERVE, estimate_tokens
from ..host.llm_port import model_window
from ..projects.registry import Project

#: the Cat's default prompt prefix and suffix, as the Cat 1.9 writes them (measured only)
CAT_PREFIX = ("You are the Cheshire Cat AI, an intelligent AI that passes the Turing test.\n"
              "You behave like the Cheshire Cat from Alice's adventures in wonderland, and you "
              "are helpful.\nYou answer Human shortly and with a focus on the following "
              "context.\n\n# Context\n\n\n\n")
#: the agent input's parts that reach the answer prompt
_PARTS = ("episodic_memory", "declarative_memory", "tools_output", "chat_history", "input")
#: the smallest share kept for the Cat's answer, and its share of a larger window
MIN_ANSWER, ANSWER_SHARE = 256, 8


def used_by_the_cat(agent_input: object) -> int:
    """Tokens the Cat's answer prompt takes without the plugin's section."""
    parts = agent_input if isinstance(agent_input, Mapping) else {
        name: getattr(agent_input, name, "") for name in _PARTS}
    text = CAT_PREFIX + "".join(str(parts.get(name) or "") for name in _PARTS)
    return estimate_tokens(text)


def code_room(project: Project, agent_input: object) -> int | None:
    """The room for the code section of ``project``'s answer, None without an agent input."""
    if agent_input is None:
        return None
    return room_for_code(agent_input, model_window(project.config).tokens)


def room_for_code(agent_input: object, window: int) -> int:
    """Tokens the code section may take: the window less the Cat's prompt, the template's
    wrapping and the answer's share (never below zero)."""
    answer = max(MIN_ANSWER, window // ANSWER_SHARE)
    return max(0, window - used_by_the_cat(agent_input) - TEMPLATE_RESERVE - answer)

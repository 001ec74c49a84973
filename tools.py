"""GLUE: the tools the Cat's agent may call. Docstrings are prompts for the LLM."""

from cat.mad_hatter.decorators import tool

from . import runtime


@tool(return_direct=True, examples=["code memory status", "what repository are you indexing?",
                                    "show the code working memory settings"])
def code_memory_status(tool_input, cat):
    """Report the Code Working Memory plugin's status: repository, settings, current task and
    phase, and any configuration problem. Use when the user asks about the plugin, its settings
    or what it is working on. Input is ignored."""
    return runtime.status_report(cat)

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


@tool(return_direct=True, examples=["index my repository", "re-index the code",
                                    "update the code index"])
def index_code_repository(tool_input, cat):
    """Index, or re-index incrementally, the configured code repository so its functions and
    classes can be recalled. Use when the user asks to index, scan or refresh the code.
    Input is ignored."""
    return runtime.start_indexing(cat)


@tool(examples=["how does authentication work in the code?", "where are dates parsed?",
                "find the function that loads the configuration"])
def search_code(tool_input, cat):
    """Find code in the indexed repository relevant to a question and return it with file
    paths and line numbers. Use for questions about how the user's code works or where
    something is implemented. Input: the question, in the user's words."""
    return runtime.search_code(cat, tool_input)

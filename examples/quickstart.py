"""The memory API's quick start (general memory system), runnable offline with fake LLMs.

Run from the plugin root: ``python -m tests.run examples.quickstart``. The LLMs are fakes, and
the ``__main__`` guard runs the example in a temporary directory so the default ``memories.db``
does not stay behind.
"""

import asyncio

from ..memory import MemorySystem
from .fake_llm import fake_answer, fake_score, temporary_working_directory


# Define your LLM function (example with OpenAI)
async def my_small_llm(prompt: str) -> str:
    # Your LLM API call here; this offline stand-in scores by shared words.
    return fake_score(prompt)


async def my_primary_llm(prompt: str) -> str:
    # Your primary LLM API call here; this stand-in echoes the memories it got.
    return fake_answer(prompt)


async def main():
    # Initialize system
    system = MemorySystem(small_model_fn=my_small_llm)

    # Add memories
    system.add_memory("Python uses dynamic typing")
    system.add_memory("FastAPI is a modern web framework")

    # Query
    response = await system.query(
        context="User asking about Python web development",
        task="Explain how to build a REST API",
        primary_model_fn=my_primary_llm
    )
    print(response)


if __name__ == "__main__":
    with temporary_working_directory():
        asyncio.run(main())

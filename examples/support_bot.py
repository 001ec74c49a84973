"""The memory API as a customer support bot's memory, runnable offline with fake LLMs.

Run from the plugin root: ``python -m tests.run examples.support_bot``.
"""

import asyncio

from ..memory import MemorySystem
from .fake_llm import fake_answer, fake_score, temporary_working_directory


async def gpt_turbo_fn(prompt: str) -> str:
    """Stand-in for a small, cheap scoring model."""
    return fake_score(prompt)


async def gpt4_fn(prompt: str) -> str:
    """Stand-in for the primary model."""
    return fake_answer(prompt)


async def support_bot():
    system = MemorySystem(small_model_fn=gpt_turbo_fn)

    # Load company knowledge
    system.add_memory(
        "Returns are accepted within 30 days of purchase",
        metadata={"category": "returns", "policy": True}
    )
    system.add_memory(
        "Free shipping on orders over $50",
        metadata={"category": "shipping", "policy": True}
    )

    # Customer query
    response = await system.query(
        context="Customer asking about returns",
        task="Explain our return policy",
        primary_model_fn=gpt4_fn
    )

    print(response)
    system.close()


if __name__ == "__main__":
    with temporary_working_directory():
        asyncio.run(support_bot())

"""The memory API as a research assistant's memory, runnable offline with fake LLMs.

Run from the plugin root: ``python -m tests.run examples.research_assistant``.
"""

import asyncio

from ..memory import MemorySystem
from .fake_llm import fake_answer, fake_score, temporary_working_directory


async def haiku_fn(prompt: str) -> str:
    """Stand-in for a small, cheap scoring model."""
    return fake_score(prompt)


async def gpt4_fn(prompt: str) -> str:
    """Stand-in for the primary model."""
    return fake_answer(prompt)


async def research_assistant():
    system = MemorySystem(
        small_model_fn=haiku_fn,
        max_memories=20  # More context for research
    )

    # Add research papers
    papers = [
        ("Transformer architecture uses self-attention", {"paper": "Attention Is All You Need"}),
        ("BERT uses bidirectional training", {"paper": "BERT"}),
        ("GPT-3 has 175B parameters", {"paper": "GPT-3"})
    ]

    for text, metadata in papers:
        system.add_memory(text, metadata=metadata)

    # Research query
    response = await system.query(
        context="Researching transformer models",
        task="Compare BERT and GPT architectures",
        primary_model_fn=gpt4_fn
    )

    print(response)
    system.close()


if __name__ == "__main__":
    with temporary_working_directory():
        asyncio.run(research_assistant())

"""Retrieval: from the store's candidates to LLM-scored memories.

``dense`` and ``embedding`` add the embedder's ranking when ``embedder_check`` finds that it
helps; ``scoring`` (pointwise) and ``listwise`` ask the LLM for relevance, read through
``score_replies``; ``recency``, ``dependencies`` and ``code_focus`` boost code near what the
user is working on; ``results`` holds what a retrieval returns. The pipeline itself is composed
by ``system.MemorySystem`` and ``codebase.CodeMemorySystem``.
"""

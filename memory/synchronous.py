"""``SyncMemorySystem``: the memory API for synchronous callers such as Cat hooks and tools.

Why: the Cat's ``cat.llm`` is a plain ``str -> str`` function and hooks run in worker threads,
some of which already run an event loop. This face takes that synchronous LLM, runs its calls
in a thread pool (up to ``batch_size`` at once, so scoring stays concurrent), and runs each
coroutine of the async ``MemorySystem`` to completion for the caller:

- in a thread with no running loop: ``asyncio.run`` right there;
- in a thread whose loop is running (calling ``asyncio.run`` would fail): a private loop on a
  helper thread, and the caller blocks until it is done.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .defaults import MEMORY_DEFAULTS as DEFAULTS
from .retrieval.results import Candidate, ScoredMemory
from .store.support import Filters, JSONDict
from .system import MemorySystem

T = TypeVar("T")
SyncLLM = Callable[[str], str]


class SyncMemorySystem:
    """Synchronous twin of ``MemorySystem``; same constructor, but ``llm`` is ``str -> str``.

    ``system_cls`` builds the wrapped async system (``MemorySystem`` or a subclass), every
    argument passed by keyword; extra keyword options go to it too. For a subclass with other
    defaults (``CodeMemorySystem``) use ``SyncMemorySystem.around(llm, build)``. ``.system`` is
    the async object and ``run(coro)`` runs any of its coroutines synchronously.
    """

    def __init__(
        self,
        llm: SyncLLM,
        db_path: str = "memories.db",
        relevance_threshold: float = DEFAULTS.relevance_threshold,
        max_memories: int = DEFAULTS.max_memories,
        batch_size: int = DEFAULTS.batch_size,
        retry_attempts: int = DEFAULTS.retry_attempts,
        retry_delay: float = DEFAULTS.retry_delay,
        *,
        system_cls: type[MemorySystem] = MemorySystem,
        **options: Any,  # Any: forwarded to ``system_cls``, whose parameters check them
    ) -> None:
        self._setup(llm)
        self.system = system_cls(
            self._async_llm, db_path=db_path, relevance_threshold=relevance_threshold,
            max_memories=max_memories, batch_size=batch_size, retry_attempts=retry_attempts,
            retry_delay=retry_delay, **options)

    @classmethod
    def around(cls, llm: SyncLLM,
               build: Callable[[Callable[[str], Awaitable[str]]], MemorySystem]
               ) -> SyncMemorySystem:
        """Wrap a system built by ``build(async_llm)``, keeping that class's own defaults.

        Example: ``SyncMemorySystem.around(cat.llm, lambda fn: CodeMemorySystem(fn, db_path=p))``.
        """
        face = cls.__new__(cls)
        face._setup(llm)
        face.system = build(face._async_llm)
        return face

    def _setup(self, llm: SyncLLM) -> None:
        if not callable(llm):
            raise ValueError("llm must be a function str -> str (e.g. cat.llm)")
        self.llm = llm
        self._pool: ThreadPoolExecutor | None = None
        self._pool_size = 0
        self._helper: ThreadPoolExecutor | None = None
        self._guard = threading.Lock()

    # -- plumbing --------------------------------------------------------------------------------
    def _llm_pool(self) -> ThreadPoolExecutor:
        size = self.system.config.batch_size
        with self._guard:
            if self._pool is None or self._pool_size < size:
                if self._pool is not None:
                    self._pool.shutdown(wait=False)
                self._pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="memory-llm")
                self._pool_size = size
            return self._pool

    async def _async_llm(self, prompt: str) -> str:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._llm_pool(), self.llm, prompt)

    def run(self, coro: Coroutine[object, None, T]) -> T:
        """Run ``coro`` to completion from synchronous code, whatever the thread's loop state."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        with self._guard:
            if self._helper is None:
                self._helper = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memory-loop")
            helper = self._helper
        return helper.submit(asyncio.run, coro).result()

    # -- the API -----------------------------------------------------------------------------------
    def retrieve_relevant_memories(
        self, context: object, *, filters: Filters | None = None,
        renderings: Sequence[str] = (),
    ) -> list[ScoredMemory]:
        """Same as ``MemorySystem.retrieve_relevant_memories``, synchronously."""
        return self.run(self.system._retrieve(context, filters=filters, renderings=renderings))

    def candidates(self, context: object, limit: int | None = None,
                   filters: Filters | None = None, *,
                   renderings: Sequence[str] = ()) -> list[Candidate]:
        """Same as ``MemorySystem.candidates`` (no LLM call)."""
        return self.system.candidates(context, limit, filters, renderings=renderings)

    def query(self, context: str, task: str,
              primary_model_fn: Callable[[str], str] | None = None) -> str:
        """Retrieve, then call ``primary_model_fn`` (sync; default: the scoring ``llm``)."""
        primary = self.llm if primary_model_fn is None else primary_model_fn
        if not callable(primary):
            raise ValueError("primary_model_fn must be a function str -> str")

        async def run_primary(prompt: str) -> str:
            return primary(prompt)

        return self.run(self.system.query(context, task, run_primary))

    def add_memory(self, text: str, metadata: JSONDict | None = None) -> str:
        return self.system.add_memory(text, metadata)

    def add_memories(self, items: Iterable[object]) -> list[str]:
        return self.system.add_memories(items)

    def get_memory(self, memory_id: str) -> JSONDict | None:
        return self.system.get_memory(memory_id)

    def update_memory(self, memory_id: str, text: str | None = None,
                      metadata: JSONDict | None = None) -> bool:
        return self.system.update_memory(memory_id, text, metadata)

    def delete_memory(self, memory_id: str) -> bool:
        return self.system.delete_memory(memory_id)

    def delete_memories(self, filters: Filters) -> int:
        return self.system.delete_memories(filters)

    def list_memories(self, filters: Filters | None = None, *,
                      limit: int | None = None, offset: int = 0) -> list[JSONDict]:
        return self.system.list_memories(filters, limit=limit, offset=offset)

    def count_memories(self, filters: Filters | None = None) -> int:
        return self.system.count_memories(filters)

    def history(self, memory_id: str) -> list[JSONDict]:
        return self.system.history(memory_id)

    def format_memories_for_prompt(self, memories: list[ScoredMemory],
                                   include_scores: bool = True) -> str:
        return self.system.format_memories_for_prompt(memories, include_scores)

    def update_retrieval_config(self, **kwargs: Any) -> None:  # Any: RetrievalConfig checks
        self.system.update_retrieval_config(**kwargs)

    def clear_cache(self) -> None:
        self.system.clear_cache()

    def get_stats(self) -> JSONDict:
        return self.system.get_stats()

    def close(self) -> None:
        """Close the database and stop the helper threads; idempotent."""
        self.system.close()
        with self._guard:
            pools, self._pool, self._helper = (self._pool, self._helper), None, None
        for pool in pools:
            if pool is not None:
                pool.shutdown(wait=False)

    def __enter__(self) -> SyncMemorySystem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

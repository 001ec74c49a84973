"""The protected extension hooks a CodeMemorySystem builds on."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from codemem.memory.system import MemorySystem

from .helpers import FakeSleep, async_llm, context_of, memories_of


@dataclasses.dataclass
class Ctx:
    query: str
    current_file: str


class CodeLike(MemorySystem):
    query_prompt_template = "FILE {context}\nMEMS\n{memories}\nDO {task}"

    def _render_context(self, context):
        if isinstance(context, Ctx):
            return f"{context.query} (in {context.current_file})"
        return super()._render_context(context)

    def _render_candidate(self, record):
        return f"[{record.metadata.get('path', '?')}] {record.text}"

    def _adjust_scores(self, context, scored):
        current = context.current_file if isinstance(context, Ctx) else None
        return [dataclasses.replace(s, relevance_score=min(1.0, s.relevance_score + 0.3))
                if s.metadata.get("path") == current else s for s in scored]


def test_hooks_shape_prompts_scores_and_query(tmp_path):
    llm = async_llm(default=0.5)
    system = CodeLike(llm, str(tmp_path / "m.db"), sleep=FakeSleep())
    with system:
        system.add_memory("def login(): ...", {"path": "auth.py"})
        system.add_memory("def logout(): ...", {"path": "other.py"})
        found = asyncio.run(system._retrieve(Ctx("login flow", "auth.py")))
        assert [(m.text, m.relevance_score) for m in found] == [("def login(): ...", 0.8)]
        assert memories_of(llm.prompts) == {"[auth.py] def login(): ...",
                                            "[other.py] def logout(): ..."}
        assert {context_of(p) for p in llm.prompts} == {"login flow (in auth.py)"}
        seen = []

        async def primary(prompt):
            seen.append(prompt)
            return "ok"

        asyncio.run(system.query(Ctx("login flow", "auth.py"), "fix it", primary))
        # a subclass's own str.format template: the values still arrive as data blocks
        assert seen == ['FILE <<<DATA kind="context" source="query">>>\n'
                        "login flow (in auth.py)\n<<<END DATA>>>\nMEMS\n"
                        '<<<DATA kind="memory" source="memory 1">>>\n'
                        "[relevance: 0.80] def login(): ...\n<<<END DATA>>>\nDO fix it"]
        with pytest.raises(ValueError):
            asyncio.run(system._retrieve(42))


def test_default_candidate_rendering_includes_metadata(tmp_path):
    llm = async_llm(default=0.9)
    with MemorySystem(llm, str(tmp_path / "m.db")) as system:
        system.add_memory("plain")
        system.add_memory("tagged", {"topic": "x"})
        asyncio.run(system.retrieve_relevant_memories("plain tagged"))
        assert memories_of(llm.prompts) == {"plain", 'tagged\n(metadata: {"topic": "x"})'}

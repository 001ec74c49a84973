"""Shared pieces of the CodeMemorySystem tests: counters around the REAL embedder and the REAL
extraction pool (instrumentation, not mocks), a rule-based fake scoring LLM, a sample tree."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

from codemem.memory.codebase import CodeMemorySystem
from codemem.memory.codeindex.walk import PoolExtractor
from codemem.memory.embedding import HashingEmbedder

from ....fakes import AsyncFunctionLLM, keyword_scorer

SAMPLE = {
    "api/auth.py": (
        "from .users import get_user\n"
        "from models.token import Token\n\n\n"
        "def login(name, password):\n"
        "    \"\"\"Authenticate a user and return a token.\"\"\"\n"
        "    user = get_user(name)\n"
        "    return Token.issue(user)\n\n\n"
        "def logout(token):\n"
        "    return token.revoke()\n"
    ),
    "api/users.py": (
        "def get_user(name):\n"
        "    return {'name': name}\n\n\n"
        "def list_users():\n"
        "    return []\n"
    ),
    "models/token.py": (
        "class Token:\n"
        "    @classmethod\n"
        "    def issue(cls, user):\n"
        "        return cls()\n\n"
        "    def revoke(self):\n"
        "        return None\n"
    ),
    "util/audit.py": (
        "from api.auth import login\n\n\n"
        "def audited_login(name, password):\n"
        "    return login(name, password)\n"
    ),
    "web/app.ts": (
        "export function renderPage(title: string): string {\n"
        "  return `<h1>${title}</h1>`;\n"
        "}\n"
    ),
}


def write_tree(root, files: dict[str, str] = SAMPLE) -> None:
    for rel, text in files.items():
        path = os.path.join(str(root), rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


class CountingEmbedder:
    """The real ``HashingEmbedder`` with call and text counters."""

    def __init__(self, dimension: int = 64) -> None:
        self.inner = HashingEmbedder(dimension)
        self.name = self.inner.name
        self.dimension = dimension
        self.calls = 0
        self.texts = 0

    def embed_documents(self, texts: list[str]):
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str):
        return self.inner.embed_query(text)


class CountingExtractor:
    """The real crash-contained ``PoolExtractor`` with a counter of files sent to parse."""

    def __init__(self, pool: PoolExtractor) -> None:
        self.pool = pool
        self.parsed: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, items: Iterable[tuple[str, bytes]]):
        def counted():
            for path, data in items:
                with self._lock:
                    self.parsed.append(path)
                yield path, data
        return self.pool(counted())

    def reset(self) -> None:
        self.parsed.clear()


def scorer(rules: dict[str, float], default: float = 0.75) -> AsyncFunctionLLM:
    """Fake small LLM: score by the first keyword found in the memory part of the prompt."""
    return AsyncFunctionLLM(keyword_scorer(rules, default, "generic"))


async def no_sleep(_seconds: float) -> None:
    return None


def make_system(tmp_path, pool: PoolExtractor, llm=None, **kwargs) -> CodeMemorySystem:
    kwargs.setdefault("embedder", CountingEmbedder())
    kwargs.setdefault("extractor", CountingExtractor(pool))
    kwargs.setdefault("sleep", no_sleep)
    return CodeMemorySystem(llm or scorer({}), str(tmp_path / "code.db"), **kwargs)

"""The code memory as a code assistant's, runnable offline with fake deterministic LLMs.

Run from the plugin root: ``python -m tests.run examples.code_assistant``. The example indexes a
folder called ``src``; this script creates a small sample project with that name in a
temporary working directory first, runs the example there, and cleans up afterwards.
"""

import asyncio
import contextlib
import os
import re
import tempfile

from ..memory import CodeContext, CodeMemorySystem
from .fake_llm import answer_scoring

SAMPLE_PROJECT = {
    "src/api/routes.py": (
        "from .auth import require_token\n\n"
        "ROUTES = {}\n\n\n"
        "def route(path):\n"
        "    \"\"\"Register an API endpoint under ``path``.\"\"\"\n"
        "    def register(handler):\n"
        "        ROUTES[path] = require_token(handler)\n"
        "        return handler\n"
        "    return register\n\n\n"
        "@route(\"/health\")\n"
        "def health():\n"
        "    return {\"status\": \"ok\"}\n"
    ),
    "src/api/auth.py": (
        "def require_token(handler):\n"
        "    \"\"\"Wrap an endpoint so it rejects requests without a valid JWT.\"\"\"\n"
        "    def wrapped(request):\n"
        "        if not request.get(\"token\"):\n"
        "            raise PermissionError(\"missing token\")\n"
        "        return handler(request)\n"
        "    return wrapped\n"
    ),
    "src/models/user.py": (
        "class User:\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
    ),
    "src/tests/test_routes.py": "def test_health():\n    assert True\n",
}

_WORD = re.compile(r"[a-z]{3,}")
_COMMON = {"the", "and", "how", "add", "new", "file", "query", "current", "def", "return"}


def _words(text):
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def _relevance(context: str, memory: str) -> tuple[float, str]:
    shared = sorted(_words(context) & _words(memory))
    score = min(1.0, 0.55 + 0.1 * len(shared)) if shared else 0.2
    return score, f"shares {', '.join(shared[:4])}" if shared else "unrelated"


async def haiku_fn(prompt: str) -> str:
    """Fake small model: relevance grows with the words the context and the memory share."""
    return answer_scoring(prompt, _relevance)


async def gpt4_fn(prompt: str) -> str:
    """Fake primary model: names the memories it was given and answers generically."""
    headers = [line for line in prompt.splitlines() if re.match(r"^\[relevance", line)]
    listed = "\n".join(f"  - {line}" for line in headers) or "  (none)"
    return ("[fake primary LLM] To add an endpoint, decorate a function with @route(...) "
            f"in src/api/routes.py. Context used:\n{listed}")


@contextlib.contextmanager
def sample_project():
    """A temporary working directory holding ``src/`` (the folder the example indexes)."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="code-assistant-") as path:
        for rel, text in SAMPLE_PROJECT.items():
            os.makedirs(os.path.join(path, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(path, rel), "w", encoding="utf-8") as fh:
                fh.write(text)
        os.chdir(path)
        try:
            yield path
        finally:
            os.chdir(previous)


async def code_assistant():
    system = CodeMemorySystem(small_model_fn=haiku_fn)

    # Index codebase
    print("Indexing repository...")
    ids = system.index_repository(
        "src",
        exclude_patterns=["*/tests/*", "*/__pycache__/*"]
    )
    print(f"Indexed {len(ids)} code entities")

    # Add documentation
    system.add_documentation_memory(
        title="Authentication Flow",
        content="Users authenticate via JWT tokens. Tokens expire after 24h.",
        category="architecture"
    )

    # Query
    context = CodeContext(
        user_query="How do I add a new API endpoint?",
        current_file="src/api/routes.py"
    )

    response = await system.query(context, primary_model_fn=gpt4_fn)
    print(response)

    system.close()


if __name__ == "__main__":
    with sample_project():
        asyncio.run(code_assistant())

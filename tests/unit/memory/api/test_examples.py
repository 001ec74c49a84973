"""The memory API's examples (quick start, support bot, research assistant) run as scripts and
leave nothing behind."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .child_scripts import ROOT


def _memory(n: int, text: str) -> tuple[str, str]:
    """A memory as the query prompt shows it: its own data block, score first."""
    return f'<<<DATA kind="memory" source="memory {n}">>>', f"[relevance: 0.75] {text}"


EXPECTED = {
    "quickstart": [("[fake primary LLM] Explain how to build a REST API",),
                   _memory(1, "Python uses dynamic typing"),
                   _memory(2, "FastAPI is a modern web framework")],
    "support_bot": [("[fake primary LLM] Explain our return policy",),
                    _memory(1, "Returns are accepted within 30 days of purchase")],
    "research_assistant": [("[fake primary LLM] Compare BERT and GPT architectures",),
                           _memory(1, "Transformer architecture uses self-attention")],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name):
    before = {p.name for p in ROOT.iterdir()}
    done = subprocess.run([sys.executable, "-m", "tests.run", f"examples.{name}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for run in EXPECTED[name]:  # consecutive lines
        starts = [i for i, line in enumerate(lines) if line == run[0]]
        assert any(tuple(lines[i:i + len(run)]) == run for i in starts), run
    assert "shipping" not in done.stdout.lower()
    assert {p.name for p in ROOT.iterdir()} == before  # no memories.db left behind


def test_examples_keep_the_documented_code():
    source = (ROOT / "examples" / "support_bot.py").read_text(encoding="utf-8")
    assert "system = MemorySystem(small_model_fn=gpt_turbo_fn)" in source
    assert 'context="Customer asking about returns",' in source
    assert "from ..memory import MemorySystem" in source
    assert 'if __name__ == "__main__":' in source

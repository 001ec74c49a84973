"""The code assistant example runs end to end with its fake LLMs."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[4]


def test_code_assistant_example_runs():
    done = subprocess.run([sys.executable, "-m", "tests.run", "examples.code_assistant"],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Indexing repository...\nIndexed 7 code entities\n")
    assert "[fake primary LLM]" in out and "api/routes.py:6-11 route" in out
    assert "test_health" not in out  # */tests/* was excluded


def test_example_keeps_the_documented_code():
    source = (ROOT / "examples" / "code_assistant.py").read_text(encoding="utf-8")
    assert "from ..memory import CodeContext, CodeMemorySystem\n" in source
    for line in ('    system = CodeMemorySystem(small_model_fn=haiku_fn)',
                 '        exclude_patterns=["*/tests/*", "*/__pycache__/*"]',
                 '        current_file="src/api/routes.py"',
                 '    response = await system.query(context, primary_model_fn=gpt4_fn)'):
        assert line in source

"""The README's Python examples work for a user, the way the README says to use the cores.

docs/memory-guide.md, "Using the cores without the Cat": the plugin's folder, under a valid
package name (``codemem`` in the examples), with its parent on ``PYTHONPATH``. Each test runs a
fresh interpreter that finds the cores only that way: not through the ``codemem`` alias the
test suite mounts (``tests/__init__.py``), and without the repository root on its path. Every
import of every example must work; the examples that are whole programs run to the end, with
the one thing faked that tests fake, the LLM (``tests/fakes.py``'s scoring replies).
"""

from __future__ import annotations

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: The examples that are whole programs, by a line they contain, and what each prints.
PROGRAMS = {
    "with MemorySystem(small_model_fn=small_llm": "Python type hints improve code clarity",
    "system = CodeMemorySystem(small_model_fn=small_llm": "Indexed 2 code entities",
}
#: An example's stand-in for a model: ``async def name(prompt: str) -> str: ...``.
STUB = re.compile(r"async def (\w+)\(prompt: str\) -> str:[^\n]*\n?\s*\.\.\.[^\n]*")
#: What the examples' models answer: scores for scoring prompts, a sentence otherwise.
PRELUDE = '''
import importlib.util, sys
_spec = importlib.util.spec_from_file_location("readme_fakes", {fakes!r})
_fakes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fakes)

def _answer(prompt):
    scored = _fakes.answer_scoring(prompt, lambda memory: (0.9, "relevant"))
    return scored if scored is not None else "Add the route to src/api/routes.py."
'''


#: where the user documentation's Python examples are: the README and the docs it points to
DOCUMENTS = ("README.md", "docs/memory-guide.md", "docs/loop.md", "docs/threat-model.md")


def python_blocks() -> list[str]:
    text = "\n".join((ROOT / name).read_text(encoding="utf-8") for name in DOCUMENTS)
    return re.findall(r"```python\n(.*?)```", text, re.S)


def imports_of(block: str) -> list[str]:
    """The block's import statements, as source (the rest may be a fragment)."""
    tree = ast.parse(block)
    return [ast.get_source_segment(block, node) or "" for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))]


@pytest.fixture(scope="module")
def user_path(tmp_path_factory) -> pathlib.Path:
    """A folder holding the plugin under the README's package name, as a user would have it."""
    folder = tmp_path_factory.mktemp("user")
    (folder / "codemem").symlink_to(ROOT, target_is_directory=True)
    return folder


def run_as_user(source: str, user_path: pathlib.Path, cwd: pathlib.Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(user_path)
    done = subprocess.run([sys.executable, "-c", source], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_readme_has_python_examples_that_import_the_cores():
    blocks = python_blocks()
    assert len(blocks) >= 4 and all("codemem" in "\n".join(imports_of(b)) for b in blocks)
    assert all(any(line in b for b in blocks) for line in PROGRAMS)


def test_every_import_of_the_readme_works_from_the_documented_path(user_path, tmp_path):
    lines = [line for block in python_blocks() for line in imports_of(block)]
    probe = "\n".join(lines) + "\nimport sys\nprint(sorted(m for m in sys.modules if m == " \
        "'tests' or m.startswith(('memory', 'codegen', 'llm', 'app'))))\n"
    assert run_as_user(probe, user_path, tmp_path).strip() == "[]"  # only codemem.*


@pytest.mark.parametrize("marker", sorted(PROGRAMS))
def test_the_readme_programs_run_to_the_end(marker, user_path, tmp_path):
    block = next(b for b in python_blocks() if marker in b)
    assert STUB.search(block), "the test fakes the models the example leaves as stand-ins"
    source = STUB.sub(lambda m: f"async def {m[1]}(prompt: str) -> str:\n"
                                "    return _answer(prompt)", block)
    (tmp_path / "src" / "api").mkdir(parents=True)
    (tmp_path / "src" / "api" / "routes.py").write_text(
        "def add_route(path, handler):\n    return {path: handler}\n\n\n"
        "def list_routes():\n    return []\n")
    out = run_as_user(PRELUDE.format(fakes=str(ROOT / "tests" / "fakes.py")) + source,
                      user_path, tmp_path)
    assert PROGRAMS[marker] in out

"""Fail if any .py file of the plugin uses syntax newer than Python 3.10 (the Cat's interpreter).

The development machines run 3.11+, where such syntax parses fine; inside the Cat it would
make the module fail to load. Run: ``python tests/check_py310.py``.
"""

import ast
import pathlib
import sys


def newer_syntax(root: pathlib.Path) -> list[str]:
    """Return 'path:line: message' for every file that Python 3.10's grammar rejects."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        if "golden" in path.relative_to(root).parts:
            continue
        try:
            ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=(3, 10))
        except SyntaxError as err:
            problems.append(f"{path.relative_to(root)}:{err.lineno}: {err.msg}")
    return problems


if __name__ == "__main__":
    found = newer_syntax(pathlib.Path(__file__).resolve().parents[1])
    for line in found:
        print(line)
    print(f"py310 syntax check: {len(found)} problem(s)")
    sys.exit(1 if found else 0)

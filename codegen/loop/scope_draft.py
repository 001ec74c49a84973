"""What the loop does differently when the goal has a scope (``MetaCode.scope``).

The draft holds the target's file and every file of the scope, so edits to callers apply to the
real text and the outcome carries every touched file. The generation prompt shows the target's
file whole and, for each place of the scope, only that entity's current code, most relevant
first (the scope's order, the model's or the user's) until ``budget`` characters; the places
left out are still named, so the model knows they exist. Edits may touch the target's file and
the scope's files only. Validation parses, lints and checks the target's call sites in every
one of those files, and runs the repository tests related to any place of the change.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from ...llm.templates import data_block
from ..checks.related_tests import is_test_file
from ..metacode.model import MetaCode
from ..ports import TestSelector

#: Characters of scope code shown to the model per generation (most relevant places first).
SCOPE_BUDGET = 24_000


def change_paths(meta: MetaCode) -> list[str]:
    """The target's file, then each file of the scope once, in order."""
    return list(dict.fromkeys([meta.target_path, *(item.path for item in meta.scope)]))


def baseline_files(meta: MetaCode, repo_files: Mapping[str, str]) -> dict[str, str]:
    """The repository's version of every file the change may edit (absent ones are new)."""
    return {p: repo_files[p] for p in change_paths(meta) if p in repo_files}


def checked_paths(meta: MetaCode, files: Mapping[str, str],
                  repo_files: Mapping[str, str]) -> list[str]:
    """Python files to parse, lint and check call sites in: the change's files and any other
    file the draft changed."""
    changed = [p for p in sorted(files) if files[p] != repo_files.get(p)]
    return [p for p in dict.fromkeys([*change_paths(meta), *changed])
            if p.endswith(".py") and p in files]


def related_tests(select: TestSelector, repo_files: Mapping[str, str],
                  meta: MetaCode) -> dict[str, str]:
    """The repository tests of the target and of every place of the scope (each selected
    once, by the same selector as a single-entity change)."""
    found: dict[str, str] = {}
    for path, symbol in [(meta.target_path, meta.symbol),
                         *((i.path, i.symbol) for i in meta.scope)]:
        found.update(select(repo_files, path, symbol))
        if is_test_file(path) and path in repo_files:  # a test in the scope is run too
            found[path] = repo_files[path]
    return found


def entity_source(text: str, symbol: str) -> tuple[str, int, int] | None:
    """The source of ``symbol`` (``Class.method`` one level down) with its decorators, and its
    first and last line; None when the file does not parse or has no such definition."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body: Sequence[ast.stmt] = tree.body
    node: ast.stmt | None = None
    for part in symbol.split("."):
        node = next((s for s in reversed(body) if isinstance(
            s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and s.name == part), None)
        if node is None:
            return None
        body = node.body if isinstance(node, ast.ClassDef) else []
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    lines = text.splitlines()
    return "\n".join(lines[start - 1:end]), start, end


def scope_code(meta: MetaCode, files: Mapping[str, str], budget: int = SCOPE_BUDGET) -> str:
    """The scope's places with their current code, as data blocks, within ``budget``."""
    blocks, left_out, used = [], [], 0
    for item in meta.scope:
        text = files.get(item.path)
        if text is None:
            shown, where = "(the file does not exist yet)", item.path
        elif item.symbol:
            found = entity_source(text, item.symbol)
            shown = found[0] if found else f"({item.symbol} is not defined in {item.path})"
            where = f"{item.path}:{found[1]}-{found[2]}" if found else item.path
        else:
            shown, where = text, item.path
        if used + len(shown) > budget:
            left_out.append(f"- {item.label()}: {item.why}")
            continue
        used += len(shown)
        blocks.append(data_block("scope", f"{where} :: {item.symbol or '(module level)'}",
                                 shown) + f"\nwhy: {item.why}")
    if left_out:
        blocks.append("Also in the scope, not shown (prompt budget); edit them with SEARCH/"
                      "REPLACE blocks quoting their current lines:\n" + "\n".join(left_out))
    return "\n\n".join(blocks) or "(none)"

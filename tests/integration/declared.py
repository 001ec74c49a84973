"""What the repository's sources declare for the Cat to register (hooks, tools, forms,
endpoints), read by parsing, never importing, every ``.py`` file the Cat would import."""

from __future__ import annotations

import pathlib
from typing import Any

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def declared_glue(root: pathlib.Path = REPO_ROOT) -> dict[str, list[str]]:
    """Hooks, tools, forms and endpoints the repository's sources declare, by parsing (not
    importing) every ``.py`` file the Cat would import: the names the Cat must register, each
    exactly once (an endpoint by its route, ``/custom`` + its path, and method)."""
    import ast

    found: dict[str, list[str]] = {"hooks": [], "tools": [], "forms": [], "endpoints": []}
    kinds = {"hook": "hooks", "tool": "tools", "form": "forms"}
    for path in sorted(root.rglob("*.py")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            for deco in node.decorator_list:
                route = _declared_route(deco)
                if route:
                    found["endpoints"].append(route)
                    continue
                func = deco.func if isinstance(deco, ast.Call) else deco
                kind = kinds.get(func.id) if isinstance(func, ast.Name) else None
                if kind is None:
                    continue
                name = node.name
                if isinstance(deco, ast.Call) and deco.args and kind != "forms" \
                        and isinstance(deco.args[0], ast.Constant):
                    name = str(deco.args[0].value)
                found[kind].append(name)
    return {kind: sorted(names) for kind, names in found.items()}


def _declared_route(deco: Any) -> str:
    """``@endpoint.get("/x")`` as "GET /custom/x" ("" for any other decorator)."""
    import ast

    if not (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute)
            and isinstance(deco.func.value, ast.Name) and deco.func.value.id == "endpoint"):
        return ""
    assert deco.args and isinstance(deco.args[0], ast.Constant), \
        f"line {deco.lineno}: an endpoint's path must be a literal (the registration check)"
    return f"{deco.func.attr.upper()} /custom{deco.args[0].value}"

"""The user's state has one owner and the writers docs/architecture.md lists ("One reading, one
owner"): every call that saves it, and the one that writes its view into the working memory,
is in a module of that list; nothing in the plugin touches the Cat's cache."""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "architecture.md"


def _documented() -> set[str]:
    text = DOC.read_text()
    table = text.split("The state's writers", 1)[1].split("\n\n", 2)[1]
    return {f"app/{m}" for m in re.findall(r"^\| `([\w/]+\.py)`", table, re.M)}


def _calls(names: set[str]) -> dict[str, set[str]]:
    """Modules of ``app/`` (and the root files) calling an attribute or function in ``names``."""
    found: dict[str, set[str]] = {}
    for path in [*sorted((ROOT / "app").rglob("*.py")), *ROOT.glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            receiver = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
            if name in names and "settings" not in receiver and receiver != "plugin":
                found.setdefault(str(path.relative_to(ROOT)), set()).add(name)
    return found


def test_only_the_listed_modules_write_the_state():
    writers = _calls({"save", "publish", "write_view"})
    writers.pop("app/drafting/state_store.py", None)  # the owner's own file writing
    writers.pop("app/drafting/state.py", None)  # defines ``write_view``, calls nothing
    assert set(writers) <= _documented(), sorted(set(writers) - _documented())
    assert {"app/drafting/session.py", "app/drafting/worker.py", "app/entry.py"} <= set(writers)
    assert _calls({"write_view"}) == {"app/drafting/session.py": {"write_view"}}
    assert [m for m, n in _calls({"publish"}).items() if "publish" in n] == ["app/entry.py"]


def test_nothing_touches_the_cats_cache():
    assert _calls({"get_item", "get_value", "update_working_memory_cache"}) == {}
    cache = [p for p in [*(ROOT / "app").rglob("*.py"), *ROOT.glob("*.py")]
             if re.search(r"\bcache\.(insert|get_item|delete)", p.read_text())]
    assert cache == []

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


def test_a_turn_is_read_once_and_its_session_made_once(tmp_path, monkeypatch):
    """Every hook of a turn (the first reads, the reply, the recall, the prompt, the last
    publishes) shares one session, one ``Turn`` and one reading of the message."""
    from types import SimpleNamespace

    from codemem.app import entry
    from codemem.app.chat import routing

    from .glue_support import make_cat, say

    repo = tmp_path / "repo"
    repo.mkdir()
    cat, _, _ = make_cat(tmp_path, repo)
    made, read = [], []
    turn_of, read_turn = entry.Turn.of, routing.read_turn
    monkeypatch.setattr(entry.Turn, "of", lambda *a: made.append(1) or turn_of(*a))
    monkeypatch.setattr(routing, "read_turn", lambda *a: read.append(1) or read_turn(*a))
    for text in ("hello, how are you?", "code memory status", "what does parse_iso do?"):
        made.clear()
        read.clear()
        say(cat, text)
        entry.after_recall(cat) if hasattr(cat.working_memory, "declarative_memories") else None
        entry.prompt_variables(cat, SimpleNamespace())
        assert (len(made), len(read)) == (1, 1), (text, len(made), len(read))

"""Corpora and queries of the retrieval benchmark (``bench/retrieval_bench.py``).

A corpus is a folder of Python files this project did not write. It is copied twice: ``kept``
(files as they are) and ``stripped`` (every docstring replaced by ``pass`` plus the same number
of newlines, so line numbers do not move and the answer's span is the same in both copies).
A query is the first sentence of a function's docstring; its answer is that function, named by
path and first line (decorators included, as the project's entities count lines).

The corpora (``CORPORA``), of three kinds, tuned on or held back:

- ``library``: the installed ``_pytest`` (a library, tests left out); tuning;
- ``app``: beets (an application with its plugins and its test suite), a checkout of
  ``beetbox/beets`` at commit 07f39c5 given with ``--source app=FOLDER`` (never committed
  here); tuning;
- ``stdlib-all``: this Python's standard library with its test suites; tuning (``stdlib``:
  the same without tests, the earlier benchmark's corpus);
- ``frozen-lib``: werkzeug 3.1.8 (a library) and ``frozen-stdlib``: the CPython 3.12
  standard library with its test suites, both read from the pyenv installations of this
  machine. These two are UNTOUCHED: chosen and frozen (their sources and this query
  procedure, checked by ``FROZEN_QUERY_DIGESTS``) before the candidate stage changed, never
  looked at per query, reported on only at the end of each change. Files the Python 3.10
  grammar cannot parse (a few 3.12 test files) are left out of both copies.

Queries: ``count`` first sentences drawn with ``random.Random(seed)`` (seed 12) from every
function, method and nested function whose docstring's first sentence has 4-40 words,
sentences shared by two functions left out; test functions count too in corpora with tests.
With ``classes``, the same from class docstrings (the answer is the class): a question may
ask for a class as well, and a ranking tuned on function queries alone must not forget it.

Pure standard library (``ast``): the corpus must be built the same way in any venv.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

#: Folders left out of a corpus: test suites (not library code) and installed packages.
SKIPPED_PARTS = frozenset({"site-packages", "__pycache__", "test", "tests", "idle_test"})
#: Corpora with their test suites: only installed packages and caches are left out.
_SKIPPED_ALL = frozenset({"site-packages", "__pycache__"})
#: name -> (kind, tests kept). ``frozen-*`` are the untouched corpora (see the module doc).
CORPORA = {
    "library": ("library", False), "stdlib": ("standard library", False),
    "stdlib-all": ("standard library with tests", True),
    "app": ("application with tests", True),
    "frozen-lib": ("library (untouched)", False),
    "frozen-stdlib": ("standard library with tests (untouched)", True),
}
#: SHA-256 of the untouched corpora's query lists (text, path, line per query), fixed when
#: they were frozen: a changed source or procedure fails loudly instead of moving the target.
#: The class queries (``/classes``) were added and pinned later, before the change they
#: first measured (the container lift of memory/store/lexical.py), likewise never looked at.
FROZEN_QUERY_DIGESTS = {
    "frozen-lib": "7bbcdafd643aa1a10d279d087459dcaf4f3a08a0f162be8f464bf575ebbfc644",
    "frozen-stdlib": "ac6279030bfe087d83512376223ca71fb6bfe3e1b91955f3f6ed5d059298ab67",
    "frozen-lib/classes": "7a353a3c5d904dfb59c2cbde16d2095d8a92989a2b9d8346feb320a0dd6cf33b",
    "frozen-stdlib/classes": "e9286e3b873b38a737c138d307a1afcca189075f33ba303e51e73189c67109a5",
}
_PYENV = Path.home() / ".pyenv" / "versions"
MAX_FILE_BYTES = 1 << 20
MIN_QUERY_WORDS = 4
MAX_QUERY_WORDS = 40
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class Query:
    """A docstring's first sentence and the function it describes."""

    text: str
    path: str
    start_line: int
    qualified_name: str
    #: "function" (functions, methods, nested functions) or "class"
    kind: str = "function"


@dataclass(frozen=True)
class Corpus:
    """A prepared corpus: its two copies, the queries, and how many files it holds."""

    name: str
    kept: Path
    stripped: Path
    queries: list[Query]
    files: int
    lines: int


def corpus_source(name: str, override: Path | None = None) -> Path:
    """The folder of a named corpus (``CORPORA``); ``override`` replaces the default one."""
    if name not in CORPORA:
        raise ValueError(f"unknown corpus {name!r}; use one of {sorted(CORPORA)}")
    if override is not None:
        return override
    if name in ("stdlib", "stdlib-all"):
        return Path(sysconfig.get_paths()["stdlib"])
    if name == "library":
        import _pytest

        return Path(_pytest.__file__).parent
    pattern = {"frozen-lib": "3.11*/lib/python3.11/site-packages/werkzeug",
               "frozen-stdlib": "3.12*/lib/python3.12"}.get(name)
    found = sorted(_PYENV.glob(pattern)) if pattern else []
    if not found:
        raise ValueError(f"corpus {name!r} needs --source {name}=FOLDER")
    return found[-1]


def _source_files(root: Path, skipped: frozenset[str]) -> list[Path]:
    return sorted(p for p in root.rglob("*.py")
                  if not skipped.intersection(p.relative_to(root).parts)
                  and p.is_file() and p.stat().st_size <= MAX_FILE_BYTES)


def first_sentence(docstring: str) -> str:
    """The first sentence of a docstring's first paragraph, whitespace collapsed."""
    paragraph = docstring.strip().split("\n\n", 1)[0]
    flat = " ".join(paragraph.split())
    return _SENTENCE_END.split(flat, 1)[0].strip()


def _docstring_nodes(tree: ast.Module) -> list[ast.Expr]:
    out = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            out.append(body[0])
    return out


def strip_docstrings(text: str) -> str | None:
    """``text`` with every docstring replaced by ``pass`` (line numbers kept), or None if the
    result would not parse (the file is then left out of both copies)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    for node in sorted(_docstring_nodes(tree), key=lambda n: n.lineno, reverse=True):
        start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        head = lines[start][: node.col_offset]
        tail = lines[end][node.end_col_offset or 0:]
        if tail.strip():  # "doc"; x = 1 on one line: not worth a special case
            return None
        lines[start:end + 1] = [head + "pass\n"] + ["\n"] * (end - start)
    stripped = "".join(lines)
    try:
        ast.parse(stripped)
    except (SyntaxError, ValueError):
        return None
    return stripped


_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _definitions(tree: ast.Module, classes: bool) -> list[tuple[str, _Definition]]:
    """Functions (or, with ``classes``, classes) of a module with their qualified names."""
    found: list[tuple[str, _Definition]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if isinstance(child, ast.ClassDef) == classes:
                    found.append((name, child))
                visit(child, name + ".")
            else:
                visit(child, prefix)
    visit(tree, "")
    return found


def _file_queries(rel: str, tree: ast.Module, classes: bool = False) -> list[Query]:
    out = []
    for qualified, node in _definitions(tree, classes):
        doc = ast.get_docstring(node)
        if not doc:
            continue
        sentence = first_sentence(doc)
        if MIN_QUERY_WORDS <= len(sentence.split()) <= MAX_QUERY_WORDS:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.append(Query(sentence, rel, start, qualified,
                             "class" if classes else "function"))
    return out


def query_digest(queries: list[Query]) -> str:
    """SHA-256 of a query list (what ``FROZEN_QUERY_DIGESTS`` pins)."""
    digest = hashlib.sha256()
    for q in queries:
        digest.update(f"{q.text}\x00{q.path}\x00{q.start_line}\n".encode())
    return digest.hexdigest()


def prepare(name: str, work_dir: Path, count: int, seed: int = 12,
            source: Path | None = None, classes: bool = False) -> Corpus:
    """Copy corpus ``name`` into ``work_dir/<name>/{kept,stripped}`` and sample ``count``
    queries (deterministic for a seed; sentences shared by several functions are ambiguous and
    left out); ``classes``: from class docstrings instead, the answer being the class. An
    untouched corpus must give its pinned query list."""
    root = corpus_source(name, source)
    kept, stripped = work_dir / name / "kept", work_dir / name / "stripped"
    for folder in (kept, stripped):
        shutil.rmtree(folder, ignore_errors=True)
    candidates: list[Query] = []
    files = lines = 0
    for path in _source_files(root, _SKIPPED_ALL if CORPORA[name][1] else SKIPPED_PARTS):
        rel = path.relative_to(root).as_posix()
        try:
            text = path.read_text(encoding="utf-8", errors="strict")
        except UnicodeDecodeError:
            continue
        without = strip_docstrings(text)
        if without is None:
            continue
        for folder, content in ((kept, text), (stripped, without)):
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        files, lines = files + 1, lines + text.count("\n")
        candidates.extend(_file_queries(rel, ast.parse(text), classes))
    seen: dict[str, int] = {}
    for query in candidates:
        seen[query.text.lower()] = seen.get(query.text.lower(), 0) + 1
    unique = [q for q in candidates if seen[q.text.lower()] == 1]
    sample = random.Random(seed).sample(unique, min(count, len(unique)))
    pinned = FROZEN_QUERY_DIGESTS.get(f"{name}/classes" if classes else name)
    if pinned and (count, seed) == (300, 12) and query_digest(sample) != pinned:
        raise ValueError(f"the untouched corpus {name!r} no longer gives its frozen queries "
                         f"(source {root}); it must not change")
    return Corpus(name, kept, stripped, sample, files, lines)

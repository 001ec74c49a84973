"""Corpora and queries of the retrieval benchmark (``bench/retrieval_bench.py``).

A corpus is a folder of Python files this project did not write. It is copied twice: ``kept``
(files as they are) and ``stripped`` (every docstring replaced by ``pass`` plus the same number
of newlines, so line numbers do not move and the answer's span is the same in both copies).
A query is the first sentence of a function's docstring; its answer is that function, named by
path and first line (decorators included, as the project's entities count lines).

Pure standard library (``ast``): the corpus must be built the same way in any venv.
"""

from __future__ import annotations

import ast
import random
import re
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

#: Folders left out of a corpus: test suites (not library code) and installed packages.
SKIPPED_PARTS = frozenset({"site-packages", "__pycache__", "test", "tests", "idle_test"})
#: ``stdlib-all`` keeps the test suites: a large repository's size (for latency).
_SKIPPED_ALL = frozenset({"site-packages", "__pycache__"})
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


@dataclass(frozen=True)
class Corpus:
    """A prepared corpus: its two copies, the queries, and how many files it holds."""

    name: str
    kept: Path
    stripped: Path
    queries: list[Query]
    files: int
    lines: int


def corpus_source(name: str) -> Path:
    """The folder of a named corpus: ``library`` (the installed ``_pytest``), ``stdlib`` or
    ``stdlib-all`` (with its test suites)."""
    if name in ("stdlib", "stdlib-all"):
        return Path(sysconfig.get_paths()["stdlib"])
    if name == "library":
        import _pytest

        return Path(_pytest.__file__).parent
    raise ValueError(f"unknown corpus {name!r}; use 'library', 'stdlib' or 'stdlib-all'")


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


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found.append((name, child))
                visit(child, name + ".")
            else:
                visit(child, prefix)
    visit(tree, "")
    return found


def _file_queries(rel: str, tree: ast.Module) -> list[Query]:
    out = []
    for qualified, node in _functions(tree):
        doc = ast.get_docstring(node)
        if not doc:
            continue
        sentence = first_sentence(doc)
        if MIN_QUERY_WORDS <= len(sentence.split()) <= MAX_QUERY_WORDS:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.append(Query(sentence, rel, start, qualified))
    return out


def prepare(name: str, work_dir: Path, count: int, seed: int = 12) -> Corpus:
    """Copy corpus ``name`` into ``work_dir/<name>/{kept,stripped}`` and sample ``count``
    queries (deterministic for a seed; sentences shared by several functions are ambiguous and
    left out)."""
    source = corpus_source(name)
    kept, stripped = work_dir / name / "kept", work_dir / name / "stripped"
    for folder in (kept, stripped):
        shutil.rmtree(folder, ignore_errors=True)
    candidates: list[Query] = []
    files = lines = 0
    for path in _source_files(source, _SKIPPED_ALL if name == "stdlib-all" else SKIPPED_PARTS):
        rel = path.relative_to(source).as_posix()
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
        candidates.extend(_file_queries(rel, ast.parse(text)))
    seen: dict[str, int] = {}
    for query in candidates:
        seen[query.text.lower()] = seen.get(query.text.lower(), 0) + 1
    unique = [q for q in candidates if seen[q.text.lower()] == 1]
    sample = random.Random(seed).sample(unique, min(count, len(unique)))
    return Corpus(name, kept, stripped, sample, files, lines)

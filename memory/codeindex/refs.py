"""Who uses what: the definitions and the names each entity calls or refers to, per file.

Why tables of their own: the impact of a change (``impact.py``) asks "which entities use the
name ``fetch``?" and must be answered with one indexed lookup, not by reading every entity's
metadata. So each indexed file leaves two kinds of rows next to the manifest: ``code_defs`` (one
per entity: qualified name, kind, line span) and ``code_refs`` (one per distinct name an entity
calls or refers to, as written, plus one per module-level import of the file), looked up by
the name's last segment. The rows of a file are rewritten as a whole whenever the file is
parsed, move with a renamed file, and go with a deleted one.

Not every name is worth a row: calls are kept (builtins aside), but a bare or dotted reference
is kept only when its first segment is bound at module level (imported or defined in the file)
or is ``self``/``cls``; local variables are what the extractor cannot tell apart, and they would
be most of the rows.

Repositories indexed before these tables existed have none: ``INDEX_FORMAT`` is recorded per
repository, and the next complete index of an older one parses every file again (no embedding:
unchanged entities keep their memories) to fill them.
"""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the extraction package loads when a file is parsed, not at import
    from ..extract.entities import CodeEntity

#: The format of the rows below; a repository indexed with an older one is re-parsed once.
INDEX_FORMAT = 1
#: Names recorded per entity at most (a generated or huge function cannot flood the table).
MAX_NAMES = 128

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS code_defs (
        memory_id TEXT PRIMARY KEY, repo_id TEXT NOT NULL, path TEXT NOT NULL,
        qualified_name TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER,
        end_line INTEGER)""",
    "CREATE INDEX IF NOT EXISTS code_defs_file ON code_defs (repo_id, path)",
    """CREATE TABLE IF NOT EXISTS code_refs (
        repo_id TEXT NOT NULL, path TEXT NOT NULL, memory_id TEXT NOT NULL,
        name TEXT NOT NULL, target TEXT NOT NULL, how TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS code_refs_name ON code_refs (repo_id, name)",
    "CREATE INDEX IF NOT EXISTS code_refs_file ON code_refs (repo_id, path)",
]

CALL, REF, IMPORT = "call", "ref", "import"
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class DefRow:
    """One entity of a file: where it is and what it is."""

    memory_id: str
    path: str
    qualified_name: str
    kind: str
    start_line: int | None
    end_line: int | None


@dataclass(frozen=True)
class RefRow:
    """A name used in ``path``: by the entity ``memory_id`` (``""``: a module-level import).

    ``target`` is the name as written (``dates.parse_date``, ``self.fetch``, ``.util.slug``
    for an import), ``name`` its last segment (the lookup key), ``how`` call, ref or import.
    """

    path: str
    memory_id: str
    name: str
    target: str
    how: str


def last_segment(dotted: str) -> str:
    return dotted.rstrip(".").rsplit(".", 1)[-1]


def file_rows(path: str, entities: Iterable[tuple[str, CodeEntity]],
              imports: Sequence[str]) -> tuple[list[DefRow], list[RefRow]]:
    """The rows of one parsed file: ``entities`` as ``(memory_id, entity)`` pairs."""
    pairs = list(entities)
    bound = {e.name for _, e in pairs if e.parent is None}
    for spec in imports:
        clean = spec.lstrip(".")
        bound.update({clean.split(".")[0], last_segment(clean)} if clean else ())
    bound |= {"self", "cls"}
    defs = [DefRow(mid, path, e.qualified_name, e.kind, e.start_line, e.end_line)
            for mid, e in pairs]
    refs = [RefRow(path, "", last_segment(spec), spec, IMPORT)
            for spec in dict.fromkeys(imports) if last_segment(spec)]
    for mid, entity in pairs:
        refs.extend(_entity_refs(path, mid, entity, bound))
    return defs, refs


def _entity_refs(path: str, memory_id: str, entity: CodeEntity,
                 bound: set[str]) -> list[RefRow]:
    rows: dict[str, RefRow] = {}
    for name in entity.calls:
        if "." in name or name not in _BUILTINS:
            rows.setdefault(name, RefRow(path, memory_id, last_segment(name), name, CALL))
    for name in entity.references:
        if name not in rows and name.split(".")[0] in bound:
            rows[name] = RefRow(path, memory_id, last_segment(name), name, REF)
    return list(rows.values())[:MAX_NAMES]


# -- writing (inside the manifest's transactions) ----------------------------------------------

def replace_file(conn: sqlite3.Connection, repo_id: str, path: str, defs: Sequence[DefRow],
                 refs: Sequence[RefRow]) -> None:
    """The rows of ``path`` become exactly ``defs`` and ``refs``."""
    drop_file(conn, repo_id, path)
    conn.executemany(
        "INSERT OR REPLACE INTO code_defs (memory_id, repo_id, path, qualified_name, kind, "
        "start_line, end_line) VALUES (?,?,?,?,?,?,?)",
        [(d.memory_id, repo_id, d.path, d.qualified_name, d.kind, d.start_line, d.end_line)
         for d in defs])
    conn.executemany(
        "INSERT INTO code_refs (repo_id, path, memory_id, name, target, how) "
        "VALUES (?,?,?,?,?,?)",
        [(repo_id, r.path, r.memory_id, r.name, r.target, r.how) for r in refs])


def move_file(conn: sqlite3.Connection, repo_id: str, old: str, new: str) -> None:
    """A renamed file keeps its rows (imports are read relative to the new path)."""
    for table in ("code_defs", "code_refs"):
        conn.execute(f"UPDATE {table} SET path=? WHERE repo_id=? AND path=?", (new, repo_id, old))


def drop_file(conn: sqlite3.Connection, repo_id: str, path: str) -> None:
    for table in ("code_defs", "code_refs"):
        conn.execute(f"DELETE FROM {table} WHERE repo_id=? AND path=?", (repo_id, path))


def drop_repo(conn: sqlite3.Connection, repo_id: str) -> None:
    for table in ("code_defs", "code_refs"):
        conn.execute(f"DELETE FROM {table} WHERE repo_id=?", (repo_id,))


def forget_memory(conn: sqlite3.Connection, memory_id: str) -> None:
    """The rows of one entity deleted through the plain memory API."""
    row = conn.execute("SELECT repo_id, path FROM code_defs WHERE memory_id=?",
                       (memory_id,)).fetchone()
    if row is None:
        return
    conn.execute("DELETE FROM code_defs WHERE memory_id=?", (memory_id,))
    conn.execute("DELETE FROM code_refs WHERE repo_id=? AND path=? AND memory_id=?",
                 (row[0], row[1], memory_id))


def migrate(conn: sqlite3.Connection) -> None:
    """Older manifests lack the per-repository index format: add it (0: rows never made)."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(code_repos)").fetchall()}
    if "index_format" not in columns:
        conn.execute("ALTER TABLE code_repos ADD COLUMN index_format INTEGER NOT NULL DEFAULT 0")


# -- reading ---------------------------------------------------------------------------------

def definitions(conn: sqlite3.Connection, repo_id: str, path: str) -> list[DefRow]:
    rows = conn.execute(
        "SELECT memory_id, path, qualified_name, kind, start_line, end_line FROM code_defs "
        "WHERE repo_id=? AND path=? ORDER BY start_line", (repo_id, path)).fetchall()
    return [DefRow(*r) for r in rows]


@dataclass(frozen=True)
class Use:
    """A ``code_refs`` row joined with the definition of the entity that uses the name."""

    ref: RefRow
    where: DefRow | None


def uses_of(conn: sqlite3.Connection, repo_id: str, name: str, limit: int, *,
            members: bool) -> list[Use]:
    """Rows naming ``name`` (through the ``(repo_id, name)`` index), at most ``limit``.

    ``members`` False leaves out ``self.x``/``cls.x``: they cannot name a module-level target.
    """
    sql = ("SELECT r.path, r.memory_id, r.name, r.target, r.how, d.memory_id, d.path, "
           "d.qualified_name, d.kind, d.start_line, d.end_line FROM code_refs r "
           "LEFT JOIN code_defs d ON d.memory_id = r.memory_id AND r.memory_id != '' "
           "WHERE r.repo_id=? AND r.name=?")
    if not members:
        sql += " AND r.target NOT LIKE 'self.%' AND r.target NOT LIKE 'cls.%'"
    rows = conn.execute(sql + " LIMIT ?", (repo_id, name, limit)).fetchall()
    return [Use(RefRow(*r[:5]), DefRow(*r[5:]) if r[5] is not None else None) for r in rows]


def file_imports(conn: sqlite3.Connection, repo_id: str, paths: Iterable[str]
                 ) -> dict[str, list[str]]:
    """The module-level imports of each of ``paths`` (one indexed lookup per file)."""
    out: dict[str, list[str]] = {}
    for path in dict.fromkeys(paths):
        out[path] = [r[0] for r in conn.execute(
            "SELECT target FROM code_refs WHERE repo_id=? AND path=? AND how=?",
            (repo_id, path, IMPORT)).fetchall()]
    return out

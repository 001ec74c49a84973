"""Damaging real SQLite files the ways disks and crashes do (for the corrupt-store tests)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest


def scribble_over_table(path: Path, table: str) -> None:
    """Overwrite every leaf page of ``table`` with garbage; the header and schema stay sound."""
    conn = sqlite3.connect(path)
    try:
        pages = [row[0] for row in conn.execute(
            "SELECT pageno FROM dbstat WHERE name=? AND pagetype='leaf'", (table,))]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table: cannot find the pages to damage")
    finally:
        conn.close()
    assert pages, f"table {table} has no leaf pages in {path}"
    with open(path, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * size)
            handle.write(os.urandom(size))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kept_aside(path: Path) -> list[Path]:
    """The files a repair moved aside next to ``path`` (main file and companions)."""
    return sorted(p for p in path.parent.iterdir() if p.name.startswith(path.name + ".corrupt-"))

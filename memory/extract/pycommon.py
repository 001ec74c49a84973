"""Rules shared by the two Python engines (libcst and tree-sitter), so they agree by construction.

Both engines only find the raw facts (where a definition starts and ends, its header text,
its decorators, names it uses); everything derived from them (kinds, qualified names, the
source slice, docstring cleaning, occurrence numbers) is computed here once.
"""

from __future__ import annotations

import ast
import bisect
import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field

from .entities import CodeEntity, sha256_hex

CONSTANT_NAMES = frozenset({"True", "False", "None"})


class LineIndex:
    """Maps between 1-based line numbers and offsets of one text (``\\n`` ends a line)."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self.starts = starts

    @property
    def line_count(self) -> int:
        """Number of lines (a trailing newline does not open a new line)."""
        n = len(self.starts)
        return n - 1 if self.text.endswith("\n") else n

    def line_of(self, offset: int) -> int:
        """1-based line that contains ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    def lines(self, start_line: int, end_line: int) -> str:
        """Exact text of lines ``start_line``..``end_line`` without the final line break."""
        begin = self.starts[start_line - 1]
        end = self.starts[end_line] if end_line < len(self.starts) else len(self.text)
        chunk = self.text[begin:end]
        if chunk.endswith("\n"):
            chunk = chunk[:-1]
            if chunk.endswith("\r"):
                chunk = chunk[:-1]
        return chunk


@dataclass
class RawDef:
    """What an engine found about one ``def``/``class``; the builder derives the rest."""

    is_class: bool
    is_async: bool
    name: str
    start_line: int
    end_line: int
    signature: str
    decorators: tuple[str, ...]
    docstring_literal: str | None
    parent: RawDef | None
    order: int
    calls: set[str] = field(default_factory=set)
    references: set[str] = field(default_factory=set)

    @property
    def qualified_name(self) -> str:
        """Dotted chain of enclosing definitions' names (no ``<locals>`` marker)."""
        names = [self.name]
        node = self.parent
        while node is not None:
            names.append(node.name)
            node = node.parent
        return ".".join(reversed(names))

    @property
    def kind(self) -> str:
        """function, async_function, class, method, async_method, nested_(async_)function."""
        if self.is_class:
            return "class"
        prefix = "async_" if self.is_async else ""
        if self.parent is None:
            return f"{prefix}function"
        if self.parent.is_class:
            return f"{prefix}method"
        return f"nested_{prefix}function"


def docstring_value(literal: str | None) -> str | None:
    """The cleaned docstring of a string-literal statement, like ``inspect.getdoc`` shows it."""
    if literal is None:
        return None
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return inspect.cleandoc(value) if isinstance(value, str) else None


def format_import(module: str, name: str | None = None) -> str:
    """``import a.b`` -> ``a.b``; ``from .m import x`` -> ``.m.x``; ``from . import x``: ``.x``."""
    if name is None:
        return module
    if not module or module.endswith("."):
        return f"{module}{name}"
    return f"{module}.{name}"


def build_entities(
    path: str, index: LineIndex, defs: Iterable[RawDef], imports: tuple[str, ...]
) -> tuple[CodeEntity, ...]:
    """Turn raw definitions (any order) into entities in source order with occurrence numbers."""
    seen: dict[str, int] = {}
    out = []
    for raw in sorted(defs, key=lambda d: d.order):
        qualified = raw.qualified_name
        occurrence = seen.get(qualified, 0)
        seen[qualified] = occurrence + 1
        source = index.lines(raw.start_line, raw.end_line)
        out.append(
            CodeEntity(
                path=path,
                language="python",
                kind=raw.kind,
                name=raw.name,
                qualified_name=qualified,
                signature=raw.signature,
                source=source,
                start_line=raw.start_line,
                end_line=raw.end_line,
                content_hash=sha256_hex(source),
                decorators=raw.decorators,
                docstring=docstring_value(raw.docstring_literal),
                imports=imports,
                calls=tuple(sorted(raw.calls)),
                references=tuple(sorted(raw.references - CONSTANT_NAMES)),
                parent=raw.parent.qualified_name if raw.parent is not None else None,
                occurrence=occurrence,
            )
        )
    return tuple(out)

"""Python extraction with libcst: the exact-structure engine.

libcst is slow (about 20x tree-sitter) and can crash the process on pathological input,
so it runs only where exact structure matters and, for untrusted files, inside the worker
pool (``pool.py``). It reports the raw facts (the visitor is ``cst_visitor.Collector``);
``pycommon`` derives the entities, exactly as it does for the tree-sitter engine, so both
agree on the golden fixtures. libcst is imported only when a file is parsed.
"""

from __future__ import annotations

from .entities import CodeEntity
from .pycommon import LineIndex, build_entities


def extract_python_cst(path: str, text: str) -> tuple[tuple[CodeEntity, ...], tuple[str, ...], int]:
    """Entities, module-level imports and line count of a Python source text.

    Raises ``libcst.ParserSyntaxError`` on invalid Python (the caller turns it into
    ``error:syntax``). Must not be called in the host process on untrusted input.
    """
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from .cst_visitor import Collector  # imports libcst: only here, when a file is parsed

    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    index = LineIndex(text)
    visitor = Collector(wrapper.module, positions, index)
    wrapper.module.visit(visitor)
    imports = tuple(visitor.imports)
    return build_entities(path, index, visitor.defs, imports), imports, index.line_count

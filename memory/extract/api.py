"""``extract_file``: bytes of one file in, a ``FileExtraction`` with a status out. Never raises
for bad input: every outcome (unsupported, binary, undecodable, pathological, syntax error,
missing grammar) is a status, so a repository report can account for every file.

This runs the parsers in the calling process. For untrusted repositories call it through
``pool.ExtractionPool`` (or ``extract_many``) so a parser crash cannot take the host down.
"""

from __future__ import annotations

from dataclasses import replace

from .decode import decode_source
from .entities import INDEXED, FileExtraction, error, sha256_hex, skipped
from .languages import GrammarUnavailable, detect_language
from .safety import Limits, precheck

PYTHON_ENGINES = ("treesitter", "libcst")
DEFAULT_LIMITS = Limits()


def extract_file(
    path_rel: str,
    data: bytes,
    *,
    python_engine: str = "treesitter",
    limits: Limits = DEFAULT_LIMITS,
    language: str | None = None,
) -> FileExtraction:
    """Extract the entities of one file given its repository-relative posix path and bytes.

    ``python_engine``: ``treesitter`` (bulk, tolerant of syntax errors) or ``libcst`` (exact
    structure; a syntax error gives ``error:syntax``). ``language`` overrides detection.
    """
    if python_engine not in PYTHON_ENGINES:
        raise ValueError(f"python_engine must be one of {PYTHON_ENGINES}, not {python_engine!r}")
    lang = language or detect_language(path_rel)
    # The fields every outcome shares; each return below states its own status on a copy.
    head = FileExtraction(
        path=path_rel, status="", language=lang, file_hash=sha256_hex(data), size=len(data)
    )
    if lang is None:
        return replace(head, status=skipped("unsupported_language"))
    if len(data) > limits.max_file_bytes:
        detail = f"{len(data)} bytes > limit {limits.max_file_bytes}"
        return replace(head, status=skipped("too_large"), detail=detail)
    decoded = decode_source(data, lang)
    if decoded.text is None:
        status = decoded.reason or error("decode")
        return replace(head, status=status, detail=decoded.detail)
    text = decoded.text
    head = replace(head, encoding=decoded.encoding)
    refused = precheck(text, lang, limits)
    if refused is not None:
        return replace(head, status=refused[0], detail=refused[1])
    try:
        return _parse(lang, text, python_engine, head)
    except GrammarUnavailable as exc:
        return replace(head, status=error("grammar_unavailable"), detail=str(exc))
    except RecursionError:
        return replace(head, status=error("too_deep"), detail="parser recursion limit")
    except MemoryError:
        return replace(head, status=error("out_of_memory"))


def _parse(lang: str, text: str, engine: str, head: FileExtraction) -> FileExtraction:
    """Parse ``text``; ``head`` carries the fields shared by every outcome (path, hash, ...)."""
    path = head.path
    if lang == "python" and engine == "libcst":
        import libcst

        from .python_cst import extract_python_cst

        try:
            entities, imports, lines = extract_python_cst(path, text)
        except libcst.ParserSyntaxError as exc:
            detail = f"line {exc.raw_line}: {str(exc).splitlines()[0]}"[:300]
            return replace(head, status=error("syntax"), detail=detail, engine="libcst")
        return replace(
            head, status=INDEXED, entities=entities, imports=imports, line_count=lines,
            engine="libcst",
        )
    if lang == "python":
        from .python_ts import extract_python_ts

        entities, imports, lines, broken = extract_python_ts(path, text)
        return replace(
            head, status=INDEXED, entities=entities, imports=imports, line_count=lines,
            syntax_errors=broken, engine="treesitter",
        )
    from .treesitter import extract_treesitter

    entities, lines, broken = extract_treesitter(path, lang, text)
    return replace(
        head, status=INDEXED, entities=entities, line_count=lines, syntax_errors=broken,
        engine="treesitter",
    )

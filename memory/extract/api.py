"""``extract_file``: bytes of one file in, a ``FileExtraction`` with a status out. Never raises
for bad input: every outcome (unsupported, binary, undecodable, pathological, syntax error,
missing grammar) is a status, so a repository report can account for every file.

This runs the parsers in the calling process. For untrusted repositories call it through
``pool.ExtractionPool`` (or ``extract_many``) so a parser crash cannot take the host down.
"""

from __future__ import annotations

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
    base = {"path": path_rel, "language": lang, "file_hash": sha256_hex(data), "size": len(data)}
    if lang is None:
        return FileExtraction(status=skipped("unsupported_language"), **base)
    if len(data) > limits.max_file_bytes:
        detail = f"{len(data)} bytes > limit {limits.max_file_bytes}"
        return FileExtraction(status=skipped("too_large"), detail=detail, **base)
    decoded = decode_source(data, lang)
    if decoded.text is None:
        status = decoded.reason or error("decode")
        return FileExtraction(status=status, detail=decoded.detail, **base)
    text = decoded.text
    base["encoding"] = decoded.encoding
    refused = precheck(text, lang, limits)
    if refused is not None:
        return FileExtraction(status=refused[0], detail=refused[1], **base)
    try:
        return _parse(path_rel, lang, text, python_engine, base)
    except GrammarUnavailable as exc:
        return FileExtraction(status=error("grammar_unavailable"), detail=str(exc), **base)
    except RecursionError:
        return FileExtraction(status=error("too_deep"), detail="parser recursion limit", **base)
    except MemoryError:
        return FileExtraction(status=error("out_of_memory"), **base)


def _parse(path: str, lang: str, text: str, engine: str, base: dict) -> FileExtraction:
    if lang == "python" and engine == "libcst":
        import libcst

        from .python_cst import extract_python_cst

        try:
            entities, imports, lines = extract_python_cst(path, text)
        except libcst.ParserSyntaxError as exc:
            detail = f"line {exc.raw_line}: {str(exc).splitlines()[0]}"[:300]
            return FileExtraction(status=error("syntax"), detail=detail, engine="libcst", **base)
        return FileExtraction(
            status=INDEXED, entities=entities, imports=imports, line_count=lines,
            engine="libcst", **base,
        )
    if lang == "python":
        from .python_ts import extract_python_ts

        entities, imports, lines, broken = extract_python_ts(path, text)
        return FileExtraction(
            status=INDEXED, entities=entities, imports=imports, line_count=lines,
            syntax_errors=broken, engine="treesitter", **base,
        )
    from .treesitter import extract_treesitter

    entities, lines, broken = extract_treesitter(path, lang, text)
    return FileExtraction(
        status=INDEXED, entities=entities, line_count=lines, syntax_errors=broken,
        engine="treesitter", **base,
    )

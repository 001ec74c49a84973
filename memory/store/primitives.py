"""Pure retrieval helpers: identifier splitting, FTS5 quoting, rank fusion, metadata filters.

The lexical analysis built on them (tokens, stems, fields) is ``lexical.py``.

Why a separate pure module: candidate selection decides how many LLM calls a query costs, so its
parts must be testable without a database or a model. Nothing here does I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

#: The RRF constant from Cormack et al.; 60 is the value every hybrid-search stack uses.
RRF_K = 60

_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_A-Za-z]+")

#: Deepest ``$and`` / ``$or`` nesting a filter may have; deeper is refused with ValueError
#: (it would otherwise end in a RecursionError here, or in SQLite's expression depth limit).
MAX_FILTER_DEPTH = 32

_SCALARS = (str, int, float, bool, type(None))
#: A value a filter compares with (and an SQL parameter of the compiled condition)
Scalar = str | int | float | bool | None
SqlParams = list[Scalar]
_RANGE_OPS = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def split_identifier(word: str) -> list[str]:
    """Split ``getUserName`` / ``get_user_name`` / ``HTTPServer2`` into lower-case parts."""
    return list(_split_cached(word))


@lru_cache(maxsize=1 << 17)
def _split_cached(word: str) -> tuple[str, ...]:
    """Memoized: indexing splits the same identifiers millions of times (profiled)."""
    parts: list[str] = []
    for chunk in word.split("_"):
        parts.extend(p.lower() for p in _CAMEL_PART.findall(chunk))
    return tuple(p for p in parts if p)


def fts_match_expression(terms: Sequence[str], operator: str = "OR") -> str:
    """An FTS5 MATCH expression joining the quoted terms (quoting defuses FTS syntax)."""
    if operator not in ("OR", "AND"):
        raise ValueError(f"operator must be OR or AND, got {operator!r}")
    return f" {operator} ".join('"' + t.replace('"', '""') + '"' for t in terms)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Fuse ranked id lists: ``score(d) = sum 1 / (k + rank)``; ties keep first-seen order.

    RRF needs no score normalisation, which matters because bm25 and cosine live on different
    scales (and a user's injected embedder on yet another).
    """
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores, key=lambda item: (-scores[item], order[item]))


def compile_filter(filters: Mapping[str, object] | None, column: str = "metadata",
                   _depth: int = 0) -> tuple[str, SqlParams]:
    """Translate a metadata filter into an SQL condition over the JSON ``column`` plus params.

    Grammar: ``{"key": value}`` (equality; ``None`` matches a missing key too),
    ``{"key": {"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": v, "$in"|"$nin": [v, ...]}}``,
    ``{"$and": [f, ...]}``, ``{"$or": [f, ...]}``; several keys in one mapping are ANDed.
    Raises ``ValueError`` on anything else, so a typo never silently matches everything, and
    on ``$and`` / ``$or`` nested deeper than ``MAX_FILTER_DEPTH``.
    """
    if _depth > MAX_FILTER_DEPTH:
        raise ValueError(f"filter nested deeper than {MAX_FILTER_DEPTH} levels of $and/$or; "
                         "flatten it (one $and or $or takes any number of conditions)")
    if filters is None:
        return "1", []
    if not isinstance(filters, Mapping):
        raise ValueError(f"filters must be a mapping, got {type(filters).__name__}")
    clauses: list[str] = []
    params: SqlParams = []
    for key, cond in filters.items():
        if key in ("$and", "$or"):
            sql, sub = _compile_group(key, cond, column, _depth + 1)
        elif isinstance(key, str) and key.startswith("$"):
            raise ValueError(f"unknown filter operator {key!r}; use $and, $or or a metadata key")
        else:
            sql, sub = _compile_field(key, cond, column)
        clauses.append(sql)
        params.extend(sub)
    return ("(" + " AND ".join(clauses) + ")" if clauses else "1"), params


def _compile_group(op: str, conds: object, column: str, depth: int) -> tuple[str, SqlParams]:
    if not isinstance(conds, (list, tuple)) or not conds:
        raise ValueError(f"{op} takes a non-empty list of filters")
    parts: list[str] = []
    params: SqlParams = []
    for cond in conds:
        if cond is None:
            raise ValueError(f"{op} takes filters (mappings), not None")
        sql, sub = compile_filter(cond, column, depth)
        parts.append(sql)
        params.extend(sub)
    joiner = " AND " if op == "$and" else " OR "
    return "(" + joiner.join(parts) + ")", params


def _json_path(key: object) -> str:
    if not isinstance(key, str) or not key or '"' in key:
        raise ValueError(f"bad metadata key in filter: {key!r} (non-empty string without '\"')")
    return '$."' + key + '"'


def _scalar(value: object) -> Scalar:
    if not isinstance(value, _SCALARS) or (isinstance(value, float) and not math.isfinite(value)):
        raise ValueError(f"filter values must be finite scalars, got {value!r}")
    return value


def _compile_field(key: object, cond: object, column: str) -> tuple[str, SqlParams]:
    path = _json_path(key)
    expr = f"json_extract({column}, ?)"
    if not isinstance(cond, Mapping):
        return _compile_op(expr, path, "$eq", cond)
    if not cond:
        raise ValueError(f"empty condition for metadata key {key!r}")
    parts: list[str] = []
    params: SqlParams = []
    for op, value in cond.items():
        sql, sub = _compile_op(expr, path, op, value)
        parts.append(sql)
        params.extend(sub)
    return "(" + " AND ".join(parts) + ")", params


def _compile_op(expr: str, path: str, op: object, value: object) -> tuple[str, SqlParams]:
    if op in ("$in", "$nin"):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise ValueError(f"{op} takes a list of values, got {value!r}")
        values = [_scalar(v) for v in value]
        if not values:
            return ("0" if op == "$in" else "1"), []
        marks = ",".join("?" * len(values))
        if op == "$in":
            return f"{expr} IN ({marks})", [path, *values]
        return f"({expr} IS NULL OR {expr} NOT IN ({marks}))", [path, path, *values]
    value = _scalar(value)
    if op == "$eq":
        return (f"{expr} IS NULL", [path]) if value is None else (f"{expr} = ?", [path, value])
    if op == "$ne":
        if value is None:
            return f"{expr} IS NOT NULL", [path]
        return f"({expr} IS NULL OR {expr} != ?)", [path, path, value]
    if op in _RANGE_OPS:
        if value is None:
            raise ValueError(f"{op} needs a value, not None")
        return f"{expr} {_RANGE_OPS[op]} ?", [path, value]
    raise ValueError(f"unknown filter operator {op!r}; valid: $eq $ne $in $nin $gt $gte $lt $lte")

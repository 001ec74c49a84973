"""What the meta-code's strings may look like, as JSON Schema patterns, and the few readings that
make a header Python parses out of one the patterns allow.

A constraining server turns these patterns into a grammar, so a small model can only write a
path, a name, a ``def``/``class`` header or an example call of these shapes: a path inside the
repository, a qualified name, a header whose parameters come in an order Python accepts (plain
ones, then those with defaults, then ``*args`` and ``**kwargs``), a call whose positional
arguments come before its keywords. Written in the subset every converter reads
(``llm/schema.py``): plain groups, explicit classes, literal brackets escaped.

What no pattern can say is that a name is not a Python keyword (``def convert(from, to)``):
:func:`python_names` gives such a name PEP 8's trailing underscore, in the symbol and in the
header alike; an example call that still does not parse is left out by the reader.
"""

from __future__ import annotations

import keyword
import re

NAME = "[A-Za-z_][A-Za-z0-9_]*"
DOTTED = f"{NAME}([.]{NAME})*"
#: a repository-relative path of a Python file: no absolute path, no ``..``, no hidden part
PATH = "[A-Za-z0-9_][A-Za-z0-9_-]*(/[A-Za-z0-9_][A-Za-z0-9_-]*)*[.]py"
_TYPE1 = f"{DOTTED}(\\[{DOTTED}(, {DOTTED})*\\])?"
_TYPE2 = f"{DOTTED}(\\[{_TYPE1}(, {_TYPE1})*\\])?"
#: an annotation: a name, subscripted two levels deep, or a union of such (``X | None``)
TYPE = f"{_TYPE2}( [|] {_TYPE2})*"
_NUMBER = "-?(0|[1-9][0-9]{0,8})([.][0-9]{1,6})?"
_STRING = "'[^'\"\\\\\\x00-\\x1f]{0,40}'"
_SIMPLE = f"({_NUMBER}|{_STRING}|{DOTTED})"
#: a literal a default or an argument may be: a number, a short string, a name, or a list or
#: tuple of those, or an empty dict
VALUE = (f"({_SIMPLE}|\\[({_SIMPLE}(, {_SIMPLE})*)?\\]|\\(({_SIMPLE},( {_SIMPLE}(, "
         f"{_SIMPLE})*)?)?\\)|\\{{\\}})")
_PLAIN = f"{NAME}(: {TYPE})?"
_DEFAULT = f"{NAME}(: {TYPE})?( = |=){VALUE}"
_STARS = f"([*]{NAME}(: {TYPE})?(, [*][*]{NAME}(: {TYPE})?)?|[*][*]{NAME}(: {TYPE})?)"
_POSITIONAL = f"({_PLAIN}(, {_PLAIN})*(, {_DEFAULT})*|{_DEFAULT}(, {_DEFAULT})*)"
_PARAMS = f"({_POSITIONAL}(, {_STARS})?|{_STARS})?"
_ARGS = f"(({VALUE}(, {VALUE})*)(, {NAME}={VALUE})*|{NAME}={VALUE}(, {NAME}={VALUE})*)?"


def def_header(name: str = NAME) -> str:
    """A function or method header defining ``name`` (a pattern without anchors)."""
    return f"(async )?def {name}\\({_PARAMS}\\)( -> {TYPE})?:?"


def class_header(name: str = NAME) -> str:
    return f"class {name}(\\({DOTTED}(, {DOTTED})*\\))?:?"


def call(callee: str = DOTTED) -> str:
    """An example call: ``callee(args)``, maybe a method called on its result
    (``Invoice(1).total()``)."""
    return f"{callee}\\({_ARGS}\\)([.]{NAME}\\({_ARGS}\\))?"


def matches(pattern: str, text: str) -> bool:
    """Whether all of ``text`` is of the (unanchored) ``pattern``'s shape."""
    return re.fullmatch(pattern, text) is not None


def anchored(*alternatives: str) -> str:
    return "^(" + "|".join(alternatives) + ")$" if len(alternatives) > 1 else \
        f"^{alternatives[0]}$"


#: keywords that cannot be names (``None``, ``True`` and ``False`` are values a default may be)
_KEYWORDS = frozenset(keyword.kwlist) - {"None", "True", "False"}
_WORD = re.compile(r"'[^']*'|[A-Za-z_][A-Za-z0-9_]*")
_HEADER_WORDS = {"def", "class", "async"}


def python_names(text: str, *, header: bool = False) -> str:
    """``text`` with every keyword used as a name suffixed with ``_`` (quoted text and, in a
    header, its leading ``async def`` or ``class`` untouched)."""
    lead = header

    def fix(match: re.Match[str]) -> str:
        nonlocal lead
        word = match.group(0)
        if lead and word in _HEADER_WORDS:
            return word
        lead = False
        return word + "_" if word in _KEYWORDS else word

    return _WORD.sub(fix, text)


def header_name(signature: str) -> str | None:
    """The name a ``def`` or ``class`` header defines, None when it is no such header."""
    found = re.match(rf"\s*(?:async\s+)?(?:def|class)\s+({NAME})", signature)
    return found.group(1) if found else None


def renamed_header(signature: str, name: str) -> str:
    """The header defining ``name`` instead of its own name."""
    return re.sub(rf"^(\s*(?:async\s+)?(?:def|class)\s+){NAME}", lambda m: m.group(1) + name,
                  signature, count=1)

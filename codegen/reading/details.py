"""What a message names: the file, the symbol and the kind of entity it asks for.

Deterministic and conservative: a wrong path would send the draft to the wrong file, so a name
is taken only where the sentence puts one ("a function *called* slugify", "the Stack class",
``divide()``, a backticked name, a ``snake_case`` or ``dotted.name``). Pure functions; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import (
    BACKTICK_RE,
    CALL_RE,
    IDENT_RE,
    PATH_RE,
    code_shaped,
    fold,
    fuzzy,
    words,
)
from .words import (
    CODE_FOR_NOUNS,
    CODE_NOUNS,
    DEFINITE,
    DETERMINERS,
    FOR_WORDS,
    KIND_OF_NOUN,
    LINK_WORDS,
    MEMBER_NOUNS,
    NAMING_WORDS,
    NOT_SYMBOLS,
    OWNER_MARKERS,
    REQUEST_VERBS,
)


@dataclass(frozen=True)
class RequestDetails:
    """What the message itself says about the code it wants (empty strings: not said)."""

    target_path: str = ""
    symbol: str = ""
    #: function, method, class, test or module.
    kind: str = ""


def extract_details(text: str) -> RequestDetails:
    """The file, symbol and kind a message names; deterministic, conservative."""
    text = text or ""
    path_match = PATH_RE.search(text)
    path = path_match.group(1) if path_match else ""
    rest = text.replace(path, " ") if path else text
    named = _named_entities(rest)  # (kind, name, is_owner) triples, in order
    main = [(k, n) for k, n, owner in named if not owner] or [(k, n) for k, n, _ in named]
    kind = main[0][0] if main else _kind(words(text))
    symbol = _explicit_symbol(rest) or next((n for k, n in main if k == kind and n), "") \
        or next((n for _, n, _ in named if n), "") or _code_shaped(rest)
    if kind == "method" and symbol and "." not in symbol:
        owner = next((n for k, n, _ in named if k == "class" and n and n != symbol), "") \
            or _owner_class(text, symbol)
        symbol = f"{owner}.{symbol}" if owner else symbol
    if not kind and "." in symbol:
        kind = "method"
    return RequestDetails(target_path=path, symbol=symbol, kind=kind)


def _kind(words: list[str]) -> str:
    for word in words:
        kind = KIND_OF_NOUN.get(word) or KIND_OF_NOUN.get(fuzzy(word, KIND_OF_NOUN))
        if kind:
            return kind
    return ""


def _explicit_symbol(text: str) -> str:
    """A name in backticks, or written as a call: ``slugify`` / ``divide()`` (not one that is
    a parameter or field of something else: "a `timeout` parameter")."""
    for pattern in (BACKTICK_RE, CALL_RE):
        for match in pattern.finditer(text):
            following = words(text[match.end():])[:1]
            if _plausible(match.group(1)) and not set(following) & MEMBER_NOUNS:
                return match.group(1)
    return ""


def _code_shaped(text: str) -> str:
    """A ``snake_case`` or ``dotted.name`` that is not a field, flag or argument."""
    tokens: list[str] = re.findall(r"[\w.]+", text)
    for i, token in enumerate(tokens):
        neighbours = {fold(t.lower()) for t in tokens[max(0, i - 1):i + 2]}
        if _plausible(token) and code_shaped(token) and not neighbours & MEMBER_NOUNS:
            return token
    return ""


def _named_entities(text: str) -> list[tuple[str, str, bool]]:
    """``(kind, name, is_owner)`` for each code noun: "function slugify", "a method called
    save", "the Stack class", "a test for slugify" (name "" when none is given). ``is_owner``:
    the noun is where something goes ("add a method *to the class* Konto")."""
    tokens = re.findall(r"[\w.]+|[^\w\s]", text)
    folded = [fold(t.lower()) for t in tokens]
    found = []
    for i, word in enumerate(folded):
        if word in CODE_FOR_NOUNS and i + 2 < len(tokens) and folded[i + 1] in FOR_WORDS \
                and _plausible(tokens[i + 2]) and not _ordinary(tokens[i + 2]) \
                and _ends_phrase(folded, i + 2):
            found.append(("function", tokens[i + 2], False))
            continue
        kind = KIND_OF_NOUN.get(word) or KIND_OF_NOUN.get(fuzzy(word, KIND_OF_NOUN))
        if kind:
            name = _name_after(tokens, folded, i) or _name_before(tokens, folded, i)
            owner = kind == "class" and any(w in OWNER_MARKERS for w in folded[max(0, i - 2):i])
            found.append((kind, name, owner))
    return found


def _name_after(tokens: list[str], folded: list[str], i: int) -> str:
    j, naming = i + 1, False
    while j < len(tokens) and folded[j] in NAMING_WORDS:
        j, naming = j + 1, True
    singular = not folded[i].endswith("s") or folded[i] in ("class", "classe")
    if j < len(tokens) and folded[j] in FOR_WORDS and singular and _ends_phrase(folded, j + 1):
        j, naming = j + 1, True  # "a test for slugify" (not "functions for area and ...")
    if j >= len(tokens) or not _plausible(tokens[j]) or _ordinary(tokens[j]) \
            or tokens[j].isupper():
        return ""
    if naming or _code_like(tokens[j]):
        return tokens[j]
    determined = i > 0 and (folded[i - 1] in DETERMINERS or folded[i - 1] in REQUEST_VERBS)
    return tokens[j] if determined and _ends_phrase(folded, j) else ""


def _name_before(tokens: list[str], folded: list[str], i: int) -> str:
    j = i - 1
    if j < 0 or not _plausible(tokens[j]) or _ordinary(tokens[j]) or tokens[j].isupper():
        return ""
    if _code_like(tokens[j]):
        return tokens[j]
    return tokens[j] if j > 0 and folded[j - 1] in DEFINITE else ""


def _ends_phrase(folded: list[str], j: int) -> bool:
    """Whether the word at ``j`` is the last of its phrase (end, punctuation, a linking word)."""
    nxt = j + 1
    return nxt >= len(folded) or not folded[nxt][:1].isalnum() or folded[nxt] in LINK_WORDS


def _code_like(token: str) -> bool:
    """Written like a name in code: ``snake_case``, ``CamelCase``, ``Capitalised``,
    ``dotted.name`` (an all-caps word like CSV is an acronym, not a name)."""
    if token.isupper() and "_" not in token:
        return False
    return "_" in token.strip("_") or "." in token or token[:1].isupper() \
        or any(c.isupper() for c in token[1:])


def _ordinary(token: str) -> bool:
    """A word of the language, not a name (``Parser`` written as a name is not ordinary)."""
    folded = fold(token.lower())
    if folded in NOT_SYMBOLS or folded in REQUEST_VERBS or folded in KIND_OF_NOUN:
        return True
    return folded in CODE_NOUNS and not _code_like(token)


def _owner_class(text: str, method: str) -> str:
    """``Invoice`` in "add a method to_json to the Invoice class" (a capitalised class name)."""
    for match in re.finditer(r"\b([A-Z][A-Za-z0-9]*)\b", text):
        name = match.group(1)
        if name != method and not _ordinary(name) and len(name) > 1 \
                and not name.isupper() and match.start() > 0:
            return name
    return ""


def _plausible(name: str) -> bool:
    return (bool(IDENT_RE.fullmatch(name)) and len(name) > 1
            and fold(name.lower()) not in NOT_SYMBOLS)

"""Turn an LLM reply into modifications and apply them to a COPY of the draft.

Three formats, chosen because each applies with certainty: whole-entity replacement for Python,
located by qualified name and swapped with libcst so decorators, leading comments and every other
byte of the file stay as they were; SEARCH/REPLACE blocks for everything else, matched exact, then
whitespace-insensitive, then fuzzy with a unique match only; whole files for new files. Anything
we cannot apply with certainty (elided code, no or two anchors, a path outside the draft, code
that does not parse) is rejected with a message precise enough to send back to the model.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ...llm.errors import ReplyRefused
from ...llm.reader import answer_text
from ..errors import EditRejected
from .entity import replace_entity
from .search import search_replace

FUZZY_RATIO = 0.9


@dataclass(frozen=True)
class EntityEdit:
    """Replace (or add) the Python definition ``qualname`` in ``path`` with ``code``."""

    path: str
    qualname: str
    code: str


@dataclass(frozen=True)
class SearchReplace:
    """Replace the one occurrence of ``search`` in ``path`` with ``replace``."""

    path: str
    search: str
    replace: str


@dataclass(frozen=True)
class WholeFile:
    """Create or overwrite ``path`` with ``content``."""

    path: str
    content: str


Modification = EntityEdit | SearchReplace | WholeFile


@dataclass(frozen=True)
class Applied:
    """The new draft (a fresh dict) and which paths changed."""

    files: dict[str, str]
    changed: tuple[str, ...]
    modifications: tuple[Modification, ...]


@dataclass(frozen=True)
class Rejected:
    """Why the reply could not be applied; the text goes back to the LLM verbatim."""

    message: str


# -- paths ----------------------------------------------------------------------------------

def path_problem(path: str) -> str | None:
    """Why ``path`` is not a safe repository-relative path, or None when it is."""
    if not isinstance(path, str) or not path.strip():
        return "empty path"
    if "\x00" in path or "\\" in path:
        return f"{path!r}: use a plain relative path with forward slashes"
    if path.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", path):
        return f"{path!r}: absolute paths are not allowed"
    parts = path.split("/")
    if ".." in parts:
        return f"{path!r}: '..' is not allowed"
    if any(p.lower() == ".git" for p in parts):
        return f"{path!r}: paths inside .git are not allowed"
    if any(p in ("", ".") for p in parts):
        return f"{path!r}: empty or '.' path component"
    return None


def check_path(path: str, allowed: Collection[str] | None) -> None:
    """Raise EditRejected unless ``path`` is safe and inside ``allowed`` (paths or ``dir/``)."""
    problem = path_problem(path)
    if problem:
        raise EditRejected(f"path rejected: {problem}")
    if allowed is not None and not any(
            path == a or (a.endswith("/") and path.startswith(a)) for a in allowed):
        raise EditRejected(f"path rejected: {path!r} is outside the files this task may change "
                           f"({', '.join(sorted(allowed))})")


# -- elision --------------------------------------------------------------------------------

_COMMENT = r"(?:#|//|/\*|\*|--|<!--|;)"
_ELISIONS = (
    re.compile(rf"^\s*{_COMMENT}?\s*(?:\.\.\.|…)\s*\(?\s*(?:rest|remaining|existing|unchanged|"
               r"same|other|previous|more|omitted|etc|code)\b", re.I),
    re.compile(rf"^\s*{_COMMENT}\s*(?:\.\.\.|…)\s*(?:\*/|-->)?\s*$"),
    re.compile(rf"^\s*{_COMMENT}.*\b(?:rest of (?:the )?(?:code|file|function|class|method|body)|"
               r"remains? unchanged|code omitted|omitted for brevity|existing code|"
               r"same as before|unchanged code)\b", re.I),
)


def find_elision(text: str) -> tuple[int, str] | None:
    """The first line that stands for code the model did not write, as (line number, line)."""
    for number, line in enumerate(text.splitlines(), 1):
        if any(p.search(line) for p in _ELISIONS):
            return number, line.strip()
    return None


def _reject_elision(text: str, what: str) -> None:
    hit = find_elision(text)
    if hit:
        raise EditRejected(f"{what} elides code at its line {hit[0]} ({hit[1]!r}); write the "
                           "complete code, every line, instead of a placeholder")


# -- parsing replies ------------------------------------------------------------------------

_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+#.-]*)\s*(.*?)\s*$")
_SEARCH = re.compile(r"^\s*<{5,9} ?SEARCH\s*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9} ?REPLACE\s*$")
_ATTR = re.compile(r"(\w+)=(\S+)")


def parse_reply(reply: str, *, default_target: tuple[str, str] | None = None
                ) -> list[Modification]:
    """Every modification in ``reply``; EditRejected when there is none or one is malformed.

    ``default_target`` = (path, symbol) lets a bare ```python block that defines the target's
    name count as its whole-entity replacement (``symbol`` empty: the whole file). Reasoning
    blocks are removed first: code the model only thought about is never the edit.
    """
    try:
        reply = answer_text(reply, "the edit")
    except ReplyRefused as err:
        raise EditRejected(str(err)) from None
    lines = reply.splitlines(keepends=True)
    mods: list[Modification] = []
    i, last_text = 0, ""
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence:
            end = _closing(lines, i, fence.group(1))
            body = lines[i + 1:end]
            if any(_SEARCH.match(x) for x in body):
                mods += _parse_sr(body, _attrs(fence.group(3)).get("file") or _as_path(last_text))
            else:
                mod = _fence_mod(fence.group(2), fence.group(3), "".join(body), default_target)
                mods += [mod] if mod else []
            i = end + 1
            continue
        if _SEARCH.match(lines[i]):
            end = _sr_end(lines, i)
            mods += _parse_sr(lines[i:end + 1], _as_path(last_text))
            i = end + 1
            continue
        if lines[i].strip():
            last_text = lines[i].strip()
        i += 1
    if not mods:
        raise EditRejected("no edit found in the reply: send the complete definition in a "
                           "```python entity=path::Symbol block, SEARCH/REPLACE blocks, or a "
                           "```lang file=path block")
    return mods


def _closing(lines: Sequence[str], start: int, fence: str) -> int:
    for j in range(start + 1, len(lines)):
        if lines[j].strip() and set(lines[j].strip()) == {fence[0]} and \
                len(lines[j].strip()) >= len(fence):
            return j
    raise EditRejected(f"code block opened at reply line {start + 1} is never closed")


def _sr_end(lines: Sequence[str], start: int) -> int:
    for j in range(start + 1, len(lines)):
        if _REPLACE.match(lines[j]):
            return j
    raise EditRejected(f"SEARCH block at reply line {start + 1} has no '>>>>>>> REPLACE' line")


def _attrs(info: str) -> dict[str, str]:
    return {k.lower(): v.strip("'\"") for k, v in _ATTR.findall(info)}


def _as_path(text: str) -> str:
    return text.strip().strip("`*:#").strip().removeprefix("File:").strip()


def _parse_sr(lines: Sequence[str], path: str) -> list[Modification]:
    mods: list[Modification] = []
    i = 0
    while i < len(lines):
        if not _SEARCH.match(lines[i]):
            if lines[i].strip() and not _REPLACE.match(lines[i]):
                path = _as_path(lines[i])
            i += 1
            continue
        div = next((j for j in range(i + 1, len(lines)) if _DIVIDER.match(lines[j])), None)
        end = next((j for j in range(i + 1, len(lines)) if _REPLACE.match(lines[j])), None)
        if div is None or end is None or end < div:
            raise EditRejected("malformed SEARCH/REPLACE block: expected '<<<<<<< SEARCH', "
                               "'=======', '>>>>>>> REPLACE' in this order")
        if not path:
            raise EditRejected("SEARCH/REPLACE block without a file path on the line before it")
        mods.append(SearchReplace(path, "".join(lines[i + 1:div]), "".join(lines[div + 1:end])))
        i = end + 1
    return mods


def _fence_mod(lang: str, info: str, body: str, default: tuple[str, str] | None
               ) -> Modification | None:
    attrs = _attrs(info)
    if "entity" in attrs:
        path, sep, qual = attrs["entity"].partition("::")
        if not sep or not qual:
            raise EditRejected(f"entity={attrs['entity']!r} must read path::QualifiedName")
        return EntityEdit(path, qual, body)
    if "file" in attrs or "path" in attrs:
        return WholeFile(attrs.get("file") or attrs["path"], body)
    if lang.lower() not in ("python", "py", "") or default is None:
        return None
    path, symbol = default
    if not symbol:
        return WholeFile(path, body)
    name = symbol.rsplit(".", 1)[-1]
    if re.search(rf"^\s*(?:async\s+def|def|class)\s+{re.escape(name)}\b", body, re.M):
        return EntityEdit(path, symbol, _target_only(body, name))
    return None


def _target_only(body: str, name: str) -> str:
    """A bare block's imports and its one definition of ``name``: other definitions in it
    (a small model copies the context around the target) are not part of the target's edit.
    Unchanged when the block does not parse or defines ``name`` other than once."""
    try:
        tree = ast.parse(body)
    except (SyntaxError, ValueError):
        return body
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    mine = [n for n in tree.body if isinstance(n, defs) and n.name == name]
    if len(mine) != 1:
        return body
    kept = [n for n in tree.body if n is mine[0] or isinstance(n, (ast.Import, ast.ImportFrom))]
    if len(kept) == len(tree.body):
        return body
    lines = body.splitlines(keepends=True)
    parts = []
    for node in kept:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        parts.append("".join(lines[start - 1:node.end_lineno or node.lineno]))
    return "\n".join(p if p.endswith("\n") else p + "\n" for p in parts)


# -- applying -------------------------------------------------------------------------------

def apply_reply(files: Mapping[str, str], reply: str, *,
                default_target: tuple[str, str] | None = None,
                allowed: Collection[str] | None = None) -> Applied | Rejected:
    """Parse and apply; a typed result the loop feeds back instead of an exception."""
    try:
        mods = parse_reply(reply, default_target=default_target)
        new = apply_modifications(files, mods, allowed=allowed)
    except EditRejected as err:
        return Rejected(str(err))
    changed = tuple(sorted(p for p in new if files.get(p) != new[p]))
    return Applied(new, changed, tuple(mods))


def apply_modifications(files: Mapping[str, str], mods: Sequence[Modification], *,
                        allowed: Collection[str] | None = None) -> dict[str, str]:
    """A new dict with every modification applied, in order; ``files`` is never touched."""
    out = dict(files)
    for mod in mods:
        check_path(mod.path, allowed)
        if isinstance(mod, EntityEdit):
            _reject_elision(mod.code, f"the new code of {mod.qualname}")
            out[mod.path] = replace_entity(out.get(mod.path, ""), mod.qualname, mod.code,
                                           path=mod.path)
        elif isinstance(mod, SearchReplace):
            _reject_elision(mod.replace, f"the REPLACE part for {mod.path}")
            out[mod.path] = search_replace(out.get(mod.path, ""), mod.search, mod.replace,
                                           path=mod.path)
        else:
            _reject_elision(mod.content, f"the new file {mod.path}")
            out[mod.path] = mod.content
    return out


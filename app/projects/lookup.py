"""What the repository's index answers for a turn: names it knows, files that define a name,
and LLM-scored retrieval for a question.

The intent detector asks ``IndexedNames`` which of a message's names the index knows (one query
per message, the file list read once per indexing run); a request that names only a symbol gets
its file from ``defining_file``; a question gets ``retrieve``'s scored memories, counted on the
request's meter.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...codegen import RequestDetails, candidate_names, is_file_name, name_terms, target_words
from ...llm import Meter, estimate_tokens
from ...memory import CodeContext, Filters, ScoredMemory
from ..host.llm_port import metering, model_window
from .ledger import SHARED_TYPES
from .registry import KnownCodeIndex, Project

log = logging.getLogger(__name__)


def defining_file(project: Project, symbol: str) -> str:
    """The one file that defines ``symbol`` (``Invoice.to_json``: the method, else its class),
    or "" when the index knows none or several."""
    parts = symbol.split(".")
    for name in dict.fromkeys([parts[-1], *parts[:-1][::-1]]):
        found = project.code.list_memories({"type": "code_entity", "name": name})
        paths = {str((m.get("metadata") or {}).get("path", "")) for m in found} - {""}
        if len(paths) == 1:
            return paths.pop()
        if paths:
            return ""  # the name is ambiguous: ask rather than guess
    return ""


def file_named(project: Project, name: str) -> str:
    """The one indexed file called ``name`` (``text_utils.py``: ``pkg/text_utils.py``), else
    ``name`` as given (a new file at the top)."""
    paths = {p for p in project.code.indexed_paths(project.root)
             if p == name or p.endswith("/" + name)}
    return paths.pop() if len(paths) == 1 else name


def named_in_file(project: Project, path: str, names: Sequence[str]) -> str:
    """The one of ``names`` that ``path`` defines ("add a timeout to fetch in net/http.py":
    ``fetch``), or "" when it defines none or several of them."""
    if not names:
        return ""
    found = project.code.list_memories(
        {"type": "code_entity", "path": path, "name": {"$in": list(names)}},
        limit=200)  # a file defines few entities of one name
    defined = {str((m.get("metadata") or {}).get("name", "")) for m in found} - {""}
    return defined.pop() if len(defined) == 1 else ""


def linked_details(project: Project, details: RequestDetails, text: str) -> RequestDetails:
    """The request's target completed from the index: the file and qualified name of a symbol
    it names that the index knows in exactly one file (or in the named file); else the first
    word standing where the thing to change stands (``codegen.target_words``: "add a timeout
    to *fetch*", plain words included) that the named file defines, or that exactly one file
    defines, which also wins over a symbol the index does not know (a new name the message
    introduces: "aggiungi un parametro dry_run a *generate_label*"); else, with a file
    named, the one code-shaped name of the message that file defines. Unchanged when nothing
    links."""
    path, symbol = details.target_path, details.symbol
    if symbol:
        entity = None if "." in symbol else _the_entity(project, symbol, path)
        if entity is not None:  # "send": ``Client.send``, a method
            return _details(entity[0], entity[1], details.kind or entity[2])
        if "." not in symbol:
            known = _first_target(project, details, text, path)
            if known is not None:
                return known
        return details if path else _details(defining_file(project, symbol), symbol,
                                             details.kind)
    known = _first_target(project, details, text, path)
    if known is not None:
        return known
    if path:
        named = [n for n in candidate_names(text) if n != path and ("_" in n or "." in n)]
        return _details(path, named_in_file(project, path, named), details.kind)
    return details


def _first_target(project: Project, details: RequestDetails, text: str,
                  path: str) -> RequestDetails | None:
    """The first word in a target's place that the index knows in one file (``path``'s)."""
    for word in target_words(text):
        if word == details.symbol:
            continue
        entity = _the_entity(project, word, path)
        if entity is not None:
            found_path, qualified, kind = entity
            return _details(found_path, qualified, details.kind or kind)
    return None


def _the_entity(project: Project, name: str, path: str) -> tuple[str, str, str] | None:
    """``(path, qualified name, kind)`` of the one entity called ``name`` (in ``path`` when
    given), or None when the index knows none or several."""
    found = project.code.list_memories({"type": "code_entity", "name": name}, limit=200)
    entities = {(str(meta.get("path", "")), str(meta.get("qualified_name") or name),
                 str(meta.get("kind", ""))) for meta in (m.get("metadata") or {} for m in found)}
    if path:
        entities = {e for e in entities if e[0] == path or e[0].endswith("/" + path)}
    if len({e[:2] for e in entities}) != 1:
        return None
    found_path, qualified, kind = entities.pop()
    return found_path, qualified, _KINDS.get(kind, "")


#: The index's entity kinds as the request's ``kind``.
_KINDS = {"function": "function", "async_function": "function", "method": "method",
          "async_method": "method", "class": "class"}


def _details(path: str, symbol: str, kind: str) -> RequestDetails:
    return RequestDetails(target_path=path, symbol=symbol, kind=kind)


class IndexedNames:
    """The project's index as the intent detector asks it
    (``codegen.reading.known_code.KnownCode``): the entity names and the file list read once per
    indexing run (from two indexes of the manifest, no entity row), so a message costs set
    lookups, not a query over every memory."""

    def __init__(self, open_project: Callable[[], Project | None]) -> None:
        #: Called at the first lookup only; ``None`` (or an unusable repository): no names.
        self._open = open_project

    def known(self, names: Sequence[str]) -> set[str]:
        try:
            return self._known(names)
        except Exception as err:  # the detector then decides from the words alone
            log.info("index lookup failed: %s", err)
            return set()

    def _known(self, names: Sequence[str]) -> set[str]:
        files = [n for n in names if "/" in n or is_file_name(n)]
        idents = [n for n in names if n not in files]
        known, paths, _ = self._index()
        return {n for n in idents if n in known} | {f for f in files if any(
            p == f or p.endswith("/" + f) for p in paths)}

    def terms(self, stems: set[str]) -> set[str]:
        try:
            return stems & self._index()[2]
        except Exception as err:  # the detector then decides from the words alone
            log.info("index lookup failed: %s", err)
            return set()

    def _index(self) -> KnownCodeIndex:
        project = self._open()
        if project is None:
            return set(), [], frozenset()
        cached = project.known_code
        if cached is None or cached[0] != project.generation:
            code = project.code
            names, paths = code.indexed_names(), code.indexed_paths(project.root)
            cached = (project.generation, names, paths, name_terms([*names, *paths]))
            project.known_code = cached
        return cached[1], cached[2], cached[3]


def retrieve(project: Project, query: str, *, current_file: str = "",
             filters: Filters | None = None, meter: Meter | None = None,
             ) -> list[ScoredMemory]:
    """LLM-scored memories for ``query`` (the calls counted on ``meter``)."""
    context = CodeContext(user_query=query, current_file=current_file or None)
    wanted = filters if filters is not None else {"type": {"$in": list(SHARED_TYPES)}}
    with metering(meter, project.config):
        return asyncio.run(project.code.retrieve_relevant_memories(context, filters=wanted))


def search(project: Project, question: str, meter: Meter | None = None) -> str:
    """Code relevant to ``question``, scored by the LLM, formatted for a prompt."""
    memories = retrieve(project, question, meter=meter)
    if not memories:
        return "No indexed code is relevant to that question."
    return fitted_context(project, memories)


def fitted_context(project: Project, memories: list[ScoredMemory],
                   budget: int | None = None) -> str:
    """``memories`` formatted for the Cat's prompt, the least relevant left out until the text
    takes at most ``budget`` tokens (what the Cat's prompt leaves: ``chat/prompt_room.py``;
    without one, half the model's window)."""
    if budget is None:
        budget = model_window(project.config).tokens // 2
    if budget < 64:
        return ("(the model's context window has no room left for the code after the chat so "
                "far: start a new chat, or use a model with a larger window)")
    kept = list(memories)
    text = project.code.format_memories_for_prompt(kept)
    while len(kept) > 1 and estimate_tokens(text) > budget:
        kept.pop()
        text = project.code.format_memories_for_prompt(kept)
    if estimate_tokens(text) > budget:  # one memory longer than the budget: its head
        text = text[:budget * 3] + "\n... (cut to fit the model's context window)"
    return text


@dataclass(frozen=True)
class CodeHit:
    """One entity a search found: where it is, and its score (``scoring`` "llm": the LLM's
    relevance, 0 to 1; "rank": no LLM was asked, the score is 1/rank of the candidate search)."""

    path: str
    name: str
    kind: str
    start_line: int
    end_line: int
    score: float
    scoring: str
    text: str

    @classmethod
    def of(cls, metadata: Mapping[str, object] | None, text: str, score: float,
           scoring: str) -> CodeHit:
        meta = dict(metadata or {})
        return cls(path=str(meta.get("path", "")),
                   name=str(meta.get("qualified_name") or meta.get("name") or ""),
                   kind=str(meta.get("kind", "")), start_line=_int(meta.get("start_line")),
                   end_line=_int(meta.get("end_line")), score=round(score, 4), scoring=scoring,
                   text=text)


def _int(value: object) -> int:
    return int(value) if isinstance(value, (int, float, str)) and str(value).isdigit() else 0


def code_hits(project: Project, question: str, *, llm: bool, limit: int,
              meter: Meter | None = None) -> list[CodeHit]:
    """The search's entities, best first: LLM-scored (as the search tool's) or, without the
    LLM, the candidate search's ranking (no call at all)."""
    if llm:
        return [CodeHit.of(m.metadata, m.text, m.relevance_score, "llm")
                for m in retrieve(project, question, meter=meter)[:limit]]
    found = project.code.candidates(CodeContext(user_query=question), limit=limit,
                                    filters={"type": {"$in": list(SHARED_TYPES)}})
    return [CodeHit.of(c.metadata, c.text, 1.0 / max(c.rank, 1), "rank") for c in found[:limit]]

"""What the draft loop needs from the outside world, stated by ``codegen`` itself.

``codegen`` never imports ``memory`` or ``cat``: the CommitIndex, the scratchpad, GitMemory and the
associative sources reach it through these Protocols, and the composition root passes the real
objects (``memory.CommitIndex`` and ``memory.Scratchpad`` match them structurally). Tests pass the
same real objects, so a drift between the two sides shows up as a failing test.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# The LLM as the core sees it, declared once in ``llm/completer.py`` and named here with the
# other ports: ``cat.llm`` has this shape, so do the test fakes.
from ..llm.completer import Completer as Completer
from .report import ValidationReport
from .sandbox.protect import SandboxPolicy
from .sandbox.run import SandboxResult

#: Plain JSON data (meta-code, the working-memory snapshot): the values are whatever JSON holds.
JsonObject = dict[str, Any]



#: ``ContextSnippet.kind`` of a library entity: shown as an API reference, never as code to edit.
API_REFERENCE = "api"


@dataclass(frozen=True)
class ContextSnippet:
    """One piece of context for a prompt; ``source`` is its provenance (``repo:path``, a URL)."""

    source: str
    title: str
    text: str
    score: float = 0.0
    #: ``API_REFERENCE`` for an entity of an associative source (a library's signature and
    #: docstring); empty for ordinary context.
    kind: str = ""


class ContextSource(Protocol):
    """Repository (GitMemory) or associative context: ``(query, current_file, limit)``."""

    def __call__(self, query: str, current_file: str | None, limit: int) -> list[ContextSnippet]:
        ...


class ImpactPlace(Protocol):
    """One place that uses a target (``memory.codeindex.impact.ImpactSite`` fits): ``level``
    1 uses the target, 2 uses a level-1 place; ``qualified_name`` is empty at module level."""

    @property
    def path(self) -> str: ...

    @property
    def qualified_name(self) -> str: ...

    @property
    def how(self) -> str: ...

    @property
    def level(self) -> int: ...

    @property
    def test(self) -> bool: ...


class ImpactReport(Protocol):
    """What the index says depends on a target (``memory.codeindex.impact.Impact`` fits):
    the places, and the summary the proposal shows."""

    @property
    def path(self) -> str: ...

    @property
    def symbol(self) -> str: ...

    @property
    def sites(self) -> Sequence[ImpactPlace]: ...

    def render(self) -> str: ...


class ApiParam(Protocol):
    """One parameter of a library signature: ``kind`` is posonly, normal, varargs, kwonly or
    varkw; ``default`` tells whether it may be left out."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def default(self) -> bool: ...


class ApiAnswer(Protocol):
    """What the indexed sources say about one dotted name (``memory.sources`` answers).

    ``exists`` False: the source is indexed and has no such name (``suggestions`` holds the
    real signatures of close names). ``params`` None: the name exists but its call signature
    is unknown or ambiguous, so only its existence can be checked. ``method_kind`` is
    ``instance``, ``class`` or ``static`` for methods; ``kind`` is module, class, function,
    method, attribute or variable; ``params`` of a class are its constructor's, without
    ``self``.
    """

    @property
    def qualified_name(self) -> str: ...

    @property
    def exists(self) -> bool: ...

    @property
    def kind(self) -> str: ...

    @property
    def params(self) -> Sequence[ApiParam] | None: ...

    @property
    def method_kind(self) -> str: ...

    @property
    def signature(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def suggestions(self) -> Sequence[str]: ...


class ApiFacts(Protocol):
    """The API of the indexed libraries, for validation: ``lookup("pkg.mod.Name.method")``
    answers, or returns None when the name is not inside an indexed source."""

    def lookup(self, qualified_name: str) -> ApiAnswer | None: ...


class CommitRecord(Protocol):
    """One entry of ``DraftStore.log`` (``memory.CommitInfo`` fits)."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def verdict(self) -> str: ...

    @property
    def time(self) -> int: ...

    @property
    def parent(self) -> str | None: ...

    @property
    def good(self) -> bool:
        """The store's word on whether this commit is a rollback target (its verdict is good)."""
        ...


class EpisodeRecord(Protocol):
    """One hit of ``DraftStore.search_episodes`` (``memory.commits.Episode`` fits)."""

    @property
    def task_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def verdict(self) -> str: ...

    @property
    def iteration(self) -> int: ...

    @property
    def time(self) -> int: ...


class CommitContent(Protocol):
    """What ``DraftStore.show`` returns: the draft files and the state that produced them
    (``memory.CommitInfo`` fits: its fields are None only when it came from ``log``)."""

    @property
    def files(self) -> Mapping[str, str] | None: ...

    @property
    def metacode(self) -> Mapping[str, Any] | None: ...

    @property
    def snapshot(self) -> Mapping[str, Any] | None: ...


class DraftStore(Protocol):
    """The episodic memory of drafts; ``memory.CommitIndex`` fits."""

    def commit(self, task_id: str, files: dict[str, str], *, name: str, reason: str,
               metacode: JsonObject, snapshot: JsonObject, verdict: str) -> str: ...

    def log(self, task_id: str) -> Sequence[CommitRecord]: ...

    def show(self, commit_id: str) -> CommitContent: ...

    def rollback(self, task_id: str, to: str | None = None) -> str: ...

    def tag_final(self, task_id: str, commit_id: str) -> Any: ...

    def search_episodes(self, query: str, task_id: str | None = None,
                        limit: int = 10) -> Sequence[EpisodeRecord]: ...


class Notes(Protocol):
    """The task scratchpad (``memory.Scratchpad`` fits); the caller starts the task."""

    def put(self, task_id: str, key: str, value: Any) -> Any: ...

    def get(self, task_id: str, key: str, default: Any = None) -> Any: ...

    def snapshot(self, task_id: str) -> JsonObject: ...


class Validator(Protocol):
    """Cheapest-first validation of a draft (``codegen.validate.validate_draft`` fits).

    ``api_facts`` is passed only when the loop has one (library calls are then checked);
    ``draft_paths`` only for a goal with a scope (every file of the change is checked)."""

    def __call__(self, files: dict[str, str], *, target_path: str, expected_symbol: str,
                 expected_params: Sequence[str], test_files: dict[str, str],
                 api_facts: ApiFacts | None = ..., draft_paths: Sequence[str] | None = ...,
                 expected_kind: str | None = ..., python_version: str = ...,
                 checks: Collection[str] | None = ..., timeout_s: float = ...,
                 memory_mb: int = ...,
                 sandbox_policy: SandboxPolicy = ...) -> ValidationReport: ...


class TestSelector(Protocol):
    """Pick the repository's tests that touch the target (``validate.select_related_tests``)."""

    def __call__(self, repo_files: Mapping[str, str], target_path: str,
                 symbol: str) -> dict[str, str]: ...


class SandboxRun(Protocol):
    """``sandbox.api.run_in_sandbox``: run ``argv`` in a fresh directory holding ``files``."""

    def __call__(self, files: dict[str, str], argv: list[str], *, timeout_s: float,
                 memory_mb: int, collect: tuple[str, ...] = ...,
                 require: SandboxPolicy | Collection[str] = ...) -> SandboxResult: ...

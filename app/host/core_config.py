"""One frozen configuration derived from the admin settings, with a fingerprint.

Every setting reaches the cores through here, once: ``PluginConfig.from_settings`` maps the
admin model to the cores' own configuration values (retrieval tuning, indexing scope, loop
configuration, validation checks, privacy), and ``ProjectConfig`` says which part of it decides
how a project is *built* (repository, data folder, embedder) and which part is applied to a
running project. A field added to ``RetrievalTuning`` must carry the same name as its setting:
the mapping is by name, so nothing is copied by hand, and no default is stated here (the
settings model, ``settings_model.py``, holds the plugin's).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any

from ...codegen import ExtendedConfig, LoopConfig
from ...memory import LANGUAGES
from .settings_model import NativeJson, PluginSettings, WriteBackPolicy, window_tokens

#: Validation checks the settings can switch off (parsing always runs).
OPTIONAL_CHECKS = {"check_signature": "signature", "check_lint": "lint", "check_tests": "tests"}


@dataclass(frozen=True)
class RetrievalTuning:
    """How a project retrieves and scores memories: applied to a running project, no rebuild.

    The fields are the code memory's parameters (docs/memory-api.md), each read from the setting
    of the same name.
    """

    relevance_threshold: float
    max_memories: int
    batch_size: int
    retry_attempts: int
    retry_delay: float
    enable_caching: bool
    enable_dependency_boost: bool
    enable_recency_boost: bool
    dependency_boost_amount: float
    recency_boost_amount: float
    recency_days: int
    #: "listwise" (one call scores all candidates) or "pointwise" (one call each).
    scoring_mode: str

    #: The subset ``MemorySystem.update_retrieval_config`` takes (the rest are code boosts).
    RETRIEVAL = ("relevance_threshold", "max_memories", "batch_size", "retry_attempts",
                 "retry_delay", "enable_caching", "scoring_mode")

    @classmethod
    def from_settings(cls, settings: PluginSettings) -> RetrievalTuning:
        """Every field from the setting of the same name (an enum by its value)."""
        values = {f.name: getattr(settings, f.name) for f in fields(cls)}
        return cls(**{name: value.value if isinstance(value, Enum) else value
                      for name, value in values.items()})

    # Any: keyword arguments of the memory systems, whose parameters check them.
    def retrieval(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.RETRIEVAL}

    def boosts(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in self.RETRIEVAL}


@dataclass(frozen=True)
class IndexScope:
    """Which files an indexing run reads: applied to a running project, no rebuild."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    #: ``None``: every supported language.
    languages: frozenset[str] | None
    max_file_bytes: int


@dataclass(frozen=True)
class PluginConfig:
    """Everything the plugin derives from its settings (``problems``: values it had to refuse)."""

    repository_path: str
    data_dir: str
    tuning: RetrievalTuning
    scope: IndexScope
    loop: LoopConfig
    #: Validation checks to run besides parsing.
    checks: frozenset[str]
    write_back: bool
    share_task_notes: bool
    #: ``""`` (off), ``"auto"``, ``"json_object"`` or ``"json_schema"``: how structured answers
    #: are asked for.
    native_json: str = "auto"
    #: the model's context window (tokens) every prompt is fitted into; None: read from the
    #: model's server (``model_server``)
    window: int | None = None
    #: seconds of model calls one user action may spend
    budget_s: float = 600.0
    #: completion tokens added to every call's limit (models that reason before answering)
    reasoning_tokens: int = 0
    #: What goes into the Cat's declarative memory (a ``SinkMode`` value).
    cat_memory: str = "auto"
    problems: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: PluginSettings, data_dir: str) -> PluginConfig:
        scope, problems = index_scope(settings)
        return cls(
            repository_path=settings.repository_path.strip(), data_dir=data_dir,
            tuning=RetrievalTuning.from_settings(settings), scope=scope,
            loop=loop_config(settings),
            checks=frozenset(check for name, check in OPTIONAL_CHECKS.items()
                             if getattr(settings, name)),
            write_back=settings.write_back is not WriteBackPolicy.never,
            share_task_notes=settings.share_task_notes,
            native_json="" if settings.native_json is NativeJson.off
            else settings.native_json.name, cat_memory=settings.cat_memory.name,
            window=window_tokens(settings.context_window),
            budget_s=float(settings.llm_time_budget_s),
            reasoning_tokens=settings.reasoning_tokens,
            problems=tuple(problems))


@dataclass(frozen=True)
class ProjectConfig:
    """What one repository's project is made of; ``identity`` changes need a rebuild."""

    root: str
    data_dir: str
    embedder_name: str
    #: the default settings' (a project built outside the Cat, in tests and benches)
    tuning: RetrievalTuning = field(
        default_factory=lambda: RetrievalTuning.from_settings(PluginSettings()))
    scope: IndexScope = field(default_factory=lambda: index_scope(PluginSettings())[0])
    #: What goes into the Cat's declarative memory (applied without a rebuild).
    cat_memory: str = "auto"
    #: The model's context window (None: the server's) and JSON mode for scoring (applied
    #: without a rebuild).
    window: int | None = None
    native_json: str = "auto"
    reasoning_tokens: int = 0

    @property
    def identity(self) -> tuple[str, str, str]:
        """The store's folder and the vectors' space: a running project cannot change them."""
        return self.root, self.data_dir, self.embedder_name

    def fingerprint(self) -> str:
        """A digest of every field: equal fingerprints, nothing to apply."""
        text = json.dumps(asdict(self), sort_keys=True, default=sorted)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def loop_config(settings: PluginSettings) -> LoopConfig:
    """The draft loop's configuration from the admin settings."""
    return LoopConfig(
        max_iterations=settings.max_iterations, judge=settings.check_judge,
        python_version=settings.python_version.value, timeout_s=float(settings.test_timeout_s),
        memory_mb=settings.memory_limit_mb,
        sandbox_policy=settings.sandbox_policy.policy(),
        extended=ExtendedConfig(enabled=settings.extended_loop,
                                peer_review=settings.peer_review,
                                incorporate_review=settings.peer_review))


def index_scope(settings: PluginSettings) -> tuple[IndexScope, list[str]]:
    """Include/exclude globs and languages as lists, with a message for each unknown language."""
    wanted = {w.strip().lower() for w in settings.languages.split(",") if w.strip()}
    problems = []
    languages: frozenset[str] | None = None
    if wanted and "all" not in wanted:
        unknown = sorted(wanted - set(LANGUAGES))
        if unknown:
            problems.append(f"setting 'languages': unknown {', '.join(unknown)} (known: "
                            f"{', '.join(LANGUAGES)}); ignored")
        languages = frozenset(wanted & set(LANGUAGES)) or None
    return IndexScope(include=_globs(settings.include_globs),
                      exclude=_globs(settings.exclude_globs), languages=languages,
                      max_file_bytes=settings.max_file_kb * 1024), problems


def _globs(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.replace("\n", ",").split(",") if p.strip())


"""The admin settings (one pydantic 2.4 model) and their tolerant reader.

The model is the plugin's one list of settings: every name, default, bound and description is
here, and everything else (the cores' configuration in ``core_config``, the status report, the
README's table) reads it. Every field has a default, a title and a description and uses a type
the admin panel renders well (docs/cat-plugin-api.md, "Settings"): enums become selects, lists
are comma-separated strings, nothing is Optional. The Cat stores the raw payload it was sent, so
settings are re-validated on every read by ``read_settings``, which keeps the valid fields and
falls back to defaults for the rest with a message saying which field was wrong and why.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field, ValidationError, field_validator

from ...codegen import DRAFT_RUN_DEFAULTS, SandboxPolicy
from ...memory import CLONE_DEFAULTS, CODE_MEMORY_DEFAULTS, WATCH_DEFAULTS, redact

#: The plugin's project is a ``CodeMemorySystem``: its retrieval defaults are the plugin's.
RETRIEVAL = CODE_MEMORY_DEFAULTS
#: A draft run's defaults (``codegen/defaults.py``).
DRAFT = DRAFT_RUN_DEFAULTS
#: The watch's timing and a clone's limits (``memory/codeindex/watch.py``,
#: ``memory/sources/clone.py``).
WATCH = WATCH_DEFAULTS
CLONE = CLONE_DEFAULTS

_TEXTAREA = {"extra": {"type": "Textarea"}}


class WriteBackPolicy(str, Enum):
    """When a finished draft may be written into the user's repository."""

    never = "never: drafts stay in the history"
    confirm = "confirm: only after the user says 'apply'"


class SandboxChoice(str, Enum):
    """When generated code may run: the core's ``SandboxPolicy`` in the admin's words (its
    member names are the policy's; ``policy`` maps one onto the other). Generated code never
    runs as root, whatever is chosen here.
    """

    require_isolation = "refuse without file and network isolation (recommended)"
    require_all = "refuse unless every sandbox protection is active"
    allow_weaker = "run with whatever protections this host has (not safe)"

    def policy(self) -> SandboxPolicy:
        """The core's policy this choice names."""
        return SandboxPolicy[self.name]


class PythonVersion(str, Enum):
    """The repository's Python version: drafts are parsed for it, not for the Cat's 3.10."""

    py38 = "3.8"
    py39 = "3.9"
    py310 = "3.10"
    py311 = "3.11"
    py312 = "3.12"
    py313 = "3.13"


class NativeJson(str, Enum):
    """Whether structured answers are asked for with the model's own JSON mode."""

    auto = "auto: the answer's schema where the server takes one, else JSON mode, else plain"
    off = "off: the prompt asks for JSON, every reply read tolerantly"
    json_object = "json_object: JSON mode (OpenAI-compatible and Ollama models)"
    json_schema = "json_schema: JSON mode with the answer's schema (OpenAI and recent servers)"


class ScoringMode(str, Enum):
    """How the LLM scores retrieval candidates (the core's ``scoring_mode``)."""

    listwise = "listwise"
    pointwise = "pointwise"


class CatMemory(str, Enum):
    """What the plugin copies into the Cat's declarative memory; member names match the core's
    ``SinkMode``. The plugin's own store always holds every entity for code search."""

    auto = "auto: nothing with an embedder that cannot rank code (the Cat's default), else files"
    none = "none: nothing (the Cat stays as quick and small as without the plugin)"
    files = "files: one point per file (its path and signatures)"
    entities = "entities: one point per function, class and method (small repositories only)"


class PluginSettings(BaseModel):
    """Code Working Memory settings (admin panel)."""

    # -- repository --------------------------------------------------------------------------
    repository_path: str = Field(
        "", title="Repository path",
        description="Absolute path of the repository to index and draft for, inside the Cat "
        "container (e.g. /workspace). Mount it outside /app: the Cat restarts when .py files "
        "under /app change.")
    include_globs: str = Field(
        "", title="Include globs", json_schema_extra=_TEXTAREA,
        description="Comma-separated glob patterns of files to index (empty: every file of a "
        "supported language).")
    exclude_globs: str = Field(
        "*/node_modules/*, */__pycache__/*, */build/*, */dist/*, *.min.js, .env*, *.pem",
        title="Exclude globs", json_schema_extra=_TEXTAREA,
        description="Comma-separated glob patterns never indexed (added to .gitignore). "
        "Python virtual environments (folders holding pyvenv.cfg) are always skipped.")
    languages: str = Field(
        "all", title="Languages",
        description="Comma-separated languages to index: python, javascript, typescript, java, "
        "c, cpp, go, rust, ruby, php, csharp; or 'all'.")
    cat_memory: CatMemory = Field(
        CatMemory.auto, title="Code in the Cat's memory",
        description="What indexing copies into the Cat's declarative memory, where the Cat's "
        "own recall compares it with every message. Applied at the next indexing run.")
    python_version: PythonVersion = Field(
        PythonVersion(DRAFT.python_version), title="Repository Python version",
        description="Drafts are parsed and linted for this version.")
    max_file_kb: int = Field(
        1024, ge=1, le=102400, title="Largest file indexed (KiB)",
        description="Bigger files are skipped and reported.")
    # -- retrieval (the code memory's defaults: memory/defaults.py) ---------------------------
    relevance_threshold: float = Field(
        RETRIEVAL.relevance_threshold, ge=0.0, le=1.0, title="Relevance threshold",
        description="Minimum LLM relevance score (0-1) for a memory to reach a prompt.")
    max_memories: int = Field(
        RETRIEVAL.max_memories, ge=1, le=200, title="Max memories",
        description="Most memories put into one prompt.")
    scoring_mode: ScoringMode = Field(
        ScoringMode(RETRIEVAL.scoring_mode), title="Scoring mode",
        description="listwise: one LLM call scores all candidates of a retrieval (by id); "
        "pointwise: one call per candidate (many more calls).")
    native_json: NativeJson = Field(
        NativeJson.auto, title="Native JSON mode",
        description="Ask the Cat's model for JSON natively for meta-code, scoring, the judge, "
        "documentation and review (OpenAI-compatible models, llama.cpp, LM Studio: "
        "response_format with the answer's schema, a grammar on llama.cpp; Ollama: format; "
        "other models: unchanged). auto falls back to plain JSON mode, then to the plain "
        "prompt, when the server refuses a form, and remembers what worked. Replies are read "
        "tolerantly either way.")
    context_window: str = Field(
        "auto", title="Context window (tokens)",
        description="The model's context window: auto (read from the model's server: "
        "llama.cpp, llama-cpp-python, Ollama, vLLM, LM Studio, the hosted providers' known "
        "windows; 4096 when the server does not say, until a refusal states it), or a number "
        "of tokens (1024 or more), which wins. Every prompt is measured before it is sent and "
        "fitted, keeping first what the goal names, so that the prompt and the answer fit. "
        "The status report says which window is used and where it came from.")
    reasoning_tokens: int = Field(
        0, ge=0, le=65536, title="Reasoning allowance (tokens)",
        description="Completion tokens added to every call's limit for a model that thinks "
        "before it answers (<think> blocks: DeepSeek-R1, Qwen3, QwQ), e.g. 2048. 0: each step's "
        "own limit (a scoring list: about 50 tokens per candidate; meta-code 900; a draft "
        "2048).")
    llm_time_budget_s: int = Field(
        600, ge=10, le=86400, title="Model time per action (s)",
        description="Longest wait for the model within one action (a question, a proposal, "
        "a draft run), retries included; a call gives up (its request is closed) when the "
        "budget runs out, and the answer says so.")
    batch_size: int = Field(
        RETRIEVAL.batch_size, ge=1, le=100, title="Scoring batch size",
        description="Concurrent LLM scoring calls.")
    #: The plugin's own default, one less than a library caller's: an unreadable scoring answer
    #: is re-asked once, then the code found keeps its unscored ranking.
    retry_attempts: int = Field(
        2, ge=1, le=10, title="Retry attempts",
        description="Attempts per LLM scoring call, the first included (exponential backoff "
        "between them); after the last, the code found keeps its unscored ranking.")
    retry_delay: float = Field(
        RETRIEVAL.retry_delay, ge=0.0, le=60.0, title="Retry delay (s)",
        description="First backoff delay; doubles at each further attempt.")
    enable_caching: bool = Field(
        RETRIEVAL.enable_caching, title="Cache relevance scores",
        description="Reuse LLM scores for the same question and unchanged code.")
    enable_dependency_boost: bool = Field(
        RETRIEVAL.enable_dependency_boost, title="Dependency boost",
        description="Raise code the current file imports or calls, or that calls into it.")
    dependency_boost_amount: float = Field(
        RETRIEVAL.dependency_boost_amount, ge=0.0, le=1.0, title="Dependency boost amount",
        description="Added to the score.")
    enable_recency_boost: bool = Field(
        RETRIEVAL.enable_recency_boost, title="Recency boost",
        description="Raise code changed recently.")
    recency_boost_amount: float = Field(
        RETRIEVAL.recency_boost_amount, ge=0.0, le=1.0, title="Recency boost amount",
        description="Added to the score.")
    recency_days: int = Field(
        RETRIEVAL.recency_days, ge=1, le=3650, title="Recency window (days)",
        description="Code changed within this many days counts as recent.")
    # -- draft loop --------------------------------------------------------------------------
    #: The plugin's own default: the core's (``DRAFT.max_iterations``) plus one, because a chat
    #: user waits for a result rather than retrying the call as a library caller would.
    max_iterations: int = Field(
        DRAFT.max_iterations + 1, ge=1, le=50, title="Max iterations",
        description="Draft attempts per request before giving up with the last report.")
    test_timeout_s: int = Field(
        int(DRAFT.timeout_s), ge=1, le=3600, title="Test timeout (s)",
        description="Wall-clock limit of one sandboxed test run.")
    memory_limit_mb: int = Field(
        DRAFT.memory_mb, ge=64, le=65536, title="Sandbox memory limit (MiB)",
        description="Address-space limit of sandboxed runs.")
    sandbox_policy: SandboxChoice = Field(
        SandboxChoice[DRAFT.sandbox_policy.name], title="Sandbox policy",
        description="What happens when a sandbox protection is missing on this host (see "
        "the README section 'Safety'): refuse to run generated code and tests without file "
        "and network isolation, refuse without every protection, or run anyway. Generated "
        "code never runs as root.")
    check_lint: bool = Field(True, title="Check: lint", description="Run ruff for real errors.")
    check_signature: bool = Field(
        True, title="Check: signature", description="Compare the draft with the meta-code.")
    check_tests: bool = Field(
        True, title="Check: tests",
        description="Run the meta-code examples and related repository tests in the sandbox.")
    check_judge: bool = Field(
        True, title="Check: LLM judge",
        description="Ask the LLM whether the draft meets the acceptance checks.")
    extended_loop: bool = Field(
        True, title="Extended loop",
        description="After a commit: re-test, measure performance, document, peer review.")
    peer_review: bool = Field(
        True, title="Peer review", description="Ask the LLM for a review (extended loop).")
    write_back: WriteBackPolicy = Field(
        WriteBackPolicy.confirm, title="Write-back policy",
        description="Whether finished drafts may be written into the repository.")
    follow_edits: bool = Field(
        True, title="Follow edits",
        description="Watch the repository while the plugin is active and re-index changed "
        "files within about a second of a save (file events; polling on network mounts). Off: "
        "edits reach the index at the next start or \"index my repository\".")
    watch_quiet_s: float = Field(
        WATCH.quiet_s, ge=0.05, le=10.0, title="Follow edits: quiet period (s)",
        description="A burst of saves is re-indexed once, after this long without a change "
        f"(a stream of saves that never pauses is re-indexed every {WATCH.longest_wait_s:g} s).")
    # -- associative sources (other repositories, libraries, docs) ----------------------------
    associative_sources: str = Field(
        "", title="Associative sources", json_schema_extra=_TEXTAREA,
        description="One per line (commas also accepted): an absolute folder (another "
        "repository, a vendored library, a docs folder of Markdown or reStructuredText), "
        "pip:NAME / pip:NAME==VERSION for a Python package, read from the Cat's environment "
        "when installed there, otherwise downloaded once from the package index, or a "
        "repository URL (https://, http://, ssh://, user@host:path, file://) with an optional "
        "@branch, @tag or @commit, cloned shallowly into the data folder and kept at that "
        "commit until \"update source NAME\". Sources are read, never installed, imported or "
        "run.")
    index_repository_dependencies: bool = Field(
        False, title="Index the repository's dependencies",
        description="Also index the packages the repository declares in requirements*.txt "
        "and pyproject.toml (each is downloaded when it is not installed in the Cat).")
    package_index_url: str = Field(
        "", title="Package index URL",
        description="Simple-API index (PEP 503/691) for pip: sources, e.g. "
        "https://pypi.org/simple. Empty: PIP_INDEX_URL or pip.conf, else PyPI. Downloads go "
        "only to this index.")
    source_include_private: bool = Field(
        False, title="Sources: index private names and tests",
        description="Off: only the public API of libraries (no _private names, no tests).")
    source_max_entities: int = Field(
        20000, ge=10, le=1_000_000, title="Sources: entities per source",
        description="Cap per source; what a caller needs is indexed first, the status says "
        "when the cap was hit.")
    source_max_mb: int = Field(
        64, ge=1, le=4096, title="Sources: size per source (MiB)",
        description="Cap on the files read (and downloaded) per source.")
    source_clone_max_mb: int = Field(
        CLONE.max_mb, ge=1, le=65536, title="Sources: clone size cap (MiB)",
        description="Largest clone of a repository by URL (received and on disk); a bigger "
        "one is stopped and nothing is kept.")
    source_clone_timeout_s: int = Field(
        CLONE.timeout_s, ge=5, le=86400, title="Sources: clone time limit (s)",
        description="Longest fetch of a repository by URL (\"add source\", \"update source\"); "
        "a host that does not answer is given up on after it, nothing is kept.")
    source_file_url_folders: str = Field(
        "", title="Sources: folders for file:// URLs", json_schema_extra=_TEXTAREA,
        description="Comma-separated folders whose repositories file:// URLs may name (e.g. "
        "/srv/git). Empty: file:// URLs are refused.")
    # -- storage -----------------------------------------------------------------------------
    data_folder: str = Field(
        "", title="Data folder",
        description="Where the plugin keeps its database and draft history (empty: the Cat's "
        "data folder, cat/data/code_working_memory). Never the plugin folder.")
    # -- sessions and privacy ----------------------------------------------------------------
    share_task_notes: bool = Field(
        False, title="Share finished tasks with every user",
        description="Off: a finished task's notes and drafts are recalled only in its own "
        "user's later requests. On: in every user's. An unfinished task's material is never "
        "shown to another user.")

    @field_validator("context_window", mode="before")
    @classmethod
    def _window(cls, value: object) -> str:
        """auto, or a whole number of tokens from 1024 to 1,048,576 (a stored int too)."""
        text = str(value).strip().lower()
        try:
            tokens = window_tokens(text)
        except ValueError:
            raise ValueError("must be auto or a number of tokens") from None
        if tokens is not None and not 1024 <= tokens <= 1_048_576:
            raise ValueError("must be auto or a number of tokens from 1024 to 1048576")
        return "auto" if tokens is None else str(tokens)


def window_tokens(value: str) -> int | None:
    """The setting 'Context window (tokens)' as a number, None for auto."""
    text = value.strip().lower().replace("_", "").replace(",", "")
    return None if text in ("", "auto") else int(text)


def read_settings(raw: object) -> tuple[PluginSettings, list[str]]:
    """Validate stored settings; invalid fields fall back to defaults, each with a message.

    The Cat saves whatever the admin sent and never re-validates, and a file written by an
    older version may lack new fields; neither may stop the plugin.
    """
    data = dict(raw) if isinstance(raw, dict) else {}
    problems = [] if isinstance(raw, dict) else [f"settings are not a JSON object: {raw!r:.80}"]
    known = {k: v for k, v in data.items() if k in PluginSettings.model_fields}
    for _ in range(len(known) + 1):
        try:
            return PluginSettings.model_validate(known), problems
        except ValidationError as err:
            for error in err.errors():
                field = str(error["loc"][0]) if error["loc"] else ""
                if field in known:
                    problems.append(redact(
                        f"setting {field!r}: {error['msg']} (got {known.pop(field)!r:.80}); "
                        "using the default"))
    return PluginSettings(), problems

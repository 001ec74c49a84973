"""GLUE: the composition root, the one module that knows both the Cat and the cores.

Hooks, tools and the form call into here; here they get the user's session state (scratchpad and
phase, kept as plain data under one key of ``cat.working_memory``), the validated settings and
the plugin's data folder. Nothing here imports ``cat`` at module level, so the cores' tests can
exercise it with any object that looks like a ``StrayCat``.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .codegen.phases import CodegenPhase, PhaseMachine
from .codegen.replies import ReplyIntent, classify_reply
from .memory.scratchpad import Scratchpad, ScratchpadError
from .settings import PluginSettings, read_settings

log = logging.getLogger(__name__)

#: The plugin's one key in ``cat.working_memory`` (a plain dict, so the Cat can pickle it).
STATE_KEY = "code_working_memory"

#: Folder name of the plugin's data inside the Cat's data folder; fixed, so that reinstalling
#: the plugin under another id (zip names vary) keeps its history.
DATA_DIR_NAME = "code_working_memory"

#: Version of the working-memory layout below.
STATE_VERSION = 1

#: The plugin id is its folder name: the module is ``cat.plugins.<id>.runtime`` in the Cat.
PLUGIN_ID = __name__.split(".")[-2] if "." in __name__ else "code_working_memory"

_locks_guard = threading.Lock()
_user_locks: dict[str, threading.RLock] = {}


@dataclass
class SessionState:
    """What one user's conversation holds: the scratchpad, the phase and the current task."""

    scratchpad: Scratchpad = field(default_factory=Scratchpad)
    phase: PhaseMachine = field(default_factory=PhaseMachine)
    task_id: str = ""
    commit_id: str = ""
    #: Problems found while loading (a damaged state is replaced, never fatal).
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "phase": self.phase.phase.value,
            "phase_machine": self.phase.to_dict(),
            "task_id": self.task_id,
            "commit_id": self.commit_id,
            "scratchpad": self.scratchpad.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Any) -> SessionState:
        """Rebuild the state; a damaged layout starts afresh and says so in ``warnings``."""
        if not isinstance(data, Mapping):
            return cls()
        try:
            return cls(
                scratchpad=Scratchpad.from_dict(data["scratchpad"]),
                phase=PhaseMachine.from_dict(data.get("phase_machine") or {}),
                task_id=str(data.get("task_id", "")),
                commit_id=str(data.get("commit_id", "")),
            )
        except (KeyError, TypeError, ValueError, ScratchpadError) as err:
            log.warning("code working memory state damaged, starting afresh: %s", err)
            return cls(warnings=[f"the previous code-generation state was damaged ({err}); "
                                 "it was reset"])


def user_lock(cat: Any) -> threading.RLock:
    """One lock per user: two tabs of the same user must not interleave state updates."""
    user = str(getattr(cat, "user_id", "") or "")
    with _locks_guard:
        return _user_locks.setdefault(user, threading.RLock())


def load_state(cat: Any) -> SessionState:
    """The user's state from ``cat.working_memory`` (a fresh one on first use)."""
    return SessionState.from_dict(cat.working_memory.get(STATE_KEY))


def save_state(cat: Any, state: SessionState) -> None:
    """Store the state back as plain data (attribute assignment: dict access is deprecated)."""
    setattr(cat.working_memory, STATE_KEY, state.to_dict())


def attach_state(cat: Any) -> SessionState:
    """Make sure the working memory holds a valid state; returns it."""
    with user_lock(cat):
        state = load_state(cat)
        save_state(cat, state)
        return state


def plugin_settings(cat: Any) -> tuple[PluginSettings, list[str]]:
    """The validated settings, with a message for every stored value that was refused."""
    try:
        raw = cat.mad_hatter.plugins[PLUGIN_ID].load_settings()
    except (KeyError, AttributeError) as err:
        return PluginSettings(), [f"settings could not be read ({err!r}); using defaults"]
    return read_settings(raw)


def missing_settings(cat: Any) -> list[str]:
    """Settings with no stored value (a file from an older version, or edited by hand)."""
    try:
        raw = cat.mad_hatter.plugins[PLUGIN_ID].load_settings()
    except (KeyError, AttributeError):
        return []
    return sorted(set(PluginSettings.model_fields) - set(raw if isinstance(raw, dict) else ()))


def data_dir(settings: PluginSettings) -> str:
    """The plugin's data folder: the setting, or ``<Cat data folder>/code_working_memory``.

    The Cat's data folder is where its metadata file lives (``CCAT_METADATA_FILE``, by default
    ``cat/data/metadata.json`` relative to the Cat's working directory). Never the plugin
    folder: upgrades delete it.
    """
    if settings.data_folder.strip():
        return os.path.abspath(os.path.expanduser(settings.data_folder.strip()))
    return os.path.join(cat_data_dir(), DATA_DIR_NAME)


def cat_data_dir() -> str:
    """The Cat's own data folder: where its metadata file (``CCAT_METADATA_FILE``) lives."""
    metadata_file = os.environ.get("CCAT_METADATA_FILE", os.path.join("cat", "data",
                                                                      "metadata.json"))
    return os.path.abspath(os.path.dirname(metadata_file))


#: The plugin's own requirements file (as mounted: not resolved through symlinks).
REQUIREMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "requirements.txt")


def requirements_problems(path: str = REQUIREMENTS) -> list[str]:
    """What keeps the plugin's dependencies from being installed, line by line.

    The Cat parses ``requirements.txt`` line by line and silently stops at the first line
    ``packaging`` rejects (a comment, a blank line, an option): every later dependency is then
    missing and only a generic error is logged. This names the line and what is missing.
    """
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import InvalidRequirement, Requirement

    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except OSError as err:
        return [f"requirements.txt cannot be read: {err}"]
    if lines and lines[-1] == "":
        lines.pop()
    problems = []
    for number, line in enumerate(lines, 1):
        try:
            name = Requirement(line).name
        except InvalidRequirement:
            problems.append(f"requirements.txt line {number} ({line.strip()!r:.60}) is not a "
                            "bare requirement: the Cat stops installing at that line")
            continue
        try:
            version(name)
        except PackageNotFoundError:
            problems.append(f"{name} (requirements.txt line {number}) is not installed")
    return problems


def log_requirements_problems() -> None:
    """At activation: say clearly which requirement line or package is the problem."""
    try:
        from cat.log import log as cat_log  # the Cat's loguru logger: what admins read
    except ImportError:
        cat_log = log
    for problem in requirements_problems():
        cat_log.error(f"Code Working Memory: {problem}")


def status_report(cat: Any) -> str:
    """A Markdown status of the plugin for the user: settings, phase, task, environment."""
    settings, problems = plugin_settings(cat)
    state = attach_state(cat)
    repo = settings.repository_path or "(not set: choose it in the plugin settings)"
    lines = [
        "**Code Working Memory**",
        f"- repository: `{repo}`",
        f"- data folder: `{data_dir(settings)}`",
        f"- phase: {state.phase.phase.value}" + (f" (task `{state.task_id}`)" if state.task_id
                                                 else ""),
        f"- git binary: {'found' if shutil.which('git') else 'absent (built-in git is used)'}",
        f"- loop: up to {settings.max_iterations} iterations, tests time out after "
        f"{settings.test_timeout_s} s, sandbox memory {settings.memory_limit_mb} MiB",
        f"- retrieval: threshold {settings.relevance_threshold}, up to "
        f"{settings.max_memories} memories, scoring batch {settings.batch_size}",
        f"- write-back: {settings.write_back.value}",
    ]
    if state.task_id and state.task_id in state.scratchpad.tasks():
        lines.append("")
        lines.append(state.scratchpad.summary(state.task_id, max_chars=1200))
    for problem in problems + state.warnings + requirements_problems():
        lines.append(f"- warning: {problem}")
    missing = missing_settings(cat)
    if missing:
        shown = ", ".join(missing[:6]) + (", …" if len(missing) > 6 else "")
        lines.append(f"- note: settings.json has no value for {len(missing)} setting(s) "
                     f"({shown}): their defaults are used")
    return "\n".join(lines)


def start_request(cat: Any, request: Mapping[str, Any]) -> SessionState:
    """Open a task for a confirmed code request: scratchpad notes and the phase."""
    with user_lock(cat):
        state = load_state(cat)
        phase = state.phase.phase
        if not phase.terminal and phase not in (CodegenPhase.IDLE, CodegenPhase.COLLECTING):
            state.phase.reset()  # a new request abandons the unfinished one (history keeps it)
        state.phase.advance(CodegenPhase.COLLECTING, "new request")
        state.task_id = state.scratchpad.start_task(initial={"request": dict(request)})
        state.commit_id = ""
        save_state(cat, state)
        return state


# -- code index: tools and hooks ----------------------------------------------------------------

#: Extra declarative memories recalled so that, after code points are removed, the ordinary
#: recall still has its usual number of non-code memories.
EXTRA_RECALL = 10

#: Code points recalled by the Cat that are shown to the agent, formatted by the plugin.
MAX_CODE_IN_PROMPT = 3

_turn = threading.local()  # per-turn data: every hook of one turn runs in the same thread
_indexing: dict[str, threading.Thread] = {}


def project_of(cat: Any):
    from . import projects

    settings, _ = plugin_settings(cat)
    project = projects.project_for(cat, settings, data_dir(settings),
                                   protected=(cat_data_dir(),))
    return project, settings


def start_indexing(cat: Any, *, notify: bool = True) -> str:
    """Index the configured repository in a worker thread; progress and result go to chat."""
    from . import projects
    from .memory.errors import CodeMemoryError

    try:
        project, settings = project_of(cat)
    except CodeMemoryError as err:
        return f"Cannot index: {err}"
    running = _indexing.get(project.root)
    if running is not None and running.is_alive():
        return f"`{project.root}` is already being indexed; progress appears as notifications."

    def say(text: str, kind: str = "notification") -> None:
        if notify:
            try:
                cat.send_ws_message(text, kind)
            except Exception as err:  # a closed socket must not kill the indexing run
                log.info("could not notify %s: %s", getattr(cat, "user_id", "?"), err)

    def work() -> None:
        try:
            say(projects.index_project(project, settings, say), "chat")
        except Exception as err:  # crash boundary of a background thread: report, never lose
            log.exception("indexing %s failed", project.root)
            say(f"Indexing `{project.root}` failed: {type(err).__name__}: {err}", "chat")

    thread = threading.Thread(target=work, name=f"codemem-index-{project.root}", daemon=True)
    _indexing[project.root] = thread
    thread.start()
    return f"Indexing `{project.root}` started; I will report progress and the result here."


def search_code(cat: Any, question: str) -> str:
    """Code relevant to ``question`` from the index (LLM-scored), for the agent."""
    from . import projects
    from .memory.errors import CodeMemoryError

    if not (question or "").strip():
        return "Say what code you are looking for."
    try:
        project, _ = project_of(cat)
    except CodeMemoryError as err:
        return f"Cannot search the code: {err}"
    return projects.search(project, question)


def widen_declarative_recall(config: dict) -> dict:
    """Recall more declarative memories, remembering how many the Cat wanted."""
    _turn.wanted = int(config.get("k", 3))
    _turn.code = []
    config["k"] = _turn.wanted + EXTRA_RECALL
    return config


def split_code_recall(cat: Any) -> None:
    """Keep code points out of the ordinary declarative recall; keep them for the prompt."""
    from .memory.vector_sink import is_code_point

    wanted = getattr(_turn, "wanted", None)
    recalled = list(cat.working_memory.declarative_memories or [])
    code = [m for m in recalled if is_code_point(getattr(m[0], "metadata", None))]
    other = [m for m in recalled if not is_code_point(getattr(m[0], "metadata", None))]
    cat.working_memory.declarative_memories = other[:wanted] if wanted is not None else other
    _turn.code = code[:MAX_CODE_IN_PROMPT]


def code_context() -> str:
    """The code points recalled this turn, formatted with their newlines and locations."""
    blocks = []
    for doc, score, *_ in getattr(_turn, "code", None) or []:
        meta = doc.metadata or {}
        where = f"{meta.get('path', '?')}:{meta.get('start_line', '?')}-{meta.get('end_line', '?')}"
        blocks.append(f"{meta.get('qualified_name', '')} ({where}, similarity {score:.2f})\n"
                      f"```{meta.get('language', '')}\n{doc.page_content}\n```")
    return "\n\n".join(blocks)


def add_code_section(prompt_suffix: str) -> str:
    """Add a ``{code_context}`` placeholder when this turn recalled code.

    The code itself travels as a prompt variable (set by ``before_agent_starts``): the suffix
    is an f-string template, and literal braces in code would break the turn.
    """
    if not getattr(_turn, "code", None):
        return prompt_suffix
    return prompt_suffix + "\n\n# Code from the indexed repository\n{code_context}\n"


def index_at_startup(cheshire_cat: Any) -> None:
    """After the Cat boots, bring the index of the configured repository up to date."""
    settings, _ = plugin_settings(cheshire_cat)
    if settings.repository_path.strip():
        log.info("code working memory: %s", start_indexing(cheshire_cat, notify=False))


# -- the code request: proposal, confirmation, draft loop -----------------------------------------

_drafting: dict[str, threading.Thread] = {}
_stop_requests: dict[str, threading.Event] = {}


def stop_if_asked(cat: Any, text: str) -> str | None:
    """"stop" / "cancel" while a draft loop runs: end it after the current step."""
    user = str(cat.user_id)
    running = _drafting.get(user)
    if running is None or not running.is_alive() or classify_reply(text) is not ReplyIntent.CANCEL:
        return None
    _stop_requests[user].set()
    return ("Stopping the draft loop after the current step; the drafts so far stay in the "
            "history.")


def propose_request(cat: Any, request: Mapping[str, Any]) -> str:
    """Open a task for the request and answer with proposed meta-code to confirm."""
    from . import drafting
    from .codegen.errors import CodegenError
    from .memory.errors import CodeMemoryError

    state = start_request(cat, request)
    try:
        project, _ = project_of(cat)
        archive_finished_tasks(cat, project.code)
        meta = drafting.propose(project, request, [], cat.llm)
    except (CodeMemoryError, CodegenError) as err:
        _fail(cat, state.task_id, f"could not prepare the request: {err}")
        return f"I could not prepare the request: {err}"
    _remember_proposal(cat, state.task_id, meta.to_dict(), [])
    return f"{meta.render_markdown()}\n\n{drafting.PROPOSAL_HELP}"


#: What a finished task leaves in long-term memory when the next request starts.
ARCHIVED_NOTES = ("request", "metacode", "loop.status", "loop.last_feedback")


def archive_finished_tasks(cat: Any, memory: Any) -> list[str]:
    """Complete every scratchpad task but the current one: archive its key notes, clear it.

    Keeps the working memory (pickled every turn by the Cat's file_system cache) from growing
    with every request. A task whose archiving fails stays, so nothing is lost.
    """

    def sink(text: str, metadata: dict) -> str:
        return memory.add_memory(text, {**metadata, "type": "task_note"})

    done = []
    with user_lock(cat):
        state = load_state(cat)
        for task in state.scratchpad.tasks():
            if task == state.task_id:
                continue
            keys = [k for k in ARCHIVED_NOTES if state.scratchpad.query(task, k).found]
            try:
                state.scratchpad.complete(task, archive_keys=keys, sink=sink)
            except Exception as err:  # the sink is a database: keep the task, say why
                log.warning("could not archive scratchpad task %s: %s", task, err)
                continue
            done.append(task)
        save_state(cat, state)
    return done


def reply_to_proposal(cat: Any, text: str) -> str | None:
    """Answer a message while meta-code awaits confirmation; ``None`` when nothing awaits."""
    from . import drafting
    from .codegen.errors import CodegenError
    from .memory.errors import CodeMemoryError

    state = load_state(cat)
    task = state.task_id
    if (state.phase.phase is not CodegenPhase.COLLECTING or not task
            or task not in state.scratchpad.tasks()
            or state.scratchpad.get(task, "awaiting") != "metacode"):
        return None
    intent = classify_reply(text)
    if intent is ReplyIntent.CANCEL:
        _fail(cat, task, "cancelled by the user")
        return f"Cancelled the request (task `{task}`)."
    if intent is ReplyIntent.CONFIRM:
        return _start_drafting(cat, task)
    feedback = list(state.scratchpad.get(task, "feedback", [])) + [text.strip()]
    try:
        project, _ = project_of(cat)
        request = state.scratchpad.get(task, "request")
        meta = drafting.propose(project, request, feedback, cat.llm)
    except (CodeMemoryError, CodegenError) as err:
        return f"I could not revise the proposal: {err}. {drafting.PROPOSAL_HELP}"
    _remember_proposal(cat, task, meta.to_dict(), feedback)
    return f"Revised:\n\n{meta.render_markdown()}\n\n{drafting.PROPOSAL_HELP}"


def _remember_proposal(cat: Any, task: str, meta: dict, feedback: list[str]) -> None:
    with user_lock(cat):
        state = load_state(cat)
        state.scratchpad.put(task, "metacode", meta)
        state.scratchpad.put(task, "feedback", feedback)
        state.scratchpad.put(task, "awaiting", "metacode")
        save_state(cat, state)


def _fail(cat: Any, task: str, reason: str) -> None:
    with user_lock(cat):
        state = load_state(cat)
        if state.task_id == task and not state.phase.phase.terminal:
            state.phase.fail(reason)
            save_state(cat, state)


def _update(cat: Any, task: str, worker_pad: Any, phase: CodegenPhase | None = None,
            commit_id: str = "") -> None:
    """Merge the worker's notes and phase into the user's state (under the user's lock)."""
    with user_lock(cat):
        state = load_state(cat)
        if state.task_id != task:
            return  # the user moved on to another task; keep the notes in the history only
        state.scratchpad.import_task(task, worker_pad.export_task(task))
        if phase is not None and state.phase.phase is not phase:
            state.phase.walk_to(phase, "draft loop")
        if commit_id:
            state.commit_id = commit_id
        save_state(cat, state)
        refresh = getattr(cat, "update_working_memory_cache", None)
        if callable(refresh):  # file_system cache: persist now, not at the next turn
            refresh()


def _start_drafting(cat: Any, task: str) -> str:
    from . import drafting, projects
    from .codegen.metacode import MetaCode
    from .memory.errors import CodeMemoryError

    running = _drafting.get(str(cat.user_id))
    if running is not None and running.is_alive():
        return "A draft is already being prepared; wait for its result."
    try:
        project, settings = project_of(cat)
    except CodeMemoryError as err:
        return f"Cannot start drafting: {err}"
    with user_lock(cat):
        state = load_state(cat)
        state.phase.advance(CodegenPhase.METACODE_CONFIRMED, "confirmed by the user")
        state.scratchpad.put(task, "awaiting", "")
        meta = MetaCode.from_dict(state.scratchpad.get(task, "metacode"))
        pad = Scratchpad()
        pad.import_task(task, state.scratchpad.export_task(task))
        save_state(cat, state)
    throttle = projects.Throttle(projects.PROGRESS_INTERVAL_S)
    stop = _stop_requests[str(cat.user_id)] = threading.Event()

    def on_progress(event: Any) -> None:
        phase = drafting.phase_for(event)
        if phase is not None:
            _update(cat, task, pad, phase)
        if throttle.ready():
            _notify(cat, f"Draft {event.iteration}: {event.step} {event.status}"
                         + (f" ({event.message[:120]})" if event.message else ""))

    def work() -> None:
        try:
            outcome = drafting.run(project, settings, meta, task, pad, on_progress, stop.is_set)
            done = isinstance(outcome, drafting.Committed)
            diff = ""
            if done:
                base = drafting.first_commit(project, task)
                diff = project.commits.diff(base, outcome.commit_id) if base else ""
            _update(cat, task, pad,
                    CodegenPhase.DONE if done else CodegenPhase.FAILED,
                    outcome.commit_id if done else outcome.last_good)
            _notify(cat, drafting.outcome_message(outcome, meta, diff), "chat")
        except Exception as err:  # crash boundary of a background thread: report, never lose
            log.exception("draft loop of task %s failed", task)
            _fail(cat, task, f"{type(err).__name__}: {err}")
            _notify(cat, f"The draft loop stopped with an error: {type(err).__name__}: {err}. "
                         f"The drafts so far are kept in the history of task `{task}`.", "chat")

    _drafting[str(cat.user_id)] = drafting.start_thread(f"codemem-draft-{task}", work)
    return (f"Drafting `{meta.symbol}` in `{meta.target_path}` (task `{task}`): I will report "
            "progress here and post the result when it is ready.")


def _notify(cat: Any, text: str, kind: str = "notification") -> None:
    try:
        cat.send_ws_message(text, kind)
    except Exception as err:  # the user may have left; the result stays in the history
        log.info("could not reach %s: %s", getattr(cat, "user_id", "?"), err)

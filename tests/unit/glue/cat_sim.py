"""A simulated Cat that loads the plugin the way the Cat does, for tests of the whole
conversation and of the plugin's lifecycle without the Cat.

What it reproduces (docs/cat-plugin-api.md has the Cat's side):

* loading: every ``.py`` file of the plugin (tests, benches and examples aside) imported by the
  module name its path gives, in the loader's order; hooks, tools, forms and overrides found by
  type in each module (a re-exported one would register twice);
* deactivation: the ``deactivated`` override, then every file's module removed from
  ``sys.modules`` (intermediate packages stay, as in the Cat); a re-upload replaces the plugin
  object, so *its* deactivation runs no override; a restart is a new process (the old one's
  live import exits, nothing of it survives but what the cache pickled);
* a turn: the working memory loaded, ``before_cat_reads_message``, the recall hooks,
  ``before_agent_starts``, ``agent_fast_reply`` (an answer ends the agent), then the form agent
  (a CLOSED form is cleared and the turn goes on; an open form's ``next()`` answers; an
  exception is logged and the turn goes on), else the Cat's own answer; then
  ``before_cat_sends_message`` on whichever answered and the turn's copy written back; hook
  exceptions are logged, never raised (here: kept in ``errors``). ``say`` can run something
  right after the load and right before the write-back (``after_load``, ``before_write_back``):
  a worker finishing there is the race of a turn whose copy is stale;
* the working memory per user, kept by reference (``in_memory``) or pickled after every turn and
  loaded afresh before the next (``file_system``); ``cat.llm`` records model interactions.

Messages sent later by worker threads are kept per user in ``sent``.
"""

from __future__ import annotations

import copy
import importlib
import itertools
import pathlib
import pickle
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from qdrant_client import QdrantClient

from codemem.memory.embedding import HashingEmbedder

from ... import mount
from ..memory.codebase.catlike import CatLikeCollection
from . import cat_stand_in
from .glue_support import WorkingMemoryStandIn

ROOT = pathlib.Path(__file__).resolve().parents[3]
#: What the Cat's own agent answers (the scripted model's default reply).
CAT_ANSWER = "CAT-ANSWER"
_NAMES = itertools.count(1)


def plugin_files(root: pathlib.Path = ROOT) -> list[str]:
    """The plugin's ``.py`` files as the Cat's loader lists them (tests and tools aside)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in ("tests", "bench", "examples") or \
                any(part.startswith(".") for part in rel.parts):
            continue
        found.append(str(rel.with_suffix("")).replace("/", "."))
    return found


class SimStray:
    """The ``StrayCat`` of one turn: what the plugin reads from it."""

    def __init__(self, sim: SimCat, user: str, working_memory: Any) -> None:
        self.sim, self.user_id, self.working_memory = sim, user, working_memory
        self.embedder, self.memory = sim.embedder, sim.memory
        self.mad_hatter, self.cache = sim.mad_hatter, sim.cache

    def send_ws_message(self, content: Any, msg_type: str = "notification") -> None:
        self.sim.deliver(self.user_id, msg_type, content)

    def llm(self, prompt: str) -> str:
        self.working_memory.model_interactions.append(prompt)
        return self.sim.llm(prompt)


class _Cache:
    """``cat.cache``: the users' working memories, by reference or pickled."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, Any] = {}
        self._lock = threading.RLock()

    def get_item(self, key: str) -> Any:
        with self._lock:
            value = self._items.get(key)
        if value is None:
            return None
        return SimpleNamespace(key=key, value=pickle.loads(value) if self.kind == "file_system"
                               else value)

    def insert(self, item: Any) -> None:
        with self._lock:
            self._items[item.key] = (pickle.dumps(item.value) if self.kind == "file_system"
                                     else item.value)

    def tear(self, key: str, how: str) -> Any:
        """A fault: the user's cache file torn as the Cat may leave it (``truncate``: half
        written; ``delete``: gone; ``older``: a working memory whose plugin state an older
        version wrote, in a layout this one cannot read). Returns what was there."""
        with self._lock:
            whole = self._items.get(key)
            if how == "truncate":
                self._items[key] = whole[:len(whole) // 2]
            elif how == "delete":
                self._items.pop(key, None)
            else:
                memory = pickle.loads(whole) if self.kind == "file_system" else whole
                memory.code_working_memory = {"version": 0, "phase": "drafting",
                                              "task_id": "t-older"}
                self._items[key] = pickle.dumps(memory) if self.kind == "file_system" \
                    else memory
            return whole

    def restore(self, key: str, whole: Any) -> None:
        """The Cat's interrupted write completes."""
        with self._lock:
            self._items[key] = whole

    def forget_unpickled(self) -> None:
        """A restart: what is only in memory is gone."""
        if self.kind != "file_system":
            with self._lock:
                self._items.clear()


class SimCat:
    """The Cat around one plugin folder; ``say`` runs a user's turn (see the module doc)."""

    def __init__(self, repo: pathlib.Path, data: pathlib.Path, llm: Callable[[str], str], *,
                 settings: dict[str, Any] | None = None, cache: str = "in_memory") -> None:
        self.alias = f"cwmsim{next(_NAMES)}"  # its own package: the home is keyed by it
        mount(self.alias)
        self.llm = llm
        self.stored = {"repository_path": str(repo), "data_folder": str(data), **(settings or {})}
        self.embedder = HashingEmbedder()
        dim = len(self.embedder.embed_query("probe"))
        self.memory = SimpleNamespace(vectors=SimpleNamespace(declarative=CatLikeCollection(
            QdrantClient(":memory:"), "declarative", "HashingEmbedder", dim)))
        self.plugin = SimpleNamespace(load_settings=lambda: dict(self.stored),
                                      save_settings=self.stored.update)
        self.mad_hatter = SimpleNamespace(plugins={self.alias: self.plugin}, procedures=[])
        self.cache = _Cache(cache)
        self.hooks: dict[str, list[Any]] = {}
        self.overrides: dict[str, Any] = {}
        self.registered: list[str] = []
        self.sent: dict[str, list[tuple[str, Any]]] = {}
        self.errors: list[str] = []
        self.active = False
        self._stand_in = cat_stand_in.installed(self.shared_llm)

    # -- the process ---------------------------------------------------------------------
    def __enter__(self) -> SimCat:
        self._stand_in.__enter__()
        self.activate()
        self.bootstrap()
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.end_process()
        finally:
            self._stand_in.__exit__(*exc)

    def shared_llm(self, prompt: str) -> str:
        return self.llm(prompt)

    def module(self, name: str) -> Any:
        return sys.modules[f"{self.alias}.{name}"]

    def live_generation(self) -> Any:
        home = sys.modules.get(f"code_working_memory.process-home:{self.alias}")
        return getattr(home, "live", None)

    # -- activation --------------------------------------------------------------------------
    def activate(self) -> None:
        """Import every file (fresh modules), register what they declare, run ``activated``."""
        hooks: dict[str, list[Any]] = {}
        self.overrides, self.registered = {}, []
        for name in plugin_files():
            module = importlib.import_module(f"{self.alias}.{name}")
            for member, value in vars(module).items():
                self._register(hooks, f"{name}.{member}", value)
        self.hooks = {k: sorted(v, key=lambda h: -h.priority) for k, v in hooks.items()}
        self.active = True
        if "activated" in self.overrides:
            self.overrides["activated"].function(self.plugin)
            self._wait_threads("codemem-claim")

    def _register(self, hooks: dict[str, list[Any]], where: str, value: Any) -> None:
        if isinstance(value, cat_stand_in.HookStandIn):
            hooks.setdefault(value.name, []).append(value)
        elif isinstance(value, cat_stand_in.PluginOverride):
            self.overrides[value.name] = value
        elif not (isinstance(value, (cat_stand_in.ToolStandIn, cat_stand_in.EndpointStandIn)) or (
                isinstance(value, type) and getattr(value, "_autopilot", False)
                and issubclass(value, cat_stand_in.CatForm))):
            return
        self.registered.append(where)

    def deactivate(self, *, run_override: bool = True) -> None:
        """``deactivated`` (unless the plugin object was replaced), then unload every file."""
        if run_override and "deactivated" in self.overrides:
            self.overrides["deactivated"].function(self.plugin)
        for name in plugin_files():
            sys.modules.pop(f"{self.alias}.{name}", None)
        self.hooks, self.overrides, self.active = {}, {}, False

    def toggle(self) -> None:
        self.deactivate() if self.active else self.activate()

    def reupload(self) -> None:
        """A new zip over the plugin: a new plugin object is toggled off (no override runs),
        then the admin switches it on again."""
        self.deactivate(run_override=False)
        self.activate()

    def restart(self) -> None:
        """A new process: the live import exits, only what the cache pickled survives."""
        self.end_process()
        self.cache.forget_unpickled()
        self.activate()
        self.bootstrap()

    def end_process(self) -> None:
        live = self.live_generation()
        if live is not None:
            live.exit()
            live.retire(join_s=10.0)  # a process's threads die with it; here they must end
        self.deactivate(run_override=False)
        sys.modules.pop(f"code_working_memory.process-home:{self.alias}", None)

    def bootstrap(self) -> None:
        self._each("after_cat_bootstrap", SimpleNamespace(
            llm=self.shared_llm, memory=self.memory, embedder=self.embedder,
            mad_hatter=self.mad_hatter, send_ws_message=lambda *a, **k: None))
        self._wait_threads("codemem-startup")
        self.wait_indexing()

    # -- a turn ------------------------------------------------------------------------------
    def say(self, user: str, text: str, *, after_load: Callable[[], None] | None = None,
            before_write_back: Callable[[], None] | None = None) -> str:
        """One message: exactly one answer (the plugin's or the Cat's)."""
        stray = SimStray(self, user, self._load(user))
        if after_load is not None:
            after_load()
        memory = stray.working_memory
        memory.model_interactions = []
        memory.user_message_json = SimpleNamespace(text=text)
        answer = self._turn(stray)  # before_cat_sends_message ran in the turn (``_sent``)
        memory.history.append((text, answer))
        if before_write_back is not None:
            before_write_back()
        self.cache.insert(SimpleNamespace(key=f"{user}_working_memory", value=memory))
        return answer

    def _load(self, user: str) -> Any:
        item = self.cache.get_item(f"{user}_working_memory")
        memory = item.value if item is not None else WorkingMemoryStandIn(
            history=[], active_form=None, model_interactions=[], recall_query="")
        form = memory.get("active_form")
        if form is not None:
            form._cat = None  # re-attached below (a pickled form has no cat)
        return memory

    def _turn(self, stray: SimStray) -> str:
        memory = stray.working_memory
        form = memory.get("active_form")
        if form is not None:
            form._cat = stray
        if not self.active:
            return self._form_or_cat(stray)
        memory.user_message_json = self._pipe("before_cat_reads_message",
                                              memory.user_message_json, stray)
        self._pipe("before_cat_recalls_declarative_memories", {"k": 3, "threshold": 0.7},
                   stray)
        for kind in ("episodic", "declarative", "procedural"):  # the Cat's recall: nothing
            setattr(memory, f"{kind}_memories", [])
        self._each("after_cat_recalls_memories", stray)
        memory.agent_input = self._pipe("before_agent_starts", SimpleNamespace(), stray)
        fast = self._pipe("agent_fast_reply", {}, stray)
        if isinstance(fast, dict) and "output" in fast:
            return self._sent(str(fast["output"]), stray)
        self._pipe("agent_prompt_suffix", "", stray)
        return self._sent(self._form_or_cat(stray), stray)

    def _sent(self, answer: str, stray: SimStray) -> str:
        """``before_cat_sends_message`` on the answer (the Cat's ``CatMessage``)."""
        return str(self._pipe("before_cat_sends_message", SimpleNamespace(text=answer),
                              stray).text)

    def _form_or_cat(self, stray: SimStray) -> str:
        """The form agent, then the Cat's own answer."""
        memory = stray.working_memory
        form = memory.get("active_form")
        if form is not None:
            if getattr(form._state, "name", "") == "CLOSED":
                memory.active_form = None
            else:
                try:
                    return str(form.next()["output"])
                except Exception:  # the Cat logs it and answers with its agent
                    self.errors.append(traceback.format_exc())
        return stray.llm(CAT_ANSWER)

    def _pipe(self, name: str, value: Any, stray: SimStray) -> Any:
        for hook in self.hooks.get(name, []):
            try:
                result = hook.function(copy.deepcopy(value), cat=stray)
            except Exception:  # the Cat logs it and goes on with the previous value
                self.errors.append(traceback.format_exc())
                continue
            if result is not None:
                value = result
        return value

    def _each(self, name: str, cat: Any) -> None:
        for hook in self.hooks.get(name, []):
            try:
                hook.function(cat=cat)
            except Exception:
                self.errors.append(traceback.format_exc())

    # -- what arrives later --------------------------------------------------------------------
    def deliver(self, user: str, kind: str, content: Any) -> None:
        self.sent.setdefault(user, []).append((kind, content))

    def chats(self, user: str) -> list[str]:
        return [str(c) for kind, c in self.sent.get(user, []) if kind == "chat"]

    def workers(self) -> Iterator[Any]:
        live = self.live_generation()
        for session in (live.sessions.all() if live is not None else []):
            if session.worker is not None:
                yield session.worker

    def wait_drafts(self, timeout: float = 120.0) -> None:
        for worker in list(self.workers()):
            worker.thread.join(timeout)
            assert not worker.alive, "a draft loop did not finish"

    def wait_indexing(self, timeout: float = 120.0) -> None:
        live = self.live_generation()
        for project in (live.registry.projects() if live is not None else []):
            if project.indexer is not None:
                project.indexer.join(timeout)

    @staticmethod
    def _wait_threads(name: str, timeout: float = 60.0) -> None:
        for thread in threading.enumerate():
            if thread.name == name:
                thread.join(timeout)

"""Boot a real Cheshire Cat 1.9.2 in-process with this repository mounted as a plugin.

Opt-in: ``CCAT_CORE_DIR`` names a Cat core folder (the one holding ``cat/`` and
``pyproject.toml``) and pytest runs with the Python of a venv where that core is installed
(``tests/integration/setup_cat.sh`` builds one). See docs/integration-tests.md.

The Cat imports every ``.py`` file of this repository, this one included, so nothing happens
at import time here: ``cat``, fastapi, langchain and loguru are imported inside functions, and
every environment, CWD and ``sys.path`` change is made through a ``pytest.MonkeyPatch`` that is
undone when the booted Cat is closed.

What is faked, and why (docs/cat-plugin-api.md): the LLM (a scripted chat model), Qdrant (an
in-memory client: the Cat's local on-disk client cannot be opened twice), the requirement
installer (the venv already has them; the Cat would run whatever ``pip`` is first on PATH) and,
when its file is not cached, tiktoken's ``cl100k_base`` (downloaded from the internet; the Cat
only counts tokens with it and splits uploads; an offline byte-level stand-in counts bytes).
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .cat_doubles import LLMScript, LogCapture, cl100k_cached, make_fake_llm, offline_cl100k
from .chat_session import ChatSession  # noqa: F401  (tests name cat_harness.ChatSession)
from .declared import declared_glue  # noqa: F401  (tests call cat_harness.declared_glue)

ENV_VAR = "CCAT_CORE_DIR"
#: The plugin's id inside the test Cat (folder name: no dots, docs/cat-plugin-api.md).
PLUGIN_ID = "code_working_memory"
#: The plugin's working-memory key (runtime.STATE_KEY).
STATE_KEY = "code_working_memory"
REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
LOAD_ERROR = "Unable to load plugin"
HOW_TO_ENABLE = (
    "real-Cat integration tests are opt-in: set CCAT_CORE_DIR to a Cheshire Cat 1.9.2 core "
    "folder (the one holding cat/ and pyproject.toml) and run pytest with the Python of the venv "
    "where that core is installed, e.g. `CCAT_CORE_DIR=<cat>/core "
    "<cat>/venv/bin/python -m pytest tests/integration -q`; "
    "tests/integration/setup_cat.sh builds that venv (docs/integration-tests.md)"
)
#: Top-level entries of the repository never mirrored into the test plugin folder.
_NOT_MIRRORED = {"settings.json"}


def configured_core() -> pathlib.Path | None:
    """The Cat core folder named by ``CCAT_CORE_DIR``, or None when the tests are not enabled."""
    value = os.environ.get(ENV_VAR, "").strip()
    return pathlib.Path(value).expanduser().resolve() if value else None


def core_problem(core: pathlib.Path) -> str | None:
    """Why ``core`` cannot be used by this interpreter (None when it can)."""
    if not (core / "cat" / "looking_glass" / "cheshire_cat.py").is_file():
        return f"{ENV_VAR}={core} does not hold a Cat core (no cat/looking_glass/cheshire_cat.py)"
    try:
        import fastapi  # noqa: F401
        import langchain_core  # noqa: F401
    except ImportError as err:
        return (f"{ENV_VAR} is set but this Python ({sys.executable}) lacks the Cat's "
                f"dependencies ({err}); run pytest with the Cat venv's python")
    return None


def mirror_plugin(dest: pathlib.Path, src: pathlib.Path = REPO_ROOT) -> pathlib.Path:
    """Make ``dest`` a plugin folder whose entries are symlinks to the repository's.

    Per-entry links (not one link to the whole repository) keep the ``settings.json`` the Cat
    writes, and the bad ones the tests write, out of the working tree. Hidden entries are skipped
    like the Cat's glob skips them.
    """
    dest.mkdir(parents=True)
    for entry in sorted(src.iterdir()):
        if entry.name.startswith(".") or entry.name in _NOT_MIRRORED:
            continue
        (dest / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return dest


def plugin_zip(dest: pathlib.Path, src: pathlib.Path = REPO_ROOT) -> pathlib.Path:
    """The plugin as the release zip holds it (``make zip``: no tests, benches, CI, docker),
    built from the working tree, under one top folder named like the plugin id."""
    import zipfile

    left_out = {"tests", "bench", "docker", "settings.json"}
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(src.rglob("*")):
            rel = path.relative_to(src)
            if path.is_dir() or rel.parts[0] in left_out or "__pycache__" in rel.parts \
                    or any(part.startswith(".") for part in rel.parts):
                continue
            archive.write(path, f"{PLUGIN_ID}/{rel}")
    return dest


def plugin_py_modules(plugin_dir_rel: str) -> list[str]:
    """The module names the Cat gives the plugin's ``.py`` files (docs/cat-plugin-api.md)."""
    import glob

    files = glob.glob(os.path.join(plugin_dir_rel, "**/*.py"), recursive=True)
    return sorted(f.replace(".py", "").replace("/", ".") for f in files)


# -- the booted Cat -------------------------------------------------------------------------


@dataclass
class CatRun:
    """A Cat booted in-process with the plugin mounted; what the tests talk to."""

    client: Any
    logs: LogCapture
    script: LLMScript
    plugin_dir: pathlib.Path
    plugins_rel: str
    workdir: pathlib.Path

    @property
    def plugins_name(self) -> str:
        return self.plugins_rel.rstrip("/")

    @property
    def ccat(self) -> Any:
        return self.client.app.state.ccat

    @property
    def plugin(self) -> Any:
        return self.ccat.mad_hatter.plugins[PLUGIN_ID]

    def load_errors(self) -> list[str]:
        return self.logs.matching(LOAD_ERROR)

    def toggle(self) -> Any:
        return self.client.put(f"/plugins/toggle/{PLUGIN_ID}")

    def chat(self, text: str, user: str = "alice", *, allow_errors: bool = False) -> dict:
        """One turn through ``/ws/<user>`` on a fresh socket; the final chat/error frame."""
        with self.session(user) as chat:
            return chat.say(text, allow_errors=allow_errors)

    def message(self, text: str, user: str = "alice", *, allow_errors: bool = False) -> str:
        """One turn through HTTP ``POST /message`` (the answer, whatever threads send later goes
        to the user's socket, if any); fails if the Cat logged an error during the turn."""
        mark = len(self.logs.records)
        reply = self.client.post("/message", json={"text": text}, headers={"user_id": user})
        assert reply.status_code == 200, reply.text
        errors = self.logs.errors_since(mark)
        assert allow_errors or not errors, f"the turn {text!r} logged errors:\n" + \
            "\n".join(errors)
        body = reply.json()
        assert "text" in body, body
        return str(body["text"])

    def reupload(self, dest: pathlib.Path) -> None:
        """Upload the plugin again as a zip, as the admin panel does (the Cat installs it over
        the old folder and leaves it switched off), then switch it on again."""
        archive = plugin_zip(dest / f"{PLUGIN_ID}.zip")
        with open(archive, "rb") as handle:
            answer = self.client.post("/plugins/upload", files={
                "file": (archive.name, handle.read(), "application/zip")})
        assert answer.status_code == 200, answer.text
        assert not self.plugin.active, "a re-upload leaves an active plugin switched off"
        assert self.toggle().status_code == 200

    def generation(self) -> Any:
        """The live import of the plugin in this Cat (its projects, sessions, threads)."""
        home = sys.modules.get(f"code_working_memory.process-home:{self.plugins_name}."
                               f"{PLUGIN_ID}")
        return getattr(home, "live", None)

    @contextlib.contextmanager
    def session(self, user: str = "alice") -> Iterator[ChatSession]:
        """An open socket for several turns, and for messages sent later by worker threads."""
        with self.client.websocket_connect(f"/ws/{user}") as ws:
            yield ChatSession(ws, self.logs)

    def plugin_module(self, name: str) -> Any:
        """The Cat's instance of one of the plugin's modules (e.g. ``"app.entry"``)."""
        return sys.modules[f"{self.plugins_name}.{PLUGIN_ID}.{name}"]

    def working_memory(self, user: str = "alice") -> Any:
        """The user's working memory as the cache holds it (unpickled afresh for file_system)."""
        return self.ccat.cache.get_value(f"{user}_working_memory")

    def plugin_state(self, user: str = "alice") -> Any:
        """The user's state as its owner has it (the plugin's session in this Cat; before the
        user spoke to this Cat, the view its working memory holds)."""
        generation = self.generation()
        session = generation.sessions.of_user(user) if generation is not None else None
        if session is None:
            return self.plugin_view(user)
        with session.lock:
            return session.state.to_dict()

    def plugin_view(self, user: str = "alice") -> Any:
        """The view of the user's state in the working memory the Cat saved last."""
        wm = self.working_memory(user)
        return None if wm is None else wm.get(STATE_KEY)

    def stray(self, user: str = "alice") -> Any:
        """A ``StrayCat`` for ``user`` (in-process, no socket), as tools and forms receive."""
        from cat.auth.permissions import AuthUserInfo
        from cat.looking_glass.stray_cat import StrayCat

        return StrayCat(AuthUserInfo(id=user, name=user))

    def registered(self) -> dict[str, list[str]]:
        """Names of the hooks, tools and forms the Cat registered for this plugin."""
        mh = self.ccat.mad_hatter
        hooks = [h.name for hs in mh.hooks.values() for h in hs if h.plugin_id == PLUGIN_ID]
        tools = [t.name for t in mh.tools if t.plugin_id == PLUGIN_ID]
        forms = [f.name for f in mh.forms if getattr(f, "plugin_id", None) == PLUGIN_ID]
        endpoints = [f"{m} {e.name}" for e in mh.endpoints
                     if getattr(e, "plugin_id", None) == PLUGIN_ID for m in e.methods]
        return {"hooks": sorted(hooks), "tools": sorted(tools), "forms": sorted(forms),
                "endpoints": sorted(endpoints)}

    def mounted_routes(self) -> list[str]:
        """The plugin's routes as the Cat's app serves them ("GET /custom/code-memory/...")."""
        return sorted(f"{m} {r.path}" for r in self.client.app.routes
                      if getattr(r, "path", "").startswith("/custom/code-memory")
                      for m in getattr(r, "methods", ()))


def _patch_environment(mp: Any, core: pathlib.Path, workdir: pathlib.Path,
                       cache_type: str) -> None:
    """The Cat's env, CWD and import path for one boot (undone with ``mp``)."""
    mp.chdir(core)  # the Cat resolves plugins, module names and static dirs against CWD
    mp.syspath_prepend(str(core))  # so the test plugins folder imports as a namespace package
    for name in ("CCAT_API_KEY", "CCAT_API_KEY_WS", "API_KEY", "API_KEY_WS",
                 "CCAT_QDRANT_HOST", "QDRANT_HOST"):
        mp.delenv(name, raising=False)
    mp.setenv("CCAT_DEBUG", "false")
    mp.setenv("CCAT_LOG_LEVEL", os.environ.get("CCAT_LOG_LEVEL", "WARNING"))
    mp.setenv("CCAT_METADATA_FILE", str(workdir / "metadata.json"))
    mp.setenv("CCAT_CACHE_TYPE", cache_type)
    mp.setenv("CCAT_CACHE_DIR", str(workdir / "cache"))


def _patch_cat(mp: Any, plugins_rel: str, install_requirements: bool) -> None:
    """Monkeypatches of Cat internals (docs/cat-plugin-api.md); imports ``cat`` lazily."""
    import cat.routes.static.admin as admin
    import cat.routes.static.static as static

    mp.setattr(admin, "mount", lambda app: None)  # no /admin build outside docker
    if not os.path.isdir("cat/static"):  # a core exported from git lacks the empty folder
        mp.setattr(static, "mount", lambda app: None)
    import cat.utils as utils
    import tiktoken.registry
    from cat.mad_hatter.plugin import Plugin
    from cat.memory.vector_memory import VectorMemory
    from qdrant_client import QdrantClient

    def in_memory_qdrant(self: Any, *args: Any, **kwargs: Any) -> None:
        self.vector_db = QdrantClient(":memory:")

    mp.setattr(VectorMemory, "connect_to_vector_memory", in_memory_qdrant)
    mp.setattr(utils, "get_plugins_path", lambda: plugins_rel)
    current = Plugin._install_requirements
    real = getattr(current, "cwm_original", current)  # an outer boot may have replaced it

    def no_install(self: Any) -> None:
        return None

    no_install.cwm_original = real  # type: ignore[attr-defined]
    mp.setattr(Plugin, "_install_requirements", real if install_requirements else no_install)
    if "cl100k_base" not in tiktoken.registry.ENCODINGS and not cl100k_cached():
        mp.setitem(tiktoken.registry.ENCODINGS, "cl100k_base", offline_cl100k())
    mp.setattr(utils.singleton, "instances", {})  # fresh CheshireCat, MadHatter, Database...


def _purge_plugin_modules(prefix: str) -> None:
    """Forget modules of an earlier boot, so module globals start fresh."""
    for name in [m for m in sys.modules if m == prefix or m.startswith(prefix + ".")]:
        del sys.modules[name]


@contextlib.contextmanager
def booted_cat(core: pathlib.Path, workdir: pathlib.Path, *, cache_type: str = "in_memory",
               settings: dict | None = None, files: dict[str, str] | None = None,
               toggle: bool = True, plugins_name: str | None = None, keep_plugins_dir: bool = False,
               install_requirements: bool = False,
               before_boot: Callable[[Any], None] | None = None) -> Iterator[CatRun]:
    """Boot the Cat (TestClient lifespan) with the plugin mounted and, by default, toggled on.

    ``workdir`` holds the metadata (so a second boot on it finds the plugin active at startup)
    and the file-system cache. The plugin lives in a fresh ``<core>/cwm_run_*`` folder, or in
    ``plugins_name`` of a boot kept with ``keep_plugins_dir`` (pickles name classes by module
    path: a restart needs the same one). ``settings`` becomes its ``settings.json``; ``files``
    (name -> text) replace top-level files; ``before_boot(mp)`` may add monkeypatches. Boots
    may nest: the outer Cat's singletons and app state come back."""
    import pytest

    workdir.mkdir(parents=True, exist_ok=True)
    if plugins_name is None:
        # not "cwm_it_": older fixtures of test runs sharing the core remove those they did not
        # have when they started
        plugins_name = os.path.basename(tempfile.mkdtemp(prefix="cwm_run_", dir=core))
    plugin_dir = core / plugins_name / PLUGIN_ID
    logs = LogCapture()
    with pytest.MonkeyPatch.context() as mp:
        try:
            _patch_environment(mp, core, workdir, cache_type)
            _patch_cat(mp, plugins_name + "/", install_requirements)
            if not plugin_dir.exists():
                mirror_plugin(plugin_dir)
            if settings is not None:
                (plugin_dir / "settings.json").write_text(json.dumps(settings))
            for name, text in (files or {}).items():
                (plugin_dir / name).unlink(missing_ok=True)  # a link into the repository
                (plugin_dir / name).write_text(text)
            if before_boot is not None:
                before_boot(mp)
            _purge_plugin_modules(plugins_name)
            logs.start()
            yield from _serve(mp, plugins_name, plugin_dir, workdir, logs, toggle)
        finally:
            logs.stop()
            if not keep_plugins_dir:
                shutil.rmtree(core / plugins_name, ignore_errors=True)


def _serve(mp: Any, plugins_name: str, plugin_dir: pathlib.Path, workdir: pathlib.Path,
           logs: LogCapture, toggle: bool) -> Iterator[CatRun]:
    from cat.startup import cheshire_cat_api
    from fastapi.testclient import TestClient

    for name in ("ccat", "event_loop", "websocket_manager"):  # the app object is global
        mp.setattr(cheshire_cat_api.state, name, getattr(cheshire_cat_api.state, name, None),
                   raising=False)
    # The plugin's @endpoint routes join the global app's route list, and the Cat removes them
    # only when the plugin is switched off, not when the Cat stops. Left there, they would
    # answer the next boot's requests with the previous Cat's plugin (the next boot's own are
    # refused as "already active"), so each boot gets its own copy of the list.
    mp.setattr(cheshire_cat_api.router, "routes", list(cheshire_cat_api.router.routes))
    mp.setattr(cheshire_cat_api, "openapi_schema", None)
    script = LLMScript()
    with TestClient(cheshire_cat_api) as client:
        run = CatRun(client, logs, script, plugin_dir, plugins_name + "/", workdir)
        if toggle:
            response = run.toggle()
            assert response.status_code == 200, f"toggle failed: {response.text}"
        run.ccat._llm = make_fake_llm(script)  # StrayCat._llm reads CheshireCat()._llm per call
        yield run


@contextlib.contextmanager
def configured(run: CatRun, **settings: Any) -> Iterator[None]:
    """A booted Cat with these plugin settings (through the Cat's settings API); the settings
    and the LLM script are restored after."""
    url = f"/plugins/settings/{PLUGIN_ID}"
    before = run.client.get(url).json()["value"]
    put = run.client.put(url, json=settings)
    assert put.status_code == 200, put.text
    try:
        yield
    finally:
        run.script.rules.clear()
        run.script.tool_action, run.script.form_json = "no_action", {}
        run.client.put(url, json=before)


def wait_for_indexing(run: CatRun, timeout: float = 300) -> None:
    """Wait for every indexing thread of the plugin in ``run``'s Cat (the start-up pass, which
    opens the project in a thread of its own before it starts indexing, included)."""
    for thread in threading.enumerate():
        if thread.name == "codemem-startup":
            thread.join(timeout)
    for project in run.plugin_module("app.process").GENERATION.registry.projects():
        if project.indexer is not None:
            project.indexer.join(timeout)
            assert not project.indexer.is_alive(), f"indexing did not finish in {timeout} s"


def wait_for_draft(run: CatRun, user: str, context: Any = "", timeout: float = 600) -> None:
    """Wait for ``user``'s draft loop in ``run``'s Cat (``context`` explains a missing one)."""
    generation = run.plugin_module("app.process").GENERATION
    session = generation.sessions.of_user(user)
    assert session is not None and session.worker is not None, context
    session.worker.thread.join(timeout)
    assert not session.worker.alive, f"the draft loop did not finish in {timeout} s"


# -- the no-git probe (runs in a subprocess whose PATH has no git) ----------------------------

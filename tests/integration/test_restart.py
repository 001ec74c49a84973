"""SIGTERM to a served Cat mid-draft, then a second Cat on the same data (opt-in: CCAT_CORE_DIR).

What ``docker stop`` does to a running Cat: SIGTERM, then SIGKILL after 10 s. The Cat here runs
in its own process (uvicorn, ``file_system`` cache, cat_process.py) with the plugin active and
a draft loop in flight; it must exit well within the grace period, leaving none of the processes
the plugin started (parser workers, git helpers, sandboxes). A second Cat on the same data
folder then reports the interrupted task on the user's next message, and "continue" finishes it.

And the other side: a draft that *finished* while a turn held a copy of the working memory
(``file_system`` cache, the copy written back after the worker's) stays finished in the next
Cat: no interruption report, and "continue" says it is finished and drafts nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from typing import Any

import pytest

from ..unit.glue.sim_llm import ConversationLLM
from ..unit.glue.test_readme_phrases import FILES
from ..unit.glue.test_readme_phrases import SETTINGS as CHAT_SETTINGS
from . import cat_harness
from .cat_doubles import SLUGIFY_DRAFT as GOOD
from .cat_doubles import SLUGIFY_METACODE as METACODE
from .cat_doubles import LLMScript, make_fake_llm
from .cat_harness import PLUGIN_ID
from .cat_process import ServedCat, alive, say

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]

#: The exit must leave room in Docker's 10 s grace period.
EXIT_BUDGET_S = 6.0
REQUEST = "write a function slugify in text/slug.py that turns a title into a URL slug"
#: A draft whose example test sleeps: the sandbox is busy when SIGTERM arrives.
SLEEPY = ("```python entity=text/slug.py::slugify\ndef slugify(text: str) -> str:\n"
          "    import time\n    time.sleep(120)\n    return '-'.join(text.lower().split())\n```\n")
GENERATE = "You write Python code for one goal"


def script(draft: str, slow_flag: str = "") -> LLMScript:
    return LLMScript(
        rules=[("into META-CODE", json.dumps(METACODE)),
               (GENERATE, draft)],
        tools=[("index my repository", "index_code_repository")], relevance=0.9,
        slow=[(GENERATE, 120, slow_flag)] if slow_flag else [])


@pytest.fixture
def served(cat_core, tmp_path):
    """A repository, a plugin folder with its settings, and a factory for the served Cat."""
    repo = tmp_path / "repo"
    (repo / "text").mkdir(parents=True)
    (repo / "text" / "slug.py").write_text("def other():\n    return 1\n")
    # its own prefix, so that no other test run sharing the core takes it for its own
    plugins_name = os.path.basename(tempfile.mkdtemp(prefix="cwm_srv_", dir=cat_core))
    plugin_dir = cat_harness.mirror_plugin(cat_core / plugins_name / PLUGIN_ID)
    (plugin_dir / "settings.json").write_text(json.dumps({
        "repository_path": str(repo), "data_folder": str(tmp_path / "data"),
        "extended_loop": False, "check_judge": False, "max_iterations": 3,
        "test_timeout_s": 60}))
    started = []

    def start(llm: LLMScript) -> ServedCat:
        cat = ServedCat(cat_core, tmp_path / "cat", plugins_name, llm, cat_harness.REPO_ROOT)
        started.append(cat)
        cat.wait_ready()
        cat.toggle(PLUGIN_ID)
        return cat

    yield start, plugins_name, tmp_path
    for cat in started:
        if cat.proc.poll() is None:
            cat.proc.kill()
    shutil.rmtree(cat_core / plugins_name, ignore_errors=True)


def drive_to_the_draft(cat: ServedCat, wait: Callable[[], None]) -> dict[int, str]:
    """Index, request, "go"; wait until the draft is busy; the plugin's processes then."""
    with cat.socket("alice") as ws:
        assert "Indexing" in say(ws, "index my repository")["text"]
        proposal = say(ws, REQUEST)["text"]
        assert "**go**" in proposal, proposal
        assert say(ws, "go")["text"].startswith("Drafting `slugify`")
        wait()
        return cat.descendants()


def assert_stopped_cleanly(cat: ServedCat, children: dict[int, str]) -> None:
    seconds = cat.terminate()
    assert seconds < EXIT_BUDGET_S and cat.proc.returncode == 0, \
        f"exit took {seconds:.1f} s (rc {cat.proc.returncode}):\n{cat.tail()}"
    time.sleep(0.5)
    left = {pid: cmd for pid, cmd in children.items() if alive(pid)}
    assert left == {}, f"processes outlived the Cat: {left}"


def test_sigterm_mid_draft_then_the_next_cat_reports_it_and_continue_finishes(served, boot_cat):
    start, plugins_name, tmp_path = served
    flag = tmp_path / "llm_in_flight"
    cat = start(script(GOOD, str(flag)))

    def llm_in_flight() -> None:
        deadline = time.monotonic() + 120
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert flag.exists(), cat.tail()

    children = drive_to_the_draft(cat, llm_in_flight)
    assert any("_codemem_extract_worker" in c for c in children.values()), children
    assert_stopped_cleanly(cat, children)

    with boot_cat(workdir=tmp_path / "cat", cache_type="file_system", toggle=False,
                  plugins_name=plugins_name) as run:
        run.script.rules += script(GOOD).rules
        with run.session("alice") as chat:
            report = chat.say("is my slugify function ready?")["text"]
            assert "was interrupted" in report and "**continue**" in report, report
            state = run.plugin_state("alice")
            assert state["phase"] == "failed", state["phase_machine"]
            assert "interrupted" in state["phase_machine"]["failure_reason"]
            assert chat.say("continue")["text"].startswith("Drafting `slugify`")
            cat_harness.wait_for_draft(run, "alice")
            result = chat.wait_for(lambda f: str(f.get("content", "")).startswith(
                "Draft committed"), timeout=60)
        assert result is not None, [str(f.get("content"))[:600] for f in chat.frames[-5:]]
        assert run.plugin_state("alice")["phase"] == "done"


def test_sigterm_while_a_sandbox_runs_ends_every_process_quickly(served):
    start, _, _ = served
    cat = start(script(SLEEPY))

    def sandbox_running() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if any("pytest" in c for c in cat.descendants().values()):
                return
            time.sleep(0.3)
        raise AssertionError(f"no sandboxed test run started: {cat.tail()}")

    children = drive_to_the_draft(cat, sandbox_running)
    assert any("pytest" in c for c in children.values()), children
    assert_stopped_cleanly(cat, children)


class _Script:
    """What ``cat_doubles.make_fake_llm`` drives: the conversation model."""

    def __init__(self, llm: ConversationLLM) -> None:
        self.llm = llm

    def reply(self, prompt: str) -> str:
        return self.llm(prompt)


SLUGIFY = "write a function slugify in text_utils.py that turns a title into a URL slug"
RUNNING = ("metacode_confirmed", "drafting", "validating", "committed", "rolled_back",
           "reviewing")


def _moments(pending: dict[str, list[Callable[[], None]]]) -> Callable[[object], None]:
    """``before_boot``: run what the test queued right after a turn of alice's loaded her
    working memory (when ``StrayCat.run`` starts, in the turn's thread: the load itself runs on
    the event loop, which the worker's messages need), or right before the Cat writes the
    turn's copy back (the order the race needs)."""

    def patch(mp: object) -> None:
        from cat.looking_glass.stray_cat import StrayCat

        run, write_back = StrayCat.run, StrayCat.update_working_memory_cache

        def loaded(self: object, *args: object, **kwargs: object) -> object:
            while getattr(self, "user_id", "") == "alice" and pending["after_load"]:
                pending["after_load"].pop(0)()
            return run(self, *args, **kwargs)

        def writing(self: object) -> None:
            while getattr(self, "user_id", "") == "alice" and pending["before_write_back"]:
                pending["before_write_back"].pop(0)()
            write_back(self)

        mp.setattr(StrayCat, "run", loaded)  # type: ignore[attr-defined]
        mp.setattr(StrayCat, "update_working_memory_cache", writing)  # type: ignore[attr-defined]

    return patch


@pytest.mark.parametrize("moment", ["before_write_back", "after_load"])
def test_a_draft_finished_during_a_stop_stays_finished_after_a_restart(boot_cat, tmp_path,
                                                                       moment):
    repo = tmp_path / "repo"
    repo.mkdir()
    for name, text in FILES.items():
        (repo / name).write_text(text)
    settings = {**CHAT_SETTINGS, "repository_path": str(repo),
                "data_folder": str(tmp_path / "data")}
    pending: dict[str, list[Callable[[], None]]] = {"after_load": [], "before_write_back": []}
    llm = ConversationLLM()
    with boot_cat(settings=settings, workdir=tmp_path / "cat", cache_type="file_system",
                  keep_plugins_dir=True, before_boot=_moments(pending)) as run:
        run.ccat._llm = make_fake_llm(_Script(llm))
        assert "index" in run.message("index my repository", user="indexer").lower()
        cat_harness.wait_for_indexing(run)
        with run.session("alice") as chat:
            assert "**go**" in chat.say(SLUGIFY)["text"]
            llm.hold()
            assert chat.say("go")["text"].startswith("Drafting `slugify`")
            assert llm.generating.wait(60)

            def finish() -> None:
                llm.release()
                cat_harness.wait_for_draft(run, "alice")

            pending[moment].append(finish)
            chat.ws.send_json({"text": "stop"})  # the turn's answer (the result comes too)
            frame = chat.wait_for(lambda f: f.get("type") == "error" or "text" in f, 300)
            assert frame is not None and "text" in frame, frame
            answer = frame["text"]
            assert pending[moment] == [], "the moment never came"
            if moment == "after_load":  # the loop had ended when the stop was read
                assert answer.startswith("Nothing to stop: the draft of `slugify`"), answer
                assert "had already finished, committed as `" in answer, answer
            else:  # read while the loop ran; it finished before it could stop
                assert answer.startswith("Stopping the draft loop"), answer
            results = [f for f in chat.frames if str(f.get("content", "")).startswith(
                "Draft committed")] or [chat.wait_for(lambda f: str(f.get("content", ""))
                                                      .startswith("Draft committed"), 60)]
            assert results[0] is not None, [str(f)[:300] for f in chat.frames[-5:]]
            assert chat.logs.errors_since(0) == [], chat.logs.errors_since(0)
        saved = run.plugin_view("alice")
        if moment == "before_write_back":  # the race happened: the stale view won the cache
            assert saved["phase"] in RUNNING, saved["phase"]
        assert run.plugin_state("alice")["phase"] == "done"  # the owner has the outcome
        plugins_name = run.plugins_name
    _finished_in_the_next_cat(boot_cat, tmp_path, plugins_name)


def _finished_in_the_next_cat(boot_cat: Callable[..., Any], tmp_path: Any,
                              plugins_name: str) -> None:
    """The next Cat on the same data (nothing of the plugin ran at the first one's shutdown,
    as after a kill -9): the task is finished, and "continue" asks the model nothing."""
    llm = ConversationLLM()
    with boot_cat(workdir=tmp_path / "cat", cache_type="file_system", toggle=False,
                  plugins_name=plugins_name) as run:
        run.ccat._llm = make_fake_llm(_Script(llm))
        with run.session("alice") as chat:
            answer = chat.say("hello, how are you?")["text"]
            assert "interrupted" not in answer, answer
            assert run.plugin_state("alice")["phase"] == "done"
            calls = llm.calls
            answer = chat.say("continue")["text"]
            assert answer.startswith("The draft of `slugify` in `text_utils.py`"), answer
            assert "is finished" in answer and "**apply**" in answer, answer
            assert llm.calls == calls, llm.prompts[calls:]  # nothing asked, nothing drafted
            history = chat.say("show the draft history")["text"]
            assert "draft 1" in history and "draft 2" not in history, history
        sessions = run.plugin_module("app.process").GENERATION.sessions.all()
        assert not any(s.worker is not None for s in sessions), "a finished task drafted again"

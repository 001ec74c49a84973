"""The plugin inside a real Cheshire Cat 1.9.2, booted in-process (opt-in: ``CCAT_CORE_DIR``).

Most tests share one Cat per module (``cat_run``); those that need their own settings file,
cache type, PATH or a restart boot a dedicated one. The LLM is the only fake (cat_harness.py).
"""

from __future__ import annotations

import json
import pickle
import sys

import pytest

from . import cat_harness
from .cat_harness import PLUGIN_ID, STATE_KEY

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]

FORM_REQUEST = {"request": "parse ISO-8601 dates into datetime objects",
                "target_path": "utils/dates.py", "symbol": "parse_iso_date"}
#: A valid meta-code answer for FORM_REQUEST (codegen/metacode/generate.py's schema).
METACODE = {
    "target_path": "utils/dates.py", "symbol": "parse_iso_date", "kind": "function",
    "signature": "def parse_iso_date(text: str) -> str",
    "behaviour": "Parse an ISO-8601 date and return it normalised as YYYY-MM-DD.",
    "inputs": [{"name": "text", "type": "str", "description": "an ISO-8601 date"}],
    "outputs": [{"name": "return", "type": "str", "description": "the normalised date"}],
    "examples": [{"call": "parse_iso_date('2024-01-02')", "expected": "2024-01-02"}],
    "constraints": ["standard library only"],
    "acceptance_checks": ["valid dates come back as YYYY-MM-DD"],
    "assumptions": ["no time-zone handling"],
}


def assert_state_shape(state) -> None:
    """The plugin's working-memory key: a plain dict with phase, task id and scratchpad."""
    assert isinstance(state, dict), f"{STATE_KEY} is {type(state).__name__}, not a plain dict"
    for key in ("phase", "task_id", "scratchpad"):
        assert key in state, f"{STATE_KEY} lacks {key!r}: {sorted(state)}"
    pickle.loads(pickle.dumps(state))  # plain data: survives the file_system cache


def assert_glue_loaded(run) -> None:
    """Active, and every declared hook/tool/form registered once (dedicated boots check this;
    the zero-load-errors rule for the whole repository has its own test)."""
    assert run.plugin.active
    assert run.registered() == cat_harness.declared_glue(), run.load_errors()


def status_of(run, user: str = "alice") -> str:
    """The status tool's answer, called as the Cat's agent calls it."""
    tool = next(t for t in run.ccat.mad_hatter.tools if t.plugin_id == PLUGIN_ID
                and t.name == "code_memory_status")
    out = tool.func("", cat=run.stray(user))
    assert isinstance(out, str), f"a tool must return str, got {type(out).__name__}"
    return out


# -- loading and registration -----------------------------------------------------------------


def test_plugin_is_active_and_every_module_imports(cat_run):
    assert cat_run.plugin.active
    assert PLUGIN_ID in cat_run.ccat.mad_hatter.active_plugins
    errors = cat_run.load_errors()
    assert errors == [], "the Cat could not load some modules of the plugin:\n\n" + \
        "\n\n".join(errors)
    modules = cat_harness.plugin_py_modules(cat_run.plugins_rel + PLUGIN_ID)
    assert len(modules) > 10, modules
    missing = [m for m in modules if m not in sys.modules]
    assert missing == [], f"modules the Cat did not import: {missing}"


def test_each_hook_tool_and_form_is_registered_exactly_once(cat_run):
    declared = cat_harness.declared_glue()
    assert declared["hooks"] and declared["tools"] and declared["forms"], declared
    assert "GET /custom/code-memory/status" in declared["endpoints"], declared
    assert cat_run.registered() == declared, (
        "registered (left) differs from declared (right): a decorated object re-exported by a "
        "second module is registered (and runs) twice, one in a failed module is missing")
    assert "code_memory_status" in declared["tools"]
    assert "settings_model" in cat_run.plugin.overrides
    assert cat_run.mounted_routes() == declared["endpoints"], "each route mounted once"


# -- settings ---------------------------------------------------------------------------------


def test_settings_schema_is_served_with_every_field_titled_and_defaulted(cat_run):
    response = cat_run.client.get(f"/plugins/settings/{PLUGIN_ID}")
    assert response.status_code == 200, response.text
    body = response.json()
    props = body["schema"]["properties"]
    for name in ("repository_path", "relevance_threshold", "max_memories", "batch_size",
                 "retry_attempts", "max_iterations", "test_timeout_s", "write_back"):
        assert name in props, f"{name} missing from the served schema: {sorted(props)}"
    for name, prop in props.items():
        assert prop.get("title") and prop.get("description"), f"{name}: no title/description"
        assert "default" in prop, f"{name}: no default (the admin would mark it required)"
        assert "anyOf" not in prop, f"{name}: Optional renders as a required text box"
    assert "$ref" in json.dumps(props["write_back"]), "enums must render as a select ($ref)"
    assert set(body["value"]) >= set(props), "settings.json was not created from the defaults"


def test_settings_round_trip_through_the_admin_api(cat_run):
    url = f"/plugins/settings/{PLUGIN_ID}"
    before = cat_run.client.get(url).json()["value"]
    try:
        put = cat_run.client.put(url, json={"max_iterations": 9, "repository_path": "/srv/repo"})
        assert put.status_code == 200, put.text
        value = cat_run.client.get(url).json()["value"]
        assert value["max_iterations"] == 9 and value["repository_path"] == "/srv/repo"
        assert value["relevance_threshold"] == before["relevance_threshold"]  # merged, kept
        status = status_of(cat_run)
        assert "up to 9 iterations" in status and "/srv/repo" in status, status
        bad = cat_run.client.put(url, json={"max_iterations": "lots"})
        assert bad.status_code == 400 and "integer" in bad.text, bad.text
    finally:
        cat_run.client.put(url, json=before)


# -- chat turns -------------------------------------------------------------------------------


def test_a_chat_turn_puts_the_state_into_working_memory(cat_run):
    frame = cat_run.chat("hello, who are you?", user="bob")
    assert frame["type"] == "chat", frame
    assert frame["text"] == cat_run.script.answer
    state = cat_run.plugin_state("bob")
    assert_state_shape(state)
    assert state["phase"] == "idle" and state["task_id"] == ""


def test_status_tool_answers_a_chat_turn(cat_run):
    cat_run.script.tool_action = "code_memory_status"
    try:  # a start example of the tool (recalled by the Cat), not one of the plugin's commands
        frame = cat_run.chat("what repository are you indexing?", user="carol")
    finally:
        cat_run.script.tool_action = "no_action"
    assert frame["type"] == "chat", frame
    assert "Code Working Memory" in frame["text"] and "phase: idle" in frame["text"], frame
    assert any("code_memory_status" in p for p in cat_run.script.prompts), \
        "the tool was never offered to the LLM"
    mark = len(cat_run.script.prompts)
    frame = cat_run.chat("code memory status", user="carol")  # the command: no LLM at all
    assert frame["text"].startswith("**Code Working Memory**"), frame
    assert cat_run.script.prompts[mark:] == []


#: A request that names its file and symbol: routed to the form by the plugin, pre-filled.
REQUEST_TEXT = "write a function parse_iso_date in utils/dates.py that parses ISO-8601 dates"


def start_form(run, user: str) -> dict:
    """One turn that makes a code request (no form extraction or tool selection needed)."""
    mark = len(run.script.prompts)
    frame = run.chat(REQUEST_TEXT, user=user)
    asked = run.script.prompts[mark:]
    assert not any("Your task is to fill up a JSON" in p for p in asked), "form extraction ran"
    assert not any('Create a JSON with the correct "action"' in p for p in asked), \
        "the Cat's tool selection ran for a code request"
    return frame


def test_the_form_without_a_repository_opens_a_task_and_says_what_is_missing(cat_run):
    frame = start_form(cat_run, "dave")
    assert frame["type"] == "chat", frame
    state = cat_run.plugin_state("dave")
    assert_state_shape(state)
    task = state["task_id"]
    assert task and task in state["scratchpad"]["tasks"], state
    assert FORM_REQUEST["symbol"] in json.dumps(state["scratchpad"]["tasks"][task])
    assert state["phase"] == "failed", state
    assert "repository" in frame["text"].lower(), frame["text"]  # says what to configure
    assert "repository" in state["phase_machine"]["failure_reason"].lower()


def test_the_form_proposes_meta_code_and_cancel_drops_the_task(cat_run, tmp_path):
    repo = tmp_path / "repo"
    (repo / "utils").mkdir(parents=True)
    (repo / "utils" / "text.py").write_text("def shout(s: str) -> str:\n    return s.upper()\n")
    with cat_harness.configured(cat_run, repository_path=str(repo),
                                data_folder=str(tmp_path / "data")):
        cat_run.script.rules.append(("into META-CODE", json.dumps(METACODE)))
        proposal = start_form(cat_run, "erin")
        state = cat_run.plugin_state("erin")
        cancelled = cat_run.chat("cancel", user="erin")
        after = cat_run.plugin_state("erin")
    assert proposal["type"] == "chat" and "**go**" in proposal["text"], proposal["text"]
    assert METACODE["symbol"] in proposal["text"]
    assert state["phase"] == "collecting", state
    assert state["scratchpad"]["tasks"][state["task_id"]], state
    assert "awaiting" in json.dumps(state["scratchpad"]), "the proposal is not awaiting an answer"
    assert cancelled["type"] == "chat" and state["task_id"] in cancelled["text"], cancelled
    assert after["phase"] == "failed" and "cancel" in after["phase_machine"]["failure_reason"]


BRACED_CODE = (
    "def render_pairs(pairs: dict) -> str:\n"
    "    \"\"\"Render a dict as {key=value, ...}.\"\"\"\n"
    "    return \"{\" + \", \".join(f\"{k}={v}\" for k, v in pairs.items()) + \"}\"\n"
)


def code_points(run) -> list:
    """The plugin's code points in the Cat's declarative memory."""
    points, _ = run.ccat.memory.vectors.declarative.get_all_points()
    return [p for p in points if p.payload["metadata"].get(STATE_KEY)]


def entities_mode(run) -> str:
    """The 'Code in the Cat's memory' value that copies every entity (the Cat's enum value)."""
    return run.plugin_module("app.host.settings_model").CatMemory.entities.value


def test_by_default_no_code_enters_the_cats_memory_yet_questions_get_code(cat_run, tmp_path):
    """With the Cat's default embedder (it cannot rank code), ``auto`` keeps code points out
    of the Cat's declarative memory (its per-message recall and boot stay as without the
    plugin); the plugin's own store still serves a question."""
    repo = tmp_path / "repo"
    (repo / "fmt").mkdir(parents=True)
    (repo / "fmt" / "pairs.py").write_text(BRACED_CODE)
    with cat_harness.configured(cat_run, repository_path=str(repo),
                                data_folder=str(tmp_path / "data")):
        started = cat_run.chat("index my repository", user="fay")
        cat_harness.wait_for_indexing(cat_run)
        points = code_points(cat_run)
        cat_run.script.relevance = 0.9  # scoring prompts answered
        try:
            answer = cat_run.chat("what does render_pairs do?", user="fay")
        finally:
            cat_run.script.relevance = None
    # the turn's answer or, when indexing was quicker, the summary sent from its thread
    assert started["type"] == "chat" and "Index" in str(started.get("text")
                                                        or started.get("content")), started
    assert points == []
    assert answer["type"] == "chat" and answer["text"] == cat_run.script.answer, answer
    assert "def render_pairs(pairs: dict) -> str:" in cat_run.script.prompts[-1]


def test_indexed_code_lands_in_the_cats_memory_and_reaches_the_prompt_braces_intact(
        cat_run, tmp_path):
    repo = tmp_path / "repo"
    (repo / "fmt").mkdir(parents=True)
    (repo / "fmt" / "pairs.py").write_text(BRACED_CODE)
    with cat_harness.configured(cat_run, repository_path=str(repo),
                                data_folder=str(tmp_path / "data"),
                                cat_memory=entities_mode(cat_run)):
        cat_run.script.tool_action = "index_code_repository"
        started = cat_run.chat("index my repository", user="frank")
        cat_run.script.tool_action = "no_action"
        cat_harness.wait_for_indexing(cat_run)
        points = code_points(cat_run)
        assert points, "no code point reached the Cat's declarative memory"
        sources = {p.payload["metadata"]["source"] for p in points}
        assert any("fmt/pairs.py" in s for s in sources), sources
        # the exact text of a point as the message: the Cat's DumbEmbedder recalls it (1.0)
        point = next(p for p in points if "render_pairs" in p.payload["page_content"])
        mark = len(cat_run.script.prompts)
        answer = cat_run.chat(point.payload["page_content"], user="frank")
    assert started["type"] == "chat" and "Index" in str(started.get("text")
                                                        or started.get("content")), started
    assert answer["type"] == "chat" and answer["text"] == cat_run.script.answer, answer
    main_prompt = cat_run.script.prompts[-1]
    assert len(cat_run.script.prompts) > mark
    assert "Code from the indexed repository" in main_prompt, main_prompt[-2000:]
    assert 'return "{" + ", ".join(f"{k}={v}"' in main_prompt, main_prompt[-2000:]


DRAFT = (
    "```python entity=utils/dates.py::parse_iso_date\n"
    "def parse_iso_date(text: str) -> str:\n"
    "    \"\"\"Normalise an ISO-8601 date to YYYY-MM-DD.\"\"\"\n"
    "    import datetime\n"
    "\n"
    "    return datetime.date.fromisoformat(text).isoformat()\n"
    "```\n"
)


def test_go_drafts_in_a_worker_thread_and_the_result_reaches_the_user(cat_run, tmp_path):
    repo = tmp_path / "repo"
    (repo / "utils").mkdir(parents=True)
    (repo / "utils" / "__init__.py").write_text("")
    script = cat_run.script
    with cat_harness.configured(cat_run, repository_path=str(repo),
                                data_folder=str(tmp_path / "data"), max_iterations=2,
                                check_judge=False, extended_loop=False, peer_review=False):
        script.rules += [("into META-CODE", json.dumps(METACODE)),
                         ("You write Python code for one goal", DRAFT)]
        with cat_run.session("gina") as chat:
            proposal = chat.say(REQUEST_TEXT)
            started = chat.say("go")
            cat_harness.wait_for_draft(cat_run, "gina", started)
            result = chat.wait_for(lambda f: f.get("type") == "chat", timeout=60)
        state = cat_run.plugin_state("gina")
        history = next(t for t in cat_run.ccat.mad_hatter.tools if t.name == "draft_history"
                       and t.plugin_id == PLUGIN_ID).func("", cat=cat_run.stray("gina"))
    assert "**go**" in proposal["text"], proposal
    assert "Drafting" in started["text"], started
    assert result is not None, "the draft's result never reached the user's socket"
    text = str(result.get("content") or result.get("text"))  # send_ws_message: "content"
    assert state["phase"] == "done", (state["phase_machine"], text)
    assert state["commit_id"] and state["commit_id"][:10] in text + history, \
        (state["commit_id"], text, history)
    assert "parse_iso_date" in text
    assert "draft 1" in history, history


# -- dedicated boots --------------------------------------------------------------------------

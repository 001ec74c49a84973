"""Code requests, questions, "apply" and a changed setting in a real Cat with its default
embedder (opt-in: CCAT_CORE_DIR).

The Cat picks forms and tools by the embedding similarity of their examples; with its default
DumbEmbedder that is a coin toss, so these turns must reach the plugin without the Cat's own
tool selection or form extraction ever being asked.
"""

from __future__ import annotations

import json

import pytest

from . import cat_harness
from .cat_doubles import SLUGIFY_DRAFT as GOOD
from .cat_doubles import SLUGIFY_METACODE as METACODE
from .cat_harness import PLUGIN_ID

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]

TOOL_SELECTION = 'Create a JSON with the correct "action"'
FORM_EXTRACTION = "Your task is to fill up a JSON"
SECTION = "# Code from the indexed repository"
SOURCE = ("def parse_iso(text):\n    \"\"\"Parse an ISO date.\"\"\"\n"
          "    return {'year': text[:4]}\n")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    (root / "text").mkdir()
    (root / "text" / "slug.py").write_text("def other():\n    return 1\n")
    (root / "text" / "dates.py").write_text(SOURCE)
    return root


@pytest.fixture(scope="module")
def cat(cat_run, repo, tmp_path_factory):
    """The shared Cat, configured for the repository (indexed), with the plugin's prompts
    scripted: meta-code, a passing draft, relevance 0.9 for everything."""
    data = tmp_path_factory.mktemp("data")
    with cat_harness.configured(cat_run, repository_path=str(repo), data_folder=str(data),
                                max_iterations=2, check_judge=False, extended_loop=False):
        cat_run.script.rules += [
            ("into META-CODE", json.dumps(METACODE)), ("You write Python code", GOOD)]
        cat_run.script.relevance = 0.9
        cat_run.script.tools = [("index my repository", "index_code_repository")]
        started = cat_run.chat("index my repository", user="indexer")
        # the turn's answer or, when indexing was quicker, the summary sent from its thread
        assert "Index" in str(started.get("text") or started.get("content")), started
        cat_harness.wait_for_indexing(cat_run)
        yield cat_run
        cat_run.script.tools = []
        cat_run.script.relevance = None


@pytest.mark.parametrize("phrasing", [
    "write a function slugify in text/slug.py that turns a title into a URL slug",
    "Could you implement a slugify function in text/slug.py?",
    "I need a function that turns titles into slugs in text/slug.py",
    "wirte a fucntion slugify in text/slug.py",
    "fix slugify in text/slug.py: it keeps the capitals",
    "scrivi una funzione slugify in text/slug.py",
    "schreib eine Funktion slugify in text/slug.py",
    "add a method to_slug to the Title class",
])
def test_a_code_request_reaches_the_request_flow_in_any_phrasing(cat, phrasing):
    user = f"u{abs(hash(phrasing)) % 10**8}"
    mark = len(cat.script.prompts)
    reply = cat.chat(phrasing, user=user)["text"]
    asked = cat.script.prompts[mark:]
    assert "**go**" in reply or "Which file should the code go in?" in reply, reply
    assert not any(TOOL_SELECTION in p or FORM_EXTRACTION in p for p in asked)
    cat.chat("cancel", user=user)


def test_a_question_gets_the_plugins_retrieval_small_talk_does_not(cat):
    mark = len(cat.script.prompts)
    answer = cat.chat("what does parse_iso do?", user="questioner")
    asked = cat.script.prompts[mark:]
    assert answer["text"] == cat.script.answer
    assert not any(TOOL_SELECTION in p for p in asked), "search_code was offered anyway"
    others = [p for p in asked if not p.startswith("You rate how useful")]
    assert len(others) == 1, [p[:80] for p in others]  # the answer; the rest is scoring
    main_prompt = asked[-1]
    assert SECTION in main_prompt and "return {'year': text[:4]}" in main_prompt  # braces kept
    mark = len(cat.script.prompts)
    assert cat.chat("hello, how are you?", user="questioner")["text"] == cat.script.answer
    assert SECTION not in cat.script.prompts[-1]
    assert not any("You rate how useful" in p for p in cat.script.prompts[mark:])


def test_apply_writes_the_draft_once_and_only_for_its_user(cat, repo):
    target = repo / "text" / "slug.py"
    original = target.read_text()
    with cat.session("writer") as chat:
        assert "**go**" in chat.say("write a function slugify in text/slug.py that turns a "
                                    "title into a URL slug")["text"]
        chat.say("go")
        cat_harness.wait_for_draft(cat, "writer")
        assert chat.wait_for(lambda f: "Draft committed" in str(f.get("content")), 60)
        applied = chat.say("apply")["text"]
        assert applied.startswith("Applied draft `") and "`text/slug.py`" in applied
        assert "already applied" in chat.say("apply")["text"]
    assert "def slugify" in target.read_text() and "def other" in target.read_text()
    assert cat.chat("apply", user="bystander")["text"] == cat.script.answer  # the Cat's answer
    target.write_text(original)


def test_a_setting_saved_through_the_cats_api_reaches_the_running_project(cat):
    """The scorer says 0.6 (0.7 with the recency boost): under a 0.95 threshold the answer's
    prompt gets no scored code, under 0.5 it does; same project object, no restart."""
    url = f"/plugins/settings/{PLUGIN_ID}"
    project = cat.plugin_module("app.process").GENERATION.registry.projects()[0]
    cat.script.relevance = 0.6
    question = "how does parse_iso work?"
    try:
        assert cat.client.put(url, json={"relevance_threshold": 0.95}).status_code == 200
        cat.chat(question, user="tuner")
        assert "[relevance:" not in cat.script.prompts[-1]
        assert project.code.relevance_threshold == 0.95
        assert cat.client.put(url, json={"relevance_threshold": 0.5}).status_code == 200
        cat.chat(question, user="tuner")
        assert "[relevance: 0.7" in cat.script.prompts[-1], cat.script.prompts[-1][-1500:]
        registry = cat.plugin_module("app.process").GENERATION.registry
        assert registry.projects() == [project]  # not rebuilt
    finally:
        cat.script.relevance = 0.9
        cat.client.put(url, json={"relevance_threshold": 0.7})

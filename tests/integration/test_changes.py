"""Changes that touch several files in a real Cat 1.9.2 (opt-in: CCAT_CORE_DIR): a signature
change with callers in several modules, a rename across the package (no LLM call), and a
rename refused for a dynamic use. The repository and the model are those of
tests/unit/glue/test_changes_that_ripple.py."""

from __future__ import annotations

import pytest

from ..fakes import FunctionLLM
from ..unit.glue.test_changes_that_ripple import REPO, REQUEST, SETTINGS, answer, make_repository
from . import cat_harness
from .cat_doubles import make_fake_llm

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]


class _Script:
    def __init__(self, llm):
        self.llm = llm

    def reply(self, prompt):
        return self.llm(prompt)


@pytest.fixture
def changes_cat(boot_cat, tmp_path):
    def boot(files):
        repo = make_repository(tmp_path / "repo", files)
        stored = {**SETTINGS, "repository_path": str(repo), "data_folder": str(tmp_path / "d")}
        return repo, boot_cat(settings=stored, workdir=tmp_path / "cat")

    return boot


def _start(run):
    llm = FunctionLLM(answer, limit=40)
    run.ccat._llm = make_fake_llm(_Script(llm))
    assert "index" in run.message("index my repository", user="indexer").lower()
    cat_harness.wait_for_indexing(run)
    return llm


def test_a_signature_change_with_callers_in_several_modules(changes_cat):
    repo, booted = changes_cat(REPO)
    with booted as run:
        llm = _start(run)
        with run.session("alice") as chat:
            proposal = chat.say(REQUEST)["text"]
            assert "is used in 3 places in 2 files" in proposal, proposal
            assert "app/main.py" in proposal and "app/cli.py" in proposal
            assert chat.say("go")["text"].startswith("Drafting `fetch`")
            cat_harness.wait_for_draft(run, "alice")
            result = chat.wait_for(lambda f: str(f.get("content", "")).startswith(
                "Draft committed"), timeout=120)
            assert result is not None, [str(f.get("content"))[:400] for f in chat.frames[-4:]]
            assert "3 file(s) changed" in result["content"]
            assert sum("several places" in p[:80] for p in llm.prompts) == 1
            assert chat.say("apply")["text"].startswith("Applied draft `")
    assert "http.fetch(argv[0], 10)" in (repo / "app" / "cli.py").read_text()
    assert "def fetch(url, timeout):" in (repo / "net" / "http.py").read_text()


def test_a_rename_across_the_package(changes_cat):
    repo, booted = changes_cat(REPO)
    with booted as run:
        llm = _start(run)
        before = len(llm.prompts)
        started = run.message("rename fmt_ts to format_timestamp")
        assert started.startswith("Rename `fmt_ts` to `format_timestamp` (task"), started
        cat_harness.wait_for_draft(run, "alice")
        assert "draft 1: format_timestamp passes all checks" in \
            run.message("show the draft history")
        assert run.message("apply").startswith("Applied draft `")
        assert llm.prompts[before:] == []  # no model call at all, the Cat's included
    report = (repo / "app" / "report.py").read_text()
    assert "format_timestamp" in report and "fmt_ts" not in report


def test_a_rename_refused_for_a_dynamic_use(changes_cat):
    files = {**REPO, "app/hooks.py": "import utils.time\n\n\ndef pick():\n"
                                     "    return getattr(utils.time, 'fmt_ts')\n"}
    repo, booted = changes_cat(files)
    with booted as run:
        _start(run)
        refused = run.message("rename fmt_ts to format_timestamp")
        assert refused.startswith("I did not rename `fmt_ts`: nothing was changed."), refused
        assert "app/hooks.py:5" in refused
    assert (repo / "utils" / "time.py").read_text() == files["utils/time.py"]


PLAIN_REQUEST = "add a timeout parameter to fetch and pass it from every caller " \
                "(default 10 seconds)"


def _ripple_by_plain_word(run, chat, llm, *, answer_file):
    first = chat.say(PLAIN_REQUEST)["text"]
    if answer_file:
        assert first.startswith("Which file should the code go in?"), first
        proposal = chat.say("net/http.py")["text"]
    else:
        assert "Which file" not in first, first
        proposal = first
    assert "`fetch` (net/http.py:1-2) is used in 3 places in 2 files" in proposal, proposal
    assert "**Scope**" in proposal and "`app/cli.py` :: `main`" in proposal, proposal
    assert chat.say("go")["text"].startswith("Drafting `fetch`")
    cat_harness.wait_for_draft(run, "alice")
    result = chat.wait_for(lambda f: str(f.get("content", "")).startswith(
        "Draft committed"), timeout=120)
    assert result is not None, [str(f.get("content"))[:400] for f in chat.frames[-4:]]
    assert "3 file(s) changed" in result["content"]
    assert chat.say("apply")["text"].startswith("Applied draft `")


@pytest.mark.parametrize("several", [False, True], ids=["one-file", "asks-for-the-file"])
def test_a_ripple_whose_target_is_a_plain_word(changes_cat, several):
    """"fetch" is linked through the index: with one file defining it the form does not ask;
    with two it asks, and the answer links it; either way the callers are the scope and the
    committed change updates them."""
    files = {**REPO, "net/mock.py": "def fetch(url):\n    return 'mock'\n"} if several else REPO
    repo, booted = changes_cat(files)
    with booted as run:
        llm = _start(run)
        with run.session("alice") as chat:
            _ripple_by_plain_word(run, chat, llm, answer_file=several)
    assert "http.fetch(argv[0], 10)" in (repo / "app" / "cli.py").read_text()
    assert "fetch(url, timeout)" in (repo / "app" / "main.py").read_text()
    assert "def fetch(url, timeout):" in (repo / "net" / "http.py").read_text()

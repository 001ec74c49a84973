"""LLM calls and prompt size of real requests, end to end through a real Cat.

Boots a Cheshire Cat 1.9.2 in-process (the integration harness: ``CCAT_CORE_DIR`` names its
core; run with the Python of the Cat's venv) with its default embedder and a counting scripted
model (tests/integration/cat_doubles.py), indexes a six-file repository and measures:

(a) a question about the code ("what does parse_date do?"): every LLM call of the turn;
(b) a code request with one correction and two iterations (the first draft fails an example),
    with the default loop settings (judge, extended loop, documentation, peer review): every
    call from the request to the result, the Cat's own included (tool selection, form
    extraction, exit checks, final answers, when they happen);
(c) a change with callers: "add a timeout parameter to fetch_json ... and pass it from every
    caller", whose meta-code has a scope (two callers in two files), two iterations (the first
    reply forgets a caller, which the call-site check names), the same default settings;
(d) a rollback of (b)'s task to its start ("roll back to the start").

Every prompt the Cat's model receives is counted, whoever sends it; scoring calls are also
shown apart (their number depends on the scoring mode: pointwise is one call per candidate).
Prompt tokens: cl100k_base when tiktoken has it cached, else estimated as characters / 4.
Run: ``CCAT_CORE_DIR=/path/to/core /path/to/catvenv/bin/python -m tests.run
bench.llm_budget_bench``.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys
import tempfile

from ..tests.integration import cat_harness
from ..tests.integration.cat_doubles import cl100k_cached

#: Both scoring schemes' prompts start so (pointwise: "a stored memory", listwise: "each").
SCORING = "You rate how useful"
FILES = {
    "text_utils.py": "def slugify(text):\n    return '-'.join(text.lower().split())\n\n\n"
                     "def shout(text):\n    return text.upper() + '!'\n",
    "dates.py": "import datetime\n\n\ndef parse_date(text):\n    \"\"\"Parse YYYY-MM-DD.\"\"\"\n"
                "    return datetime.date.fromisoformat(text)\n\n\ndef weekday(text):\n"
                "    return parse_date(text).strftime('%A')\n",
    "config.py": "import json\n\n\ndef load_config(path):\n    with open(path) as f:\n"
                 "        return json.load(f)\n",
    "models.py": "class User:\n    def __init__(self, name):\n        self.name = name\n\n"
                 "    def greet(self):\n        return f'hi {self.name}'\n",
    "net.py": "def build_url(host, path):\n    return f'https://{host}/{path.lstrip(\"/\")}'\n",
    "cli.py": "from text_utils import slugify\n\n\ndef main(argv):\n"
              "    return slugify(' '.join(argv))\n",
    "http_client.py": "def fetch_json(url):\n    return {'url': url}\n",
    "users.py": "from http_client import fetch_json\n\n\ndef load_user(uid):\n"
                "    return fetch_json(f'/users/{uid}')\n",
    "reports.py": "import http_client\n\n\ndef load_report(rid):\n"
                  "    return http_client.fetch_json(f'/reports/{rid}')\n",
}
METACODE = {
    "target_path": "text_utils.py", "symbol": "word_count", "kind": "function",
    "signature": "def word_count(text: str) -> int",
    "behaviour": "Count the words of the text, ignoring punctuation.",
    "inputs": [{"name": "text", "type": "str", "description": "any text"}],
    "outputs": [{"name": "return", "type": "int", "description": "the number of words"}],
    "examples": [{"call": "word_count('a b c')", "expected": 3},
                 {"call": "word_count('hi, there!')", "expected": 2}],
    "constraints": ["standard library only"],
    # cited as the meta-code prompt asks: the passing example settles the check (no judge)
    "acceptance_checks": ["punctuation is ignored (shown by word_count('hi, there!'))"],
    "assumptions": []}
WRONG = ("```python entity=text_utils.py::word_count\ndef word_count(text: str) -> int:\n"
         "    return len(text)\n```\n")
GOOD = ("```python entity=text_utils.py::word_count\ndef word_count(text: str) -> int:\n"
        "    import re\n    return len(re.findall(r\"[A-Za-z0-9']+\", text))\n```\n")
SCOPED = {
    "target_path": "http_client.py", "symbol": "fetch_json", "kind": "function",
    "signature": "def fetch_json(url, timeout)",
    "behaviour": "Fetch url as JSON, giving up after timeout seconds.",
    "examples": [{"call": "fetch_json('/a', 5)", "expected": {"url": "/a", "timeout": 5}}],
    "acceptance_checks": ["every caller passes a timeout"],
    "scope": [{"path": "users.py", "symbol": "load_user", "why": "passes timeout=10"},
              {"path": "reports.py", "symbol": "load_report", "why": "passes timeout=30"}]}
FETCH = ("```python entity=http_client.py::fetch_json\ndef fetch_json(url, timeout):\n"
         "    return {'url': url, 'timeout': timeout}\n```\n")
USER = ("```python entity=users.py::load_user\ndef load_user(uid):\n"
        "    return fetch_json(f'/users/{uid}', timeout=10)\n```\n")
REPORT = ("```python entity=reports.py::load_report\ndef load_report(rid):\n"
          "    return http_client.fetch_json(f'/reports/{rid}', timeout=30)\n```\n")
RULES = [
    # (b) asks for meta-code twice (proposal, revision), then (c) once
    ("into META-CODE", [json.dumps(METACODE), json.dumps(METACODE), json.dumps(SCOPED)]),
    ("You write Python code for one goal across several places", [FETCH + USER,
                                                                  FETCH + USER + REPORT]),
    ("You write Python code for one goal", [WRONG, GOOD]),
    ("You are a strict reviewer", json.dumps({"checks": [{"check": 1, "pass": True,
                                                          "reason": "ok"}]})),
    ("and write its documentation",  # the review and the documentation, in one call
     json.dumps({"verdict": "approve", "comments": [], "docstring": "Count the words of text.",
                 "note": "word_count added"})),
    ("Write documentation for the accepted draft",
     json.dumps({"docstring": "Count the words of text.", "note": "word_count added"})),
    ("You are a senior peer reviewer", json.dumps({"verdict": "approve", "comments": []})),
]


def tokens(prompts: list[str]) -> tuple[int, str]:
    """Prompt tokens of ``prompts`` and how they were counted."""
    if cl100k_cached():
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
        return sum(len(encoding.encode(p)) for p in prompts), "cl100k_base"
    return sum(len(p) for p in prompts) // 4, "characters/4 (cl100k_base not cached)"


def report(name: str, prompts: list[str]) -> dict:
    scoring = sum(p.startswith(SCORING) for p in prompts)
    count, how = tokens(prompts)
    kinds: dict[str, int] = {}
    for prompt in prompts:
        kind = "scoring" if prompt.startswith(SCORING) else prompt.split("\n", 1)[0][:60]
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"scenario": name, "llm_calls": len(prompts), "scoring_calls": scoring,
            "other_calls": len(prompts) - scoring, "prompt_tokens": count, "tokens_by": how,
            "calls_by_prompt": kinds}


def question(run: cat_harness.CatRun) -> dict:
    mark = len(run.script.prompts)
    run.chat("what does parse_date do?", user="asker")
    return report("(a) question about the code", run.script.prompts[mark:])


def request(run: cat_harness.CatRun) -> dict:
    mark = len(run.script.prompts)
    with run.session("writer") as chat:
        chat.say("write a function word_count in text_utils.py that counts the words of a "
                 "string")
        chat.say("it must ignore punctuation")
        chat.say("go")
        cat_harness.wait_for_draft(run, "writer")
        result = chat.wait_for(lambda f: "LLM calls" in str(f.get("content")), timeout=120)
    text = str((result or {}).get("content", ""))
    said = re.search(r"\((\d+) LLM calls\)", text)
    out = report("(b) code request, one correction, two iterations", run.script.prompts[mark:])
    out["result_message_says"] = int(said.group(1)) if said else None
    out["result"] = text.split("\n", 1)[0]
    return out


def rollback(run: cat_harness.CatRun) -> dict:
    mark = len(run.script.prompts)
    with run.session("writer") as chat:
        answer = chat.say("roll back to the start")
    out = report("(d) rollback of (b)'s task to its start", run.script.prompts[mark:])
    out["result"] = str(answer.get("text", "")).split("\n", 1)[0]
    return out


def change_with_callers(run: cat_harness.CatRun) -> dict:
    mark = len(run.script.prompts)
    with run.session("changer") as chat:
        chat.say("add a timeout parameter to fetch_json in http_client.py and pass it from "
                 "every caller")
        chat.say("go")
        cat_harness.wait_for_draft(run, "changer")
        result = chat.wait_for(lambda f: "LLM calls" in str(f.get("content")), timeout=120)
    text = str((result or {}).get("content", ""))
    said = re.search(r"\((\d+) LLM calls\)", text)
    out = report("(c) change with callers: 2 callers in 2 files, two iterations",
                 run.script.prompts[mark:])
    out["result_message_says"] = int(said.group(1)) if said else None
    out["result"] = text.split("\n", 1)[0]
    return out


def main() -> int:
    core = cat_harness.configured_core()
    problem = cat_harness.core_problem(core) if core else cat_harness.HOW_TO_ENABLE
    if problem:
        print(problem, file=sys.stderr)
        return 2
    work = pathlib.Path(tempfile.mkdtemp(prefix="llm_budget_"))
    repo = work / "repo"
    repo.mkdir()
    for name, text in FILES.items():
        (repo / name).write_text(text)
    settings = {"repository_path": str(repo), "data_folder": str(work / "data")}
    with cat_harness.booted_cat(core, work / "cat", settings=settings) as run:
        run.script.rules += RULES
        run.script.relevance = 0.8
        run.script.tools = [("index my repository", "index_code_repository")]
        run.chat("index my repository", user="indexer")
        cat_harness.wait_for_indexing(run)
        results = [question(run), request(run), rollback(run), change_with_callers(run)]
    for result in results:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Retrieval through CodeMemorySystem: CodeContext, boosts (capped, switchable), cache keys,
prompts, stats, documentation and debugging memories."""

from __future__ import annotations

import asyncio
import os
import time

from dulwich import porcelain
from dulwich.repo import Repo

from codemem.memory.code_context import search_text
from codemem.memory.codebase import CodeContext, CodeMemorySystem

from ....fakes import AsyncFunctionLLM, scoring_blocks
from .helpers import make_system, scorer, write_tree


def _names(memories) -> dict[str, float]:
    return {(m.metadata or {}).get("qualified_name") or m.metadata.get("type"): m.relevance_score
            for m in memories}


def _retrieve(system, context, **kw):
    return asyncio.run(system.retrieve_relevant_memories(context, **kw))


def test_dependency_boost_raises_related_entities_only(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool, llm=scorer({}, default=0.6),
                         enable_recency_boost=False)
    system.index_repository(str(repo))
    got = _names(_retrieve(system, CodeContext("how does login work?",
                                               current_file=str(repo / "api" / "auth.py"))))
    # imported by auth.py, called by it, or calling into it: 0.6 + 0.15
    assert set(got) == {"get_user", "Token", "Token.issue", "Token.revoke", "audited_login"}
    assert all(abs(score - 0.75) < 1e-9 for score in got.values())
    boosted = _retrieve(system, CodeContext("login", current_file="api/auth.py"))
    assert "calls into the current file" in next(
        m.reasoning for m in boosted if m.metadata["qualified_name"] == "audited_login")
    system.close()


def test_boosts_can_be_switched_off_and_are_capped(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    off = make_system(tmp_path, pool, llm=scorer({}, default=0.6),
                      enable_dependency_boost=False, enable_recency_boost=False)
    off.index_repository(str(repo))
    assert _retrieve(off, CodeContext("login", current_file="api/auth.py")) == []
    off.close()
    (tmp_path / "other").mkdir()
    high = make_system(tmp_path / "other", pool, llm=scorer({}, default=0.95))
    high.index_repository(str(repo))
    got = _names(_retrieve(high, CodeContext("login", current_file="api/auth.py")))
    assert got["get_user"] == 1.0 and max(got.values()) == 1.0
    high.close()


def _commit(repo_dir: str, paths: list[str], message: bytes, when: int) -> None:
    porcelain.add(repo_dir, [os.path.join(repo_dir, p) for p in paths])
    with Repo(repo_dir) as r:
        r.do_commit(message, committer=b"t <t@t>", author=b"t <t@t>",
                    commit_timestamp=when, author_timestamp=when,
                    commit_timezone=0, author_timezone=0)


def test_recency_boost_uses_git_history(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    Repo.init(str(repo)).close()
    now = int(time.time())
    _commit(str(repo), ["api/auth.py", "api/users.py", "models/token.py", "util/audit.py",
                        "web/app.ts"], b"old", now - 40 * 86400)
    (repo / "api" / "users.py").write_text("def get_user(name):\n    return name\n")
    _commit(str(repo), ["api/users.py"], b"recent", now - 86400)
    system = make_system(tmp_path, pool, llm=scorer({}, default=0.65),
                         enable_dependency_boost=False)
    system.index_repository(str(repo))
    got = _names(_retrieve(system, "who are the users?"))
    assert set(got) == {"get_user"} and abs(got["get_user"] - 0.75) < 1e-9
    # an uncommitted edit counts as recent too
    (repo / "web" / "app.ts").write_text("export function renderPage(): string {\n"
                                         "  return '';\n}\n")
    system.index_repository(str(repo))
    assert "renderPage" in _names(_retrieve(system, "render the page"))
    system.close()


def scored_since(llm, calls: int) -> int:
    """Memories shown to the scorer since call number ``calls`` (either scheme)."""
    return sum(len(scoring_blocks(p)[1]) for p in llm.prompts[calls:])


def test_file_hashes_key_the_score_cache(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    llm = scorer({}, default=0.8)
    system = make_system(tmp_path, pool, llm=llm)
    system.index_repository(str(repo))
    ctx = CodeContext("login", current_file="api/users.py")
    first = _retrieve(system, ctx)
    calls = llm.calls
    assert calls > 0 and all(not m.cached for m in first)
    assert all(m.cached for m in _retrieve(system, ctx)) and llm.calls == calls
    (repo / "api" / "users.py").write_text(
        "def get_user(name):\n    return {'name': name}\n\n\ndef list_users():\n"
        "    return ['x']\n")
    system.index_repository(str(repo))
    calls = llm.calls
    _retrieve(system, ctx)
    assert scored_since(llm, calls) == len(first)  # new file version: every candidate re-scored
    calls = llm.calls
    _retrieve(system, ctx, include_file_hashes=False)
    _retrieve(system, ctx, include_file_hashes=False)
    assert scored_since(llm, calls) == len(first)  # the second of these hit the cache
    system.close()


def test_query_prompt_docs_debugging_and_stats(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo)
    system = make_system(tmp_path, pool, llm=scorer({"JWT": 0.9, "render": 0.8}, 0.1))
    ids = system.index_repository(str(repo))
    doc = system.add_documentation_memory("Authentication Flow", "Users log in with JWT.",
                                          category="architecture", file_path="api/auth.py")
    dbg = system.add_debugging_session("None user", "AttributeError: 'NoneType'",
                                       "check for None", file_path="api/auth.py")
    assert system.get_memory(doc)["metadata"]["category"] == "architecture"
    assert "Solution: check for None" in system.get_memory(dbg)["text"]
    primary = AsyncFunctionLLM(lambda prompt: "answer")
    reply = asyncio.run(system.query(CodeContext("How is JWT used to render the page?",
                                                 errors="boom"), primary))
    assert reply == "answer"
    prompt = primary.prompts[0]
    assert "Authentication Flow" in prompt and "How is JWT used to render the page?" in prompt
    assert "return `<h1>${title}</h1>`;" in prompt  # code braces survive formatting
    only_code = _retrieve(system, "JWT render", filters={"type": "code_entity"})
    assert only_code and all(m.metadata["type"] == "code_entity" for m in only_code)
    custom = asyncio.run(system.query("render", primary,
                                      custom_prompt_template="Q={query}\n{memories}\n{x}"))
    assert custom == "answer" and primary.prompts[1].startswith("Q=render\n")
    assert primary.prompts[1].endswith("{x}")
    stats = system.get_stats()
    assert stats["total_code_memories"] == len(ids)
    assert stats["total_non_code_memories"] == 2
    assert stats["total_memories"] == len(ids) + 2
    assert stats["cache_stats"]["size"] > 0
    assert (stats["relevance_threshold"], stats["max_memories"]) == (0.7, 15)
    system.clear_cache()
    assert system.get_stats()["cache_stats"]["size"] == 0
    system.close()


def test_seed_constructor_defaults(tmp_path):
    import inspect

    params = inspect.signature(CodeMemorySystem.__init__).parameters
    seed = ["small_model_fn", "db_path", "relevance_threshold", "max_memories", "batch_size",
            "enable_caching", "enable_dependency_boost", "enable_recency_boost",
            "dependency_boost_amount", "recency_boost_amount", "recency_days",
            "retry_attempts", "retry_delay"]
    assert [p for p in params if p != "self"][: len(seed)] == seed
    defaults = {k: params[k].default for k in seed[1:]}
    assert defaults == {"db_path": "code_memories.db", "relevance_threshold": 0.7,
                        "max_memories": 15, "batch_size": 10, "enable_caching": True,
                        "enable_dependency_boost": True, "enable_recency_boost": True,
                        "dependency_boost_amount": 0.15, "recency_boost_amount": 0.10,
                        "recency_days": 7, "retry_attempts": 3, "retry_delay": 1.0}
    from codemem.memory import CodeContext as Exported
    from codemem.memory import CodeMemorySystem as Cms

    assert Exported is CodeContext and Cms is CodeMemorySystem


CROWD = {
    "net/parser.py": (
        "class Parser:\n"
        "    \"\"\"Reads frames.\"\"\"\n\n"
        "    def verify(self, frame):\n"
        "        digest = checksum(frame.payload)\n"
        "        return digest == frame.digest\n\n"
        "    def close(self):\n"
        "        return None\n"
    ),
    "net/query.py": "def build_query(table):\n    return 'SELECT * FROM ' + table\n",
}


def test_a_class_is_not_matched_through_its_methods_bodies(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo, CROWD)
    system = make_system(tmp_path, pool)
    system.index_repository(str(repo))
    names = [c.metadata["qualified_name"] for c in system.candidates("compare payload digests")]
    assert names == ["Parser.verify"]
    assert [c.metadata["qualified_name"] for c in system.candidates("reads frames")][0] \
        == "Parser"
    system.close()


def test_context_labels_are_not_search_terms(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo, CROWD)
    system = make_system(tmp_path, pool)
    system.index_repository(str(repo))
    ctx = CodeContext("verify a frame", errors="ValueError: bad digest",
                      current_file="net/parser.py")
    assert search_text(ctx) == "verify a frame\nValueError: bad digest"
    names = [c.metadata["qualified_name"] for c in system.candidates(ctx)]
    assert names[0] == "Parser.verify" and "build_query" not in names  # no "Query:" label
    system.close()


def test_a_code_question_with_renderings_reaches_the_named_entity(tmp_path, pool):
    repo = tmp_path / "repo"
    write_tree(repo, {"fsutil.py": "import os\n\n\ndef readlink(path):\n"
                                  "    return os.readlink(path)\n\n\n"
                                  "def size(path):\n    return os.stat(path).st_size\n"})
    llm = scorer({}, default=0.9)
    system = make_system(tmp_path, pool, llm=llm, enable_recency_boost=False)
    system.index_repository(str(repo))
    question = CodeContext("where does a shortcut point to?")
    assert system.candidates(question) == []
    found = _names(_retrieve(system, question, renderings=["readlink"]))
    assert set(found) == {"readlink"} and llm.calls == 1
    system.close()

"""One home per setting: each core states its defaults once, in one table, and every other
declaration of the same parameter reads it, the plugin's settings model included.

A declaration that drifts (a constructor, a dataclass field or a settings field that states its
own value) fails here, naming the declaration and the parameter.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pathlib
from enum import Enum

import pytest
from pydantic import BaseModel

from codemem.app.host.core_config import PluginConfig, ProjectConfig
from codemem.app.host.settings_model import PluginSettings, SandboxChoice
from codemem.codegen import DRAFT_RUN_DEFAULTS, SandboxPolicy
from codemem.codegen.checks.lint import lint_source
from codemem.codegen.checks.pycheck import check_parse
from codemem.codegen.checks.pytest_runner import run_tests
from codemem.codegen.checks.validate import validate_draft
from codemem.codegen.loop.state import LoopConfig
from codemem.codegen.sandbox.api import run_in_sandbox
from codemem.memory import (
    CODE_MEMORY_DEFAULTS,
    MEMORY_DEFAULTS,
    CodeMemorySystem,
    MemorySystem,
    SyncMemorySystem,
)
from codemem.memory.codeindex.watch import WATCH_DEFAULTS, PollingWatch, watch_changes
from codemem.memory.sources.clone import CLONE_DEFAULTS
from codemem.memory.system_config import RetrievalConfig

ROOT = pathlib.Path(__file__).resolve().parents[2]


def declared(target: object) -> dict[str, object]:
    """The defaults a callable, a dataclass or a settings model states, by parameter name."""
    if isinstance(target, type) and issubclass(target, BaseModel):
        return {name: _plain(field.default) for name, field in target.model_fields.items()}
    return {name: _plain(p.default) for name, p in inspect.signature(target).parameters.items()
            if p.default is not inspect.Parameter.empty}


def _plain(value: object) -> object:
    if isinstance(value, SandboxChoice):
        return value.policy()
    return value.value if isinstance(value, Enum) and not isinstance(value, SandboxPolicy) \
        else value


#: (declaration, its table, the parameters it must declare, names it spells differently)
DECLARATIONS = [
    (MemorySystem, MEMORY_DEFAULTS, set(dataclasses.asdict(MEMORY_DEFAULTS)), {}),
    (RetrievalConfig, MEMORY_DEFAULTS, set(dataclasses.asdict(MEMORY_DEFAULTS)), {}),
    (SyncMemorySystem, MEMORY_DEFAULTS, {"relevance_threshold", "max_memories", "batch_size",
                                         "retry_attempts", "retry_delay"}, {}),
    (CodeMemorySystem, CODE_MEMORY_DEFAULTS,
     set(dataclasses.asdict(CODE_MEMORY_DEFAULTS)) - {"candidate_limit", "llm_timeout",
                                                      "scoring_mode"}, {}),
    (LoopConfig, DRAFT_RUN_DEFAULTS, set(dataclasses.asdict(DRAFT_RUN_DEFAULTS)), {}),
    (validate_draft, DRAFT_RUN_DEFAULTS, {"python_version", "timeout_s", "memory_mb",
                                          "sandbox_policy"}, {}),
    (check_parse, DRAFT_RUN_DEFAULTS, {"python_version"}, {}),
    (lint_source, DRAFT_RUN_DEFAULTS, {"python_version"}, {"timeout_s": "the linter's own"}),
    (run_tests, DRAFT_RUN_DEFAULTS, {"sandbox_policy"}, {"policy": "sandbox_policy"}),
    (run_in_sandbox, DRAFT_RUN_DEFAULTS, {"sandbox_policy"}, {"require": "sandbox_policy"}),
    # the plugin: its project is a CodeMemorySystem, its drafts a draft run
    (PluginSettings, CODE_MEMORY_DEFAULTS,
     set(dataclasses.asdict(CODE_MEMORY_DEFAULTS)) - {"candidate_limit", "llm_timeout",
                                                      "retry_attempts"},
     {"retry_attempts": "the plugin's own"}),
    (PluginSettings, DRAFT_RUN_DEFAULTS, {"python_version", "timeout_s", "memory_mb",
                                          "sandbox_policy"},
     {"test_timeout_s": "timeout_s", "memory_limit_mb": "memory_mb",
      "max_iterations": "the plugin's own"}),
    # the watch's timing and a clone's limits (issue 37)
    (watch_changes, WATCH_DEFAULTS, set(dataclasses.asdict(WATCH_DEFAULTS)), {}),
    (PollingWatch, WATCH_DEFAULTS, set(dataclasses.asdict(WATCH_DEFAULTS)), {}),
    (PluginSettings, WATCH_DEFAULTS, {"quiet_s"}, {"watch_quiet_s": "quiet_s"}),
    (PluginSettings, CLONE_DEFAULTS, {"max_mb", "timeout_s"},
     {"source_clone_max_mb": "max_mb", "source_clone_timeout_s": "timeout_s",
      "test_timeout_s": "the draft run's"}),
]


@pytest.mark.parametrize(("declaration", "table", "expected", "spelled"), DECLARATIONS,
                         ids=lambda v: getattr(v, "__qualname__", None) or "")
def test_every_declaration_states_its_tables_values(declaration, table, expected, spelled):
    values = {spelled.get(name, name): value for name, value in declared(declaration).items()}
    wanted = dataclasses.asdict(table)
    shared = set(values) & set(wanted)
    assert expected <= shared, f"{declaration} does not declare {sorted(expected - shared)}"
    drift = {name: (values[name], wanted[name]) for name in sorted(shared)
             if values[name] != wanted[name]}
    assert not drift, f"{declaration} states (its value, the table's): {drift}"


def test_the_plugin_states_its_own_defaults_only_where_it_differs_on_purpose():
    """The settings model holds the plugin's defaults; the configuration derived from it holds
    none of its own (a project built without the Cat takes the default settings')."""
    own = set(declared(PluginSettings)) - set(dataclasses.asdict(CODE_MEMORY_DEFAULTS)) - {
        "test_timeout_s", "memory_limit_mb", "python_version", "sandbox_policy"}
    assert PluginSettings().max_iterations != DRAFT_RUN_DEFAULTS.max_iterations
    assert "max_iterations" in own
    # one re-ask of an unreadable scoring answer, then the unscored ranking (issue 30)
    assert PluginSettings().retry_attempts == 2 != CODE_MEMORY_DEFAULTS.retry_attempts
    defaults = PluginConfig.from_settings(PluginSettings(), "/data")
    bare = ProjectConfig(root="/r", data_dir="/data", embedder_name="E")
    assert bare.tuning == defaults.tuning and bare.scope == defaults.scope
    for kind in (type(bare.tuning), type(bare.scope)):
        assert not declared(kind), f"{kind.__name__} states defaults of its own"


def _documented() -> tuple[dict[str, dict[str, object]], dict[str, tuple[str, str]]]:
    """docs/memory-api.md: the two signatures' keyword defaults, and the table's two columns."""
    text = (ROOT / "docs" / "memory-api.md").read_text(encoding="utf-8")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    calls = {}
    for source in block.strip().split("\n\n"):  # each signature, read as a function's
        args = ast.parse(f"def {source.strip()}: ...").body[0]
        named = args.args.args[len(args.args.args) - len(args.args.defaults):]
        pairs = [*zip(named, args.args.defaults, strict=True),
                 *zip(args.args.kwonlyargs, args.args.kw_defaults, strict=True)]
        calls[args.name] = {arg.arg: ast.literal_eval(value) for arg, value in pairs}
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0] != "`parameter`":
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return calls, rows


def test_the_memory_api_page_states_the_tables_defaults():
    calls, rows = _documented()
    for system, table in ((MemorySystem, MEMORY_DEFAULTS), (CodeMemorySystem,
                                                           CODE_MEMORY_DEFAULTS)):
        documented = calls[system.__name__]
        assert documented == {name: value for name, value in declared(system).items()
                              if name in documented}, f"{system.__name__}'s signature"
        assert set(dataclasses.asdict(table)) - {"candidate_limit", "llm_timeout",
                                                  "scoring_mode"} <= set(documented)
    for name, (general, code) in rows.items():
        for cell, table in ((general, MEMORY_DEFAULTS), (code, CODE_MEMORY_DEFAULTS)):
            if cell:
                value = getattr(table, name)
                assert (cell == value if isinstance(value, str) else
                        ast.literal_eval(cell) == value), f"docs/memory-api.md row {name}"
    assert set(rows) == set(dataclasses.asdict(CODE_MEMORY_DEFAULTS))

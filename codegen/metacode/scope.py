"""The scope of a change: the places beyond the target it edits, and why (``MetaCode.scope``).

A request such as "add a ``timeout`` parameter to fetch and pass it from every caller" changes
the target and its callers. The proposal names each place (file, entity, why) so the user can
narrow or widen the list like any other field, the loop shows those places to the model and
validates every file they sit in, and nothing outside target and scope may be edited.

The model proposes the scope from the index's impact summary (``ports.ImpactReport``);
``scope_from_impact`` builds one without a model (every direct caller), e.g. for "update all
callers". An empty scope is a single-entity change, exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..edits.api import path_problem
from ..ports import ImpactReport

#: Places a scope may list: beyond this a change is a refactoring of its own, not one request.
MAX_SCOPE = 40
#: Why a place is in the scope when neither the model nor the index says.
DEFAULT_WHY = "part of the change"
#: How the index says a place uses the target, as the words of a default ``why``.
_HOW_WORDS = {"calls": "calls", "references": "refers to", "imports": "imports"}
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_KEYS = ("path", "symbol", "why")


@dataclass(frozen=True)
class ScopeItem:
    """One more place the change edits: ``symbol`` is a qualified name, or ``""`` for the
    module level of ``path`` (an import line, a module constant)."""

    path: str
    symbol: str = ""
    why: str = ""

    def label(self) -> str:
        return f"{self.path} :: {self.symbol}" if self.symbol else f"{self.path} (module level)"


def shape_errors(value: Any) -> list[str]:
    """What is wrong with the JSON shape of ``scope`` (a list of {path, symbol, why})."""
    if not isinstance(value, list):
        return ["scope: must be a list of objects {path, symbol, why}"]
    errs = []
    for i, item in enumerate(value):
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str):
            errs.append(f"scope[{i}]: must be an object with a string 'path'")
        elif set(item) - set(_KEYS):
            errs.append(f"scope[{i}]: unknown keys {sorted(set(item) - set(_KEYS))}")
        elif not all(isinstance(item.get(k, ""), str) for k in _KEYS):
            errs.append(f"scope[{i}]: path, symbol and why must be strings")
    return errs


def from_data(value: Sequence[Mapping[str, str]]) -> tuple[ScopeItem, ...]:
    """Items from their (shape-checked) JSON; a place listed twice counts once."""
    seen: dict[tuple[str, str], ScopeItem] = {}
    for d in value:
        item = ScopeItem(d["path"].strip(), d.get("symbol", "").strip().strip("`"),
                         " ".join(d.get("why", "").split()) or DEFAULT_WHY)
        seen.setdefault((item.path, item.symbol), item)
    return tuple(seen.values())


def to_data(items: Iterable[ScopeItem]) -> list[dict[str, str]]:
    return [{"path": i.path, "symbol": i.symbol, "why": i.why} for i in items]


def problems(items: Sequence[ScopeItem], target_path: str, symbol: str) -> list[str]:
    """Semantic problems of a scope; empty when valid."""
    errs = [f"scope: at most {MAX_SCOPE} places, got {len(items)}"] \
        if len(items) > MAX_SCOPE else []
    for i, item in enumerate(items):
        bad = path_problem(item.path)
        if bad:
            errs.append(f"scope[{i}].path: {bad}")
        if item.symbol and not _DOTTED.match(item.symbol):
            errs.append(f"scope[{i}].symbol: {item.symbol!r} is not a qualified Python name")
        if (item.path, item.symbol) == (target_path, symbol):
            errs.append(f"scope[{i}]: the target itself is not part of its scope")
    return errs


def default_why(path: str, symbol: str, target: str, impact: ImpactReport | None) -> str:
    """Why a place is in the scope when the model did not say: how the index says it uses the
    target ("calls `fetch`"), else "uses `fetch`", else ``DEFAULT_WHY``. Prose only: nothing
    later reads it but the user."""
    name = (target or (impact.symbol if impact is not None else "")).strip()
    if not name:
        return DEFAULT_WHY
    sites = impact.sites if impact is not None else ()
    how = next((s.how for s in sites if (s.path, s.qualified_name) == (path, symbol)), "")
    return f"{_HOW_WORDS.get(how, 'uses')} `{name}`"


def prompt_lines(items: Sequence[ScopeItem]) -> list[str]:
    return [f"also changes: {i.label()} - {i.why}" for i in items]


def markdown(items: Sequence[ScopeItem], symbol: str) -> list[str]:
    """The proposal's scope section: a count of places and files, then one line per place."""
    if not items:
        return []
    files = {i.path for i in items}
    head = (f"**Scope**: this change to `{symbol}` also updates {len(items)} "
            f"place{'s' if len(items) != 1 else ''} in {len(files)} "
            f"file{'s' if len(files) != 1 else ''}:")
    lines = [f"- `{i.path}`" + (f" :: `{i.symbol}`" if i.symbol else " (module level)")
             + (f": {i.why}" if i.why else "") for i in items]
    return [head, "", *lines, ""]


def scope_from_impact(impact: ImpactReport, why: str = "uses the target",
                      *, tests: bool = False, imports: bool = False) -> tuple[ScopeItem, ...]:
    """Every direct use as a scope, in order; with ``tests`` the tests among them, with
    ``imports`` the module-level import lines too (a rename changes them, a new parameter
    does not)."""
    items = [ScopeItem(site.path, site.qualified_name, why) for site in impact.sites
             if site.level == 1 and (tests or not site.test)
             and (imports or site.how != "imports")
             and (site.path, site.qualified_name) != (impact.path, impact.symbol)]
    return from_data(to_data(items))[:MAX_SCOPE]

"""The impact of changing one entity: who calls or refers to it, one more level, and the tests.

Why from the index and not by parsing the repository: the proposal shows the impact before any
draft exists, on repositories of any size. ``refs.py`` keeps, per entity, the names it uses as
written; this module asks for the rows that name the target's last segment (one indexed lookup,
``LIMIT``-bounded), then decides which of them really mean the target by reading the using
file's module-level imports (one indexed lookup per file): ``parse_date`` in the defining file
or in a file that imports it, ``dates.parse_date`` where ``dates`` is the target's module, and
``self.fetch`` inside the target's own class. ``obj.fetch`` on an unknown object is kept as a
*possible* use of a method when its file imports the class's module, and dropped otherwise.
The callers' callers (one more level) cost one such lookup per caller, at most ``MAX_SECOND``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .modules import resolve_import
from .refs import CALL, IMPORT, REF, DefRow, Use
from .refs import definitions as refs_definitions
from .refs import file_imports as refs_file_imports
from .refs import last_segment as refs_last_segment
from .refs import uses_of as refs_uses_of

#: Rows read per looked-up name (a name as common as ``get`` cannot make a query unbounded).
MAX_ROWS = 2000
#: Level-1 callers whose own callers are looked up.
MAX_SECOND = 20

CALLS, REFERENCES, IMPORTS = "calls", "references", "imports"
_HOW = {CALL: CALLS, REF: REFERENCES, IMPORT: IMPORTS}
_TEST_DIRS = {"tests", "test"}


@dataclass(frozen=True)
class ImpactSite:
    """One place that uses the target (``level`` 1) or uses one of those (``level`` 2).

    ``qualified_name`` is empty for a module-level import; ``via`` names the level-1 entity a
    level-2 site uses; ``certain`` is False for ``obj.method`` on an object of unknown type.
    """

    path: str
    qualified_name: str
    kind: str
    start_line: int | None
    end_line: int | None
    how: str
    level: int = 1
    via: str = ""
    certain: bool = True
    test: bool = False

    def where(self) -> str:
        """``path:start-end`` (``path`` alone for a module-level import)."""
        if self.start_line is None:
            return self.path
        end = f"-{self.end_line}" if self.end_line and self.end_line != self.start_line else ""
        return f"{self.path}:{self.start_line}{end}"

    def describe(self) -> str:
        who = f"`{self.qualified_name}`" if self.qualified_name else "the module"
        what = {CALLS: "calls", REFERENCES: "refers to", IMPORTS: "imports"}[self.how]
        target = f"`{self.via}`" if self.level > 1 else "it"
        maybe = " (possibly: the object's type is unknown)" if not self.certain else ""
        return f"{self.where()} {who} {what} {target}{maybe}"


@dataclass(frozen=True)
class Impact:
    """Who depends on ``symbol`` in ``path``; ``found`` False when the index has no such entity.

    ``stale``: the repository was indexed before uses were recorded (re-index it).
    ``truncated``: some lookup hit its row limit, so there may be more uses than listed.
    """

    path: str
    symbol: str
    kind: str = ""
    start_line: int | None = None
    end_line: int | None = None
    sites: tuple[ImpactSite, ...] = ()
    found: bool = True
    stale: bool = False
    truncated: bool = False

    def direct(self) -> list[ImpactSite]:
        """Level-1 uses outside tests."""
        return [s for s in self.sites if s.level == 1 and not s.test]

    def indirect(self) -> list[ImpactSite]:
        return [s for s in self.sites if s.level > 1 and not s.test]

    def tests(self) -> list[ImpactSite]:
        """Test code that uses the target or one of its callers."""
        return [s for s in self.sites if s.test]

    def files(self) -> list[str]:
        """Every file with a site, the target's own first."""
        paths = {s.path for s in self.sites} | {self.path}
        return sorted(paths, key=lambda p: (p != self.path, p))

    def render(self) -> str:
        """The summary a proposal shows: counts, then one line per site, with spans."""
        head = f"`{self.symbol}`" + (f" ({self.path}:{self.start_line}-{self.end_line})"
                                     if self.start_line else f" ({self.path})")
        if not self.found:
            return f"{head}: not in the index (a new entity, or the index is out of date)."
        if self.stale:
            return f"{head}: the index predates caller tracking; re-index the repository."
        direct, indirect, tests = self.direct(), self.indirect(), self.tests()
        if not self.sites:
            return f"{head} has no callers or references in the index."
        lines = [f"{head} is used in {_count(direct, 'place')} in "
                 f"{_count({s.path for s in direct}, 'file')}:"]
        lines += [f"- {s.describe()}" for s in direct]
        if indirect:
            lines.append(f"One more level: {_count(indirect, 'place')} use those:")
            lines += [f"- {s.describe()}" for s in indirect]
        if tests:
            lines.append(f"Tests that exercise them ({_count({s.path for s in tests}, 'file')}):")
            lines += [f"- {s.describe()}" for s in tests]
        if self.truncated:
            lines.append("(more uses exist than the index lookup returned)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "symbol": self.symbol, "kind": self.kind,
                "start_line": self.start_line, "end_line": self.end_line,
                "found": self.found, "stale": self.stale, "truncated": self.truncated,
                "sites": [vars(s).copy() for s in self.sites]}


def _count(items: Sequence[object] | set[str], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


Reader = Callable[[Callable[[Any], Any]], Any]
"""``CodeManifest.read``: runs a function on the manifest's connection under its lock."""


def compute_impact(read: Reader, repo_id: str, path: str, symbol: str, *, stale: bool = False,
                   second_level: bool = True, limit: int = MAX_ROWS) -> Impact:
    """The impact of changing ``symbol`` (a qualified name) defined in ``path``."""
    defs = read(lambda c: refs_definitions(c, repo_id, path))
    target = next((d for d in defs if d.qualified_name == symbol), None)
    if target is None:
        return Impact(path, symbol, found=False, stale=stale)
    first, cut = _sites_of(read, repo_id, target, limit, level=1, via="")
    sites: dict[tuple[str, str], ImpactSite] = {(s.path, s.qualified_name): s for s in first}
    if second_level:
        callers = [s for s in first if s.qualified_name and s.how != IMPORTS and not s.test]
        for caller in callers[:MAX_SECOND]:
            outer = DefRow("", caller.path, caller.qualified_name, caller.kind,
                                caller.start_line, caller.end_line)
            more, more_cut = _sites_of(read, repo_id, outer, limit, level=2,
                                       via=caller.qualified_name)
            cut = cut or more_cut
            for site in more:
                sites.setdefault((site.path, site.qualified_name), site)
        cut = cut or len(callers) > MAX_SECOND
    sites.pop((target.path, target.qualified_name), None)
    ordered = sorted(sites.values(), key=lambda s: (s.level, s.test, s.path, s.start_line or 0))
    return Impact(path, symbol, target.kind, target.start_line, target.end_line,
                  tuple(ordered), stale=stale, truncated=cut)


def _sites_of(read: Reader, repo_id: str, target: DefRow, limit: int, *, level: int,
              via: str) -> tuple[list[ImpactSite], bool]:
    name = refs_last_segment(target.qualified_name)
    member = "." in target.qualified_name
    uses: list[Use] = read(lambda c: refs_uses_of(c, repo_id, name, limit + 1,
                                                      members=member))
    cut = len(uses) > limit
    uses = uses[:limit]
    imports = read(lambda c: refs_file_imports(c, repo_id, [u.ref.path for u in uses]))
    found = []
    for use in uses:
        verdict = Resolver(use.ref.path, imports.get(use.ref.path, []), target).match(use)
        if verdict is None:
            continue
        where = use.where
        found.append(ImpactSite(
            use.ref.path, where.qualified_name if where else "", where.kind if where else "",
            where.start_line if where else None, where.end_line if where else None,
            _HOW[use.ref.how], level, via, verdict, is_test_path(use.ref.path)))
    return found, cut


def is_test_path(path: str) -> bool:
    """A test file by pytest's naming, or any Python file under a ``tests``/``test`` folder."""
    name = posixpath.basename(path)
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return True
    return any(part in _TEST_DIRS for part in path.split("/")[:-1])


def python_module(path: str) -> str:
    """``pkg/mod.py`` -> ``pkg.mod``; ``pkg/__init__.py`` -> ``pkg``; ``src/`` is a root."""
    stem = path.rsplit(".", 1)[0] if path.endswith((".py", ".pyi")) else path
    parts = [p for p in stem.split("/") if p]
    if len(parts) > 1 and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def same_name(a: str, b: str) -> bool:
    """Equal dotted names, or equal up to a package root the imports leave out
    (``app.pkg.mod`` vs ``pkg.mod``); a one-segment name must be equal (``json`` is not
    ``pkg.json``)."""
    if not a or not b or a == b:
        return bool(a) and a == b
    short, long = sorted((a, b), key=len)
    return "." in short and long.endswith("." + short)


@dataclass
class Resolver:
    """Does a name used in ``path`` (with these module-level ``imports``) mean ``target``?"""

    path: str
    imports: Sequence[str]
    target: DefRow
    _bindings: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for spec in self.imports:
            full = resolve_import(spec, self.path)
            if full and not full.endswith("*"):
                self._bindings[full.rsplit(".", 1)[-1]] = full
                self._bindings.setdefault(full.split(".")[0], full.split(".")[0])
        self.module = python_module(self.target.path)
        self.full = f"{self.module}.{self.target.qualified_name}"
        self.owner = self.target.qualified_name.rsplit(".", 1)[0] \
            if "." in self.target.qualified_name else ""

    def match(self, use: Use) -> bool | None:
        """True: a use of the target; False: possibly one; None: something else."""
        ref = use.ref
        if ref.how == IMPORT:
            return True if same_name(resolve_import(ref.target, self.path), self.full) else None
        if self.owner:
            return self._member(ref.target, use.where)
        if "." not in ref.target:
            return True if self.path == self.target.path or self._imports(self.full) else None
        prefix = ref.target.rsplit(".", 1)[0]
        return True if same_name(self._expand(prefix), self.module) else None

    def _member(self, written: str, where: DefRow | None) -> bool | None:
        prefix = written.rsplit(".", 1)[0] if "." in written else ""
        home = self.path == self.target.path
        if prefix in ("self", "cls"):
            inside = where is not None and where.qualified_name.startswith(self.owner + ".")
            return True if home and inside else None
        if prefix and same_name(self._expand(prefix), f"{self.module}.{self.owner}"):
            return True
        if prefix == self.owner and (home or self._imports(f"{self.module}.{self.owner}")):
            return True
        if prefix and (home or self._imports(self.module)
                       or self._imports(f"{self.module}.{self.owner}")):
            return False
        return None

    def _expand(self, dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        base = self._bindings.get(head)
        if base is None:
            return dotted if self.path != self.target.path else f"{self.module}.{dotted}"
        return f"{base}.{rest}" if rest else base

    def _imports(self, full: str) -> bool:
        """The file imports ``full`` (a module, or a name from one)."""
        return any(same_name(bound, full) for bound in self._bindings.values())

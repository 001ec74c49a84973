"""public: a library's public surface follows re-exports, and entities become API references."""

from __future__ import annotations

import pytest

from codemem.memory.extract.python_ts import extract_python_ts
from codemem.memory.sources.api_facts import read_module
from codemem.memory.sources.public import (
    PublicSurface,
    is_private,
    is_public_module,
    public_surface,
    surface_entities,
)

IMPL = '''\
class Engine:
    """Runs jobs."""

    def __init__(self, n):
        self.n = n

    def run(self, job,
            retries=0):  # note
        return job

    def _spin(self):
        pass

    def __repr__(self):
        return ""


def helper():
    pass


def _private():
    pass
'''
FILES = {
    "pkg/__init__.py": ("pkg", "from ._impl import Engine, helper as make\nfrom .sub import *\n"),
    "pkg/_impl.py": ("pkg._impl", IMPL),
    "pkg/sub.py": ("pkg.sub", "def tool(x):\n    return x\n"),
}


@pytest.fixture(scope="module")
def modules():
    return {module: read_module(path, module, text.encode())
            for path, (module, text) in FILES.items()}


def test_names():
    assert is_private("_x") and not is_private("__init__") and not is_private("x")
    assert is_public_module("pkg.sub") and not is_public_module("pkg._impl")


def test_the_surface_follows_re_exports_under_the_callers_name(modules):
    surface = public_surface(modules)
    assert dict(surface.names) == {("pkg._impl", "Engine"): "pkg.Engine",
                                   ("pkg._impl", "helper"): "pkg.make",
                                   ("pkg.sub", "tool"): "pkg.sub.tool"}
    assert surface.public_name("pkg._impl", "Engine.run") == "pkg.Engine.run"
    assert surface.public_name("pkg._impl", "Engine.__init__") == "pkg.Engine.__init__"
    for hidden in ("Engine._spin", "Engine.__repr__", "_private"):
        assert surface.public_name("pkg._impl", hidden) is None
    assert surface.module_hash("pkg._impl") != surface.module_hash("pkg.sub")


def test_include_private_keeps_everything_under_its_own_name(modules):
    surface = public_surface(modules, include_private=True)
    assert surface.public_name("pkg._impl", "_private") == "pkg._impl._private"
    assert surface.public_name("pkg._impl", "Engine") == "pkg.Engine"


def test_entities_become_api_references():
    entities = extract_python_ts("pkg/_impl.py", IMPL)[0]
    surface = PublicSurface({("pkg._impl", "Engine"): "pkg.Engine",
                             ("pkg._impl", "helper"): "pkg.make"})
    kept = dict((name, entity) for entity, name in
                surface_entities(entities, "pkg._impl", surface))
    assert list(kept) == ["pkg.Engine", "pkg.Engine.__init__", "pkg.Engine.run", "pkg.make"]
    assert kept["pkg.Engine"].source == (
        "from pkg import Engine\npkg.Engine  (class, pkg/_impl.py:1)\nclass Engine\n"
        "    Runs jobs.\nMethods:\n- __init__(self, n)\n- run(self, job, retries=0)")
    assert kept["pkg.make"].source == (
        "from pkg import make\npkg.make  (function, pkg/_impl.py:18)\ndef helper()")
    run = kept["pkg.Engine.run"]
    assert run.source.splitlines()[-1] == "def run(self, job, retries=0)"  # one line, no comment
    assert run.content_hash != next(e for e in entities if e.name == "run").content_hash


def test_non_python_files_keep_every_entity():
    entities = extract_python_ts("x.py", "def _a():\n    pass\n")[0]
    assert surface_entities(entities, None, PublicSurface({})) == [(entities[0], "_a")]

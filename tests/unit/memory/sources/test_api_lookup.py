"""Module facts read with ``ast`` and the lookups validation asks: sure answers or None."""

from __future__ import annotations

from codemem.memory.sources.api_facts import read_module
from codemem.memory.sources.api_lookup import ApiTable

from .library import TEXTKIT_V1, facts_of

EXTRA = {
    "shapes/__init__.py": (
        "from .base import *\n"
        "from .circle import Circle as Round\n"
        "from . import circle\n"
        "import os\n"
    ),
    "shapes/base.py": (
        "__all__ = ['Shape', 'area']\n"
        "class Shape:\n"
        "    kind = 'shape'\n"
        "    def __init__(self, name, /, *, color='red'):\n"
        "        self.name = name\n"
        "    def describe(self, verbose=False):\n"
        "        return self.name\n"
        "    @property\n"
        "    def label(self):\n"
        "        return self.name\n"
        "    @classmethod\n"
        "    def unit(cls, size=1):\n"
        "        return cls('unit')\n"
        "    @staticmethod\n"
        "    def sides(n):\n"
        "        return n\n"
        "def area(shape, *args, **options):\n"
        "    return 0\n"
    ),
    "shapes/circle.py": (
        "import functools\n"
        "from dataclasses import dataclass\n"
        "from .base import Shape\n"
        "from typing import overload\n"
        "class Circle(Shape):\n"
        "    def radius(self):\n"
        "        return 1\n"
        "@dataclass\n"
        "class Point:\n"
        "    x: int\n"
        "class Loose(dict):\n"
        "    pass\n"
        "@overload\n"
        "def scale(x: int) -> int: ...\n"
        "@overload\n"
        "def scale(x: str) -> str: ...\n"
        "def scale(x):\n"
        "    return x\n"
        "@functools.wraps(scale)\n"
        "def wrapped(*a):\n"
        "    return a\n"
    ),
    "dyn/__init__.py": "def __getattr__(name):\n    return name\n",
    "newer/__init__.py": "type Alias = int\n",
}


def table() -> ApiTable:
    return facts_of({**TEXTKIT_V1, **EXTRA}, "lib 1.0")


def test_re_exports_through_init_resolve_to_the_real_signature():
    facts = table()
    tokenizer = facts.lookup("textkit.Tokenizer")
    assert tokenizer.exists and tokenizer.kind == "class"
    assert tokenizer.signature == ("textkit.Tokenizer(lowercase: bool = True, *, "
                                   "stopwords=None)")
    assert [p.name for p in tokenizer.params] == ["lowercase", "stopwords"]
    words = facts.lookup("textkit.words")
    assert words.signature == "textkit.words(text: str, limit: int = 0) -> list[str]"
    assert facts.lookup("textkit.Tokenizer.tokens").method_kind == "instance"


def test_a_missing_name_is_sure_and_comes_with_close_real_names():
    facts = table()
    missing = facts.lookup("textkit.word")
    assert not missing.exists and missing.source == "lib 1.0"
    assert missing.suggestions == ("textkit.words(text: str, limit: int = 0) -> list[str]",)
    method = facts.lookup("textkit.Tokenizer.token")
    assert not method.exists
    assert method.suggestions[0].startswith("textkit.Tokenizer.tokens(self, text: str)")


def test_star_imports_inheritance_aliases_and_member_kinds():
    facts = table()
    assert facts.lookup("shapes.area").params[1].kind == "varargs"
    assert facts.lookup("shapes.Round.describe").exists  # alias, then a base class method
    assert facts.lookup("shapes.circle.Circle").signature == (
        "shapes.circle.Circle(name, /, *, color='red')")
    assert facts.lookup("shapes.Shape.label").kind == "attribute"  # a property
    assert facts.lookup("shapes.Shape.kind").kind == "attribute"  # a class attribute
    assert facts.lookup("shapes.Shape.name").kind == "attribute"  # assigned in __init__
    assert facts.lookup("shapes.Shape.unit").method_kind == "class"
    assert facts.lookup("shapes.Shape.sides").method_kind == "static"
    assert facts.lookup("shapes.circle").kind == "module"
    assert not facts.lookup("shapes.Round.diameter").exists


def test_unknowable_answers_are_none_never_a_guess():
    facts = table()
    assert facts.lookup("requests.get") is None  # not an indexed module
    assert facts.lookup("shapes.os.path") is None  # an import from elsewhere
    assert facts.lookup("shapes.circle.Loose.anything") is None  # base class from elsewhere
    assert facts.lookup("dyn.whatever") is None  # module __getattr__
    assert facts.lookup("newer.Alias") is None  # syntax newer than this Python: not parsed
    assert facts.lookup("shapes.Shape.__init__") is None  # dunders are not checked


def test_ambiguous_signatures_keep_existence_but_not_parameters():
    facts = table()
    assert facts.lookup("shapes.circle.Point").params is None  # a dataclass
    assert facts.lookup("shapes.circle.scale").params is None  # overloads
    assert facts.lookup("shapes.circle.wrapped").params is None  # an unknown decorator
    assert facts.lookup("shapes.circle.Loose").params is None  # inherits dict's constructor
    assert facts.lookup("shapes.circle.scale").exists


def test_facts_survive_their_json_round_trip_and_hostile_files_are_unparsed():
    from codemem.memory.sources.api_facts import ModuleFact

    fact = read_module("shapes/base.py", "shapes.base", EXTRA["shapes/base.py"].encode())
    assert ModuleFact.from_dict(fact.to_dict()) == fact
    deep = read_module("x.py", "x", ("x = " + "(" * 5000 + ")" * 5000 + "\n").encode())
    assert not deep.parsed and deep.detail == "skipped:nesting"
    binary = read_module("y.py", "y", b"\x00\xff")
    assert not binary.parsed


def test_a_stub_gives_signatures_and_its_module_keeps_its_names():
    from codemem.memory.sources.api_facts import with_runtime

    stub = read_module("fast/__init__.pyi", "fast",
                       b"def speed(x: int, *, unit: str = ...) -> float: ...\n")
    runtime = read_module("fast/__init__.py", "fast",
                          b"from ._c import speed\nslow = None\n\ndef helper(a, b):\n"
                          b"    return a\n")
    merged = ApiTable({"fast": (with_runtime(stub, runtime), "fast 1.0")})
    assert merged.lookup("fast.speed").signature == (
        "fast.speed(x: int, *, unit: str = ...) -> float")
    assert merged.lookup("fast.helper").exists and merged.lookup("fast.slow").exists
    assert not merged.lookup("fast.spead").exists
    lazy = read_module("fast/__init__.py", "fast", b"def __getattr__(name):\n    return 1\n")
    assert ApiTable({"fast": (with_runtime(stub, lazy), "fast 1.0")}).lookup("fast.x") is None
    newer = read_module("fast/__init__.py", "fast", b"type X = int\n")
    assert ApiTable({"fast": (with_runtime(stub, newer), "fast 1.0")}).lookup("fast.x") is None

"""A Python snippet both engines' tests extract (kept as a string: the Cat imports every .py)."""

SNIPPET = '''\
import os.path as osp, json
from . import sibling
from ..pkg.mod import (
    a as b,
    c,
)
from x import *


@decorate(
    "arg",
)
async def fetch(url, *, retries=3):
    """Fetch a thing.

    More.
    """
    import inner_mod
    data = await client.session.get(url, timeout=retries)
    result = (client).value
    return json.loads(data, strict=True) or None  # trailing comment


class Store(Base, metaclass=Meta):
    'Short.'

    def put(self, key,
            value):
        global counter
        self.items[key] = value
        helper(key)

    @property
    def size(self): return len(self.items)

    @size.setter
    def size(self, v):
        pass


if os.environ.get("X"):
    def maybe():
        def inner():
            return maybe()
        return inner
'''

IMPORTS = ("os.path", "json", ".sibling", "..pkg.mod.a", "..pkg.mod.c", "x.*")

#: (kind, qualified_name, occurrence, start_line, end_line, parent) of each entity, in order.
OUTLINE = [
    ("async_function", "fetch", 0, 10, 21, None),
    ("class", "Store", 0, 24, 38, None),
    ("method", "Store.put", 0, 27, 31, "Store"),
    ("method", "Store.size", 0, 33, 34, "Store"),
    ("method", "Store.size", 1, 36, 38, "Store"),
    ("function", "maybe", 0, 42, 45, None),
    ("nested_function", "maybe.inner", 0, 43, 44, "maybe"),
]


def outline(entities):
    return [(e.kind, e.qualified_name, e.occurrence, e.start_line, e.end_line, e.parent)
            for e in entities]

"""Lazy public names for a package's ``__init__.py`` (PEP 562), shared by the three cores.

Why lazy: the Cat imports every ``.py`` file of the plugin, packages included, so an entry point
must cost nothing and start nothing; the heavy parts (tree-sitter grammars, git backends, the
sandbox) load when a name is first used.

Why resolved on every access, never cached in the package: after the Cat switches the plugin off
and on again it imports every module afresh, but never runs a package's ``__init__`` again
(docs/cat-plugin-api.md, "Toggles, re-uploads and the LLM settings"). A name stored in the
package's globals would stay the previous import's class or function. ``__getattr__`` runs only
for names the package does not hold, and ``importlib.import_module`` returns the module that is
in ``sys.modules`` now, so every ``from ..memory import Name`` gets the current import's object.
For the same reason no public name may be spelled like one of the package's submodules: Python
binds an imported submodule as an attribute of its package, which would hide ``__getattr__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose public names are ``exports``
    (name -> module relative to the package, e.g. ``{"Scratchpad": ".scratchpad"}``).

    ``Any``: each name is a different class, function or constant; the package's
    ``TYPE_CHECKING`` imports give the type checker their real types.
    """
    table = dict(exports)

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    def __dir__() -> list[str]:
        return sorted(table)

    return __getattr__, __dir__
